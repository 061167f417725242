"""TTL510 loss-shape-mismatch: the rule."""
from __future__ import annotations


import libcst as cst

from ...model.values import describe_shape
from ..base import Rule, RuntimeClaim, expr_text, register
from .call_matchers import LOSS_OPS, _loss_call
from .known import _known, _shape
from .messages import _subject, _with_origin, shape_origin
from ..context import RuleContext


@register
class LossBatchMismatch(Rule):
    """
    ## What it does
    Flags classification losses whose input and target cannot belong together:
    `cross_entropy` / `nll_loss` (functional or `nn.CrossEntropyLoss` / `nn.NLLLoss`)
    with class-index targets whose batch size differs from the input's, and
    `binary_cross_entropy[_with_logits]` (`nn.BCELoss`, `nn.BCEWithLogitsLoss`) whose
    input and target shapes differ, `(N, 1)` against `(N,)` included.

    ## Why is this bad?
    torch raises `ValueError: Expected input batch_size (4) to match target batch_size
    (3).`, `Target size (torch.Size([4])) must be the same as input size
    (torch.Size([4, 1]))` or `Using a target size ... is deprecated`. A batch mismatch
    usually comes from a `view(-1, ...)` that folded another dimension into the batch,
    or from concatenating along the wrong dimension.

    ## Example
    ```python
    logits = model(x)                  # (4, 1)
    loss = F.binary_cross_entropy_with_logits(logits, labels)  # labels: (4,)
    ```

    ## Use instead
    ```python
    loss = F.binary_cross_entropy_with_logits(logits.squeeze(1), labels)
    ```

    ## Fix safety
    No fix.
    """

    code = "TTL510"
    name = "loss-shape-mismatch"
    summary = "classification loss with input and target of incompatible shapes"
    listens = (cst.Call,)
    ops = LOSS_OPS
    #: TTL523 names the torch.cat that doubled the batch's rows: the better report of that failure.
    defers_to = frozenset({"TTL523"})
    runtime = RuntimeClaim(
        "ValueError",
        r"Expected input batch_size \(\d+\) to match target batch_size \(\d+\)|"
        r"Target size \(torch\.Size\(\[[0-9, ]*\]\)\) must be the same as input size|"
        r"Using a target size \(torch\.Size\(\[[0-9, ]*\]\)\) that is different to the input size")

    def visit(self, node: cst.Call, ctx: RuleContext) -> None:
        found = _loss_call(node, ctx)
        if found is None:
            return
        name, how, x, y, x_node, y_node = found
        a, b = _shape(x), _shape(y)
        if a is None or b is None:
            return
        origin = shape_origin(y, ctx)
        if name in ("cross_entropy", "nll_loss"):
            # Class indices have one dimension less than the scores; probabilities
            # (same shape as the input) go through another check in torch.
            if len(a) < 2 or len(b) != len(a) - 1 or len(b) == 0:
                return
            if _known(a[0]) and _known(b[0]) and a[0] != b[0]:
                self.report(node, f"`{how}` gets {a[0]} predictions but {b[0]} targets: input "
                                  f"{_subject(x_node)} has shape {describe_shape(a)}, target {_subject(y_node)} "
                                  f"{_with_origin('has shape ' + describe_shape(b), origin)}", origin=origin)
            return
        if name in ("binary_cross_entropy", "binary_cross_entropy_with_logits"):
            if len(a) != len(b):
                differs = True
            else:
                differs = any(_known(p) and _known(q) and p != q for p, q in zip(a, b))
            if differs:
                hint = ""
                if len(a) == len(b) + 1 and a[-1] == 1:
                    hint = f"; squeeze the input: `{expr_text(x_node) if x_node is not None else 'input'}.squeeze(-1)`"
                elif len(b) == len(a) + 1 and b[-1] == 1:
                    hint = "; squeeze the target's last dimension"
                self.report(node, f"`{how}` needs input and target of the same shape: input "
                                  f"{_subject(x_node)} has shape {describe_shape(a)}, target {_subject(y_node)} "
                                  f"{_with_origin('has shape ' + describe_shape(b), origin)}{hint}", origin=origin)
