"""Which annotations are jaxtyping's (``Float[Tensor, "b c"]``, any import style, or a
module-level alias of one), with their parsed shape strings."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Dict, List, Optional

import libcst as cst

from ...knowledge.annotations import JAXTYPING_DTYPES
from ...knowledge.jaxtyping_shapes import DimSpec, ShapeSpecError, parse_jaxtyping_shape
from ...values import SymbolValue
from ..context import RuleContext


#: jaxtyping dtype classes beyond the engine's table that still take a shape string.
_OTHER_CLASSES = {"Key", "Float8e4m3fn", "Float8e5m2", "Int2", "Int4", "UInt2", "UInt4"}


@dataclass
class JaxAnnotation:
    class_name: str
    spec_node: Any
    spec: str
    dims: Optional[List[DimSpec]]  # None when malformed
    error: Optional[str] = None

    @property
    def dtypes(self) -> Optional[frozenset]:
        return JAXTYPING_DTYPES.get(self.class_name)


def _qualified(node: Any, ctx: RuleContext) -> Optional[str]:
    """The qualified name a (dotted) name in an annotation refers to, via the imports."""
    parts: List[str] = []
    while isinstance(node, cst.Attribute):
        parts.append(node.attr.value)
        node = node.value
    if not isinstance(node, cst.Name):
        return None
    head = ctx.lookup(node.value)
    if not isinstance(head, SymbolValue):
        return None
    return ".".join([head.qualname] + list(reversed(parts)))


class _ModuleAliases(Dict[str, Any]):
    """Per analysis (``ctx.state``): names assigned once at module level, with the expression
    assigned (for aliases such as ``Image = Float[Tensor, "c h w"]``)."""

    computed = False


def _module_assignments(ctx: RuleContext) -> Dict[str, Any]:
    aliases = ctx.state(_ModuleAliases)
    if aliases.computed:
        return aliases
    aliases.computed = True
    found: Dict[str, Any] = {}
    counts: Dict[str, int] = {}
    for stmt in ctx.module.body:
        if not isinstance(stmt, cst.SimpleStatementLine):
            continue
        for small in stmt.body:
            target = value = None
            if isinstance(small, cst.Assign) and len(small.targets) == 1:
                target, value = small.targets[0].target, small.value
            elif isinstance(small, cst.AnnAssign) and small.value is not None:
                target, value = small.target, small.value
            if isinstance(target, cst.Name):
                counts[target.value] = counts.get(target.value, 0) + 1
                found[target.value] = value
    # A name assigned twice could be either value: not an alias we can rely on.
    aliases.update((name, value) for name, value in found.items() if counts[name] == 1)
    return aliases


def _resolve_alias(node: Any, ctx: RuleContext, depth: int = 0) -> Any:
    """``Image`` -> the ``Float[Tensor, "c h w"]`` it names (module-level, assigned once)."""
    while isinstance(node, cst.Name) and depth < 4:
        target = _module_assignments(ctx).get(node.value)
        if target is None:
            return node
        node, depth = target, depth + 1
    return node


def jaxtyping_annotation(node: Any, ctx: RuleContext) -> Optional[JaxAnnotation]:
    """``Float[Tensor, "b c"]`` (any import style, or a module-level alias of one) with its
    parsed shape string."""
    node = _resolve_alias(node, ctx)
    if not isinstance(node, cst.Subscript) or len(node.slice) != 2:
        return None
    qual = _qualified(node.value, ctx)
    if qual is None or not qual.startswith("jaxtyping."):
        return None
    class_name = qual[len("jaxtyping."):]
    if class_name not in JAXTYPING_DTYPES and class_name not in _OTHER_CLASSES:
        return None
    array_slice = node.slice[0].slice
    if not isinstance(array_slice, cst.Index):
        return None
    array_type = _resolve_alias(array_slice.value, ctx)
    if isinstance(array_type, cst.Subscript) and jaxtyping_annotation(array_type, ctx) is not None:
        return None  # Float[Image, "b"] prepends dims to Image's: not modelled
    spec_slice = node.slice[1].slice
    if not isinstance(spec_slice, cst.Index) or not isinstance(spec_slice.value, cst.SimpleString):
        return None
    spec_node = spec_slice.value
    try:
        spec = spec_node.evaluated_value
    except Exception:  # noqa: BLE001 - an odd literal is not ours to judge
        return None
    if not isinstance(spec, str) or "{" in spec:
        return None  # f-string style dims ("{size}") are filled in at runtime
    try:
        return JaxAnnotation(class_name, spec_node, spec, parse_jaxtyping_shape(spec))
    except ShapeSpecError as exc:
        return JaxAnnotation(class_name, spec_node, spec, None, str(exc))
