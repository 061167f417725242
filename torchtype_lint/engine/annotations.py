"""Type annotations read as values: what ``x: Float[Tensor, "b c"]``, ``torch.FloatTensor``,
``TensorType["batch", 3, torch.float32]`` or ``Tuple[Tensor, int]`` promise.

Reading an annotation evaluates parts of it (the names ``Float``, ``Tensor``, ``torch.float32``
resolve through the file's imports), so it needs the interpreter; what the jaxtyping dtype
classes admit and how a shape string parses is data in ``knowledge/annotations.py``.
Sub-expressions are evaluated with recording off: an annotation is not code that runs.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, List

import libcst as cst

from ..knowledge import annotations as A
from ..knowledge import dtypes as D
from ..values import (
    BOOL, INT64, TOP, DTypeValue, NoneValue, Origin, ScalarValue, SequenceValue, SymbolValue,
    TensorValue, Value, join_all, with_origin,
)

if TYPE_CHECKING:
    from .interpreter import Interpreter


def annotation_value(interp: "Interpreter", node: Any) -> Value:
    """The value an annotation promises: Tensor, FloatTensor, jaxtyping, torchtyping."""
    try:
        return _annotation_value(interp, node)
    except A.ShapeSpecError:
        return TOP


def _annotation_value(interp: "Interpreter", node: Any) -> Value:
    recording = interp.recording
    interp.recording = False
    try:
        if isinstance(node, cst.SimpleString):
            # A forward reference: "Float[Tensor, 'b c']" reads like the unquoted form.
            text = node.evaluated_value
            if not isinstance(text, str) or len(text) > 200:
                return TOP
            try:
                parsed = cst.parse_expression(text)
            except Exception:  # noqa: BLE001 - not an expression: not an annotation we read
                return TOP
            value = _annotation_value(interp, parsed)
            # Provenance points at the string in the file, not at the re-parsed copy.
            if value.origin is not None:
                value = with_origin(value, Origin(node, value.origin.note))
            return value
        if isinstance(node, cst.Subscript):
            base = interp.eval(node.value)
            if not isinstance(base, SymbolValue):
                return TOP
            qual = base.qualname
            parts = [el.slice.value for el in node.slice if isinstance(el.slice, cst.Index)]
            if qual.startswith("jaxtyping."):
                cls_name = qual[10:]
                if cls_name not in A.JAXTYPING_DTYPES or len(parts) != 2:
                    return TOP
                array_type = interp.eval(parts[0])
                if not isinstance(array_type, SymbolValue) or array_type.qualname not in (
                        "torch.Tensor",):
                    return TOP
                spec = parts[1]
                shape = None
                if isinstance(spec, cst.SimpleString):
                    text = spec.evaluated_value
                    if isinstance(text, str):
                        shape, _ = A.parse_shape_string(text)
                return TensorValue(A.JAXTYPING_DTYPES[cls_name], shape,
                                   Origin(node, f"annotated {cls_name}[Tensor, ...]"))
            if qual in ("torchtyping.TensorType", "torchtyping.tensor_type.TensorType"):
                return _torchtyping(interp, node)
            if qual in ("typing.Optional",):
                return TOP
            if qual in ("typing.Tuple", "builtins.tuple", "typing.List", "builtins.list"):
                items = tuple(_annotation_value(interp, p) for p in parts)
                if qual.endswith(("Tuple", "tuple")) and not any(
                        isinstance(p, cst.Ellipsis) for p in parts):
                    return SequenceValue("tuple", join_all(items), items)
                return SequenceValue("list", items[0] if items else TOP, None)
            return TOP
        value = interp.eval(node)
        if isinstance(value, SymbolValue):
            q = value.qualname
            if q == "torch.Tensor":
                return TensorValue(None, None, Origin(node, "annotated torch.Tensor"))
            short = q.rsplit(".", 1)[-1]
            if q.startswith("torch.") and short in D.LEGACY_TENSOR_TYPES:
                return TensorValue(frozenset({D.LEGACY_TENSOR_TYPES[short]}), None,
                                   Origin(node, f"annotated {short}"))
            if q == "builtins.int":
                return ScalarValue("int")
            if q == "builtins.float":
                return ScalarValue("float")
            if q == "builtins.bool":
                return ScalarValue("bool")
        return TOP
    finally:
        interp.recording = recording


def _torchtyping(interp: "Interpreter", node: cst.Subscript) -> Value:
    """``TensorType["batch", 3, torch.float32]``: str dims are named, ints fixed (-1 any),
    ``...`` any number of dims, ``"name": size`` a named fixed size; dtypes are torch
    dtypes or ``int``/``bool``/``float`` (which torchtyping reads as the default dtype)."""
    dims: List[Any] = []
    variadic = False
    dtypes: Any = None
    for element in node.slice:
        part = element.slice
        if isinstance(part, cst.Slice):  # "name": size
            upper = part.upper
            if isinstance(upper, cst.Integer):
                size = int(upper.value)
                dims.append(None if size == -1 else size)
            elif isinstance(upper, cst.SimpleString) and isinstance(upper.evaluated_value, str):
                dims.append(upper.evaluated_value)
            elif isinstance(upper, cst.Ellipsis):
                variadic = True
            else:
                return TOP
            continue
        value_node = part.value
        if isinstance(value_node, cst.Ellipsis):
            variadic = True
        elif isinstance(value_node, cst.SimpleString):
            name = value_node.evaluated_value
            dims.append(name if isinstance(name, str) and name.isidentifier() else None)
        elif isinstance(value_node, (cst.Integer, cst.UnaryOperation)):
            size = interp.eval(value_node)
            const = size.const if isinstance(size, ScalarValue) else None
            dims.append(None if not isinstance(const, int) or const == -1 else const)
        else:
            value = interp.eval(value_node)
            if isinstance(value, DTypeValue):
                dtypes = frozenset({value.dtype})
            elif isinstance(value, SymbolValue) and value.qualname in (
                    "builtins.int", "builtins.bool", "builtins.float"):
                py = value.qualname[9:]
                dtypes = frozenset({interp.default_float if py == "float" else
                                    {"int": INT64, "bool": BOOL}[py]})
            elif isinstance(value, SymbolValue) and value.qualname.endswith("is_float"):
                dtypes = A.JAXTYPING_DTYPES["Float"]
            elif isinstance(value, NoneValue):
                dims.append(None)
            else:
                continue  # layouts and other details say nothing about dtype or shape
    shape = None if variadic or not dims else tuple(dims)
    return TensorValue(dtypes, shape, Origin(node, "annotated TensorType[...]"))
