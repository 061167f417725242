"""TTL511 loss-target-broadcast: the rule."""
from __future__ import annotations


import libcst as cst

from ...knowledge import shapes as S
from ...model.values import describe_shape, numel
from ..base import Rule, RuntimeClaim, register
from .call_matchers import LOSS_OPS, _loss_call
from .known import _shape
from .messages import _subject, _with_origin, shape_origin
from ..context import RuleContext


@register
class LossTargetBroadcast(Rule):
    """
    ## What it does
    Flags `mse_loss` / `l1_loss` (and `nn.MSELoss` / `nn.L1Loss`) whose input and target
    have different known shapes that broadcast to a larger shape than either, the classic
    case being predictions of shape `(N, 1)` against targets of shape `(N,)`.

    ## Why is this bad?
    The loss does not fail: torch broadcasts `(N, 1) - (N,)` to `(N, N)`, compares every
    prediction with every target and returns the mean of that matrix. Training runs and
    converges to the wrong thing (predicting the mean of the targets). torch only prints
    a `UserWarning: Using a target size ... that is different to the input size`.

    ## Example
    ```python
    pred = model(x)          # (32, 1)
    loss = F.mse_loss(pred, y)  # y: (32,)
    ```

    ## Use instead
    ```python
    loss = F.mse_loss(pred.squeeze(-1), y)
    ```

    ## Fix safety
    No fix: which side to reshape depends on the model.
    """

    code = "TTL511"
    name = "loss-target-broadcast"
    summary = "regression loss whose input and target broadcast to a bigger shape (wrong loss)"
    severity = "warning"
    listens = (cst.Call,)
    ops = LOSS_OPS
    runtime = RuntimeClaim("AssertionError")

    def visit(self, node: cst.Call, ctx: RuleContext) -> None:
        found = _loss_call(node, ctx)
        if found is None or found[0] not in ("mse_loss", "l1_loss"):
            return
        name, how, x, y, x_node, y_node = found
        a, b = _shape(x), _shape(y)
        if a is None or b is None or a == b:
            return
        if S.broadcast_conflict(a, b) is not None:
            return  # that one raises instead
        both = S.broadcast_shapes(a, b)
        size_a, size_b, size_both = numel(a), numel(b), numel(both)
        if size_a is None or size_b is None or size_both is None:
            return
        if size_both <= max(size_a, size_b):
            return
        origin = shape_origin(y, ctx)
        self.report(node, f"`{how}` broadcasts input {_subject(x_node)} of shape {describe_shape(a)} and "
                          f"target {_subject(y_node)} "
                          f"{_with_origin('of shape ' + describe_shape(b), origin)} "
                          f"to {describe_shape(both)}: the loss averages {size_both} pairs instead of "
                          f"{max(size_a, size_b)} (make the shapes equal, e.g. with `.squeeze(-1)`)",
                    origin=origin)
