"""numpy's elementwise functions: unary ufuncs (``np.sqrt``, ``np.abs``, ``np.round``...),
``np.clip`` and ``np.where``: the dtype numpy's loops give and the broadcast shape.

A lone Python scalar argument counts as numpy's default dtype for its kind (``np.sqrt(4)``
is float64). Checked against numpy in tests/test_numpy_knowledge.py.
"""
from __future__ import annotations

from typing import Any, Callable, Dict, List, Optional

from ..model.values import (
    BOOL, INT8, INT64, TOP, ArrayValue, CallArgs, NoneValue, Origin, ScalarValue,
    SequenceValue, Value, describe_dtypes,
)
from . import shapes as S
from .numpy_args import as_array, bind, given
from .numpy_dtypes import inexact, kind, map_dtypes, result_type


def _magnitude(dtype: str) -> str:
    # a complex number's absolute value is real
    return {"complex64": "float32", "complex128": "float64"}.get(dtype, dtype)


def _no_bool(dtype: str) -> Optional[str]:
    return None if dtype == BOOL else dtype  # np.negative / np.sign of bool raise


def _real_only(dtype: str) -> Optional[str]:
    return None if kind(dtype) == "c" else dtype  # np.floor of complex raises


#: Unary ufuncs: result dtype for an input dtype (None: numpy raises, or not modelled).
UNARY: Dict[str, Callable[[str], Optional[str]]] = {
    **{name: inexact for name in (
        "sqrt", "exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "sin", "cos", "tan",
        "arcsin", "arccos", "arctan", "sinh", "cosh", "tanh", "arcsinh", "arctanh",
        "deg2rad", "rad2deg")},
    "abs": _magnitude, "absolute": _magnitude, "negative": _no_bool, "sign": _no_bool,
    "positive": _no_bool, "floor": _real_only, "ceil": _real_only, "trunc": _real_only,
    "square": lambda d: INT8 if d == BOOL else d,
}


def _rounded(dtype: str) -> str:
    return "float16" if dtype == BOOL else dtype  # np.round of bool is float16 (numpy's loop)


ROUND_NAMES = ("round", "around")


def unary(name: str, args: CallArgs, node: Any) -> Value:
    """``np.<name>(x)`` for a name in UNARY (keyword arguments are not modelled)."""
    if args.has_star or args.kw or len(args.pos) != 1:
        return TOP
    array = as_array(args.pos[0])
    if array is None:
        return TOP
    dtypes = map_dtypes(array.dtypes, UNARY[name])
    return ArrayValue(dtypes, array.shape, _origin(node, f"np.{name}", dtypes, array))


def round_function(args: CallArgs, node: Any) -> Value:
    """``np.round(a, decimals=0)``."""
    bound = bind(args, ("a", "decimals", "out"))
    array = as_array(bound["a"]) if bound is not None and "a" in bound else None
    if array is None or given(bound, "out"):  # type: ignore[arg-type]
        return TOP
    return rounded(array, node, "np.round")


def rounded(array: ArrayValue, node: Any, label: str) -> Value:
    dtypes = map_dtypes(array.dtypes, _rounded)
    return ArrayValue(dtypes, array.shape, _origin(node, label, dtypes, array))


def clip(array: ArrayValue, bounds: List[Value], node: Any, label: str) -> Value:
    """``np.clip(a, lo, hi)`` / ``a.clip(lo, hi)``: the bounds take part in promotion (NEP 50:
    Python scalars weakly, ``np.clip(int_array, 0, 1.5)`` is float64), and in broadcasting."""
    present = [b for b in bounds if not isinstance(b, NoneValue)]
    operands = [array] + present
    return _promoted(operands, (), node, label)


def clip_function(args: CallArgs, node: Any) -> Value:
    bound = bind(args, ("a", "a_min", "a_max", "out", "*", "min", "max"))
    array = as_array(bound["a"]) if bound is not None and "a" in bound else None
    if array is None or given(bound, "out"):  # type: ignore[arg-type]
        return TOP
    names = ("a_min", "a_max", "min", "max")
    return clip(array, [bound[n] for n in names if n in bound], node, "np.clip")  # type: ignore[index]


def clip_method(recv: ArrayValue, args: CallArgs, node: Any) -> Value:
    bound = bind(args, ("min", "max", "out"))
    if bound is None or given(bound, "out"):
        return TOP
    return clip(recv, [bound[n] for n in ("min", "max") if n in bound], node, ".clip")


def where(args: CallArgs, node: Any) -> Value:
    """``np.where(cond, x, y)``: x and y promote (Python scalars weakly), all three broadcast.
    ``np.where(cond)`` is a tuple of int64 index arrays, one per dim of ``cond``."""
    bound = bind(args, ("condition", "x", "y"))
    if bound is None or "condition" not in bound:
        return TOP
    condition = as_array(bound["condition"])
    if "x" not in bound and "y" not in bound:
        if condition is None or condition.shape is None:
            return TOP
        index = ArrayValue(frozenset({INT64}), (None,), Origin(node, "np.where gives int64 indices"))
        rank = max(len(condition.shape), 1)  # a 0-d condition gives one index array too
        return SequenceValue("tuple", index, (index,) * rank)
    if "x" not in bound or "y" not in bound:
        return TOP  # numpy raises
    shape = condition.shape if condition is not None else None
    return _promoted([bound["x"], bound["y"]], shape, node, "np.where")


def _promoted(operands: List[Value], shape: Any, node: Any, label: str) -> Value:
    """numpy's result for elementwise ``operands`` (arrays strong, Python scalars weak),
    broadcast together with ``shape``."""
    arrays: List[str] = []
    scalars: List[str] = []
    known = True
    for operand in operands:
        if isinstance(operand, ScalarValue) and operand.pytype in ("bool", "int", "float", "complex"):
            scalars.append(operand.pytype)
            continue
        array = as_array(operand)
        if array is None:
            return TOP
        shape = S.broadcast_shapes(shape, array.shape)
        if array.dtype is None:
            known = False
        else:
            arrays.append(array.dtype)
    dtype = result_type(arrays, scalars) if known else None
    dtypes = None if dtype is None else frozenset({dtype})
    return ArrayValue(dtypes, shape, Origin(node, f"{label} gives {dtype}" if dtype else ""))


def _origin(node: Any, label: str, dtypes: Any, array: ArrayValue) -> Origin:
    if dtypes is not None and dtypes == array.dtypes:
        return Origin(node, f"{label} keeps {describe_dtypes(dtypes)}", array.origin)
    return Origin(node, f"{label} gives {describe_dtypes(dtypes)}" if dtypes else "", array.origin)
