"""TTL652 contract-broadcast-sizes: elementwise operation that broadcasts two different annotated sizes."""
from __future__ import annotations

from typing import Any

import libcst as cst

from ...model.values import TensorValue, describe_shape
from ..base import Rule, RuntimeClaim, register
from ..context import RuleContext
from ..shape.ttl515_broadcast_mismatch import _elementwise_operands
from .size_contracts import promise, shown, sizes_condition


@register
class ContractBroadcastSizes(Rule):
    """
    ## What it does
    In a function whose parameters carry shape annotations, flags elementwise arithmetic
    and comparisons (`a + b`, `a * b`, `a == b`, `torch.add(a, b)`, `a.mul(b)`, ...)
    where, aligned from the right, two *different* annotated sizes meet: `x + y` for
    `x: Float[Tensor, "b d"]` and `y: Float[Tensor, "n d"]` pairs `b` with `n`, so it runs
    only when `b == n` (or one of them is 1). The message says which sizes would have to be
    equal. Only dimensions named by the function's own annotations count; unknown dims and
    fixed sizes never fire.

    ## Why is this bad?
    The annotations promise the function works for every `b` and `n`; broadcasting them
    against each other works only for equal sizes or a size of 1, and otherwise raises
    `The size of tensor a (4) must match the size of tensor b (5) at non-singleton
    dimension 0`. Often one operand misses a dimension (`mask[:, None]`), or the two names
    are meant to be the same size and the annotation should say so. A contract finding: it
    may run with the sizes it gets today (select or ignore with `TTL65`).

    ## Example
    ```python
    def shift(x: Float[Tensor, "b d"], offset: Float[Tensor, "n d"]) -> Float[Tensor, "b d"]:
        return x + offset
    ```

    ## Use instead
    ```python
    def shift(x: Float[Tensor, "b d"], offset: Float[Tensor, "d"]) -> Float[Tensor, "b d"]:
        return x + offset
    ```

    ## Fix safety
    No fix.
    """

    code = "TTL652"
    name = "contract-broadcast-sizes"
    summary = "elementwise operation that runs only when two different annotated sizes are equal"
    listens = (cst.BinaryOperation, cst.Comparison, cst.Call)
    runtime = RuntimeClaim("RuntimeError",
                           r"The size of tensor a \(\d+\) must match the size of tensor b \(\d+\) at non-singleton dimension \d+")

    def visit(self, node: Any, ctx: RuleContext) -> None:
        found = _elementwise_operands(node, ctx)
        if found is None:
            return
        left, right, how = found
        if not isinstance(left, TensorValue) or not isinstance(right, TensorValue) \
                or left.shape is None or right.shape is None:
            return
        a, b = tuple(left.shape), tuple(right.shape)
        for from_right in range(1, min(len(a), len(b)) + 1):
            x, y = a[-from_right], b[-from_right]
            condition = sizes_condition(x, y, ctx)
            if condition is None:
                continue
            axis = max(len(a), len(b)) - from_right
            self.report(node, f"`{shown(how)}` broadcasts shapes {describe_shape(a)} and {describe_shape(b)}, "
                              f"pairing `{x}` with `{y}` in dimension {axis}: it runs only when {condition} "
                              f"(or one of them is 1), while {promise(ctx)}", origin=right.origin)
            return
