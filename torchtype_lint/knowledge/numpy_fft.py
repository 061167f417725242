"""``np.fft``'s one-dimensional transforms: ``fft``/``ifft`` (complex, the axis's length or
``n``), ``rfft`` (complex, ``n // 2 + 1`` along the axis) and ``irfft`` (real, ``n`` or
``2 * (m - 1)``). Only the dtypes every NumPy gives are claimed: float64 and integer input
compute in complex128 (irfft: float64). float32 input gives complex64 from NumPy 2 on and
complex128 before, so it stays unknown. Checked against numpy in tests/test_numpy_knowledge.py.
"""
from __future__ import annotations

from typing import Any, Optional

from ..model.values import FLOAT64, TOP, ArrayValue, CallArgs, Origin, Value
from .numpy_args import as_array, bind
from .numpy_dtypes import kind
from .torch_api import int_const

COMPLEX128 = "complex128"
TRANSFORMS = ("fft", "ifft", "rfft", "irfft")
_SIGNATURE = ("a", "n", "axis", "norm", "out")


def _dtype(name: str, array: ArrayValue) -> Optional[str]:
    """The result's dtype where NumPy's versions agree: complex128 (irfft: float64) for float64
    and integer input, and for complex128 input of fft/ifft; else None."""
    dtype = array.dtype
    if dtype is None:
        return None
    real = dtype == FLOAT64 or kind(dtype) in ("i", "u")
    if name in ("rfft",) and real:
        return COMPLEX128
    if name in ("fft", "ifft") and (real or dtype == COMPLEX128):
        return COMPLEX128
    if name == "irfft" and (real or dtype == COMPLEX128):
        return FLOAT64
    return None


def transform(name: str, args: CallArgs, node: Any) -> Value:
    """``np.fft.<name>(a, n=None, axis=-1)``."""
    bound = bind(args, _SIGNATURE)
    if bound is None or "a" not in bound or "out" in bound:
        return TOP
    array = as_array(bound["a"])
    if array is None:
        return TOP
    dtype = _dtype(name, array)
    shape = None
    if array.shape is not None and len(array.shape) > 0:
        axis = int_const(bound["axis"]) if "axis" in bound else -1
        n = int_const(bound["n"]) if "n" in bound else None
        if axis is not None and -len(array.shape) <= axis < len(array.shape) and ("n" not in bound or n):
            axis %= len(array.shape)
            length = n if n is not None else array.shape[axis]
            if name == "rfft":
                length = None if length is None else length // 2 + 1
            elif name == "irfft" and n is None:
                length = None if length is None else 2 * (length - 1)
            shape = tuple(length if i == axis else d for i, d in enumerate(array.shape))
    return ArrayValue(None if dtype is None else frozenset({dtype}), shape,
                      Origin(node, f"np.fft.{name} gives {dtype}", array.origin) if dtype else None)
