"""torch.nn modules: constructor signatures, parameter dtypes and what a call returns."""
from __future__ import annotations

import math
from typing import Any, Dict, List, Optional, Tuple

from ..model.values import (
    CallArgs,
    FLOAT32, TOP, InstanceValue, ModuleValue, NoneValue, Origin, ScalarValue, SequenceValue, StringValue,
    TensorValue, Value,
    Category, category,
)
from . import shapes as S
from .layouts import layer_result
from .loss_shapes import SAME_SIZE as SAME_SIZE_LOSSES, unreduced_shape
from .torch_api import LOSS_FUNCTIONALS, Env, dtype_of_arg, loss_dtypes

#: Positional parameter names of the modules whose contracts the engine knows.
SIGNATURES: Dict[str, Tuple[str, ...]] = {
    "Linear": ("in_features", "out_features", "bias"),
    "Bilinear": ("in1_features", "in2_features", "out_features"),
    "Conv1d": ("in_channels", "out_channels", "kernel_size", "stride", "padding", "dilation", "groups", "bias"),
    "Conv2d": ("in_channels", "out_channels", "kernel_size", "stride", "padding", "dilation", "groups", "bias"),
    "Conv3d": ("in_channels", "out_channels", "kernel_size", "stride", "padding", "dilation", "groups", "bias"),
    "ConvTranspose1d": ("in_channels", "out_channels", "kernel_size", "stride", "padding", "output_padding",
                         "groups", "bias", "dilation"),
    "ConvTranspose2d": ("in_channels", "out_channels", "kernel_size", "stride", "padding", "output_padding",
                         "groups", "bias", "dilation"),
    "ConvTranspose3d": ("in_channels", "out_channels", "kernel_size", "stride", "padding", "output_padding",
                         "groups", "bias", "dilation"),
    "Embedding": ("num_embeddings", "embedding_dim", "padding_idx"),
    "EmbeddingBag": ("num_embeddings", "embedding_dim"),
    "LSTM": ("input_size", "hidden_size", "num_layers"),
    "GRU": ("input_size", "hidden_size", "num_layers"),
    "RNN": ("input_size", "hidden_size", "num_layers"),
    "LSTMCell": ("input_size", "hidden_size"),
    "GRUCell": ("input_size", "hidden_size"),
    "RNNCell": ("input_size", "hidden_size"),
    "BatchNorm1d": ("num_features", "eps", "momentum", "affine", "track_running_stats"),
    "BatchNorm2d": ("num_features", "eps", "momentum", "affine", "track_running_stats"),
    "BatchNorm3d": ("num_features", "eps", "momentum", "affine", "track_running_stats"),
    "InstanceNorm1d": ("num_features",), "InstanceNorm2d": ("num_features",),
    "GroupNorm": ("num_groups", "num_channels", "eps", "affine"),
    "LayerNorm": ("normalized_shape", "eps", "elementwise_affine", "bias"),
    "MultiheadAttention": ("embed_dim", "num_heads"),
    "TransformerEncoderLayer": ("d_model", "nhead", "dim_feedforward"),
    "TransformerDecoderLayer": ("d_model", "nhead", "dim_feedforward"),
    "Transformer": ("d_model", "nhead"),
    "TransformerEncoder": ("encoder_layer", "num_layers"),
    "TransformerDecoder": ("decoder_layer", "num_layers"),
    "MaxPool1d": ("kernel_size", "stride", "padding", "dilation", "return_indices", "ceil_mode"),
    "MaxPool2d": ("kernel_size", "stride", "padding", "dilation", "return_indices", "ceil_mode"),
    "MaxPool3d": ("kernel_size", "stride", "padding", "dilation", "return_indices", "ceil_mode"),
    "AvgPool1d": ("kernel_size", "stride", "padding", "ceil_mode"),
    "AvgPool2d": ("kernel_size", "stride", "padding", "ceil_mode"),
    "AvgPool3d": ("kernel_size", "stride", "padding", "ceil_mode"),
    "AdaptiveAvgPool1d": ("output_size",), "AdaptiveAvgPool2d": ("output_size",),
    "AdaptiveMaxPool2d": ("output_size",),
    "Flatten": ("start_dim", "end_dim"),
    "Dropout": ("p",), "Dropout2d": ("p",),
    "Identity": (),
    **{f"{kind}Pad{d}d": ("padding",) for kind in ("Reflection", "Replication", "Zero") for d in (1, 2, 3)},
    **{f"ConstantPad{d}d": ("padding", "value") for d in (1, 2, 3)},
    "Upsample": ("size", "scale_factor", "mode", "align_corners", "recompute_scale_factor"),
    "UpsamplingNearest2d": ("size", "scale_factor"), "UpsamplingBilinear2d": ("size", "scale_factor"),
}
#: Padding layers -> F.pad's mode.
PAD_MODES = {**{f"ReflectionPad{d}d": "reflect" for d in (1, 2, 3)},
             **{f"ReplicationPad{d}d": "replicate" for d in (1, 2, 3)},
             **{f"{kind}Pad{d}d": "constant" for kind in ("Zero", "Constant") for d in (1, 2, 3)}}

#: Modules with float parameters that reject input of another dtype (matmul inside).
PARAMETERISED = {
    "Linear", "Bilinear", "Conv1d", "Conv2d", "Conv3d", "ConvTranspose1d", "ConvTranspose2d",
    "ConvTranspose3d", "LSTM", "GRU", "RNN", "LSTMCell", "GRUCell", "RNNCell",
    "MultiheadAttention", "TransformerEncoderLayer", "TransformerDecoderLayer", "Transformer",
    "TransformerEncoder", "TransformerDecoder",
}
NORMS = {"BatchNorm1d", "BatchNorm2d", "BatchNorm3d", "LayerNorm", "GroupNorm",
         "InstanceNorm1d", "InstanceNorm2d"}
#: Layers that pass their input's dtype and shape through unchanged.
ELEMENTWISE = {"ReLU", "ReLU6", "LeakyReLU", "GELU", "SiLU", "ELU", "Tanh", "Sigmoid",
               "Softmax", "LogSoftmax", "Dropout", "Dropout1d", "Dropout2d", "Dropout3d",
               "Identity", "Hardswish", "Mish", "Softplus", "PReLU", "SELU", "CELU", "Softsign",
               "Hardtanh", "Hardsigmoid", "LogSigmoid", "Tanhshrink", "Softshrink", "Hardshrink",
               "Softmin"}
LOSSES = {"CrossEntropyLoss", "MSELoss", "BCELoss", "BCEWithLogitsLoss", "NLLLoss", "L1Loss",
          "HuberLoss", "SmoothL1Loss", "KLDivLoss", "CosineEmbeddingLoss"}
CONTAINERS = {"Sequential", "ModuleList", "ModuleDict"}
#: Resampling layers -> the F.interpolate mode they run (None: the ``mode=`` they were given).
UPSAMPLING = {"Upsample": None, "UpsamplingNearest2d": "nearest", "UpsamplingBilinear2d": "bilinear"}
#: The ``config`` note of an ``nn.ModuleList`` whose ``children`` are its layers one by one, in
#: order (built from a list of known items, never appended to); otherwise they may only stand
#: for its layers (the element of a list grown in a loop).
EXACT_CHILDREN = "_exact_children"


#: Layer -> its size parameters that make a parameter tensor's dims (a negative one raises
#: "Trying to create tensor with negative dimension"); recurrent layers check theirs first
#: ("... must be greater than zero", a ValueError). Checked in tests/test_negative_layer_size.py.
LAYER_SIZE_PARAMETERS: Dict[str, Tuple[str, ...]] = {
    "Linear": ("in_features", "out_features"), "Bilinear": ("in1_features", "in2_features", "out_features"),
    **{f"Conv{d}d": ("in_channels", "out_channels") for d in (1, 2, 3)},
    **{f"ConvTranspose{d}d": ("in_channels", "out_channels") for d in (1, 2, 3)},
    "Embedding": ("num_embeddings", "embedding_dim"), "EmbeddingBag": ("num_embeddings", "embedding_dim"),
    **{f"BatchNorm{d}d": ("num_features",) for d in (1, 2, 3)},
    **{name: ("input_size", "hidden_size") for name in ("LSTM", "GRU", "RNN", "LSTMCell", "GRUCell", "RNNCell")},
}


def negative_size(name: str, args: CallArgs) -> Optional[Tuple[str, int, Any]]:
    """The first size parameter ``nn.<name>(...)`` certainly gets negative (torch raises: no
    layer), as (parameter, value, its expression or None); None when there is none."""
    order = SIGNATURES.get(name, ())
    for param in LAYER_SIZE_PARAMETERS.get(name, ()):
        position = order.index(param) if param in order else len(args.pos)
        value = args.get(position, param)
        if isinstance(value, ScalarValue) and isinstance(value.const, int) and not isinstance(value.const, bool) \
                and value.const < 0:
            node = args.kw_nodes.get(param) if param in args.kw else (
                args.pos_nodes[position] if position < len(args.pos_nodes) else None)
            return param, value.const, node
    return None


#: ``nn.Embedding.from_pretrained(table)``: a layer whose weight *is* ``table``.
FROM_PRETRAINED = {f"torch.nn.{name}.from_pretrained": name for name in ("Embedding", "EmbeddingBag")}


def from_pretrained(name: str, args: CallArgs, node: Any) -> Value:
    """The layer ``nn.<name>.from_pretrained(embeddings, ...)`` builds: sized by the table,
    its parameters of the table's dtype (a float16 table makes a float16 layer)."""
    table = args.get(0, "embeddings")
    if args.has_star or not isinstance(table, TensorValue) or (table.shape is not None and len(table.shape) != 2):
        return TOP
    # a table of unknown shape (torch.FloatTensor of a computed array) still makes the layer
    config: Dict[str, Any] = {} if table.shape is None else {
        "num_embeddings": table.shape[0], "embedding_dim": table.shape[1]}
    if name == "EmbeddingBag":
        mode = args.kw.get("mode")
        config["mode"] = mode.const if isinstance(mode, StringValue) else ("mean" if mode is None else None)
    module = ModuleValue(f"torch.nn.{name}", config, table.dtypes, Origin(node, f"nn.{name}.from_pretrained(...)"),
                         device=table.device)
    module.dtype_origin = table.origin or module.origin  # the parameters' dtype is the table's
    return module


def has_no_parameters(name: str) -> bool:
    """``nn.<name>`` owns no parameters (activations, dropout, losses, pooling, padding, Flatten);
    PReLU, elementwise as it is, learns its slope."""
    return (name in ELEMENTWISE and name != "PReLU") or name in LOSSES or name == "Flatten" or \
        name.startswith(("MaxPool", "AvgPool", "Adaptive")) or name in PAD_MODES or name in UPSAMPLING
KNOWN = set(SIGNATURES) | ELEMENTWISE | LOSSES | CONTAINERS | NORMS
#: Losses whose first argument is a per-class ``weight`` that must have the input's dtype.
WEIGHTED_LOSSES = frozenset({"CrossEntropyLoss", "NLLLoss"})
#: Tensors a layer's class registers as buffers under these names (``_WeightedLoss`` registers
#: ``weight``, a tensor or None): module casts (``.half()``, ``.to(dtype)``, of the layer or of
#: a model owning it) convert them when floating, as they do parameters.
TENSOR_BUFFERS = {name: ("weight",) for name in WEIGHTED_LOSSES}


def construct(name: str, args: CallArgs, node: Any) -> Value:
    """``nn.<name>(...)``: a ModuleValue with its configuration, or TOP if unknown."""
    if name not in KNOWN:
        return TOP
    origin = Origin(node, f"nn.{name}(...)")
    if name == "Sequential":
        if args.kw or (args.has_star and not (isinstance(args.star, SequenceValue) and args.star.items is not None)):
            return TOP
        # nn.Sequential(*layers) of a list whose layers are known one by one
        children = tuple(args.pos) if not args.has_star else args.star.items
        return ModuleValue("torch.nn.Sequential", {}, _children_dtype(children), origin, children)
    if name == "ModuleList":
        modules = args.get(0, "modules")
        children: Tuple[Value, ...] = ()
        exact = isinstance(modules, SequenceValue) and not args.has_star and modules.items is not None
        if isinstance(modules, SequenceValue) and not args.has_star:
            # a list grown by append: its element stands for every layer
            children = modules.items if modules.items is not None else (
                (modules.element,) if modules.element is not TOP else ())
        return ModuleValue("torch.nn.ModuleList", {EXACT_CHILDREN: True} if exact else {},
                           _children_dtype(children) if children else None, origin, children)
    config: Dict[str, Any] = {}
    if not args.has_star:
        names = SIGNATURES.get(name, ())
        for i, param in enumerate(names):
            if args.has(i, param):
                given = args.get(i, param)
                if name in UPSAMPLING and isinstance(given, NoneValue):
                    continue  # size=None / scale_factor=None: not given
                config[param] = given.const if isinstance(given, StringValue) else _const(given)
        for key in ("batch_first", "stride", "padding", "dilation", "reduction", "bias",
                    "kernel_size", "start_dim", "end_dim", "groups", "num_layers",
                    "bidirectional", "dim", "ceil_mode", "proj_size", "return_indices",
                    "output_padding"):
            if key in args.kw:
                given = args.kw[key]
                # reduction="none" is a string: kept, the loss's shape depends on it
                config[key] = given.const if key == "reduction" and isinstance(given, StringValue) else _const(given)
    dtype = FLOAT32
    if "dtype" in args.kw:
        d = dtype_of_arg(args.kw["dtype"])
        dtype = d  # type: ignore[assignment]
    params = None if dtype is None else frozenset({dtype})
    if name in ELEMENTWISE or name in LOSSES or name.startswith(("MaxPool", "AvgPool", "Adaptive")) \
            or name == "Flatten" or name in PAD_MODES or name in UPSAMPLING:
        params = None  # no parameters: dtype-polymorphic
    module = ModuleValue(f"torch.nn.{name}", config, params, origin)
    weight = args.get(0, "weight") if name in WEIGHTED_LOSSES and not args.has_star else None
    if isinstance(weight, TensorValue):
        module.stored["weight"] = weight  # CrossEntropyLoss(weight=w).weight is w (a buffer)
    return module


def constant(value: Value) -> Any:
    """A number's or a tuple of numbers' Python constant (None where not constant)."""
    return _const(value)


def _const(value: Value) -> Any:
    if isinstance(value, ScalarValue):
        return value.const
    if isinstance(value, SequenceValue) and value.items is not None:
        items = tuple(_const(v) for v in value.items)
        return items
    return None


#: An ``nn.Sequential``'s config note: its layers' names in order (absent: "0", "1", ... as the
#: positional constructor names them; None: not known, and so neither are its layers).
CHILD_NAMES = "_child_names"


def sequential_added(module: ModuleValue, name: Optional[str], child: Value, certain: bool) -> None:
    """``seq.add_module(name, layer)`` (``seq.append(layer)`` names it ``str(len(seq))``) on an
    ``nn.Sequential``: a new name goes last, an existing one is replaced where it stands (the
    order of torch's ``_modules`` dict). An unknown name, a change that may not happen (on a
    branch), or layers already unknown: its layers are not known any more."""
    names = module.config.get(CHILD_NAMES, tuple(str(i) for i in range(len(module.children))))
    if not certain or name is None or names is None:
        module.config[CHILD_NAMES] = None
        module.children = (TOP,)  # a layer nobody knows: calling it or walking it gives unknown
        module.param_dtypes = None
        return
    children = list(module.children)
    if name in names:
        children[names.index(name)] = child
    else:
        children.append(child)
        names = tuple(names) + (name,)
    module.config[CHILD_NAMES] = tuple(names)
    module.children = tuple(children)
    module.param_dtypes = _children_dtype(module.children) if all(
        isinstance(c, ModuleValue) for c in module.children) else None


def layer_replaced(module: ModuleValue, indices: List[Value], layer: Value, certain: bool) -> bool:
    """``seq[i] = layer`` on an ``nn.Sequential`` or ``nn.ModuleList`` known layer by layer, at a
    known int index in range (negative ones from the end), where the store surely happens: the
    layer at ``i`` replaced in place (True). False when not followed (the caller forgets them)."""
    children = exact_children(module)
    position = indices[0].const if len(indices) == 1 and isinstance(indices[0], ScalarValue) \
        and indices[0].pytype == "int" else None
    if not certain or children is None or not isinstance(position, int) or isinstance(position, bool) \
            or not -len(children) <= position < len(children) \
            or not isinstance(layer, (ModuleValue, InstanceValue)):
        return False
    replaced = list(children)
    replaced[position] = layer
    module.children = tuple(replaced)
    module.param_dtypes = _children_dtype(module.children) if all(
        isinstance(c, ModuleValue) for c in module.children) else None
    return True


def layer_at(module: ModuleValue, index: Value) -> Value:
    """``seq[i]`` of an ``nn.Sequential`` (or an ``nn.ModuleList`` whose layers are known one by
    one) at a known int index, negative ones counted from the end as torch does: that layer;
    TOP when the layers or the index are not known (an index out of range raises IndexError,
    which is no layer either)."""
    position = index.const if isinstance(index, ScalarValue) and index.pytype == "int" else None
    children = exact_children(module)
    # a layer of the file's own class (``ModuleList([Block(c)])[0]``) is a layer as much as nn.Linear
    if children is None or not isinstance(position, int) \
            or not all(isinstance(c, (ModuleValue, InstanceValue)) for c in children) \
            or not -len(children) <= position < len(children):
        return TOP
    return children[position]


def exact_children(module: ModuleValue) -> Optional[Tuple[Value, ...]]:
    """The layers of an ``nn.Sequential`` or ``nn.ModuleList`` one by one, in order, when each
    is known (what ``for layer in seq`` visits); None otherwise."""
    exact = module.short_name == "Sequential" and module.config.get(CHILD_NAMES, ()) is not None or (
        module.short_name == "ModuleList" and module.config.get(EXACT_CHILDREN))
    if not exact or any(child is TOP for child in module.children):
        return None
    return tuple(module.children)


def child_stored(module: ModuleValue, name: str, value: Value, certain: bool) -> None:
    """``setattr(seq, name, layer)`` / ``seq.name = layer`` on a container: torch's
    ``Module.__setattr__`` registers a module value as the child ``name``, so an
    ``nn.Sequential`` gets it as ``add_module`` would (an existing name replaced where it
    stands, a new one run last). What may be a module (an instance of a class of the file, an
    unknown value) on a ModuleList or ModuleDict, or under a new name: layers not followed."""
    if module.short_name not in CONTAINERS:
        return
    names = module.config.get(CHILD_NAMES, tuple(str(i) for i in range(len(module.children))))
    if isinstance(value, ModuleValue) and module.short_name == "Sequential" or (
            names is not None and name in names and module.short_name == "Sequential" and value is not TOP):
        sequential_added(module, name, value, certain)
    elif isinstance(value, (ModuleValue, InstanceValue)) or value is TOP:
        layers_unknown(module)


def layers_unknown(module: ModuleValue) -> None:
    """A container changed in a way not followed (``seq[i] = layer``, ``del seq[i]``): its
    layers are not known any more."""
    if module.short_name == "Sequential":
        sequential_added(module, None, TOP, certain=False)
    elif module.short_name == "ModuleList":
        module.config.pop(EXACT_CHILDREN, None)
        module.children = module.children + (TOP,)
        module.param_dtypes = None


def _children_dtype(children: Tuple[Value, ...]):
    dtypes = {c.param_dtypes for c in children if isinstance(c, ModuleValue) and c.param_dtypes}
    return dtypes.pop() if len(dtypes) == 1 else None


def _pair(value: Any, n: int, default: int) -> Optional[Tuple[int, ...]]:
    if value is None:
        return (default,) * n
    if isinstance(value, int):
        return (value,) * n
    if isinstance(value, tuple) and len(value) == n and all(isinstance(v, int) for v in value):
        return value
    return None


def conv_settings(module: ModuleValue) -> Optional[Dict[str, Any]]:
    """What a ``Conv1d``/``2d``/``3d`` (or a ``ConvTranspose``) layer holds as attributes, as
    torch's ``_ConvNd`` stores them: ``kernel_size``, ``stride``, ``dilation``,
    ``output_padding`` and ``padding`` as tuples of ``rank`` ints (a padding string kept as
    given), ``groups`` an int. None for another layer; a setting not constant is left out."""
    rank = spatial_rank(module)
    if not rank or not module.short_name.startswith("Conv"):
        return None
    cfg = module.config
    out: Dict[str, Any] = {}
    for key, default in (("kernel_size", None), ("stride", 1), ("dilation", 1), ("output_padding", 0),
                         ("padding", 0), ("groups", 1)):
        value = cfg.get(key, default) if key in cfg or default is not None else None
        if key == "groups" or key == "padding" and isinstance(value, str):
            out[key] = value if isinstance(value, (int, str)) and not isinstance(value, bool) else None
        else:
            out[key] = _pair(value, rank, 0) if value is not None else None
        if out[key] is None:
            del out[key]
    return out


def conv_weight_shape(module: ModuleValue) -> Optional[Tuple[int, ...]]:
    """``conv.weight``'s shape: (out_channels, in_channels // groups, *kernel) for a
    convolution, (in_channels, out_channels // groups, *kernel) for a transposed one."""
    settings = conv_settings(module)
    cfg = module.config
    if settings is None or "kernel_size" not in settings or not isinstance(settings.get("groups"), int):
        return None
    cin, cout, groups = cfg.get("in_channels"), cfg.get("out_channels"), settings["groups"]
    if not all(isinstance(c, int) and not isinstance(c, bool) and c > 0 for c in (cin, cout)) or groups <= 0 \
            or cin % groups or cout % groups:
        return None
    first, second = (cin, cout) if module.short_name.startswith("ConvTranspose") else (cout, cin)
    return (first, second // groups) + tuple(settings["kernel_size"])


def spatial_rank(module: ModuleValue) -> int:
    name = module.short_name
    return int(name[-2]) if name[-2:-1].isdigit() and name.endswith("d") else 0


def call_module(module: ModuleValue, args: CallArgs, node: Any) -> Value:
    """The output of ``module(x)``: dtype from the parameters, shape from the contract, and
    strides where torch's rule for the layer is known (``knowledge/layouts.py``)."""
    result = _call_module(module, args, node)
    if module.short_name == "Sequential" or args.has_star:
        return result  # each layer of it gave its own
    return layer_result(module.short_name, args.get(0, "input"), result, node, module.config)


def _call_module(module: ModuleValue, args: CallArgs, node: Any) -> Value:
    name = module.short_name
    x = args.get(0, "input")
    if name == "Sequential":
        value: Value = x
        for child in module.children:
            if not isinstance(child, ModuleValue) or not isinstance(value, TensorValue):
                return TOP
            value = call_module(child, CallArgs([value], {}, [None], {}), node)
        return value
    if not isinstance(x, TensorValue):
        return TOP
    origin = Origin(node, f"output of {name}", None)
    if name in ELEMENTWISE:
        if name == "Sigmoid" or name == "Tanh":
            dtypes = None if x.dtypes is None else frozenset(
                FLOAT32 if category(d) < Category.FLOAT else d for d in x.dtypes)
            return TensorValue(dtypes, x.shape, x.origin, x.device)
        return x
    out_dtypes = module.param_dtypes if module.param_dtypes is not None else x.dtypes
    out_origin = module.dtype_origin if module.param_dtypes is not None else x.origin
    if name in NORMS:
        # Norm layers compute in the input's dtype: float16/bfloat16 input into float32
        # parameters gives float16/bfloat16 (other mixes raise).
        out_dtypes, out_origin = x.dtypes, x.origin
    shape = output_shape(module, x.shape)
    if name.startswith("ConvTranspose") and (len(args.pos) > 1 or "output_size" in args.kw or args.has_star):
        shape = None  # up(x, output_size=...) picks among several valid sizes
    if name in LOSSES:
        reduction = module.config.get("reduction", "mean")
        shape = () if reduction in ("mean", "sum") else None
        functional = LOSS_FUNCTIONALS.get(name)
        if reduction == "none" and functional is not None and functional not in SAME_SIZE_LOSSES \
                and not args.has_star:  # a BCE layer's weight / pos_weight (not recorded) may widen it
            shape = unreduced_shape(functional, x, args.get(1, "target"))
        dtypes = loss_dtypes(functional, x, args.get(1, "target"), Env(FLOAT32)) if functional else None
        return TensorValue(dtypes, shape, origin, x.device)
    if name in ("LSTM", "GRU", "RNN"):
        output = TensorValue(out_dtypes, shape, out_origin, x.device)
        given = _given_states(name, args)
        h_n = TensorValue(out_dtypes, given[0] or _recurrent_state_shape(module.config, x.shape, "h"), out_origin,
                          x.device)
        if name != "LSTM":
            return SequenceValue("tuple", TOP, (output, h_n))
        c_n = TensorValue(out_dtypes, given[1] or _recurrent_state_shape(module.config, x.shape, "c"), out_origin,
                          x.device)
        return SequenceValue("tuple", TOP, (output, SequenceValue("tuple", TOP, (h_n, c_n))))
    if name == "LSTMCell":  # (h', c'), both (batch, hidden_size)
        state = TensorValue(out_dtypes, shape, out_origin, x.device)
        return SequenceValue("tuple", TOP, (state, state))
    if name == "Embedding":
        return TensorValue(out_dtypes, shape, out_origin, x.device)
    if name == "MultiheadAttention":
        weights = _attention_weights(module, x, args, out_dtypes, out_origin)
        return SequenceValue("tuple", TOP, (TensorValue(out_dtypes, x.shape, out_origin, x.device), weights))
    if name in UPSAMPLING:
        cfg = module.config
        mode = UPSAMPLING[name] or cfg.get("mode", "nearest")
        size, scale = cfg.get("size"), cfg.get("scale_factor")
        keys = ("size", "scale_factor")
        if all(k in cfg for k in keys) or any(k in cfg and cfg[k] is None for k in keys):
            size = scale = None  # both given (torch raises) or one not constant: sizes unknown
        return interpolated(x, size, scale, mode if isinstance(mode, str) else None)
    return TensorValue(out_dtypes, shape, out_origin, x.device)


def _attention_weights(module: ModuleValue, query: TensorValue, args: CallArgs, dtypes: Any,
                       origin: Optional[Origin]) -> Value:
    """The attention weights ``nn.MultiheadAttention`` returns second: None with
    ``need_weights=False``; averaged over heads (the default) ``(N, L, S)``, else
    ``(N, heads, L, S)``; unbatched ``(L, S)`` / ``(heads, L, S)``. L is the query's length, S
    the key's, N the batch (dim 0 with ``batch_first=True``, dim 1 without)."""
    # forward(query, key, value, key_padding_mask, need_weights, attn_mask, average_attn_weights)
    need = args.get(4, "need_weights") if args.has(4, "need_weights") else ScalarValue("bool", True)
    average = args.get(6, "average_attn_weights") if args.has(6, "average_attn_weights") \
        else ScalarValue("bool", True)
    if isinstance(need, ScalarValue) and need.const is False:
        return NoneValue()
    key = args.get(1, "key")
    batch_first = module.config.get("batch_first", False)
    heads = module.config.get("num_heads")
    if not (isinstance(need, ScalarValue) and need.const is True and isinstance(average, ScalarValue)
            and isinstance(average.const, bool) and isinstance(key, TensorValue) and isinstance(batch_first, bool)):
        return TOP
    q, k = query.shape, key.shape
    if q is None or k is None or len(q) != len(k) or len(q) not in (2, 3):
        return TOP
    if len(q) == 2:
        lead: Tuple[Any, ...] = ()
        length, source = q[0], k[0]
    else:
        lead = (q[0],) if batch_first else (q[1],)
        length, source = (q[1], k[1]) if batch_first else (q[0], k[0])
    per_head = () if average.const else (heads if isinstance(heads, int) else None,)
    return TensorValue(dtypes, lead + per_head + (length, source), origin, query.device)


#: ``F.interpolate`` modes that take only inputs of one rank (else torch raises).
MODE_RANKS = {"linear": 3, "bilinear": 4, "bicubic": 4, "trilinear": 5}


def interpolated(x: TensorValue, size: Any, scale: Any, mode: Optional[str]) -> Value:
    """``F.interpolate(x, size, scale_factor, mode)`` (and the ``nn.Upsample`` layers) of a
    floating (N, C, *spatial) tensor: the same dtype, (N, C) and each spatial size ``size``
    gives, or ``floor(size * scale_factor)`` (torch's rule, in doubles). ``size``/``scale``:
    Python constants (None when not given; a tuple item None when not constant); ``mode`` None
    when unknown. TOP for a non-floating input."""
    if x.dtype is None or category(x.dtype) < Category.FLOAT:
        return TOP
    shape = x.shape
    if mode is None or shape is None or not 3 <= len(shape) <= 5 or MODE_RANKS.get(mode, len(shape)) != len(shape):
        return TensorValue(x.dtypes, None, x.origin, x.device, x.requires_grad)
    spatial = len(shape) - 2

    def per_dim(value: Any, kinds: Tuple[type, ...]) -> Optional[Tuple[Any, ...]]:
        items = value if isinstance(value, tuple) else (value,) * spatial
        if len(items) != spatial:
            return None
        return tuple(v if isinstance(v, kinds) and not isinstance(v, bool) else None for v in items)

    sizes: Any = (None,) * spatial
    if size is not None and scale is None:
        sizes = per_dim(size, (int,)) or sizes
    elif scale is not None and size is None:
        scales = per_dim(scale, (int, float))
        if scales is not None:
            sizes = tuple(int(math.floor(float(d) * f)) if isinstance(d, int) and f is not None and f > 0 else None
                          for d, f in zip(shape[2:], scales))
    sizes = tuple(d if d is None or d > 0 else None for d in sizes)  # torch refuses an empty output
    return TensorValue(x.dtypes, tuple(shape[:2]) + tuple(sizes), x.origin, x.device, x.requires_grad)


def _refuses(module: ModuleValue, shape: Any) -> bool:
    """Whether the layer certainly refuses an input of ``shape``: its known feature or channel
    size differs from the one the layer was built for (the shape rules report that call)."""
    name, cfg = module.short_name, module.config

    def differ(expected: Any, got: Any) -> bool:
        return isinstance(expected, int) and isinstance(got, int) and not isinstance(got, bool) and expected != got

    if name == "Linear" or name in ("LSTM", "GRU", "RNN", "LSTMCell", "GRUCell", "RNNCell"):
        key = "in_features" if name == "Linear" else "input_size"
        return len(shape) >= (1 if name == "Linear" or name.endswith("Cell") else 2) and \
            differ(cfg.get(key), shape[-1])
    rank = spatial_rank(module)
    if rank and name.startswith("Conv") and not name.startswith("ConvTranspose") and \
            len(shape) in (rank + 1, rank + 2):
        return differ(cfg.get("in_channels"), shape[-rank - 1])
    if name.startswith("BatchNorm") and len(shape) >= 2:
        return differ(cfg.get("num_features"), shape[1])
    return False


def _given_states(name: str, args: CallArgs) -> Tuple[Any, Any]:
    """The shapes of the initial states a recurrent layer was given, when fully known: the
    final states have those shapes (torch refuses any other, TTL530), so a state carried from
    call to call (``out, self.hidden = self.lstm(x, self.hidden)``) keeps its own shape even
    where the call that would change it raises."""
    hx = args.get(1, "hx") if args.has(1, "hx") and not args.has_star else None
    states = list(hx.items) if name == "LSTM" and isinstance(hx, SequenceValue) and hx.items is not None \
        and len(hx.items) == 2 else [hx, None] if name != "LSTM" else [None, None]

    def known(state: Any) -> Any:
        shape = state.shape if isinstance(state, TensorValue) else None
        return tuple(shape) if shape is not None and all(isinstance(d, int) for d in shape) else None

    return known(states[0]), known(states[1])


def output_shape(module: ModuleValue, shape: Any) -> Any:
    """Shape arithmetic of the common layers; None when unknown.

    A config key that is present with the value None was given but is not a constant
    (``stride=s``): the shape is then unknown, never computed from the default.
    """
    if shape is None or _refuses(module, shape):
        return None  # torch raises: there is no output for later lines to read
    name, cfg = module.short_name, module.config
    if name == "Linear":
        return tuple(shape[:-1]) + (cfg.get("out_features"),) if shape else None
    if name == "Embedding":
        return tuple(shape) + (cfg.get("embedding_dim"),)
    if name == "EmbeddingBag":
        # a 2-D input is one bag per row (no offsets); a 1-D one needs the offsets given
        return (shape[0], cfg.get("embedding_dim")) if len(shape) == 2 else None
    if name in NORMS or name in ELEMENTWISE:
        return shape
    if name in PAD_MODES:
        return _pad_output_shape(name, cfg.get("padding"), shape)
    if name == "Flatten":
        start = cfg.get("start_dim", 1)
        end = cfg.get("end_dim", -1)
        if not isinstance(start, int) or not isinstance(end, int):
            return None
        return S.flatten_shape(shape, start, end)
    if name in ("LSTM", "GRU", "RNN"):
        return _recurrent_output_shape(cfg, shape)
    if name in ("LSTMCell", "GRUCell", "RNNCell"):  # the next state: (batch, hidden_size) or (hidden_size,)
        return recurrent_state_shape(module, shape, "h")
    if name in ("TransformerEncoderLayer", "TransformerEncoder", "TransformerDecoderLayer", "TransformerDecoder"):
        # the input's shape, (S, E) or (N, S, E) / (S, N, E); a d_model other than E raises
        d_model = cfg.get("d_model")
        if len(shape) not in (2, 3) or (isinstance(d_model, int) and isinstance(shape[-1], int)
                                        and d_model != shape[-1]):
            return None
        return shape
    rank = spatial_rank(module)
    is_conv = name.startswith("Conv") and not name.startswith("ConvTranspose")
    if rank and (is_conv or name.startswith(("MaxPool", "AvgPool"))):
        return _window_output_shape(name, cfg, rank, shape, is_conv)
    if rank and name.startswith("ConvTranspose"):
        return _transposed_output_shape(cfg, rank, shape)
    if name.startswith("AdaptiveAvgPool") or name.startswith("AdaptiveMaxPool"):
        r = spatial_rank(module)
        out = _pair(cfg.get("output_size"), r, 1) if cfg.get("output_size") is not None else None
        if out is None or len(shape) < r + 1:
            return None
        return tuple(shape[:-r]) + out
    return None


def _pad_output_shape(name: str, padding: Any, shape: Any) -> Any:
    """``nn.ReflectionPad2d(p)`` and the other padding layers: an int pads both sides of each
    of the last ``d`` dims, a tuple gives (left, right, top, bottom, ...) as F.pad's pairs; the
    input has ``d + 1`` or ``d + 2`` dims (else torch raises)."""
    rank = int(name[-2])
    if len(shape) not in (rank + 1, rank + 2):
        return None
    if isinstance(padding, int) and not isinstance(padding, bool):
        pads: Any = (padding,) * (2 * rank)
    elif isinstance(padding, tuple) and len(padding) == 2 * rank:
        pads = padding
    else:
        return None
    return S.padded_shape(shape, pads, PAD_MODES[name])


def _given_unknown(cfg: Dict[str, Any], *keys: str) -> bool:
    return any(key in cfg and cfg[key] is None for key in keys)


def window_geometry(module: ModuleValue) -> Optional[Tuple[Tuple[int, ...], Tuple[int, ...], Any,
                                                          Tuple[int, ...], bool]]:
    """(kernel, stride, padding, dilation, ceil_mode) per spatial dim of a conv or pooling
    layer with constant settings; padding is None for ``padding="same"``. None if unknown."""
    name, cfg = module.short_name, module.config
    rank = spatial_rank(module)
    is_conv = name.startswith("Conv") and not name.startswith("ConvTranspose")
    if not rank or not (is_conv or name.startswith(("MaxPool", "AvgPool"))):
        return None
    if _given_unknown(cfg, "kernel_size", "stride", "padding", "dilation", "ceil_mode"):
        return None
    if cfg.get("ceil_mode") not in (None, False, True) or cfg.get("kernel_size") is None:
        return None
    kernel = _pair(cfg.get("kernel_size"), rank, 1)
    if kernel is None:
        return None
    stride = _pair(cfg.get("stride"), rank, 1) if cfg.get("stride") is not None else (
        (1,) * rank if is_conv else kernel)
    padding: Any = cfg.get("padding", 0)
    if padding == "same" and is_conv:
        padding = None
    elif padding == "valid" and is_conv:
        padding = (0,) * rank
    elif isinstance(padding, str):
        return None
    else:
        padding = _pair(padding, rank, 0)
        if padding is None:
            return None
    dilation = _pair(cfg.get("dilation"), rank, 1)
    if stride is None or dilation is None:
        return None
    return kernel, stride, padding, dilation, bool(cfg.get("ceil_mode")) and not is_conv


def _window_output_shape(name: str, cfg: Dict[str, Any], rank: int, shape: Any, is_conv: bool) -> Any:
    """Conv / pooling output: channels from the layer, each spatial size from the window."""
    if len(shape) not in (rank + 1, rank + 2):
        return None
    if _given_unknown(cfg, "out_channels") or cfg.get("return_indices") not in (None, False):
        return None
    geometry = window_geometry(ModuleValue(f"torch.nn.{name}", cfg, None))
    if geometry is None:
        return None
    kernel, stride, padding, dilation, ceil_mode = geometry
    if padding is None:
        spatial = tuple(shape[-rank:])  # "same"
    else:
        spatial = tuple(S.conv_out(shape[-rank + i], kernel[i], stride[i], padding[i], dilation[i], ceil_mode)
                        for i in range(rank))
    channels = cfg.get("out_channels") if is_conv else shape[-rank - 1]
    return tuple(shape[:-rank - 1]) + (channels,) + spatial


def _recurrent_output_shape(cfg: Dict[str, Any], shape: Any) -> Any:
    """The first output of LSTM/GRU/RNN: (..., hidden_size * directions) or proj_size."""
    if len(shape) not in (2, 3) or _given_unknown(cfg, "bidirectional", "proj_size", "hidden_size"):
        return None
    width = cfg.get("proj_size") or cfg.get("hidden_size")
    if not isinstance(width, int):
        return tuple(shape[:-1]) + (None,)
    return tuple(shape[:-1]) + (width * (2 if cfg.get("bidirectional") else 1),)


def _recurrent_state_shape(cfg: Dict[str, Any], shape: Any, which: str) -> Any:
    """The final hidden (``h``) or cell (``c``) state of LSTM/GRU/RNN: (directions *
    num_layers, batch, width), without the batch dim for an unbatched input; ``h`` is
    proj_size wide when the LSTM projects, ``c`` always hidden_size."""
    if shape is None or len(shape) not in (2, 3) or _given_unknown(
            cfg, "bidirectional", "proj_size", "hidden_size", "num_layers", "batch_first"):
        return None
    layers = cfg.get("num_layers", 1)
    width = cfg.get("hidden_size") if which == "c" else (cfg.get("proj_size") or cfg.get("hidden_size"))
    if not isinstance(layers, int) or not isinstance(width, int):
        return None
    first = layers * (2 if cfg.get("bidirectional") else 1)
    if len(shape) == 2:
        return (first, width)
    batch = shape[0] if cfg.get("batch_first") else shape[1]
    return (first, batch, width)


def recurrent_state_shape(module: ModuleValue, shape: Any, which: str) -> Optional[Tuple[Any, ...]]:
    """The shape torch requires of the initial hidden (``h``) or cell (``c``) state given to a
    recurrent layer along with an input of ``shape``: LSTM/GRU/RNN check ``(directions *
    num_layers, batch, width)`` (``(directions * num_layers, width)`` for an unbatched input;
    ``batch`` is dim 0 with ``batch_first``, else dim 1), the cells ``(batch, hidden_size)``.
    None when a setting or the input's rank is unknown."""
    name, cfg = module.short_name, module.config
    if name in ("LSTM", "GRU", "RNN"):
        state = _recurrent_state_shape(cfg, shape, which)
        return tuple(state) if state is not None else None
    if name in ("LSTMCell", "GRUCell", "RNNCell"):
        width = cfg.get("hidden_size")
        if shape is None or len(shape) not in (1, 2) or not isinstance(width, int):
            return None
        return (width,) if len(shape) == 1 else (shape[0], width)
    return None


def _transposed_output_shape(cfg: Dict[str, Any], rank: int, shape: Any) -> Any:
    """ConvTranspose: each size becomes (L - 1) * stride - 2 * padding
    + dilation * (kernel - 1) + output_padding + 1 (no ``output_size=`` at call time)."""
    if len(shape) not in (rank + 1, rank + 2):
        return None
    if _given_unknown(cfg, "kernel_size", "stride", "padding", "dilation", "output_padding", "out_channels"):
        return None
    if cfg.get("kernel_size") is None:
        return None
    kernel = _pair(cfg.get("kernel_size"), rank, 1)
    stride = _pair(cfg.get("stride"), rank, 1)
    padding = _pair(cfg.get("padding"), rank, 0)
    output_padding = _pair(cfg.get("output_padding"), rank, 0)
    dilation = _pair(cfg.get("dilation"), rank, 1)
    if None in (kernel, stride, padding, output_padding, dilation):
        return None
    spatial = []
    for i in range(rank):
        size = shape[-rank + i]
        if not isinstance(size, int):
            spatial.append(None)
            continue
        out = ((size - 1) * stride[i] - 2 * padding[i] + dilation[i] * (kernel[i] - 1)  # type: ignore[index]
               + output_padding[i] + 1)  # type: ignore[index]
        spatial.append(out if out > 0 else None)
    return tuple(shape[:-rank - 1]) + (cfg.get("out_channels"),) + tuple(spatial)
