"""TTL521 repeat-fewer-dims: the rule."""
from __future__ import annotations

import libcst as cst

from ...knowledge.ops import METHOD
from ..base import Rule, RuntimeClaim, register
from ..context import RuleContext
from .dim_arguments import sizes_given
from .known import _shape
from .messages import _subject, describe_input


@register
class RepeatFewerDims(Rule):
    """
    ## What it does
    Flags `x.repeat(*repeats)` given fewer repeat counts than `x` has dims, when the rank
    and the number of counts are known. (More counts are fine: they add leading dims.)

    ## Why is this bad?
    torch raises `RuntimeError: Number of dimensions of repeat dims can not be smaller than
    number of dimensions of tensor`. Unlike numpy's `np.repeat` (or `torch.tile`, which pads
    the counts with 1s on the left), `Tensor.repeat` wants one count per dim.

    ## Example
    ```python
    x = torch.randn(4, 3)
    doubled = x.repeat(2)
    ```

    ## Use instead
    ```python
    doubled = x.repeat(1, 2)  # (4, 6); or x.repeat(2, 1) for (8, 3), or x.tile((2,))
    ```

    ## Fix safety
    No fix.
    """

    code = "TTL521"
    name = "repeat-fewer-dims"
    summary = "Tensor.repeat with fewer repeat counts than the tensor has dims"
    listens = (cst.Call,)
    ops = frozenset({"torch.repeat"})  # Tensor.repeat: the op layer names it by its twin
    runtime = RuntimeClaim(
        "RuntimeError", r"Number of dimensions of repeat dims can not be smaller than number of dimensions of tensor")

    def visit(self, node: cst.Call, ctx: RuleContext) -> None:
        call = ctx.op_call(node)
        if call is None or call.spelling != METHOD or call.has_star:
            return
        shape = _shape(call.receiver)
        counts = sizes_given(call)
        if shape is None or not counts or len(counts) >= len(shape):
            return  # unknown, x.repeat() (a TypeError), or enough counts
        described, origin = describe_input(call.receiver, ctx)  # type: ignore[arg-type]
        self.report(node, f"`.repeat()` of {_subject(call.receiver_node)} ({described}) gets {len(counts)} "
                          f"repeat count{'s' * (len(counts) != 1)} for {len(shape)} dims; torch raises \"Number "
                          f"of dimensions of repeat dims can not be smaller than number of dimensions of tensor\"",
                    origin=origin)
