"""Type annotations as facts: ``torch.Tensor``, ``torch.FloatTensor``, jaxtyping, torchtyping."""
from __future__ import annotations

from typing import FrozenSet, Optional, Tuple

from ..values import (
    BFLOAT16, BOOL, COMPLEX64, COMPLEX128, DTYPE_FAMILIES, FLOAT16, FLOAT32, FLOAT64, INT8, INT16, INT32,
    INT64, UINT8, Dim, Shape,
)

#: jaxtyping dtype classes and the torch dtypes each admits: jaxtyping's own dtype list for
#: the class (jaxtyping 0.3), restricted to names that are torch dtypes, since jaxtyping
#: compares a tensor's dtype name with that list. The classes that admit a whole family take
#: it from ``values.DTYPE_FAMILIES`` (so messages can name it: "any float"). Checked against
#: the installed jaxtyping in tests/test_knowledge_annotations.py. ``Shaped`` admits any
#: dtype (None).
JAXTYPING_DTYPES: dict = {
    "Shaped": None,
    "Bool": frozenset({BOOL}),
    "UInt": DTYPE_FAMILIES["unsigned int"], "UInt2": frozenset({"uint2"}), "UInt4": frozenset({"uint4"}),
    "UInt8": frozenset({UINT8}), "UInt16": frozenset({"uint16"}),
    "UInt32": frozenset({"uint32"}), "UInt64": frozenset({"uint64"}),
    "Int": DTYPE_FAMILIES["signed int"], "Int2": frozenset({"int2"}), "Int4": frozenset({"int4"}),
    "Int8": frozenset({INT8}), "Int16": frozenset({INT16}),
    "Int32": frozenset({INT32}), "Int64": frozenset({INT64}),
    "Integer": DTYPE_FAMILIES["int"],
    "Float": DTYPE_FAMILIES["float"], "Float16": frozenset({FLOAT16}), "BFloat16": frozenset({BFLOAT16}),
    "Float32": frozenset({FLOAT32}), "Float64": frozenset({FLOAT64}),
    "Float8e4m3fn": frozenset({"float8_e4m3fn"}), "Float8e4m3fnuz": frozenset({"float8_e4m3fnuz"}),
    "Float8e5m2": frozenset({"float8_e5m2"}), "Float8e5m2fnuz": frozenset({"float8_e5m2fnuz"}),
    "Complex": DTYPE_FAMILIES["complex"], "Complex64": frozenset({COMPLEX64}),
    "Complex128": frozenset({COMPLEX128}),
    "Inexact": DTYPE_FAMILIES["float or complex"],
    "Real": DTYPE_FAMILIES["real"],
    "Num": DTYPE_FAMILIES["number"],
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
    for token in spec.split():
        if "," in token and "(" not in token:  # min(a,b) may hold a comma; "b,c" may not
            raise ShapeSpecError("dimensions are separated by spaces, not commas")
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
    """One token: an int (fixed), a str (a named dim, bound per call) or None (anything:
    anonymous ``_x``, broadcastable ``#x``, ``?x``, or an expression such as ``n-1``)."""
    if token == "...":
        return None, True
    if "=" in token:  # "doc=spec": the text before '=' is documentation only
        token = token.split("=", 1)[1]
        if not token:
            raise ShapeSpecError("nothing after '=' in a dimension")
    modifiers = ""
    body = token
    while body and body[0] in "*#?":
        if body[0] in modifiers:
            raise ShapeSpecError(f"{token!r} repeats the modifier {body[0]!r}")
        modifiers += body[0]
        body = body[1:]
    anonymous = body.startswith("_")
    if not body:
        raise ShapeSpecError(f"dimension {token!r} has no name")
    if body == "_" and "#" in modifiers:
        raise ShapeSpecError(f"{token!r}: '#' cannot be combined with an anonymous '_' dimension")
    variadic = "*" in modifiers
    if body.isdigit():
        if variadic or "?" in modifiers:
            raise ShapeSpecError(f"{token!r}: a fixed-size dimension cannot be variadic")
        return (None if "#" in modifiers else int(body)), False
    if anonymous and body[1:].isdigit():
        raise ShapeSpecError(f"{token!r}: an anonymous dimension cannot be a number")
    if body.isidentifier():
        if anonymous or "#" in modifiers or "?" in modifiers:
            return None, variadic
        return body, variadic
    # A symbolic expression (jaxtyping evaluates it at call time): unknown here.
    if variadic or anonymous:
        raise ShapeSpecError(f"{token!r}: an expression cannot be variadic or anonymous")
    allowed = set("_+-*/() ,")
    if not (body[0].isalnum() or body[0] in "(_") or not all(c.isalnum() or c in allowed for c in body):
        raise ShapeSpecError(f"{token!r} is not a valid dimension")
    return None, False


def tensor_annotation_dtypes(class_name: str) -> Optional[FrozenSet[str]]:
    """dtype set of a jaxtyping class (None = any); KeyError if the name is not one."""
    return JAXTYPING_DTYPES[class_name]
