"""Type annotations read as values: what ``x: Float[Tensor, "b c"]``, ``torch.FloatTensor``,
``Annotated[torch.Tensor, Shape("B", 3)]``, ``TensorType["batch", 3, torch.float32]`` or
``Tuple[Tensor, int]`` promise.

Reading an annotation evaluates parts of it (the names ``Float``, ``Tensor``, ``torch.float32``
resolve through the file's imports), so it needs the interpreter; the shape-annotation dialects
(jaxtyping, TorchShapeFlow, torchtyping) are read by ``knowledge/shape_dialects.py``.
Sub-expressions are evaluated with recording off: an annotation is not code that runs.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Optional

import libcst as cst

from ..knowledge import annotations as A
from ..knowledge import dtypes as D
from ..knowledge.annotations import engine_shape
from ..knowledge.shape_dialects import (
    JAXTYPING, MAX_NESTING, TORCHSHAPEFLOW, TORCHTYPING, AnnotationScope, annotated_base, imports_torchshapeflow,
    module_aliases, read_shape_annotation,
)
from ..model.values import (
    TOP, ClassValue, DTypeValue, Origin, ScalarValue, SequenceValue, SymbolValue, TensorValue, Value, join_all,
    with_origin,
)

if TYPE_CHECKING:
    from .interpreter import Interpreter


def annotation_value(interp: "Interpreter", node: Any) -> Value:
    """The value an annotation promises: Tensor, FloatTensor, a shape annotation in any dialect."""
    try:
        return _annotation_value(interp, node)
    except A.ShapeSpecError:
        return TOP


def _annotation_value(interp: "Interpreter", node: Any, depth: int = 0) -> Value:
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
        if isinstance(node, (cst.Subscript, cst.Name)):
            scope = _scope(interp)
            annotation = read_shape_annotation(node, scope)
            if annotation is not None:
                if annotation.error is not None:
                    return TOP  # a string jaxtyping rejects promises nothing (TTL603 reports it)
                shape = engine_shape(annotation.dims) if annotation.dims is not None else None
                return TensorValue(annotation.dtypes, shape, Origin(node, _ORIGIN_NOTES[annotation.dialect](annotation)))
            base = annotated_base(node, scope)
            if base is not None:
                # Annotated[int, "doc"] is an int; an alias may name itself: the depth is bounded.
                return _annotation_value(interp, base, depth + 1) if depth < MAX_NESTING else TOP
        if isinstance(node, cst.Subscript):
            base = interp.eval(node.value)
            if not isinstance(base, SymbolValue):
                return TOP
            qual = base.qualname
            parts = [el.slice.value for el in node.slice if isinstance(el.slice, cst.Index)]
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


#: How a provenance step names the annotation a value came from, per dialect.
_ORIGIN_NOTES = {
    JAXTYPING: lambda a: f"annotated {a.dtype_label}[Tensor, ...]",
    TORCHSHAPEFLOW: lambda a: "annotated Shape(...)",
    TORCHTYPING: lambda a: "annotated TensorType[...]",
}


def _scope(interp: "Interpreter") -> AnnotationScope:
    """What reading the file's annotations needs; its aliases and imports are read once."""
    facts = interp.annotation_facts
    if facts is None:
        facts = interp.annotation_facts = (module_aliases(interp.module), imports_torchshapeflow(interp.module))
    aliases, tsf = facts
    return AnnotationScope(lambda n: _qualname(interp, n), aliases, tsf, interp.default_float)


def _qualname(interp: "Interpreter", node: Any) -> Optional[str]:
    """The library name a (dotted) name in an annotation refers to: ``Float`` ->
    ``jaxtyping.Float``, ``torch.float32`` -> ``torch.float32``; None for anything else."""
    if not isinstance(node, (cst.Name, cst.Attribute)):
        return None
    value = interp.eval(node)
    if isinstance(value, SymbolValue):
        return value.qualname
    if isinstance(value, DTypeValue):
        return "torch." + value.dtype  # every dtype name is also torch's attribute
    return None


def declared_attribute(interp: "Interpreter", cls: ClassValue, name: str) -> Value:
    """What the class body declares for the attribute ``name`` (``w: Float[Tensor, "d d"]``,
    a field with no value), looked up through the file's base classes; TOP if nothing."""
    for owner in (cls,) + cls.base_classes:
        body = owner.node.body.body if isinstance(owner.node.body, cst.IndentedBlock) else ()
        for item in body:
            if not isinstance(item, cst.SimpleStatementLine):
                continue
            for small in item.body:
                if isinstance(small, cst.AnnAssign) and small.value is None \
                        and isinstance(small.target, cst.Name) and small.target.value == name:
                    return annotation_value(interp, small.annotation.annotation)
    return TOP
