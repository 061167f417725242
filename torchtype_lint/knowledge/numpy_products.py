"""numpy's products of two arrays (``np.dot``, ``np.matmul``, ``np.outer``, ``a.dot(b)``) and
covariance / correlation matrices (``np.cov``, ``np.corrcoef``).

Products promote their operands' dtypes; ``np.cov`` computes in at least float64. Checked
against numpy in tests/test_numpy_knowledge.py.
"""
from __future__ import annotations

from typing import Any, Optional

from ..model.values import FLOAT64, TOP, ArrayValue, CallArgs, Origin, ScalarValue, Shape, Value
from . import shapes as S
from .numpy_args import KEYWORD_ONLY, as_array, bind, given
from .numpy_dtypes import numpy_dtype, promote_types, result_type

#: Parameters of each product after its two operands.
_PRODUCTS = {"dot": ("out",), "matmul": ("out",), "outer": ("out",)}
PRODUCTS = frozenset(_PRODUCTS)


def product(name: str, left: Value, right: Value, node: Any, label: str) -> Value:
    """``np.<name>(left, right)`` of two arrays (a Python scalar operand is not modelled)."""
    a, b = _operand(left), _operand(right)
    if a is None or b is None:
        return TOP
    dtype = result_type([a.dtype, b.dtype]) if a.dtype is not None and b.dtype is not None else None
    shape: Shape = None
    if name == "outer":
        if a.shape is not None and b.shape is not None:
            shape = (S.numel_known(a.shape), S.numel_known(b.shape))
    elif a.shape is not None and b.shape is not None and a.shape and b.shape and (
            name == "matmul" or (len(a.shape) <= 2 and len(b.shape) <= 2)):
        shape = S.matmul_shape(a.shape, b.shape)  # np.dot of N-d arrays is not matmul
    return ArrayValue(None if dtype is None else frozenset({dtype}), shape,
                      Origin(node, f"{label} gives {dtype}" if dtype else ""))


def _operand(value: Value) -> Optional[ArrayValue]:
    return None if isinstance(value, ScalarValue) else as_array(value)


def product_function(name: str, args: CallArgs, node: Any) -> Value:
    bound = bind(args, ("a", "b") + _PRODUCTS[name])
    if bound is None or "a" not in bound or "b" not in bound or given(bound, "out"):
        return TOP
    return product(name, bound["a"], bound["b"], node, f"np.{name}")


_COVARIANCE = {"cov": ("m", "y", "rowvar", "bias", "ddof", "fweights", "aweights", KEYWORD_ONLY,
                       "dtype"),
               "corrcoef": ("x", "y", "rowvar", KEYWORD_ONLY, "dtype")}
COVARIANCES = frozenset(_COVARIANCE)


def covariance(name: str, args: CallArgs, node: Any) -> Value:
    """``np.cov(m)`` / ``np.corrcoef(m)``: variables in rows (``rowvar=False``: in columns);
    a (v, n) matrix gives (v, v), a 1-D series a 0-d array; float64 at least."""
    signature = _COVARIANCE[name]
    bound = bind(args, signature)
    if bound is None or signature[0] not in bound or given(bound, "y"):
        return TOP
    data = as_array(bound[signature[0]])
    if data is None:
        return TOP
    if given(bound, "dtype"):
        dtype = numpy_dtype(bound["dtype"])
    else:
        dtype = promote_types(data.dtype, FLOAT64) if data.dtype is not None else None
    rowvar = bound.get("rowvar", ScalarValue("bool", True))
    shape: Shape = None
    if data.shape is not None and len(data.shape) == 1:
        shape = ()
    elif data.shape is not None and len(data.shape) == 2 and isinstance(rowvar, ScalarValue) and \
            isinstance(rowvar.const, bool):
        variables = data.shape[0] if rowvar.const else data.shape[1]
        shape = (variables, variables)
    return ArrayValue(None if dtype is None else frozenset({dtype}), shape,
                      Origin(node, f"np.{name} gives {dtype}" if dtype else "", data.origin))
