"""``torch.nn.functional`` calls and ``nn.Parameter``: what they return.

Kept apart from torch_api.py, whose table covers the ``torch.*`` namespace and tensor
methods; the functional layer reuses its helpers (``tensor_method``, ``loss_dtypes``).
"""
from __future__ import annotations

from typing import Any

from .loss_shapes import unreduced_shape
from ..model.values import (
    CallArgs,
    INT64, TOP, ModuleValue, NoneValue, Origin, ScalarValue, SequenceValue, StringValue, TensorValue, Value,
)
from . import nn_modules as NN
from . import sequence_ops as SQ
from . import shapes as S
from .torch_api import Env, loss_dtypes, tensor_method

FUNCTIONAL_PREFIX = "torch.nn.functional."
#: The spellings of ``nn.Parameter``.
PARAMETER_CLASSES = ("torch.nn.parameter.Parameter", "torch.nn.Parameter")


#: Pooling functions -> (the module that computes the same, how many positional arguments
#: after the input mean what they mean for the module).
_POOLS = {
    **{f"max_pool{d}d": (f"MaxPool{d}d", 4) for d in (1, 2, 3)},  # kernel, stride, padding, dilation
    **{f"avg_pool{d}d": (f"AvgPool{d}d", 3) for d in (1, 2, 3)},  # kernel, stride, padding
    **{f"adaptive_{kind}_pool{d}d": (f"Adaptive{kind.capitalize()}Pool{d}d", 1)
       for kind in ("avg", "max") for d in (1, 2, 3)},  # output_size
}


#: Elementwise activations and normalisations that keep their floating input's dtype and shape
#: (rows in tests/test_knowledge_torch.py).
_SAME_SHAPE_ACTIVATIONS = ("softplus", "mish", "hardswish", "hardsigmoid", "selu", "celu", "softsign", "logsigmoid",
                           "tanhshrink", "softshrink", "hardshrink", "dropout1d", "dropout2d", "dropout3d",
                           "alpha_dropout", "group_norm", "instance_norm", "local_response_norm")


def functional(name: str, args: CallArgs, node: Any, env: Env) -> Value:
    """torch.nn.functional.<name>."""
    x = args.get(0, "input")
    if name in _POOLS and isinstance(x, TensorValue):
        return _pooled(name, x, args, node)
    if name in ("softmax", "log_softmax") and isinstance(x, TensorValue) and (
            "dtype" in args.kw or len(args.pos) > 3):
        # F.softmax(input, dim, _stacklevel, dtype): the result has dtype=, as the method's does
        method_args = CallArgs([args.get(1, "dim")], {"dtype": args.get(3, "dtype")},
                               [args.node(1, "dim")], {"dtype": args.node(3, "dtype")})
        return tensor_method(x, name, method_args, node, env)
    if name in ("relu", "gelu", "silu", "leaky_relu", "dropout", "elu", "hardtanh", "relu6",
                "softmax", "log_softmax", "normalize", "pad",
                "layer_norm", "batch_norm", *_SAME_SHAPE_ACTIVATIONS):
        if isinstance(x, TensorValue):
            shape = x.shape if name != "pad" else _padded(x, args)
            return TensorValue(x.dtypes, shape, x.origin, x.device, x.requires_grad)
        return TOP
    if name in ("sigmoid", "tanh"):
        return tensor_method(x, name, CallArgs(), node, env) if isinstance(x, TensorValue) else TOP
    if name == "linear":
        w = args.get(1, "weight")
        if isinstance(x, TensorValue) and isinstance(w, TensorValue):
            dtype = x.dtype if x.dtype is not None and x.dtype == w.dtype else None
            shape = (tuple(x.shape[:-1]) + (w.shape[0],)) if x.shape and w.shape and len(w.shape) == 2 else None
            return TensorValue(None if dtype is None else frozenset({dtype}), shape, x.origin, x.device)
        return TOP
    if name == "cosine_similarity":
        return SQ.cosine_similarity(args, node)
    if name == "one_hot":
        classes = args.get(1, "num_classes")
        count = classes.const if isinstance(classes, ScalarValue) and isinstance(classes.const, int) \
            and classes.const > 0 else None  # -1 (the default) infers it from the data
        shape = tuple(x.shape) + (count,) if isinstance(x, TensorValue) and x.shape is not None else None
        return TensorValue(frozenset({INT64}), shape, Origin(node, "F.one_hot gives int64"),
                           x.device if isinstance(x, TensorValue) else None)
    if name in ("cross_entropy", "nll_loss", "mse_loss", "l1_loss", "binary_cross_entropy",
                "binary_cross_entropy_with_logits", "huber_loss", "smooth_l1_loss", "kl_div"):
        if isinstance(x, TensorValue):
            reduction = args.kw.get("reduction")
            shape = () if not isinstance(reduction, StringValue) or reduction.const in (
                "mean", "sum", "batchmean") else None
            if isinstance(reduction, StringValue) and reduction.const == "none" and not args.has_star:
                weights = [args.kw[k] for k in ("weight", "pos_weight") if k in args.kw]
                shape = unreduced_shape(name, x, args.get(1, "target"), weights)
            dtypes = loss_dtypes(name, x, args.get(1, "target"), env)
            return TensorValue(dtypes, shape, Origin(node, f"F.{name}"), x.device)
        return TOP
    if name in ("conv1d", "conv2d", "conv3d") and isinstance(x, TensorValue):
        return _convolved(int(name[4]), x, args)
    if name in ("interpolate", "upsample") and isinstance(x, TensorValue):
        return _interpolated(x, args)
    if name == "embedding":
        w = args.get(1, "weight")
        if isinstance(x, TensorValue) and isinstance(w, TensorValue):
            shape = tuple(x.shape) + (w.shape[-1],) if x.shape is not None and w.shape else None
            return TensorValue(w.dtypes, shape, w.origin, w.device)
    return TOP


def _interpolated(x: TensorValue, args: CallArgs) -> Value:
    """``F.interpolate(x, size=..., scale_factor=..., mode=...)``: ``NN.interpolated`` with the
    arguments as constants (a non-constant size or scale leaves the sizes unknown)."""
    if args.has_star:
        return TOP
    mode = args.get(3, "mode") if args.has(3, "mode") else StringValue("nearest")
    given = [args.has(i, key) and not isinstance(args.get(i, key), NoneValue)
             for i, key in ((1, "size"), (2, "scale_factor"))]
    size = NN.constant(args.get(1, "size")) if given[0] else None
    scale = NN.constant(args.get(2, "scale_factor")) if given[1] else None
    if all(given) or any(g and v is None for g, v in zip(given, (size, scale))):
        size = scale = None  # both given (torch raises) or one not constant: sizes unknown
    return NN.interpolated(x, size, scale, mode.const if isinstance(mode, StringValue) else None)


def _convolved(rank: int, x: TensorValue, args: CallArgs) -> Value:
    """``F.conv2d(input, weight, bias, stride, padding, dilation, groups)`` (and the 1-d and
    3-d ones): (*batch, weight's out channels, each spatial size from the window); the shape
    is unknown where a setting is not constant or torch refuses the input's channels."""
    w = args.get(1, "weight")
    if args.has_star or not isinstance(w, TensorValue):
        return TOP
    dtypes = x.dtypes if x.dtype is not None and x.dtype == w.dtype else None
    unknown = TensorValue(dtypes, None, x.origin, x.device)
    settings = []
    for i, key, default in ((3, "stride", 1), (4, "padding", 0), (5, "dilation", 1)):
        value = NN.constant(args.get(i, key)) if args.has(i, key) else default
        value = (value,) * rank if isinstance(value, int) and not isinstance(value, bool) else value
        if not (isinstance(value, tuple) and len(value) == rank and all(
                isinstance(v, int) and not isinstance(v, bool) for v in value)):
            return unknown  # not constant, or padding="same"/"valid"
        settings.append(value)
    groups = NN.constant(args.get(6, "groups")) if args.has(6, "groups") else 1
    shape, kernel = x.shape, w.shape
    if shape is None or kernel is None or len(shape) not in (rank + 1, rank + 2) or len(kernel) != rank + 2 \
            or not isinstance(groups, int) or isinstance(groups, bool) or groups <= 0:
        return unknown
    channels = shape[-rank - 1]
    if not isinstance(kernel[1], int) or not isinstance(channels, int) or channels != kernel[1] * groups \
            or not all(isinstance(k, int) for k in kernel[2:]):
        return unknown  # torch refuses other channels
    stride, padding, dilation = settings
    spatial = tuple(S.conv_out(shape[-rank + i], kernel[2 + i], stride[i], padding[i], dilation[i])
                    for i in range(rank))
    return TensorValue(dtypes, tuple(shape[:-rank - 1]) + (kernel[0],) + spatial, x.origin, x.device)


def _padded(x: TensorValue, args: CallArgs) -> Any:
    """The shape of ``F.pad(x, pad, mode="constant", value=None)`` (``knowledge/shapes.py``)."""
    pad, mode = args.get(1, "pad"), args.get(2, "mode") if args.has(2, "mode") else StringValue("constant")
    if args.has_star or not isinstance(pad, SequenceValue) or pad.items is None or not isinstance(mode, StringValue):
        return None
    pads = [p.const if isinstance(p, ScalarValue) and p.pytype == "int" and isinstance(p.const, int) else None
            for p in pad.items]
    return S.padded_shape(x.shape, pads, mode.const)


def _pooled(name: str, x: TensorValue, args: CallArgs, node: Any) -> Value:
    """``F.max_pool2d(x, 2)``: the output of the module built from the same arguments
    (``nn.MaxPool2d(2)(x)``), whose shape arithmetic the module knowledge has."""
    module_name, positional = _POOLS[name]
    rest = CallArgs(list(args.pos[1:]), {k: v for k, v in args.kw.items() if k != "input"},
                    list(args.pos_nodes[1:]), {k: v for k, v in args.kw_nodes.items() if k != "input"})
    if args.has_star or "return_indices" in rest.kw or "max" in name and len(rest.pos) > positional:
        return TOP  # may be an (output, indices) pair
    if len(rest.pos) > positional or "ceil_mode" in rest.kw:
        return TensorValue(x.dtypes, None, x.origin, x.device, x.requires_grad)
    module = NN.construct(module_name, rest, node)
    out = NN.call_module(module, CallArgs([x], {}, [args.node(0, "input")], {}), node) \
        if isinstance(module, ModuleValue) else TOP
    if isinstance(out, TensorValue):
        return TensorValue(x.dtypes, out.shape, x.origin, x.device, x.requires_grad)
    return TensorValue(x.dtypes, None, x.origin, x.device, x.requires_grad)


def parameter(args: CallArgs, node: Any) -> Value:
    """``nn.Parameter(data, requires_grad=True)``: the data's tensor, requiring grad."""
    data = args.get(0, "data")
    if isinstance(data, TensorValue):
        rg = args.get(1, "requires_grad")
        requires_grad = rg.const if isinstance(rg, ScalarValue) else True
        return TensorValue(data.dtypes, data.shape, data.origin, data.device, requires_grad)
    return TOP
