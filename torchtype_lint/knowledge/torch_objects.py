"""Library objects as the Python interpreter meets them: names that are dtypes, decorators that
leave a function as written, ``no_grad`` contexts, tensor methods that change their receiver,
the named fields of ``torch.return_types`` results, iterating ``nn.Sequential``.

The engine routes on these facts (which name is a dtype, which call mutates what) without
knowing torch; the values they give come from torch_api.py and friends.
"""
from __future__ import annotations

from typing import Any, Optional

from ..model.values import (
    CallArgs,
    INT64, TOP, ArrayValue, DTypeValue, ModuleValue, SequenceValue, SymbolValue, TensorValue,
    Value, join_all,
)
from . import dtypes as D
from .torch_api import Env, shape_from_value, tensor_method

#: Decorators that leave a function's call behaviour as written (matched by dotted suffix).
TRANSPARENT_DECORATORS = ("staticmethod", "classmethod", "torch.no_grad", "torch.inference_mode",
                          "torch.enable_grad", "jaxtyping.jaxtyped", "typeguard.typechecked",
                          "beartype.beartype", "torch.jit.script", "torch.compile",
                          "functools.wraps", "torch.jit.ignore", "torch.jit.unused")
#: Bare decorator names that are transparent whatever module they were imported from.
TRANSPARENT_BARE_NAMES = ("staticmethod", "classmethod", "jaxtyped", "property")

#: Context managers inside which no autograd graph is recorded.
NO_GRAD_CONTEXTS = ("torch.no_grad", "torch.inference_mode")

#: In-place tensor methods that change the receiver's shape (or, for set_, everything).
SHAPE_CHANGING_IN_PLACE = {"unsqueeze_", "squeeze_", "transpose_", "t_", "swapaxes_", "swapdims_",
                           "resize_", "resize_as_", "set_", "as_strided_"}
#: Of those, the ones whose new shape is not the out-of-place method's.
_RESHAPING_ANYHOW = ("resize_", "resize_as_", "set_", "as_strided_")

#: Containers of modules whose iteration yields their children.
_MODULE_CONTAINERS = ("Sequential", "ModuleList")


def library_object(qualname: str) -> Value:
    """A library object by name: dtypes become DTypeValues, the rest SymbolValues."""
    if qualname.startswith("torch."):
        attr = qualname[6:]
        if attr in D.TORCH_DTYPE_ATTRS:
            return DTypeValue(D.TORCH_DTYPE_ATTRS[attr])
    return SymbolValue(qualname)


def shape_changing_in_place(receiver: TensorValue, name: str, args: CallArgs, node: Any,
                            env: Env) -> Value:
    """``x.unsqueeze_(0)`` and the other SHAPE_CHANGING_IN_PLACE methods: what ``x`` holds
    afterwards (the caller rebinds ``x`` to it)."""
    result = tensor_method(receiver, name[:-1], args, node, env) \
        if name not in _RESHAPING_ANYHOW else TOP
    return result if isinstance(result, TensorValue) else TensorValue(
        receiver.dtypes if name != "set_" else None, None, receiver.origin,
        receiver.device, receiver.requires_grad)


def in_place_result(destination: TensorValue, result: TensorValue) -> TensorValue:
    """``x += y`` writes ``x <op> y`` into ``x``: the destination keeps its dtype (or the op
    raises, which rules report), its device and its grad flag."""
    return TensorValue(destination.dtypes, result.shape if result.shape is not None else destination.shape,
                       destination.origin, destination.device, destination.requires_grad)


def returned_through_out(qualname: str, args: CallArgs) -> Optional[Value]:
    """``torch.f(..., out=t)`` returns ``t`` (the result cast into its dtype); None when the
    call has no ``out=``."""
    if qualname.startswith("torch.") and "out" in args.kw:
        out = args.kw["out"]
        return out if isinstance(out, TensorValue) else TOP
    return None


def array_attribute_assigned(array: ArrayValue, attr: str, value: Value) -> ArrayValue:
    """The array after ``a.shape = value`` (a reshape in place) or ``a.dtype = value`` (the
    bytes reinterpreted: dtype and shape unknown)."""
    shape = shape_from_value(value) if attr == "shape" else None
    if shape is not None and -1 in shape:
        shape = None
    return ArrayValue(array.dtypes if attr == "shape" else None, shape, array.origin)


def moves_to_cuda(name: str, result: Value) -> bool:
    """Does the tensor method call ``x.<name>(...)`` giving ``result`` move data to CUDA?"""
    return name in ("cuda",) or (name == "to" and isinstance(result, TensorValue) and result.device == "cuda")


def return_types_field(owner: SequenceValue, attr: str) -> Optional[Value]:
    """``.values`` / ``.indices`` of a (values, int64 indices) pair, the torch.return_types
    of max/min/median with dim, topk and sort; None when ``owner`` is not one."""
    if attr in ("values", "indices") and owner.container == "tuple" \
            and owner.items is not None and len(owner.items) == 2 \
            and isinstance(owner.items[1], TensorValue) and owner.items[1].dtypes == frozenset({INT64}):
        return owner.items[0] if attr == "values" else owner.items[1]
    return None


def module_children_element(module: ModuleValue) -> Value:
    """What ``for layer in module`` binds: any of an ``nn.Sequential``'s children."""
    if module.short_name not in _MODULE_CONTAINERS:
        return TOP
    return join_all(module.children)
