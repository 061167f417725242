"""TTL655 symbolic-element-count-mismatch: view/reshape whose element counts differ for every choice of sizes."""
from __future__ import annotations

import libcst as cst

from ...knowledge.symbolic_dims import ratio
from ...model.values import describe_shape
from ..base import Rule, RuntimeClaim, register
from ..context import RuleContext
from .reshape_targets import reshape_at
from .size_contracts import never_equal, shown


@register
class SymbolicElementCountMismatch(Rule):
    """
    ## What it does
    Flags `view`, `reshape`, `view_as`, `reshape_as` and `torch.reshape` where the tensor's
    element count and the target's are products of the same sizes with different factors,
    so they differ whatever the sizes are: a `(d_out, d_in)` tensor viewed as
    `(d_in, d_out, 2)` has half the elements the target needs for every `d_in` and `d_out`.
    Sizes are the dimensions the function's annotations name, the `int` parameters of
    unknown value of the function (or of its class's `__init__`, kept on `self`:
    `self.d_in = d_in`), the sizes read back from such shapes (`b, d = x.shape`,
    `x.size(0)`), and products of them (`x.flatten()` of `"b d"` has `b*d` elements;
    `n_heads * head_dim` is a product). `d // n_heads` is a size only when it divides for
    every choice (`2*d // 2`), and `d + 1` is none: both are left unknown. Sizes are taken
    to be at least 1 (a tensor or a layer of size 0 computes nothing); an int parameter
    promises no size, so the contract rules (TTL651 to TTL654) never use it.

    ## Why is this bad?
    torch raises `shape '[3, 4, 2]' is invalid for input of size 12` on every call: no
    choice of sizes makes the counts agree. Usually a factor (heads, a pair of
    coordinates, a doubled width) is in the target and not in the tensor, or the other way
    round.

    ## Example
    ```python
    class Pairs(nn.Module):
        def __init__(self, d_in: int, d_out: int):
            super().__init__()
            self.d_in = d_in
            self.d_out = d_out
            self.weight = nn.Parameter(torch.randn(d_out, d_in))

        def forward(self, x):
            return x @ self.weight.view(self.d_in, self.d_out, 2)
    ```

    ## Use instead
    ```python
    class Pairs(nn.Module):
        def __init__(self, d_in: int, d_out: int):
            super().__init__()
            self.d_in = d_in
            self.d_out = d_out
            self.weight = nn.Parameter(torch.randn(d_out, d_in, 2))

        def forward(self, x):
            return x @ self.weight.view(self.d_in, self.d_out, 2)
    ```

    ## Fix safety
    No fix.
    """

    code = "TTL655"
    name = "symbolic-element-count-mismatch"
    summary = "view/reshape whose element counts differ for every choice of the sizes"
    listens = (cst.Call,)
    runtime = RuntimeClaim("RuntimeError", r"shape '\[[-0-9, ]+\]' is invalid for input of size \d+")

    def visit(self, node: cst.Call, ctx: RuleContext) -> None:
        found = reshape_at(node, ctx)
        if found is None:
            return
        have, want = found.element_counts
        if not never_equal(have, want, ctx):
            return
        self.report(node, f"`{shown(node)}` views {describe_shape(found.source_shape)} ({have} elements) as "
                          f"{describe_shape(found.target)} ({want} elements): the target needs "
                          f"{ratio(want, have)} the elements the tensor has, for every size",
                    origin=found.source.origin)
