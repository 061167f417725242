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
    `(N, C, d1, ..., dK)` (segmentation) with a target `(N, 1, d1, ..., dK)`. More
    generally, any integer target whose rank does not fit the input: two or more dims for an
    input `(C,)` or `(N, C)` (an `(N, 10)` of one label per segment: multi-target), or not
    `K + 1` dims for an input `(N, C, d1, ..., dK)`. A target of the input's very shape is
    left to TTL207 (cross-entropy reads it as class probabilities).

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
    summary = "cross_entropy/nll_loss class-index target with a class column or of the wrong rank"
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
        if a is None or b is None or not a:
            return  # a 0-d input fails otherwise (ValueError or IndexError by the target)
        if not isinstance(y, TensorValue) or not _all_integral(y):
            return
        if not _wrong_rank(name, a, b):
            return
        origin = shape_origin(y, ctx)
        target = expr_text(y_node) if y_node is not None else "target"
        wanted = "(N,)" if len(a) <= 2 else describe_shape(("N",) + tuple(
            d if _known(d) else "?" for d in a[2:]))
        if len(a) == 1:
            wanted = "() or (1,)"
        column = len(b) == len(a) >= 2 and b[1] == 1
        if column:
            hint = f"use `{target}.squeeze(1)`"
        elif len(a) <= 2:
            hint = "class indices carry no class dimension: one class per row (multi-target is not supported)"
        else:
            hint = "one class index per position of the input's dims after the class dim"
        self.report(node, f"`{how}` needs class indices of shape {wanted}, but target {_subject(y_node)} "
                          f"{_with_origin('has shape ' + describe_shape(b), origin)}; {hint}", origin=origin)


def _wrong_rank(name: str, a: tuple, b: tuple) -> bool:
    """Whether an integer target of shape ``b`` certainly fails as the class indices of an input
    of shape ``a`` (rank >= 1), by its rank or its class-index column. torch (measured in
    tests/test_class_targets.py): an input of rank 1 or 2 takes targets of rank 0 or 1 ("0D or 1D
    target tensor expected, multi-target not supported" otherwise), an input of rank 4 a target
    of rank 3 ("only batches of spatial targets supported (3D tensors)"), an input of rank 3 or
    >= 5 a target of rank ``len(a) - 1`` ("Expected target size"). cross_entropy reads a target
    of the input's very shape as class probabilities (TTL207's dtype failure): a target of the
    input's rank counts only where a known dim certainly differs."""
    if len(a) <= 2:
        if len(b) < 2:
            return False
    elif len(b) == len(a) - 1 or len(b) == 0:
        return False
    if len(b) == len(a):
        if len(b) >= 2 and b[1] == 1 and _known(a[1]) and a[1] != 1:
            return True  # the class-index column (N, 1) of (N, C) logits
        if name == "cross_entropy":
            return any(_known(p) and _known(q) and p != q for p, q in zip(a, b))
    return True
