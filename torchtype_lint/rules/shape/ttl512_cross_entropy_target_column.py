"""TTL512 cross-entropy-target-column: the rule, with the helpers only it uses."""
from __future__ import annotations


import libcst as cst

from ...model.values import TensorValue, describe_shape, is_integral
from ..base import Rule, RuntimeClaim, expr_text, register
from .call_matchers import LOSS_OPS, _loss_call
from .known import _known, _shape
from .messages import _subject, _with_origin, shape_origin
from ..context import RuleContext


def _all_integral(value: TensorValue) -> bool:
    return value.dtypes is not None and bool(value.dtypes) and all(
        is_integral(d, include_bool=False) for d in value.dtypes)


@register
class CrossEntropyTargetColumn(Rule):
    """
    ## What it does
    Flags `cross_entropy` / `nll_loss` (functional or module) whose input is `(N, C)` and
    whose class-index target has shape `(N, 1)`, and the K-dimensional case: input
    `(N, C, d1, ..., dK)` (segmentation) with a target `(N, 1, d1, ..., dK)`.

    ## Why is this bad?
    Class-index targets have no class dimension: `(N,)`, or `(N, d1, ..., dK)`; torch fails
    with `0D or 1D target tensor expected, multi-target not supported`, `Expected target
    size [N, d1], got [N, 1, d1]` or `only batches of spatial targets supported (3D
    tensors) but got targets of dimension: 4`. The extra dimension usually comes from a
    dataset that returns `[label]`, from `labels.unsqueeze(1)` / `view(-1, 1)`, or from a
    mask kept with a channel axis like the images.

    ## Example
    ```python
    labels = torch.tensor([[0], [2], [1], [1]])
    loss = F.cross_entropy(logits, labels)  # logits: (4, 3)
    ```

    ## Use instead
    ```python
    loss = F.cross_entropy(logits, labels.squeeze(1))
    ```

    ## Fix safety
    No fix.
    """

    code = "TTL512"
    name = "cross-entropy-target-column"
    summary = "cross_entropy/nll_loss class-index target of shape (N, 1) instead of (N,)"
    listens = (cst.Call,)
    ops = LOSS_OPS
    runtime = RuntimeClaim("RuntimeError", r"0D or 1D target tensor expected, multi-target not supported|"
                                           r"Expected target size|only batches of spatial targets supported")

    def visit(self, node: cst.Call, ctx: RuleContext) -> None:
        found = _loss_call(node, ctx)
        if found is None or found[0] not in ("cross_entropy", "nll_loss"):
            return
        name, how, x, y, x_node, y_node = found
        a, b = _shape(x), _shape(y)
        # (N, C) logits with an (N, 1) target, or (N, C, d1, ...) with (N, 1, d1, ...): the
        # class dim kept in the target (a mask with a channel axis)
        if a is None or b is None or len(a) < 2 or len(b) != len(a) or b[1] != 1:
            return
        if not _known(a[1]) or a[1] == 1:
            return  # (N, 1) logits with an (N, 1) target: torch reads it as probabilities (TTL207)
        if not isinstance(y, TensorValue) or not _all_integral(y):
            return
        origin = shape_origin(y, ctx)
        target = expr_text(y_node) if y_node is not None else "target"
        wanted = "(N,)" if len(a) == 2 else describe_shape(("N",) + tuple(
            d if _known(d) else "?" for d in a[2:]))
        self.report(node, f"`{how}` needs class indices of shape {wanted}, but target {_subject(y_node)} "
                          f"{_with_origin('has shape ' + describe_shape(b), origin)}; "
                          f"use `{target}.squeeze(1)`", origin=origin)
