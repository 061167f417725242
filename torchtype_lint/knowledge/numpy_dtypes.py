"""numpy's dtype rules (NumPy 2): dtype arguments, promotion, and the dtype each kind of
operation gives (accumulations, statistics, inexact ufuncs).

Unlike torch, numpy widens to keep every value (int64 with float32 is float64), Python
scalars are weak (NEP 50: they only raise the kind), and numpy scalars are as strong as
arrays. Every rule is checked against numpy in tests/test_knowledge_dtypes.py and
tests/test_numpy_knowledge.py.
"""
from __future__ import annotations

from typing import Callable, Dict, Iterable, Optional

from ..model.values import BOOL, FLOAT64, INT64, DTypes, StringValue, SymbolValue, Value
from . import dtypes as D
from .torch_api import dtype_of_arg

#: numpy dtype names the shared table (dtypes.NUMPY_DTYPE_NAMES) leaves out.
_MORE_NUMPY_NAMES: Dict[str, str] = {
    "uint16": "uint16", "uint32": "uint32", "uint64": "uint64", "uint": "uint64",
    "float": FLOAT64, "int": INT64, "complex": "complex128", "longlong": INT64,
    "ubyte": "uint8", "byte": "int8", "short": "int16", "intc": "int32",
    "u2": "uint16", "u4": "uint32", "u8": "uint64", "i1": "int8", "i2": "int16",
    "c8": "complex64", "c16": "complex128",
}


def numpy_dtype(value: Value) -> Optional[str]:
    """A dtype argument as numpy reads it: ``np.float32``, ``"float32"``, ``float``..."""
    if isinstance(value, StringValue) and value.const is not None:
        return D.NUMPY_DTYPE_NAMES.get(value.const) or _MORE_NUMPY_NAMES.get(value.const)
    if isinstance(value, SymbolValue):
        if value.qualname.startswith("torch."):
            return None
        if value.qualname.startswith("numpy.") and value.qualname[6:] in _MORE_NUMPY_NAMES:
            return _MORE_NUMPY_NAMES[value.qualname[6:]]
    return dtype_of_arg(value)


_NP_SIZES = {"uint8": 1, "int8": 1, "uint16": 2, "int16": 2, "uint32": 4, "int32": 4,
             "uint64": 8, "int64": 8, "float16": 2, "float32": 4, FLOAT64: 8,
             "complex64": 8, "complex128": 16}


def kind(dtype: str) -> str:
    """numpy's kind letter: b(ool), u(nsigned), i(nt), f(loat), c(omplex)."""
    if dtype == BOOL:
        return "b"
    return "u" if dtype.startswith("uint") else "i" if dtype.startswith("int") else (
        "c" if dtype.startswith("complex") else "f")


def _float_width(dtype: str) -> int:
    """Bytes of the smallest float that holds every value of ``dtype`` (per component)."""
    k, size = kind(dtype), _NP_SIZES[dtype]
    if k == "f":
        return size
    if k == "c":
        return size // 2
    return {1: 2, 2: 4}.get(size, 8)


def promote_types(a: str, b: str) -> Optional[str]:
    """``np.promote_types`` for the common dtypes (numpy has no bfloat16); None if unmodelled.

    Unlike torch, numpy widens to keep every value: int64 with float32 is float64, and
    uint8 with int8 is int16.
    """
    if a == b:
        return a
    if a == BOOL:
        return b
    if b == BOOL:
        return a
    if a not in _NP_SIZES or b not in _NP_SIZES:
        return None
    ka, kb = kind(a), kind(b)
    if ka in "ui" and kb in "ui":
        if ka == kb:
            return a if _NP_SIZES[a] >= _NP_SIZES[b] else b
        unsigned, signed = (a, b) if ka == "u" else (b, a)
        if _NP_SIZES[signed] > _NP_SIZES[unsigned]:
            return signed
        return {1: "int16", 2: "int32", 4: INT64}.get(_NP_SIZES[unsigned], FLOAT64)
    # At least one is inexact: find the float width that holds both, then complex if needed.
    width = max(_float_width(a), _float_width(b))
    if "c" in (ka, kb):
        return {4: "complex64", 8: "complex128"}.get(max(width, 4), "complex128")
    return {2: "float16", 4: "float32", 8: FLOAT64}[width]


#: The dtype a lone Python scalar becomes (np.where(c, 1, 0) is int64).
PYTHON_SCALAR_DTYPES = {"int": INT64, "float": FLOAT64, "bool": BOOL, "complex": "complex128"}


def result_type(arrays: Iterable[str], scalars: Iterable[str] = ()) -> Optional[str]:
    """``np.result_type`` of arrays (and numpy scalars) of ``arrays`` dtypes and Python scalars
    of ``scalars`` types ("int", "float", ...): the arrays promote, the scalars are weak."""
    strong: Optional[str] = None
    for dtype in arrays:
        strong = dtype if strong is None else promote_types(strong, dtype)
        if strong is None:
            return None
    weak = list(scalars)
    if strong is None:
        order = ("bool", "int", "float", "complex")
        return PYTHON_SCALAR_DTYPES[max(weak, key=order.index)] if weak else None
    if not weak:
        return strong
    dtype = D.result_type([strong], [], weak, FLOAT64)
    # torch's complex half; numpy's smallest complex is complex64
    return "complex64" if dtype == "complex32" else dtype


def true_divide(dtype: str) -> str:
    """``a / b``: integer (and bool) true division gives float64 in numpy, whatever the width."""
    return FLOAT64 if kind(dtype) in "bui" else dtype


def accumulated(dtype: str) -> str:
    """sum / prod / cumsum / cumprod: bool and small ints accumulate in the platform int."""
    return {"b": INT64, "i": INT64, "u": "uint64"}.get(kind(dtype), dtype)


def averaged(dtype: str) -> str:
    """mean / median / quantile: integers and bool average in float64, inexact keep theirs."""
    return FLOAT64 if kind(dtype) in "bui" else dtype


def spread(dtype: str) -> str:
    """std / var: like the mean, but a complex array's spread is real."""
    return {"complex64": "float32", "complex128": FLOAT64}.get(dtype, averaged(dtype))


def inexact(dtype: str) -> Optional[str]:
    """sqrt / exp / log / sin...: the smallest float that holds the input (uint8 -> float16)."""
    return promote_types(dtype, "float16") if dtype in _NP_SIZES or dtype == BOOL else None


def same(dtype: str) -> str:
    return dtype


def always(result: str) -> Callable[[str], str]:
    """A rule giving ``result`` whatever the input (argmax's int64, any's bool)."""
    return lambda dtype: result


def map_dtypes(dtypes: DTypes, rule: Callable[[str], Optional[str]]) -> DTypes:
    """``rule`` over every possible dtype; unknown if any is unknown."""
    if dtypes is None:
        return None
    out = set()
    for dtype in dtypes:
        mapped = rule(dtype)
        if mapped is None:
            return None
        out.add(mapped)
    return frozenset(out)
