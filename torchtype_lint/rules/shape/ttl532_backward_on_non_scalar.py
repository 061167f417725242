"""TTL532 backward-on-non-scalar: ``.backward()`` without a gradient on a tensor that certainly
holds other than one element (a loss computed with ``reduction="none"``, a model's output)."""
from __future__ import annotations

import libcst as cst

from ...model.values import TensorValue
from ..base import Rule, RuntimeClaim, register
from ..context import RuleContext
from ..source_edits import code
from .known import not_one_element
from .messages import shape_origin


def _gradient_given(call: cst.Call) -> bool:
    """Does the call pass a gradient (``backward(torch.ones_like(loss))``, ``gradient=...``)? A
    literal ``None`` passes none."""
    for arg in call.args:
        if arg.star:
            return True
        if arg.keyword is None or arg.keyword.value == "gradient":
            return not (isinstance(arg.value, cst.Name) and arg.value.value == "None")
    return False


@register
class BackwardOnNonScalar(Rule):
    """
    ## What it does
    Flags `t.backward()` (and `torch.autograd.backward(t)`) without a gradient on a tensor
    whose shape certainly holds other than one element: a loss computed with
    `reduction="none"` (one value per sample), a sum over some dims only, a model's output.
    Where the code runs as analysed: a function nobody in the file calls is not judged.

    ## Why is this bad?
    Autograd can only start from a scalar on its own: torch raises `RuntimeError: grad can be
    implicitly created only for scalar outputs` (or, for a tensor that does not require grad,
    `element 0 of tensors does not require grad`). The usual cause is a per-sample loss that
    was never reduced.

    ## Example
    ```python
    loss = F.cross_entropy(logits, labels, reduction="none")  # (N,)
    loss.backward()
    ```

    ## Use instead
    ```python
    loss = F.cross_entropy(logits, labels, reduction="none")
    loss.mean().backward()  # or loss.backward(torch.ones_like(loss)) for a sum
    ```
    """

    code = "TTL532"
    name = "backward-on-non-scalar"
    summary = "backward() without a gradient on a tensor that is not a single element"
    severity = "error"
    listens = (cst.Call,)
    runtime = RuntimeClaim("RuntimeError", r"grad can be implicitly created only for scalar outputs"
                                           r"|does not require grad")

    def visit(self, node: cst.Call, ctx: RuleContext) -> None:
        func = node.func
        if not (isinstance(func, cst.Attribute) and func.attr.value == "backward"):
            return  # t.backward() and torch.autograd.backward(t) both end in .backward
        if isinstance(ctx.value(func.value), TensorValue):
            if _gradient_given(node):
                return
            target = func.value
        else:
            callee = ctx.callee(node)
            if callee is None or callee.kind != "symbol" or callee.name != "torch.autograd.backward" \
                    or len(node.args) != 1 or node.args[0].keyword is not None or node.args[0].star:
                return
            target = node.args[0].value
        if ctx.analysed_on_its_own:
            return  # a parameter's default or a prototype's attribute may stand for a scalar
        value = ctx.value(target)
        shape = not_one_element(value)
        if shape is None:
            return
        self.report(node, f"`{code(target, 30)}` has shape {shape}, not a single element: `.backward()` "
                          "without a gradient raises RuntimeError (\"grad can be implicitly created only for "
                          "scalar outputs\"); reduce it first (`.mean()` or `.sum()`) or pass the gradient",
                    origin=shape_origin(value, ctx))
