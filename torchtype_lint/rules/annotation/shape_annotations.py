"""Which annotations are shape annotations, in any dialect (jaxtyping, TorchShapeFlow,
torchtyping: ``knowledge/shape_dialects.py``), read with the file's imports and aliases, and
how messages show them."""
from __future__ import annotations

from typing import Any, Dict, List, Optional, Tuple

import libcst as cst

from ...knowledge.shape_dialects import (
    JAXTYPING, AnnotationScope, ShapeAnnotation, imports_torchshapeflow, module_aliases,
    read_shape_annotation,
)
from ...model.values import DTypeValue, SymbolValue
from ..context import RuleContext


class _FileFacts:
    """Per analysis (``ctx.state``): the module-level aliases and whether the file imports
    torchshapeflow, read once."""

    def __init__(self) -> None:
        self.facts: Optional[Tuple[Dict[str, Any], bool]] = None


def _qualified(node: Any, ctx: RuleContext) -> Optional[str]:
    """The qualified name a (dotted) name in an annotation refers to, via the imports."""
    parts: List[str] = []
    while isinstance(node, cst.Attribute):
        parts.append(node.attr.value)
        node = node.value
    if not isinstance(node, cst.Name):
        return None
    head = ctx.lookup(node.value)
    if isinstance(head, DTypeValue) and not parts:
        return "torch." + head.dtype  # `from torch import float32`
    if not isinstance(head, SymbolValue):
        return None
    return ".".join([head.qualname] + list(reversed(parts)))


def shape_annotation(node: Any, ctx: RuleContext) -> Optional[ShapeAnnotation]:
    """The shape annotation ``node`` is (any dialect, any import style, or a module-level
    alias of one), or None."""
    holder = ctx.state(_FileFacts)
    if holder.facts is None:
        holder.facts = (module_aliases(ctx.module), imports_torchshapeflow(ctx.module))
    aliases, tsf = holder.facts
    scope = AnnotationScope(lambda n: _qualified(n, ctx), aliases, tsf, ctx.default_float)
    return read_shape_annotation(node, scope)


def dialect_name(annotation: ShapeAnnotation) -> str:
    """How a message names the annotation's kind: "jaxtyping annotation", "TorchShapeFlow
    annotation", "torchtyping annotation"."""
    return f"{annotation.dialect} annotation"


def dtype_requirement(annotation: ShapeAnnotation) -> str:
    """What the annotation asks of the dtype, for "... is int64, not <this>"."""
    if annotation.dialect == JAXTYPING:
        return f"a {annotation.dtype_label} dtype"
    return f"`{annotation.dtype_label}`"


#: The tuple types whose subscript lists one annotation per element.
TUPLE_NAMES = frozenset({"typing.Tuple", "builtins.tuple"})


def tuple_element_annotations(node: Any, ctx: RuleContext) -> Optional[List[Any]]:
    """``Tuple[A, B]`` / ``tuple[A, B]`` -> the element annotation nodes ``[A, B]``; None for
    any other annotation, and for ``Tuple[A, ...]`` (any length)."""
    if not isinstance(node, cst.Subscript) or _qualified(node.value, ctx) not in TUPLE_NAMES:
        return None
    parts = [element.slice.value for element in node.slice if isinstance(element.slice, cst.Index)]
    if len(parts) != len(node.slice) or any(isinstance(p, cst.Ellipsis) for p in parts):
        return None
    if len(parts) == 1 and isinstance(parts[0], cst.Tuple) and not parts[0].elements:
        return []  # Tuple[()]: the empty tuple
    return parts
