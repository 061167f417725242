"""TTL602 shape-annotation-return-mismatch: returned tensor contradicts the function's shape return annotation."""
from __future__ import annotations

from typing import Any, Dict

import libcst as cst

from ...values import TensorValue, describe_shape
from ..base import Rule, RuntimeClaim, expr_text, register
from .shape_annotations import shape_annotation
from .matching import dtype_conflict, match_shape
from ..context import RuleContext


@register
class JaxtypingReturnMismatch(Rule):
    """
    ## What it does
    Flags a `return` whose inferred value contradicts the function's shape return
    annotation: a dtype outside the annotation's (`Float[...]` returning an int64 or bool
    tensor), a different rank, a fixed size that differs, or a named dimension whose size
    differs from the one the arguments bound in the same call. The annotation may be
    jaxtyping's `Float[Tensor, "b 1"]` (also inside `Annotated[...]`), TorchShapeFlow's
    `Annotated[torch.Tensor, Shape("b", 1)]` or torchtyping's `TensorType["b", 1]`.

    ## Why is this bad?
    Callers rely on the annotation; with a runtime checker the function raises a
    type-check error on the return value (jaxtyping: `TypeCheckError ... whilst checking
    the return value`), without one the wrong shape travels on (a reduction over the
    wrong dimension, a lost `keepdim`, a comparison returned instead of a score).

    ## Example
    ```python
    def row_totals(x: Float[Tensor, "b c"]) -> Float[Tensor, "b 1"]:
        return x.sum(dim=1)  # shape (b,)
    ```

    ## Use instead
    ```python
    def row_totals(x: Float[Tensor, "b c"]) -> Float[Tensor, "b 1"]:
        return x.sum(dim=1, keepdim=True)
    ```

    ## Fix safety
    No fix.
    """

    code = "TTL602"
    name = "shape-annotation-return-mismatch"
    summary = "returned tensor contradicts the function's shape return annotation"
    listens = (cst.Return,)
    runtime = RuntimeClaim("AssertionError")

    def visit(self, node: cst.Return, ctx: RuleContext) -> None:
        fnode = ctx.function_node
        if not isinstance(fnode, cst.FunctionDef) or fnode.returns is None or node.value is None:
            return
        annotation = shape_annotation(fnode.returns.annotation, ctx)
        if annotation is None or annotation.error is not None:
            return
        value = ctx.value(node.value)
        if not isinstance(value, TensorValue):
            return
        problem = dtype_conflict(annotation, value)
        if problem is None and value.shape is not None and annotation.dims is not None:
            bound = _parameter_bindings(fnode, ctx)
            problem = match_shape(annotation.dims, tuple(value.shape), bound)
            if problem is not None:
                problem = f"(shape {describe_shape(value.shape)}) {problem}"
        if problem is None:
            return
        self.report(node, f"`{fnode.name.value}` is annotated to return `{annotation.text}`, but "
                          f"`{_short(node.value)}` {problem}", origin=value.origin)


def _short(node: Any) -> str:
    text = " ".join(expr_text(node).split())
    return text if len(text) <= 40 else text[:37] + "..."


def _parameter_bindings(fnode: cst.FunctionDef, ctx: RuleContext) -> Dict[str, Any]:
    """Named dims bound by the parameters' values in the current activation."""
    bound: Dict[str, Any] = {}
    params = list(fnode.params.posonly_params) + list(fnode.params.params) + list(fnode.params.kwonly_params)
    for param in params:
        if param.annotation is None:
            continue
        annotation = shape_annotation(param.annotation.annotation, ctx)
        value = ctx.value(param.name)
        if annotation is None or annotation.dims is None or not isinstance(value, TensorValue) \
                or value.shape is None:
            continue
        trial = dict(bound)
        if match_shape(annotation.dims, tuple(value.shape), trial) is None:
            bound = trial  # a contradicting argument is TTL601's finding; it binds nothing here
    return bound
