"""Type annotations as facts: jaxtyping's dtype classes, and shape dims (of every dialect,
see ``shape_dialects``) as the engine's shapes."""
from __future__ import annotations

from typing import FrozenSet, Optional, Sequence, Tuple

from ..model.values import (
    BFLOAT16, BOOL, COMPLEX64, COMPLEX128, DTYPE_FAMILIES, FLOAT16, FLOAT32, FLOAT64, INT8, INT16, INT32,
    INT64, UINT8, Dim, Shape,
)
# ShapeSpecError is also this module's: the engine catches it as annotations.ShapeSpecError.
from .jaxtyping_shapes import DimSpec, ShapeSpecError, parse_jaxtyping_shape  # noqa: F401

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


def parse_shape_string(spec: str) -> Tuple[Shape, Tuple[str, ...]]:
    """A jaxtyping shape string as the engine's shape: (shape, variadic dims as written).

    The shape is a tuple of dims (fixed sizes stay ints, named dims become their name, every
    other dim is unknown) or None when a variadic (``*batch`` / ``...``) makes the rank
    unknown. Raises ShapeSpecError for strings jaxtyping rejects (see ``jaxtyping_shapes``).
    """
    dims = parse_jaxtyping_shape(spec)
    variadics = tuple(dim.token for dim in dims if dim.variadic)
    return engine_shape(dims), variadics


def engine_shape(dims: Sequence[DimSpec]) -> Shape:
    """Parsed dims (of any shape-annotation dialect) as the engine's shape; None when a
    variadic dim makes the rank unknown."""
    if any(dim.variadic for dim in dims):
        return None
    return tuple(_engine_dim(dim) for dim in dims)


def _engine_dim(dim: DimSpec) -> Dim:
    """An int (fixed), a str (named: bound per call) or None (anything): anonymous, symbolic,
    broadcastable (``#x`` may be 1) and tree-path dependent (``?x``) dims are unknown."""
    if dim.broadcastable or dim.treepath:
        return None
    if dim.kind == "fixed":
        return dim.value if dim.value >= 0 else None  # jaxtyping takes "-1", no tensor has it
    if dim.kind == "named":
        return dim.value or None  # "b=" and "*" name a dim ""
    return None


def tensor_annotation_dtypes(class_name: str) -> Optional[FrozenSet[str]]:
    """dtype set of a jaxtyping class (None = any); KeyError if the name is not one."""
    return JAXTYPING_DTYPES[class_name]
