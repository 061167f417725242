"""TTL534 ambiguous-tensor-truth-value: a tensor that certainly holds other than one element
used where Python needs a bool (``if mask:``, ``x if x > 0 else 0``, ``while err > tol:``,
``a and b``, ``not t``, ``assert t``)."""
from __future__ import annotations

from typing import Any, Iterator

import libcst as cst

from ..base import Rule, RuntimeClaim, register
from ..context import RuleContext
from ..source_edits import code
from .messages import shape_origin
from .known import not_one_element


def _tested(node: Any) -> Iterator[Any]:
    """The expressions ``node`` asks Python the truth of."""
    if isinstance(node, (cst.If, cst.While, cst.IfExp)):
        yield node.test
    elif isinstance(node, cst.Assert):
        yield node.test
    elif isinstance(node, cst.BooleanOperation):
        yield node.left  # the right operand's truth is asked only where the result is tested
    elif isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Not):
        yield node.expression
    elif isinstance(node, cst.CompIf):
        yield node.test


@register
class AmbiguousTensorTruthValue(Rule):
    """
    ## What it does
    Flags a tensor whose shape certainly holds more than one element (or none) used where Python
    asks for a bool: the test of an `if`, `while`, conditional expression, `assert` or
    comprehension filter, the left operand of `and`/`or`, the operand of `not`. Where the code
    runs as analysed: a function nobody in the file calls is not judged.

    ## Why is this bad?
    A tensor of many elements has no single truth value: torch raises `RuntimeError: Boolean
    value of Tensor with more than one value is ambiguous` (`with no values` for an empty one).
    The usual cause is an elementwise comparison written as if it gave one bool
    (`loss if loss > 0 else 0` of a per-pixel map) or a check meant for every element.

    ## Example
    ```python
    grad = 1 - (ix * gx + iy * gy) ** 2          # (N, 1, H, W)
    grad = grad if grad > 0 else 0
    ```

    ## Use instead
    ```python
    grad = grad.clamp(min=0)          # elementwise; or (grad > 0).all() / .any() for one bool
    ```
    """

    code = "TTL534"
    name = "ambiguous-tensor-truth-value"
    summary = "a tensor of more than one element used as a bool (if, while, and/or/not, assert)"
    severity = "error"
    listens = (cst.If, cst.While, cst.IfExp, cst.Assert, cst.BooleanOperation, cst.UnaryOperation, cst.CompIf)
    runtime = RuntimeClaim("RuntimeError", r"Boolean value of Tensor with (more than one value|no values) is ambiguous")

    def visit(self, node: Any, ctx: RuleContext) -> None:
        if ctx.analysed_on_its_own:
            return  # a parameter's default may stand for a tensor of one element
        for test in _tested(node):
            value = ctx.value(test)
            shape = not_one_element(value)
            if shape is None:
                continue
            empty = any(d == 0 and not isinstance(d, bool) for d in value.shape)  # type: ignore[union-attr]
            said = "no values" if empty else "more than one value"
            self.report(test, f"`{code(test, 40)}` is a tensor of shape {shape}, not one bool: Python asks for "
                              f"its truth here and torch raises RuntimeError (\"Boolean value of Tensor with "
                              f"{said} is ambiguous\"); use `.all()`, `.any()` or an elementwise op "
                              "(`torch.where`, `.clamp`)", origin=shape_origin(value, ctx))
