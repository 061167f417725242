"""Torch dtype facts: names, aliases and type promotion (torch 2.13).

Every function here is checked against real torch in tests/test_knowledge_dtypes.py.
"""
from __future__ import annotations

from typing import Dict, Iterable, Optional

from ..model.values import (
    BFLOAT16, BOOL, COMPLEX64, COMPLEX128, FLOAT16, FLOAT32, FLOAT64, INT8, INT16, INT32,
    INT64, UINT8, Category, category,
)

#: ``torch.<attr>`` -> canonical dtype name (aliases included).
TORCH_DTYPE_ATTRS: Dict[str, str] = {
    "bool": BOOL, "uint8": UINT8, "int8": INT8, "int16": INT16, "short": INT16,
    "int32": INT32, "int": INT32, "int64": INT64, "long": INT64,
    "float16": FLOAT16, "half": FLOAT16, "bfloat16": BFLOAT16,
    "float32": FLOAT32, "float": FLOAT32, "float64": FLOAT64, "double": FLOAT64,
    "complex64": COMPLEX64, "cfloat": COMPLEX64, "complex128": COMPLEX128, "cdouble": COMPLEX128,
    "uint16": "uint16", "uint32": "uint32", "uint64": "uint64",
}

#: Python builtins accepted where torch wants a dtype (``dtype=float`` is float64!).
PYTHON_TYPE_DTYPES: Dict[str, str] = {
    "float": FLOAT64, "int": INT64, "bool": BOOL, "complex": COMPLEX128,
}

#: ``x.float()``-style cast methods on tensors.
CAST_METHODS: Dict[str, str] = {
    "float": FLOAT32, "double": FLOAT64, "half": FLOAT16, "bfloat16": BFLOAT16,
    "long": INT64, "int": INT32, "short": INT16, "bool": BOOL, "byte": UINT8, "char": INT8,
    "cfloat": COMPLEX64, "cdouble": COMPLEX128,
}

#: Legacy tensor types: ``torch.FloatTensor`` and ``torch.cuda.FloatTensor``.
LEGACY_TENSOR_TYPES: Dict[str, str] = {
    "FloatTensor": FLOAT32, "DoubleTensor": FLOAT64, "HalfTensor": FLOAT16,
    "BFloat16Tensor": BFLOAT16, "ByteTensor": UINT8, "CharTensor": INT8,
    "ShortTensor": INT16, "IntTensor": INT32, "LongTensor": INT64, "BoolTensor": BOOL,
}

#: numpy dtype names (``np.float32``, ``"float32"``, ``np.int_``...) -> canonical names.
NUMPY_DTYPE_NAMES: Dict[str, str] = {
    "bool": BOOL, "bool_": BOOL, "uint8": UINT8, "int8": INT8, "int16": INT16,
    "int32": INT32, "int64": INT64, "int_": INT64, "intp": INT64, "float16": FLOAT16,
    "half": FLOAT16, "float32": FLOAT32, "single": FLOAT32, "float64": FLOAT64,
    "double": FLOAT64, "float_": FLOAT64, "complex64": COMPLEX64, "complex128": COMPLEX128,
    "f4": FLOAT32, "f8": FLOAT64, "i4": INT32, "i8": INT64, "u1": UINT8, "f2": FLOAT16,
}

_INT_ORDER = {INT8: 0, INT16: 1, INT32: 2, INT64: 3}
_FLOAT_ORDER = {FLOAT16: 0, BFLOAT16: 0, FLOAT32: 1, FLOAT64: 2}


def promote_types(a: str, b: str) -> Optional[str]:
    """``torch.promote_types(a, b)`` for the common dtypes; None when not modelled."""
    if a == b:
        return a
    if a == BOOL:
        return b
    if b == BOOL:
        return a
    ca, cb = category(a), category(b)
    if ca == 1 and cb == 1:
        if a == UINT8 or b == UINT8:
            other = b if a == UINT8 else a
            if other not in _INT_ORDER:
                return None
            return INT16 if other == INT8 else other
        if a not in _INT_ORDER or b not in _INT_ORDER:
            return None
        return a if _INT_ORDER[a] >= _INT_ORDER[b] else b
    if ca != cb:
        hi, lo = (a, b) if ca > cb else (b, a)
        if category(hi) == Category.COMPLEX and category(lo) == Category.FLOAT:
            return promote_types(hi, _complex_of(lo))
        return hi if hi in _FLOAT_ORDER or hi in (COMPLEX64, COMPLEX128) else None
    if ca == 2:
        if {a, b} == {FLOAT16, BFLOAT16}:
            return FLOAT32
        if a not in _FLOAT_ORDER or b not in _FLOAT_ORDER:
            return None
        return a if _FLOAT_ORDER[a] >= _FLOAT_ORDER[b] else b
    if ca == 3:
        return COMPLEX128 if COMPLEX128 in (a, b) else COMPLEX64
    return None


def _complex_of(dtype: str) -> str:
    return {FLOAT64: COMPLEX128, FLOAT16: "complex32"}.get(dtype, COMPLEX64)


def _combine_categories(higher: Optional[str], lower: Optional[str]) -> Optional[str]:
    # Mirrors c10's combine_categories: a lower-priority operand only matters when it is of
    # a higher category than the higher-priority result.
    if higher is None:
        return lower
    if lower is None:
        return higher
    if category(higher) == Category.COMPLEX:
        return higher
    if category(lower) == Category.COMPLEX:
        return _complex_of(higher) if category(higher) == Category.FLOAT else lower
    if category(higher) == Category.FLOAT:
        return higher
    if higher == BOOL or category(lower) == Category.FLOAT:
        return promote_types(higher, lower)
    return higher


def _promote_all(dtypes: Iterable[str]) -> Optional[str]:
    result: Optional[str] = None
    for d in dtypes:
        result = d if result is None else promote_types(result, d)
        if result is None:
            return None
    return result


def scalar_dtype(pytype: str, default_float: str = FLOAT32) -> str:
    """The dtype a Python scalar takes part in promotion with."""
    if pytype == "float":
        return default_float
    if pytype == "complex":
        # float64 -> complex128, float16 -> complex32, float32 and bfloat16 -> complex64
        return _complex_of(default_float)
    if pytype == "bool":
        return BOOL
    return INT64


def result_type(dim_tensors: Iterable[str], zero_dim_tensors: Iterable[str] = (),
                scalars: Iterable[str] = (), default_float: str = FLOAT32) -> Optional[str]:
    """torch.result_type over operands grouped by priority.

    ``dim_tensors`` / ``zero_dim_tensors`` are dtypes; ``scalars`` are Python type names
    ("int", "float", "bool", "complex"). Python scalars and 0-dim tensors only raise the
    *category* of a dimensioned tensor, never its width (``int32_t + 1`` stays int32).
    """
    dim = _promote_all(dim_tensors)
    zero = _promote_all(zero_dim_tensors)
    wrapped = _promote_all(scalar_dtype(s, default_float) for s in scalars)
    return _combine_categories(dim, _combine_categories(zero, wrapped))


def can_cast(from_dtype: str, to_dtype: str) -> bool:
    """torch.can_cast: may an in-place op write a ``from_dtype`` result into ``to_dtype``?

    Only a lower category is refused (float into int, int into bool, complex into float).
    """
    return category(from_dtype) <= category(to_dtype)


def true_divide_dtype(dtype: str, default_float: str = FLOAT32) -> str:
    """``a / b`` of integers gives the default float dtype."""
    return default_float if category(dtype) < Category.FLOAT else dtype
