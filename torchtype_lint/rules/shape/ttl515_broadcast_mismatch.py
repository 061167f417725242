"""TTL515 broadcast-mismatch: the rule, with the helpers only it uses."""
from __future__ import annotations

from typing import Any, Optional, Tuple

import libcst as cst

from ...knowledge import shapes as S
from ...model.values import TensorValue, Value, describe_shape
from ..base import Rule, RuntimeClaim, expr_text, register
from .call_matchers import _loss_call
from .known import _shape
from .messages import shape_origin
from ..context import RuleContext


_BROADCAST_FUNCTIONS = {"add", "sub", "subtract", "mul", "multiply", "div", "divide", "true_divide",
                        "maximum", "minimum", "eq", "ne", "lt", "le", "gt", "ge", "pow", "atan2",
                        "hypot", "fmod", "remainder"}
#: Regression losses that broadcast input against target (an impossible broadcast raises).
_ELEMENTWISE_LOSSES = ("mse_loss", "l1_loss")
_ARITHMETIC = (cst.Add, cst.Subtract, cst.Multiply, cst.Divide, cst.FloorDivide, cst.Modulo, cst.Power,
               cst.BitAnd, cst.BitOr, cst.BitXor)
_COMPARISONS = (cst.Equal, cst.NotEqual, cst.LessThan, cst.LessThanEqual, cst.GreaterThan,
                cst.GreaterThanEqual)


def _elementwise_operands(node: Any, ctx: RuleContext) -> Optional[Tuple[Value, Value, Any]]:
    """(left, right, how the operation reads: text, or the node to print) for tensor arithmetic
    and comparisons."""
    if isinstance(node, cst.BinaryOperation):
        if not isinstance(node.operator, _ARITHMETIC):
            return None
        return ctx.value(node.left), ctx.value(node.right), node  # text made only when reporting
    if isinstance(node, cst.Comparison):
        if len(node.comparisons) != 1 or not isinstance(node.comparisons[0].operator, _COMPARISONS):
            return None
        return ctx.value(node.left), ctx.value(node.comparisons[0].comparator), node
    loss = _loss_call(node, ctx)
    if loss is not None and loss[0] in _ELEMENTWISE_LOSSES:
        return loss[2], loss[3], f"{loss[1]}(...)"  # input and target are subtracted elementwise
    callee = ctx.callee(node)
    if callee is None or callee.args.has_star:
        return None
    if callee.kind == "symbol" and callee.name.startswith("torch.") and callee.name[6:] in _BROADCAST_FUNCTIONS:
        return callee.args.get(0, "input"), callee.args.get(1, "other"), f"torch.{callee.name[6:]}(...)"
    if callee.kind == "method" and callee.name in _BROADCAST_FUNCTIONS and isinstance(callee.receiver, TensorValue):
        return callee.receiver, callee.args.get(0, "other"), f".{callee.name}(...)"
    return None


@register
class BroadcastMismatch(Rule):
    """
    ## What it does
    Flags elementwise arithmetic and comparisons between two tensors (`a + b`, `a * b`,
    `a == b`, `torch.add(a, b)`, `a.mul(b)`, ...) whose known shapes cannot broadcast:
    aligned from the right, some pair of dimensions differs and neither is 1. The regression
    losses that subtract input and target elementwise (`F.mse_loss`, `F.l1_loss`, `nn.MSELoss`,
    `nn.L1Loss`) are checked the same way: a decoder whose padding or stride makes its output
    larger than the target fails there.

    ## Why is this bad?
    torch raises `The size of tensor a (3) must match the size of tensor b (4) at
    non-singleton dimension 1`. A frequent cause is a reduction without `keepdim=True`:
    `x - x.mean(dim=1)` on a `(4, 3)` tensor subtracts a `(4,)` vector from the rows.

    ## Example
    ```python
    x = torch.randn(4, 3)
    centered = x - x.mean(dim=1)
    ```

    ## Use instead
    ```python
    centered = x - x.mean(dim=1, keepdim=True)
    ```

    ## Fix safety
    No fix.
    """

    code = "TTL515"
    name = "broadcast-mismatch"
    summary = "elementwise operation on tensors whose shapes cannot broadcast"
    listens = (cst.BinaryOperation, cst.Comparison, cst.Call)
    runtime = RuntimeClaim("RuntimeError",
                           r"The size of tensor a \(\d+\) must match the size of tensor b \(\d+\) at non-singleton dimension \d+")

    def visit(self, node: Any, ctx: RuleContext) -> None:
        found = _elementwise_operands(node, ctx)
        if found is None:
            return
        left, right, how = found
        a, b = _shape(left), _shape(right)
        if a is None or b is None:
            return
        conflict = S.broadcast_conflict(a, b)
        if conflict is None:
            return
        from_right, size_a, size_b = conflict
        axis = max(len(a), len(b)) - from_right
        origin = shape_origin(right, ctx) or shape_origin(left, ctx)
        text = " ".join((how if isinstance(how, str) else expr_text(how)).split())
        text = text if len(text) <= 50 else text[:47] + "..."
        self.report(node, f"`{text}`: shapes {describe_shape(a)} and {describe_shape(b)} cannot broadcast, "
                          f"dimension {axis} is {size_a} against {size_b} (aligned from the right; only "
                          f"equal sizes or 1 combine)", origin=origin)
