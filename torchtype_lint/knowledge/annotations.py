"""Type annotations as facts: ``torch.Tensor``, ``torch.FloatTensor``, jaxtyping, torchtyping."""
from __future__ import annotations

from typing import FrozenSet, Optional, Tuple

from ..values import (
    BFLOAT16, BOOL, COMPLEX64, COMPLEX128, FLOAT16, FLOAT32, FLOAT64, INT8, INT16, INT32,
    INT64, UINT8, Dim, Shape,
)

_INTS = frozenset({INT8, INT16, INT32, INT64})
_UINTS = frozenset({UINT8, "uint16", "uint32", "uint64"})
_FLOATS = frozenset({FLOAT16, BFLOAT16, FLOAT32, FLOAT64})
_COMPLEX = frozenset({COMPLEX64, COMPLEX128})

#: jaxtyping dtype classes and the torch dtypes each admits (jaxtyping 0.3).
JAXTYPING_DTYPES: dict = {
    "Shaped": None,  # any dtype
    "Bool": frozenset({BOOL}),
    "UInt": _UINTS, "UInt8": frozenset({UINT8}), "UInt16": frozenset({"uint16"}),
    "UInt32": frozenset({"uint32"}), "UInt64": frozenset({"uint64"}),
    "Int": _INTS, "Int8": frozenset({INT8}), "Int16": frozenset({INT16}),
    "Int32": frozenset({INT32}), "Int64": frozenset({INT64}),
    "Integer": _INTS | _UINTS,
    "Float": _FLOATS, "Float16": frozenset({FLOAT16}), "BFloat16": frozenset({BFLOAT16}),
    "Float32": frozenset({FLOAT32}), "Float64": frozenset({FLOAT64}),
    "Complex": _COMPLEX, "Complex64": frozenset({COMPLEX64}), "Complex128": frozenset({COMPLEX128}),
    "Inexact": _FLOATS | _COMPLEX,
    "Real": _FLOATS | _INTS | _UINTS,
    "Num": _FLOATS | _INTS | _UINTS | _COMPLEX,
}


class ShapeSpecError(ValueError):
    """A jaxtyping shape string that jaxtyping itself would reject."""


def parse_shape_string(spec: str) -> Tuple[Shape, Tuple[str, ...]]:
    """Parse a jaxtyping shape string into (shape, variadic names).

    Returns the shape as a tuple of dims (named dims become their name, ``_`` and ``#x``
    broadcastable dims become unknown) or None when a variadic (``*batch`` / ``...``) makes
    the rank unknown. Raises ShapeSpecError for strings jaxtyping rejects.
    """
    dims = []
    variadics = []
    tokens = spec.replace(",", " , ").split()
    if "," in tokens:
        raise ShapeSpecError("dimensions are separated by spaces, not commas")
    for token in tokens:
        dim, is_variadic = _parse_dim(token)
        if is_variadic:
            variadics.append(token)
        dims.append(dim)
    if len(variadics) > 1:
        raise ShapeSpecError(f"more than one variadic dimension: {', '.join(variadics)}")
    if variadics:
        return None, tuple(variadics)
    return tuple(dims), ()


def _parse_dim(token: str) -> Tuple[Dim, bool]:
    if token == "...":
        return None, True
    modifiers = ""
    body = token
    while body and body[0] in "*#?":
        modifiers += body[0]
        body = body[1:]
    if "=" in body:  # "name=expr": the name is documentation, the value an expression
        body = body.split("=", 1)[0]
    if not body:
        raise ShapeSpecError(f"dimension {token!r} has no name")
    if body == "_" and "#" in modifiers:
        raise ShapeSpecError(f"{token!r}: '#' cannot be combined with an anonymous '_' dimension")
    variadic = "*" in modifiers
    if body.isdigit():
        if variadic:
            raise ShapeSpecError(f"{token!r}: a fixed-size dimension cannot be variadic")
        return (None if "#" in modifiers else int(body)), False
    if body == "_":
        return None, variadic
    if not (body[0].isalpha() or body[0] == "_") or not all(c.isalnum() or c in "_+-*/()" for c in body):
        raise ShapeSpecError(f"{token!r} is not a valid dimension")
    if "#" in modifiers or "?" in modifiers:
        return None, variadic
    return body, variadic


def tensor_annotation_dtypes(class_name: str) -> Optional[FrozenSet[str]]:
    """dtype set of a jaxtyping class (None = any); KeyError if the name is not one."""
    return JAXTYPING_DTYPES[class_name]
