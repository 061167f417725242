"""A tensor with an ndarray on its right (``(x - mean) / std`` of numpy statistics): torch hands
the operator to numpy, which converts the tensor (``Tensor.__array__``), computes with numpy's
own promotion (float32 with an int32 or float64 array gives float64, and a 0-d float64 array
counts as an array, not a weak scalar) and gives the result back as a tensor
(``Tensor.__array_wrap__``, which makes a bool result uint8). Comparisons raise TypeError. A CUDA
tensor, one that requires grad or a bfloat16 one cannot be converted: torch raises there, so no
value flows on. Measured in torch: rows in tests/test_knowledge_torch.py.
"""
from __future__ import annotations

from typing import Any

from ..model.values import BOOL, TOP, UINT8, ArrayValue, TensorValue, Value
from . import numpy_api as NP

#: The tensor dtypes numpy has (bfloat16 has none: converting such a tensor raises).
_NUMPY_DTYPES = frozenset({"float16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8", "bool",
                           "complex64", "complex128"})
_COMPARISONS = ("<", ">", "<=", ">=", "==", "!=")


def tensor_with_array(tensor: TensorValue, array: ArrayValue, op: str, node: Any) -> Value:
    """``tensor <op> array``, computed as numpy computes it, as a CPU tensor."""
    if op in _COMPARISONS or op == "@":
        return TOP  # comparisons raise TypeError; a product is not followed
    if tensor.dtypes is None or not tensor.dtypes <= _NUMPY_DTYPES:
        return TensorValue(None, None, None, "cpu")
    dtypes = set()
    shape, origin = None, None
    for dtype in sorted(tensor.dtypes):
        result = NP.binary_op(ArrayValue(frozenset({dtype}), tensor.shape, tensor.origin), array, op, node)
        if not isinstance(result, ArrayValue) or result.dtype is None:
            return TensorValue(None, None, None, "cpu")
        dtypes.add(UINT8 if result.dtype == BOOL else result.dtype)  # __array_wrap__ keeps no bool
        shape, origin = result.shape, result.origin
    return TensorValue(frozenset(dtypes), shape, origin, "cpu")
