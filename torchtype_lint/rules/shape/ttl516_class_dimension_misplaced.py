"""TTL516 class-dimension-misplaced: class-index loss on K-dimensional scores whose class
dimension is not dimension 1."""
from __future__ import annotations

import libcst as cst

from ...model.values import describe_shape
from ..base import Rule, RuntimeClaim, expr_text, register
from ..context import RuleContext
from .call_matchers import LOSS_OPS, _loss_call
from .known import _known, _shape
from .messages import _subject, _with_origin, shape_origin


@register
class ClassDimensionMisplaced(Rule):
    """
    ## What it does
    Flags `F.cross_entropy`, `F.nll_loss` (and `nn.CrossEntropyLoss`, `nn.NLLLoss`) on
    scores of three or more dimensions with class-index targets whose shape does not match
    the scores' dimensions after the class dimension: torch reads the classes from
    dimension 1, so `(batch, time, classes)` logits need `(batch, classes, time)`.

    ## Why is this bad?
    Sequence taggers and segmentation heads naturally produce `(N, T, C)` or `(N, H, W, C)`
    scores. Given those with `(N, T)` targets, torch takes `T` as the number of classes and
    raises `RuntimeError: Expected target size [N, C], got [N, T]` (or `size mismatch` for
    more dimensions). When `T` happens to equal `C` it does not raise at all and computes
    a meaningless loss.

    ## Example
    ```python
    logits = tagger(tokens)                 # (batch, time, classes)
    loss = F.cross_entropy(logits, tags)    # tags: (batch, time)
    ```

    ## Use instead
    ```python
    loss = F.cross_entropy(logits.permute(0, 2, 1), tags)
    # or flatten: F.cross_entropy(logits.reshape(-1, C), tags.reshape(-1))
    ```

    ## Fix safety
    No fix: where the classes are is the model's choice.
    """

    code = "TTL516"
    name = "class-dimension-misplaced"
    summary = "class-index loss on K-dimensional scores whose classes are not in dimension 1"
    listens = (cst.Call,)
    ops = LOSS_OPS
    runtime = RuntimeClaim("RuntimeError", r"Expected target size \[[0-9, ]*\], got \[[0-9, ]*\]|"
                                           r"size mismatch \(got input: \[[0-9, ]*\] , target: \[[0-9, ]*\]")

    def visit(self, node: cst.Call, ctx: RuleContext) -> None:
        found = _loss_call(node, ctx)
        if found is None or found[0] not in ("cross_entropy", "nll_loss"):
            return
        name, how, x, y, x_node, y_node = found
        a, b = _shape(x), _shape(y)
        if a is None or b is None or len(a) < 3 or len(b) != len(a) - 1:
            return
        if _known(a[0]) and _known(b[0]) and a[0] != b[0]:
            return  # a batch mismatch: TTL510's
        if not any(_known(p) and _known(q) and p != q for p, q in zip(b[1:], a[2:])):
            return
        expected = [a[0]] + list(a[2:])
        if len(a) == 3 and all(_known(d) for d in expected + list(b)):
            torch_says = (f"Expected target size [{', '.join(map(str, expected))}], "
                          f"got [{', '.join(map(str, b))}]")
        else:
            torch_says = "size mismatch"
        hint = "put the classes in dimension 1"
        if len(a) == 3 and _known(a[1]) and _known(b[1]) and a[1] == b[1]:
            subject = expr_text(x_node) if x_node is not None else "input"
            hint = f"the classes are last: use `{subject}.permute(0, 2, 1)`"
        origin = shape_origin(x, ctx) or shape_origin(y, ctx)
        self.report(node, f"`{how}` reads classes from dimension 1 and target {_subject(y_node)} has "
                          f"shape {describe_shape(b)}, but input {_subject(x_node)} "
                          f"{_with_origin('has shape ' + describe_shape(a), origin)}; torch raises "
                          f"RuntimeError (\"{torch_says}\"): {hint}", origin=origin)
