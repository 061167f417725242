"""TTL604 shape-annotation-assignment-mismatch: value assigned to a shape-annotated variable or attribute contradicts the annotation."""
from __future__ import annotations

from typing import Any, Dict, Optional, Tuple

import libcst as cst

from ...model.values import InstanceValue, TensorValue, describe_shape
from ..base import Rule, RuntimeClaim, expr_text, register
from ..context import RuleContext
from .matching import dtype_conflict, match_shape
from .shape_annotations import shape_annotation


def _declared_field(instance: InstanceValue, name: str) -> Optional[Any]:
    """The annotation the class body (or a base class of the file) declares for the field
    ``name`` with no value (``w: Float[Tensor, "d d"]``), else None."""
    for cls in (instance.cls,) + instance.cls.base_classes:
        body = cls.node.body.body if isinstance(cls.node.body, cst.IndentedBlock) else ()
        for item in body:
            if not isinstance(item, cst.SimpleStatementLine):
                continue
            for small in item.body:
                if isinstance(small, cst.AnnAssign) and small.value is None \
                        and isinstance(small.target, cst.Name) and small.target.value == name:
                    return small.annotation.annotation
    return None


def _target_and_annotation(node: Any, ctx: RuleContext) -> Optional[Tuple[Any, Any, Any]]:
    """(target, annotation node, value node) of an annotated assignment, or of ``self.w = ...``
    where the class declares ``w``."""
    if isinstance(node, cst.AnnAssign):
        if node.value is None:
            return None
        return node.target, node.annotation.annotation, node.value
    if len(node.targets) != 1:
        return None
    target = node.targets[0].target
    if not isinstance(target, cst.Attribute):
        return None
    owner = ctx.value(target.value)
    if not isinstance(owner, InstanceValue):
        return None
    declared = _declared_field(owner, target.attr.value)
    return (target, declared, node.value) if declared is not None else None


@register
class ShapeAnnotationAssignmentMismatch(Rule):
    """
    ## What it does
    Reads a shape annotation on a variable or an attribute as a promise about every value
    assigned to it, and flags an assignment whose value, as inferred, breaks it: a different
    rank, a fixed size that differs, a named dimension bound to two sizes within the
    annotation (`"d d"` for a `(3, 4)` tensor), or a dtype outside the annotation's. It
    covers module-level and local variables (`table: Float[Tensor, "n 3"] = ...`),
    attributes annotated where they are set (`self.w: Float[Tensor, "d d"] = ...`) and
    fields declared in the class body (`w: Float[Tensor, "d d"]`, then `self.w = ...`), in
    every dialect: jaxtyping's `Float[Tensor, "n 3"]` (also inside `Annotated[...]`),
    TorchShapeFlow's `Annotated[torch.Tensor, Shape("n", 3)]`, torchtyping's
    `TensorType["n", 3]`.

    ## Why is this bad?
    Every later use of the variable is written against the annotation: the reader, a type
    checker and torchtype-lint itself trust it. A value that does not fit means either the
    value or the annotation is wrong, and the mistake surfaces later, far from here.
    TorchShapeFlow reports such assignments; jaxtyping checks them only under an import
    hook (`beartype.claw`).

    ## Example
    ```python
    class Mixer(torch.nn.Module):
        weight: Float[Tensor, "d d"]

        def __init__(self, d: int) -> None:
            super().__init__()
            self.weight = torch.nn.Parameter(torch.randn(d, 2 * d))
    ```

    ## Use instead
    ```python
    class Mixer(torch.nn.Module):
        weight: Float[Tensor, "d d"]

        def __init__(self, d: int) -> None:
            super().__init__()
            self.weight = torch.nn.Parameter(torch.randn(d, d))
    ```

    ## Fix safety
    No fix.
    """

    code = "TTL604"
    name = "shape-annotation-assignment-mismatch"
    summary = "value assigned to a shape-annotated variable or attribute contradicts the annotation"
    listens = (cst.AnnAssign, cst.Assign)
    runtime = RuntimeClaim("AssertionError")

    def visit(self, node: Any, ctx: RuleContext) -> None:
        found = _target_and_annotation(node, ctx)
        if found is None:
            return
        target, annotation_node, value_node = found
        annotation = shape_annotation(annotation_node, ctx)
        if annotation is None or annotation.error is not None:
            return
        value = ctx.value(value_node)
        if not isinstance(value, TensorValue):
            return
        problem = dtype_conflict(annotation, value)
        if problem is None and value.shape is not None and annotation.dims is not None:
            bound: Dict[str, Any] = {}
            problem = match_shape(annotation.dims, tuple(value.shape), bound)
            if problem is not None:
                problem = f"(shape {describe_shape(value.shape)}) {problem}"
        if problem is None:
            return
        self.report(node, f"`{_short(target)}` is annotated `{annotation.text}`, but "
                          f"`{_short(value_node)}` {problem}", origin=value.origin)


def _short(node: Any) -> str:
    text = " ".join(expr_text(node).split())
    return text if len(text) <= 40 else text[:37] + "..."
