"""TTL102 type-string-compared-to-dtype: `x.type()` (a string) compared with a torch.dtype is always False."""
from __future__ import annotations

from typing import Any

import libcst as cst

from ...model.findings import Fix
from ...model.values import DTypeValue, TensorValue
from ..base import Rule, RuntimeClaim, expr_text, register
from .comparisons import _EQUALITY, _always, _comparison_pairs
from ..context import RuleContext


def _is_type_string_call(node: Any, ctx: RuleContext) -> bool:
    """``x.type()`` with no argument on a tensor: it returns a string like 'torch.FloatTensor'."""
    return (isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute)
            and node.func.attr.value == "type" and not node.args
            and isinstance(ctx.value(node.func.value), TensorValue))


@register
class TypeStringComparedToDtype(Rule):
    """
    ## What it does
    Flags a comparison of `x.type()` (no argument) with a dtype, such as
    `x.type() == torch.float32`, where `x` is a tensor.

    ## Why is this bad?
    Without an argument, `Tensor.type()` returns a *string* such as `'torch.FloatTensor'`,
    and a string never equals a `torch.dtype`: the test is always False (`!=` always True),
    so the branch it guards never runs (or always runs).

    ## Example
    ```python
    if x.type() == torch.float32:
        x = x * 2
    ```

    ## Use instead
    ```python
    if x.dtype == torch.float32:
        x = x * 2
    ```

    ## Fix safety
    Unsafe: replacing `x.type()` by `x.dtype` makes the comparison work, so code that never
    ran before starts running.
    """

    code = "TTL102"
    name = "type-string-compared-to-dtype"
    summary = "`x.type()` (a string) compared with a torch.dtype is always False"
    severity = "warning"
    listens = (cst.Comparison,)
    fix_safety = "unsafe"
    runtime = RuntimeClaim("AssertionError")

    def visit(self, node: cst.Comparison, ctx: RuleContext) -> None:
        for left, operator, right in _comparison_pairs(node):
            if not isinstance(operator, _EQUALITY):
                continue
            for call, other in ((left, right), (right, left)):
                if _is_type_string_call(call, ctx) and isinstance(ctx.value(other), DTypeValue):
                    dtype_text = expr_text(other)
                    receiver = call.func.value
                    new = cst.Attribute(value=receiver, attr=cst.Name("dtype"))
                    self.report(
                        node,
                        f"`{expr_text(node)}` is always {_always(operator)}: `{expr_text(call)}` returns a "
                        f"string such as 'torch.FloatTensor', never a dtype; compare "
                        f"`{expr_text(receiver)}.dtype` with `{dtype_text}`",
                        fix=Fix(call, new, f"Use `{expr_text(receiver)}.dtype`", safe=False),
                    )
                    return
