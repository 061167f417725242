"""TTL654 contract-reshape-sizes: view/reshape whose element counts agree only for special annotated sizes."""
from __future__ import annotations

import libcst as cst

from ...model.values import describe_shape
from ..base import Rule, RuntimeClaim, register
from ..context import RuleContext
from .reshape_targets import reshape_at
from .size_contracts import promise, shown, sizes_condition


@register
class ContractReshapeSizes(Rule):
    """
    ## What it does
    In a function whose parameters carry shape annotations, flags `view`, `reshape`,
    `view_as`, `reshape_as` and `torch.reshape` where the tensor's element count and the
    target's are products of *different* annotated sizes, equal only for special sizes:
    `x.view_as(y)` for `x: Float[Tensor, "b d"]` and `y: Float[Tensor, "b k"]` needs
    `d == k`. The message says which sizes would have to be equal. Only dimensions named by
    the function's own annotations count; a target with an unknown size or a `-1` never
    fires.

    ## Why is this bad?
    The annotations promise any sizes, but the reshape succeeds only when the element
    counts happen to agree, and otherwise raises `shape '[4, 5]' is invalid for input of
    size 12`. A contract finding (select or ignore with `TTL65`).

    ## Example
    ```python
    def as_rows(x: Float[Tensor, "b d"], like: Float[Tensor, "b k"]) -> Float[Tensor, "b k"]:
        return x.view_as(like)
    ```

    ## Use instead
    ```python
    def as_rows(x: Float[Tensor, "b d"], like: Float[Tensor, "b d"]) -> Float[Tensor, "b d"]:
        return x.view_as(like)
    ```

    ## Fix safety
    No fix.
    """

    code = "TTL654"
    name = "contract-reshape-sizes"
    summary = "view/reshape whose element counts agree only when two different annotated sizes are equal"
    listens = (cst.Call,)
    runtime = RuntimeClaim("RuntimeError", r"shape '\[[-0-9, ]+\]' is invalid for input of size \d+")

    def visit(self, node: cst.Call, ctx: RuleContext) -> None:
        found = reshape_at(node, ctx)
        if found is None:
            return
        have, want = found.element_counts
        condition = sizes_condition(have, want, ctx)
        if condition is None:
            return
        self.report(node, f"`{shown(node)}` views {describe_shape(found.source_shape)} ({have} elements) as "
                          f"{describe_shape(found.target)} ({want} elements): it runs only when {condition}, "
                          f"while {promise(ctx)}", origin=found.source.origin)
