"""What ``nn`` modules do to their parameters' dtypes: construction under a default dtype,
in-place casts (``model.double()``, ``model.to(dtype)``), replaced parameters, and the
attributes (``layer.weight``) a library module exposes.

Modules are the mutable values of the engine (every alias sees a cast), so the functions
that change dtypes update the ``ModuleValue`` / ``InstanceValue`` they are given in place.
``InstanceValue`` stands for a user ``nn.Module`` subclass: its submodules are attributes,
and its parameters and buffers are the attributes listed in ``cast_attrs``.
"""
from __future__ import annotations

from typing import Any, Optional

from ..model.values import (
    CallArgs,
    FLOAT32, TOP, InstanceValue, ModuleValue, Origin, ScalarValue, SequenceValue, StringValue, TensorValue, Value,
    is_floating, join,
)
from . import nn_modules as NN

#: Base classes that make a class defined in the file an ``nn.Module``.
MODULE_BASES = {"torch.nn.Module", "torch.nn.modules.module.Module", "nn.Module"}
#: Module methods that cast every floating parameter and buffer in place.
CAST_METHODS = ("double", "float", "half", "bfloat16")
#: Module methods that change the module in place (casts, moves, registrations).
MUTATING_METHODS = CAST_METHODS + ("to", "type", "register_buffer", "register_parameter",
                                   "add_module", "register_module")
#: Module methods that return the module itself and change nothing dtypes depend on.
SELF_RETURNING_METHODS = ("cpu", "eval", "train", "requires_grad_", "share_memory", "zero_grad")
#: ``register_*`` methods: (name, value) adds an attribute; the keyword naming the value.
REGISTER_METHODS = {"register_buffer": "tensor", "register_parameter": "param",
                    "add_module": "module", "register_module": "module"}
#: The registrations whose attribute module casts convert (buffers and parameters).
CAST_REGISTRATIONS = ("register_buffer", "register_parameter")


def construct_module(name: str, args: CallArgs, node: Any, default_float: str,
                     uncertain_defaults: Optional[frozenset]) -> Value:
    """``torch.nn.<name>(...)``: its parameters are created in the default dtype, unknown
    while the default is uncertain (``uncertain_defaults``, see defaults.py)."""
    if not args.has_star and NN.negative_size(name, args) is not None:
        return TOP  # torch raises building it (TTL535): nothing downstream is this layer's
    module = NN.construct(name, args, node)
    if isinstance(module, ModuleValue) and uncertain_defaults is not None and \
            module.param_dtypes is not None and module.param_dtypes & uncertain_defaults:
        module.param_dtypes = None  # the default dtype its parameters take is unknown
    if isinstance(module, ModuleValue) and default_float != FLOAT32 and \
            "dtype" not in args.kw and module.param_dtypes == frozenset({FLOAT32}):
        # parameters are created in the default dtype (set_default_dtype)
        module.param_dtypes = frozenset({default_float})
        module.dtype_origin = Origin(node, f"parameters take the default dtype {default_float}")
    return module


def parameter_dtypes(module: Value) -> Optional[frozenset]:
    """The dtypes ``module.parameters()`` yields: those of every submodule and parameter
    attribute, recursively. None when any part is unknown (an attribute the engine cannot
    see may be a module with parameters of any dtype) or when no parameter is known."""
    return _parameter_dtypes(module, set()) or None


def _parameter_dtypes(module: Value, seen: set) -> Optional[frozenset]:
    if id(module) in seen:
        return frozenset()  # a module reachable twice has its parameters counted once
    seen.add(id(module))
    if isinstance(module, ModuleValue):
        if module.short_name in NN.CONTAINERS:
            return _union(_parameter_dtypes(child, seen) for child in module.children)
        if NN.has_no_parameters(module.short_name):
            return frozenset()
        return module.param_dtypes
    if isinstance(module, InstanceValue):
        parts = []
        for name, value in module.attrs.items():
            if isinstance(value, (ModuleValue, InstanceValue)):
                parts.append(_parameter_dtypes(value, seen))
            elif name in module.cast_attrs:
                # a parameter or a buffer: both counted (a superset of the dtypes is still sound)
                parts.append(value.dtypes if isinstance(value, TensorValue) else None)
            elif value is TOP:
                parts.append(None)  # could be a module of a library the engine does not know
        return _union(parts)
    return None


def parameter_origin(module: Value, seen: Optional[set] = None) -> Optional[Origin]:
    """Where the dtype of a module's parameters was last set (a cast such as
    ``model.double()``, else the first layer's construction), for provenance."""
    seen = set() if seen is None else seen
    if id(module) in seen:
        return None
    seen.add(id(module))
    if isinstance(module, ModuleValue):
        if module.dtype_origin is not None and not NN.has_no_parameters(module.short_name) and \
                module.short_name not in NN.CONTAINERS:
            return module.dtype_origin
        children = module.children
    elif isinstance(module, InstanceValue):
        children = tuple(module.attrs.values())
    else:
        return None
    cast = None
    for child in children:
        found = parameter_origin(child, seen)
        if found is not None and (cast is None or found.note.startswith("model.")):
            cast = found  # a cast (model.double()) says more than a constructor
    return cast


def _union(parts: Any) -> Optional[frozenset]:
    out: frozenset = frozenset()
    for part in parts:
        if part is None:
            return None
        out = out | part
    return out


def module_attribute(module: ModuleValue, attr: str, node: Any) -> Value:
    """``layer.weight``, ``layer.bias`` and constructor settings (``layer.in_features``)."""
    name, cfg = module.short_name, module.config
    if attr == "weight" and name == "Linear":
        shape = (cfg.get("out_features"), cfg.get("in_features"))
        return TensorValue(module.param_dtypes, shape, module.dtype_origin, module.device, True)
    if attr == "weight" and name == "Embedding":
        return TensorValue(module.param_dtypes, (cfg.get("num_embeddings"), cfg.get("embedding_dim")),
                           module.dtype_origin, module.device, True)
    if attr == "weight" and NN.conv_weight_shape(module) is not None:
        return TensorValue(module.param_dtypes, NN.conv_weight_shape(module), module.dtype_origin, module.device,
                           True)
    if attr in ("weight", "bias") and module.param_dtypes is not None:
        return TensorValue(module.param_dtypes, None, module.dtype_origin, module.device, True)
    settings = NN.conv_settings(module)
    if settings is not None and attr in ("kernel_size", "stride", "dilation", "output_padding", "padding", "groups"):
        # a convolution keeps these as tuples (stride=2 reads back as (2, 2)), groups as an int
        value = settings.get(attr)
        if isinstance(value, int):
            return ScalarValue("int", value)
        if isinstance(value, tuple):
            return SequenceValue("tuple", ScalarValue("int"), tuple(ScalarValue("int", v) for v in value))
        return StringValue(value) if isinstance(value, str) else TOP
    if attr in cfg:
        v = cfg[attr]
        if isinstance(v, bool):
            return ScalarValue("bool", v)
        if isinstance(v, int):
            return ScalarValue("int", v)
    return TOP


def store_module_attribute(module: ModuleValue, attr: str, value: Value, weak: bool,
                           origin: Optional[Origin] = None) -> None:
    """``layer.attr = value``: later reads of ``layer.attr`` give ``value`` (joined with the old
    one when the store may not happen). A tensor stored as ``weight`` or ``bias`` is a parameter
    (``parameter_replaced``); anything else (``layer.weight = QuantWeight(...)``, an unknown
    value) replaces what the class's knowledge says the attribute is."""
    NN.child_stored(module, attr, value, certain=not weak)  # a layer of a container
    if attr in ("weight", "bias"):
        parameter_replaced(module, attr, value, weak, origin)
        if isinstance(value, TensorValue) and attr not in module.stored:
            return  # reads keep deriving the parameter from the layer's (widened) dtypes
    old = module.stored[attr] if attr in module.stored else module_attribute(module, attr, None)
    module.stored[attr] = join(old, value) if weak else value


#: Layers whose only parameter is ``weight`` (given the config), as torch's named_parameters
#: lists them (tests/test_knowledge_torch.py checks each against torch).
SOLE_WEIGHT_ALWAYS = ("Embedding", "EmbeddingBag", "PReLU")
#: Layers whose only parameter is ``weight`` when built with ``bias=False``.
SOLE_WEIGHT_WITHOUT_BIAS = ("Linear", "Conv1d", "Conv2d", "Conv3d", "ConvTranspose1d", "ConvTranspose2d",
                            "ConvTranspose3d")


def sole_parameter(module: ModuleValue) -> Optional[str]:
    """The name of the layer's only parameter, when it certainly has exactly one."""
    name = module.short_name
    if name in SOLE_WEIGHT_ALWAYS or (name in SOLE_WEIGHT_WITHOUT_BIAS and module.config.get("bias") is False):
        return "weight"
    return None


def parameter_replaced(module: ModuleValue, attr: str, value: Value, weak: bool,
                       origin: Optional[Origin] = None) -> None:
    """``layer.weight = nn.Parameter(t)`` or ``layer.weight.data = t`` on a library layer. When
    the store certainly runs and ``attr`` is the layer's only parameter, its parameters are
    ``t``'s dtype (an embedding loaded from a float64 numpy matrix is float64, not float32);
    otherwise the layer's dtypes widen by ``t``'s."""
    dtypes = value.dtypes if isinstance(value, TensorValue) else None
    if not weak and dtypes is not None and module.param_dtypes is not None and sole_parameter(module) == attr:
        module.param_dtypes = dtypes
        if origin is not None:
            module.dtype_origin = Origin(origin.node, f"layer.{attr} replaced", value.origin)
        return
    widen_module_params(module, value)


def widen_module_params(module: ModuleValue, value: Value) -> None:
    """One parameter of ``module`` was replaced by ``value``: its parameters now hold the old
    dtypes and the new one (unknown if the new one is)."""
    dtypes = value.dtypes if isinstance(value, TensorValue) else None
    if module.param_dtypes is not None and dtypes is not None:
        module.param_dtypes = module.param_dtypes | dtypes
    else:
        module.param_dtypes = None


def set_module_dtype(module: Value, dtype: Optional[str], origin: Origin, weak: bool,
                     seen: Optional[set] = None) -> None:
    """Module casts act in place on every parameter of every submodule. ``weak``: the cast
    may not happen, so the old dtypes stay possible. ``dtype`` None: a cast to a dtype we
    cannot know (``model.to(some_value)``), after which the parameters' dtype is unknown."""
    seen = seen if seen is not None else set()
    if id(module) in seen:
        return
    seen.add(id(module))
    if isinstance(module, ModuleValue):
        # A buffer the layer's class registers (a loss's class ``weight``) is converted like a
        # parameter; another tensor stored on the layer may be a parameter: no longer known.
        buffers = NN.TENSOR_BUFFERS.get(module.short_name, ())
        module.stored = {name: cast_tensor(value, dtype, origin, weak) if name in buffers else value
                         for name, value in module.stored.items()
                         if not isinstance(value, TensorValue) or name in buffers}
        if module.param_dtypes is not None:
            if dtype is None:
                module.param_dtypes = None
            else:
                new = frozenset({dtype})
                module.param_dtypes = (module.param_dtypes | new) if weak else new
            module.dtype_origin = origin
        for child in module.children:
            set_module_dtype(child, dtype, origin, weak, seen)
    elif isinstance(module, InstanceValue):
        for name, value in list(module.attrs.items()):
            if isinstance(value, (ModuleValue, InstanceValue)):
                set_module_dtype(value, dtype, origin, weak, seen)
            elif name in module.cast_attrs and isinstance(value, TensorValue) and value.dtypes is not None:
                module.attrs[name] = cast_tensor(value, dtype, origin, weak)


def cast_tensor(value: Value, dtype: Optional[str], origin: Origin, weak: bool) -> Value:
    """A parameter or buffer after a module cast to ``dtype`` (None: unknown): module casts
    convert floating-point tensors only. ``weak``: the cast may not happen."""
    if not isinstance(value, TensorValue) or value.dtypes is None:
        return value
    if dtype is None:
        if any(is_floating(d) for d in value.dtypes):
            return TensorValue(None, value.shape, None, value.device, value.requires_grad)
        return value
    converted = frozenset(dtype if is_floating(d) else d for d in value.dtypes)
    if converted == value.dtypes:
        return value
    return TensorValue(converted | value.dtypes if weak else converted, value.shape, origin, value.device,
                       value.requires_grad)
