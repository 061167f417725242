"""numpy functions and ndarray methods that rearrange an array without changing its dtype
(reshape, transpose, squeeze, expand_dims, swapaxes, ravel, sort, flip; argsort gives positions), and the ones that join arrays
(concatenate, stack, vstack, hstack, column_stack), whose arrays promote.

A list of arrays whose length is unknown (built by ``append`` or a comprehension) still has
a known element: joining it gives the element's dtype and an unknown size along the joined
axis. Checked against numpy in tests/test_numpy_knowledge.py.
"""
from __future__ import annotations

from typing import Any, Callable, Dict, List, Optional, Tuple

from ..model.values import INT64, TOP, ArrayValue, CallArgs, NoneValue, Origin, SequenceValue, Shape, Value
from . import shapes as S
from .numpy_args import KEYWORD_ONLY, as_array, axes, bind, given
from .numpy_dtypes import numpy_dtype, result_type
from .torch_api import int_const, shape_from_size_args, shape_from_value


def _rearranged(array: ArrayValue, shape: Shape) -> ArrayValue:
    return ArrayValue(array.dtypes, shape, array.origin)


def _ints(values: List[Value]) -> List[Optional[int]]:
    return [int_const(v) for v in values]


def reshaped(array: ArrayValue, target: Shape) -> ArrayValue:
    return _rearranged(array, S.reshape_shape(array.shape, target))


def transposed(array: ArrayValue, order: Optional[Value]) -> ArrayValue:
    """``a.transpose(axes)``: no axes (or None) reverses them."""
    if order is None or isinstance(order, NoneValue):
        return _rearranged(array, None if array.shape is None else tuple(reversed(array.shape)))
    dims = order.items if isinstance(order, SequenceValue) and order.items is not None else None
    if dims is None:
        return _rearranged(array, None)
    return _rearranged(array, S.dim_op_shape("permute", array.shape, _ints(list(dims)), False))


def squeezed(array: ArrayValue, axis: Optional[Value]) -> ArrayValue:
    if axis is None or isinstance(axis, NoneValue):
        return _rearranged(array, S.dim_op_shape("squeeze", array.shape, [], False))
    dims = axes(axis, None if array.shape is None else len(array.shape))
    if dims is None:
        return _rearranged(array, None)
    return _rearranged(array, S.dim_op_shape("squeeze", array.shape, list(dims), False))


def expanded(array: ArrayValue, axis: Value) -> ArrayValue:
    """``np.expand_dims(a, axis)``: axes count in the result, whose rank is the input's plus
    one per axis."""
    if array.shape is None:
        return _rearranged(array, None)
    count = len(axis.items) if isinstance(axis, SequenceValue) and axis.items is not None else 1
    new = axes(axis, len(array.shape) + count)
    if new is None:
        return _rearranged(array, None)
    rest = iter(array.shape)
    return _rearranged(array, tuple(1 if i in new else next(rest)
                                    for i in range(len(array.shape) + count)))


def flattened(array: ArrayValue) -> ArrayValue:
    return _rearranged(array, None if array.shape is None else (S.numel_known(array.shape),))


def repeated(array: ArrayValue, repeats: Value, axis: Value) -> ArrayValue:
    """``np.repeat(a, n, axis)``: the same dtype; axis ``axis`` n times as long (an int n), or
    the flattened array n times as long without an axis."""
    n = int_const(repeats)
    if isinstance(axis, NoneValue):
        total = S.numel_known(array.shape) if array.shape is not None else None
        return _rearranged(array, (total * n if total is not None and n is not None and n >= 0 else None,))
    k = int_const(axis)
    if array.shape is None or k is None or not -len(array.shape) <= k < len(array.shape):
        return _rearranged(array, None)
    k %= len(array.shape)
    dim = array.shape[k]
    grown = dim * n if isinstance(dim, int) and n is not None and n >= 0 else None
    return _rearranged(array, tuple(array.shape[:k]) + (grown,) + tuple(array.shape[k + 1:]))


def method(recv: ArrayValue, name: str, args: CallArgs) -> Value:
    """``a.reshape(...)``, ``a.transpose(...)``, ``a.squeeze()``, ``a.swapaxes(i, j)``,
    ``a.flatten()`` / ``a.ravel()``; TOP for other names."""
    if args.has_star:
        return TOP
    if name == "reshape":
        target = shape_from_size_args(CallArgs(args.pos), 0) if args.kw.keys() <= {"order", "copy"} \
            else None
        return reshaped(recv, target)
    if name == "transpose" and not args.kw:
        if len(args.pos) == 1 and not _is_int(args.pos[0]):
            return transposed(recv, args.pos[0])  # a.transpose((1, 0)) or a.transpose(None)
        return transposed(recv, SequenceValue("tuple", TOP, tuple(args.pos)) if args.pos else None)
    if name == "squeeze":
        bound = bind(args, ("axis",))
        return TOP if bound is None else squeezed(recv, bound.get("axis"))
    if name == "swapaxes" and len(args.pos) == 2 and not args.kw:
        return _rearranged(recv, S.dim_op_shape("swapaxes", recv.shape, _ints(args.pos), False))
    if name in ("flatten", "ravel") and args.kw.keys() <= {"order"} and len(args.pos) <= 1:
        return flattened(recv)
    if name == "repeat":
        bound = bind(args, ("repeats", "axis"))
        if bound is None or "repeats" not in bound:
            return TOP
        return repeated(recv, bound["repeats"], bound.get("axis", NoneValue()))
    return TOP


def _is_int(value: Value) -> bool:
    return int_const(value) is not None or value is TOP


#: ``np.<name>(a, ...)`` rearrangements: their signature, and the result from the bound args.
REARRANGEMENTS: Dict[str, Tuple[Tuple[str, ...], Callable[[ArrayValue, Dict[str, Value]], Value]]] = {
    "reshape": (("a", "shape", "order", KEYWORD_ONLY, "copy"),
                lambda a, b: reshaped(a, shape_from_value(b["shape"]) if "shape" in b else None)),
    "transpose": (("a", "axes"), lambda a, b: transposed(a, b.get("axes"))),
    "squeeze": (("a", "axis"), lambda a, b: squeezed(a, b.get("axis"))),
    "expand_dims": (("a", "axis"), lambda a, b: expanded(a, b["axis"]) if "axis" in b else TOP),
    "swapaxes": (("a", "axis1", "axis2"), lambda a, b: _rearranged(a, S.dim_op_shape(
        "swapaxes", a.shape, _ints([b.get("axis1", TOP), b.get("axis2", TOP)]), False))),
    "ravel": (("a", "order"), lambda a, b: flattened(a)),
    "repeat": (("a", "repeats", "axis"), lambda a, b: repeated(a, b["repeats"], b.get("axis", NoneValue()))
               if "repeats" in b else TOP),
}


def _triangle(array: ArrayValue) -> Value:
    """``np.triu(m, k)`` / ``np.tril(m, k)``: ``m``'s dtype and shape, a 1-D ``m`` of length n
    giving (n, n); a 0-d one raises."""
    if array.shape is not None and len(array.shape) == 0:
        return TOP
    shape = array.shape if array.shape is None or len(array.shape) >= 2 else (array.shape[0], array.shape[0])
    return _rearranged(array, shape)


def ordered(array: ArrayValue, bound: Dict[str, Value], indices: bool) -> Value:
    """``np.sort(a, axis=-1)`` / ``np.argsort``: ``a``'s shape (flattened when axis=None), its
    dtype or the int64 positions (``indices``); a 0-d array along an axis raises, a structured
    ``order=`` is not followed."""
    axis = bound.get("axis")
    flat = isinstance(axis, NoneValue)  # only a written None reaches here as None (numpy_args)
    if given(bound, "order") or array.shape is not None and len(array.shape) == 0 and not flat:
        return TOP
    if axis is not None and not flat and int_const(axis) is None:
        result = _rearranged(array, None)  # an unknown axis may be None: flattened or not
    else:
        result = flattened(array) if flat else _rearranged(array, array.shape)
    return ArrayValue(frozenset({INT64}), result.shape, None) if indices else result


REARRANGEMENTS.update({
    "sort": (("a", "axis", "kind", "order", KEYWORD_ONLY, "stable"), lambda a, b: ordered(a, b, False)),
    "argsort": (("a", "axis", "kind", "order", KEYWORD_ONLY, "stable"), lambda a, b: ordered(a, b, True)),
    # np.flip(a, axis=None) reverses axes in place of order: same shape and dtype
    "flip": (("a", "axis"), lambda a, b: _rearranged(a, a.shape)),
})


#: ``np.triu`` / ``np.tril`` name their array ``m``.
REARRANGEMENTS.update({name: (("m", "k"), lambda a, b: _triangle(a)) for name in ("triu", "tril")})
_FIRST_PARAMETER = {"triu": "m", "tril": "m"}


def rearrange_function(name: str, args: CallArgs) -> Value:
    signature, rule = REARRANGEMENTS[name]
    bound = bind(args, signature)
    first = _FIRST_PARAMETER.get(name, "a")
    array = as_array(bound[first]) if bound is not None and first in bound else None
    if array is None:
        return TOP
    return rule(array, bound)  # type: ignore[arg-type]


# ---------------------------------------------------------------------- joining arrays


def _atleast_1d(shape: Tuple) -> Tuple:
    return shape if shape else (1,)


def _atleast_2d(shape: Tuple) -> Tuple:
    return shape if len(shape) >= 2 else (1,) + _atleast_1d(shape)


def _as_column(shape: Tuple) -> Tuple:
    return shape if len(shape) >= 2 else _atleast_1d(shape) + (1,)


#: How each join sees its inputs (numpy's atleast_1d/2d), and the signature after them.
_JOINS: Dict[str, Tuple[Callable[[Tuple], Tuple], Tuple[str, ...]]] = {
    "concatenate": (lambda s: s, ("axis", "out", "dtype", "casting")),
    "stack": (lambda s: s, ("axis", "out", KEYWORD_ONLY, "dtype", "casting")),
    "vstack": (_atleast_2d, (KEYWORD_ONLY, "dtype", "casting")),
    "hstack": (_atleast_1d, (KEYWORD_ONLY, "dtype", "casting")),
    "column_stack": (_as_column, ()),
}
JOINS = frozenset(_JOINS)


def join_arrays(name: str, args: CallArgs, node: Any) -> Value:
    """``np.concatenate(arrays, axis=0)`` and friends: the arrays promote; the shape joins
    along the axis (hstack: the first axis of 1-D arrays, else the second)."""
    view, signature = _JOINS[name]
    bound = bind(args, ("arrays",) + signature)
    if bound is None or "arrays" not in bound or given(bound, "out"):
        return TOP
    seq = bound["arrays"]
    if not isinstance(seq, SequenceValue) or seq.container not in ("list", "tuple") or seq.items == ():
        return TOP
    inputs = [as_array(v) for v in (seq.items if seq.items is not None else (seq.element,))]
    if any(a is None for a in inputs):
        return TOP
    arrays: List[ArrayValue] = inputs  # type: ignore[assignment]
    if given(bound, "dtype"):
        explicit = numpy_dtype(bound["dtype"])
        dtype = explicit
    elif all(a.dtype is not None for a in arrays):
        dtype = result_type([a.dtype for a in arrays])  # type: ignore[misc]
    else:
        dtype = None
    shapes = [None if a.shape is None else view(tuple(a.shape)) for a in arrays]
    shape = _joined_shape(name, shapes, bound, count_known=seq.items is not None)
    if given(bound, "dtype") or dtype is None:
        origin = Origin(node, f"np.{name} gives {dtype}" if dtype else "")
    else:
        # the joined arrays' dtype: trace it to the array that brought it
        source = next((a for a in arrays if a.dtype == dtype and a.origin is not None), None)
        origin = Origin(node, f"np.{name} keeps the arrays' {dtype}", source.origin if source else None)
    return ArrayValue(None if dtype is None else frozenset({dtype}), shape, origin)


def _joined_shape(name: str, shapes: List[Shape], bound: Dict[str, Value], count_known: bool) -> Shape:
    if any(s is None for s in shapes):
        return None
    if name in ("concatenate", "stack"):
        axis = int_const(bound["axis"]) if "axis" in bound else 0
    elif name == "hstack":
        axis = 0 if len(shapes[0]) == 1 else 1  # type: ignore[arg-type]
    else:
        axis = 0 if name == "vstack" else 1
    if axis is None:
        return None
    if name == "stack":
        if count_known:
            return S.stack_shape(shapes, axis)
        element = shapes[0]
        rank = len(element) + 1  # type: ignore[arg-type]
        if not -rank <= axis < rank:
            return None
        at = axis % rank
        return tuple(element[:at]) + (None,) + tuple(element[at:])  # type: ignore[index]
    if count_known:
        return S.cat_shape(shapes, axis)
    element = shapes[0]
    if not -len(element) <= axis < len(element):  # type: ignore[arg-type]
        return None
    at = axis % len(element)  # type: ignore[arg-type]
    return tuple(None if i == at else d for i, d in enumerate(element))  # type: ignore[arg-type]
