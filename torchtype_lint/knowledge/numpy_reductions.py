"""numpy reductions and statistics, as functions (``np.mean(a, axis=0)``) and as ndarray
methods (``a.mean(axis=0)``): their dtype, and their shape from ``axis=`` and ``keepdims=``.

Reducing every axis gives a numpy scalar, which the engine holds as a 0-d array (NumPy 2
promotes both alike: strongly). An ``axis`` whose value is unknown leaves the shape unknown
but the dtype known. Checked against numpy in tests/test_numpy_knowledge.py.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Dict, Optional, Tuple

from ..model.values import (
    BOOL, FLOAT64, INT64, TOP, ArrayValue, CallArgs, DTypes, NoneValue, Origin, ScalarValue, Shape,
    Value,
    describe_dtypes,
)
from . import shapes as S
from .numpy_args import KEYWORD_ONLY, as_array, axes, bind, given
from .numpy_dtypes import (
    accumulated, always, averaged, map_dtypes, numpy_dtype, result_type, same, spread,
)
from .torch_api import int_const

_AXIS_DTYPE_OUT = ("axis", "dtype", "out")


@dataclass(frozen=True)
class Reduction:
    """One reduction: its parameters after the array (a method's and the function's agree),
    the result dtype for an input dtype, and whether ndarray has it as a method."""

    signature: Tuple[str, ...]
    dtype: Callable[[str], Optional[str]]
    method: bool = True
    #: cumsum / cumprod: the same shape along an axis, the flattened length without one.
    cumulative: bool = False


_SUM = Reduction(_AXIS_DTYPE_OUT + ("keepdims", "initial", "where"), accumulated)
_MEAN = Reduction(_AXIS_DTYPE_OUT + ("keepdims", KEYWORD_ONLY, "where"), averaged)
_SPREAD = Reduction(_AXIS_DTYPE_OUT + ("ddof", "keepdims", KEYWORD_ONLY, "where", "mean", "correction"),
                    spread)
_EXTREMUM = Reduction(("axis", "out", "keepdims", "initial", "where"), same)
_ARG = Reduction(("axis", "out", KEYWORD_ONLY, "keepdims"), always(INT64))
_CUMULATIVE = Reduction(_AXIS_DTYPE_OUT, accumulated, cumulative=True)
_TRUTH = Reduction(("axis", "out", "keepdims", KEYWORD_ONLY, "where"), always(BOOL))
_MEDIAN = Reduction(("axis", "out", "overwrite_input", "keepdims"), averaged, method=False)
_NAN_EXTREMUM = ("axis", "out", "keepdims", KEYWORD_ONLY, "initial", "where")
_QUANTILE = Reduction(("q", "axis", "out", "overwrite_input", "method", "keepdims", KEYWORD_ONLY,
                       "weights", "interpolation"), averaged, method=False)

REDUCTIONS: Dict[str, Reduction] = {
    "sum": _SUM, "prod": _SUM, "mean": _MEAN, "std": _SPREAD, "var": _SPREAD,
    "max": _EXTREMUM, "min": _EXTREMUM, "argmax": _ARG, "argmin": _ARG,
    "cumsum": _CUMULATIVE, "cumprod": _CUMULATIVE, "any": _TRUTH, "all": _TRUTH,
    "amax": Reduction(_EXTREMUM.signature, same, method=False),
    "amin": Reduction(_EXTREMUM.signature, same, method=False),
    "median": _MEDIAN, "quantile": _QUANTILE, "percentile": _QUANTILE,
    "nansum": Reduction(_SUM.signature, accumulated, method=False),
    "nanmean": Reduction(_MEAN.signature, averaged, method=False),
    "nanstd": Reduction(_SPREAD.signature, spread, method=False),
    "nanvar": Reduction(_SPREAD.signature, spread, method=False),
    "nanmax": Reduction(_NAN_EXTREMUM, same, method=False),
    "nanmin": Reduction(_NAN_EXTREMUM, same, method=False),
    "nanmedian": _MEDIAN,
}

#: ndarray methods among them.
METHODS = frozenset(name for name, r in REDUCTIONS.items() if r.method)


def reduce_function(name: str, args: CallArgs, node: Any) -> Value:
    """``np.<name>(a, ...)``: ``a`` may be anything numpy turns into an array."""
    reduction = REDUCTIONS[name]
    bound = bind(args, ("a",) + reduction.signature)
    array = as_array(bound["a"]) if bound is not None and "a" in bound else None
    if array is None:
        return TOP
    return _reduce(array, reduction, bound, node, f"np.{name}")  # type: ignore[arg-type]


def reduce_method(recv: ArrayValue, name: str, args: CallArgs, node: Any) -> Value:
    """``a.<name>(...)`` for a name in METHODS."""
    bound = bind(args, REDUCTIONS[name].signature)
    if bound is None:
        return TOP
    return _reduce(recv, REDUCTIONS[name], bound, node, f".{name}")


def _reduce(array: ArrayValue, reduction: Reduction, bound: Dict[str, Value], node: Any,
            label: str) -> Value:
    if given(bound, "out"):
        return TOP
    dtypes = map_dtypes(array.dtypes, reduction.dtype)
    if given(bound, "dtype"):
        explicit = numpy_dtype(bound["dtype"])
        dtypes = None if explicit is None else frozenset({explicit})
    if given(bound, "initial") or given(bound, "method") or given(bound, "interpolation") or \
            given(bound, "weights"):
        dtypes = None  # these can change the result's dtype; not modelled
    shape = _cumulative_shape(array.shape, bound) if reduction.cumulative else \
        _reduced_shape(array.shape, bound)
    if "q" in reduction.signature:
        dtypes, shape = _with_quantiles(dtypes, shape, bound.get("q", TOP))
    note = f"{label} gives {describe_dtypes(dtypes)}" if dtypes is not None else ""
    return ArrayValue(dtypes, shape, Origin(node, note, array.origin))


def _reduced_shape(shape: Shape, bound: Dict[str, Value]) -> Shape:
    keepdims = bound.get("keepdims", ScalarValue("bool", False))
    keep = keepdims.const if isinstance(keepdims, ScalarValue) and keepdims.pytype == "bool" else None
    if keep is None:
        return None
    rank = None if shape is None else len(shape)
    if not given(bound, "axis"):
        if not keep:
            return ()  # every axis: a numpy scalar
        return None if rank is None else (1,) * rank
    reduced = axes(bound["axis"], rank)
    if reduced is None or shape is None:
        return None
    if keep:
        return tuple(1 if i in reduced else d for i, d in enumerate(shape))
    return tuple(d for i, d in enumerate(shape) if i not in reduced)


def _cumulative_shape(shape: Shape, bound: Dict[str, Value]) -> Shape:
    if shape is None:
        return None
    if not given(bound, "axis"):
        return (S.numel_known(shape),)  # flattened
    return shape if axes(bound["axis"], len(shape)) is not None else None


def _with_quantiles(dtypes: DTypes, shape: Shape, q: Value) -> Tuple[DTypes, Shape]:
    """quantile/percentile: ``q``'s shape comes first, and ``q`` takes part in promotion (a
    Python float weakly, a list or an array strongly: float32 data with ``[0.5]`` is float64)."""
    if isinstance(q, ScalarValue) and q.pytype in ("int", "float"):
        return map_dtypes(dtypes, lambda d: result_type([d], [q.pytype])), shape
    quantiles = as_array(q) if not isinstance(q, NoneValue) else None
    if quantiles is None:
        return None, None
    q_dtype = quantiles.dtype
    dtypes = None if q_dtype is None else map_dtypes(dtypes, lambda d: result_type([d, q_dtype]))
    if quantiles.shape is None or shape is None:
        return dtypes, None
    return dtypes, tuple(quantiles.shape) + tuple(shape)


# ---------------------------------------------------------------------- counting and differencing


def bincount(args: CallArgs, node: Any) -> Value:
    """``np.bincount(x, weights=None, minlength=0)``: int64 counts (float64 weighted sums),
    as many as the largest value (unknown) plus one."""
    bound = bind(args, ("x", "weights", "minlength"))
    if bound is None or "x" not in bound:
        return TOP
    if bound.get("weights") is TOP:
        return ArrayValue(None, (None,))  # weights or None: float64 or int64
    dtype = FLOAT64 if given(bound, "weights") else INT64
    return ArrayValue(frozenset({dtype}), (None,), Origin(node, f"np.bincount gives {dtype}"))


def diff(args: CallArgs, node: Any) -> Value:
    """``np.diff(a, n=1, axis=-1)``: the dtype stays; ``n`` fewer along the axis."""
    bound = bind(args, ("a", "n", "axis", "prepend", "append"))
    array = as_array(bound["a"]) if bound is not None and "a" in bound else None
    if array is None or given(bound, "prepend") or given(bound, "append"):  # type: ignore[arg-type]
        return TOP
    n = int_const(bound.get("n", ScalarValue("int", 1)))  # type: ignore[union-attr]
    axis = axes(bound.get("axis", ScalarValue("int", -1)),  # type: ignore[union-attr]
                None if array.shape is None else len(array.shape))
    shape: Shape = None
    if array.shape is not None and axis is not None and len(axis) == 1 and n is not None:
        size = array.shape[axis[0]]
        fewer = max(size - n, 0) if isinstance(size, int) and n >= 0 else None
        shape = tuple(fewer if i == axis[0] else d for i, d in enumerate(array.shape))
    return ArrayValue(array.dtypes, shape, Origin(node, "np.diff keeps the dtype", array.origin))
