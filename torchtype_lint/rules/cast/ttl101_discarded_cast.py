"""TTL101 discarded-cast: result of a tensor cast is discarded (tensor casts are not in place)."""
from __future__ import annotations


import libcst as cst

from ...model.findings import Fix
from ...model.values import TensorValue, describe_dtypes
from ..base import Rule, RuntimeClaim, expr_text, register
from ..context import RuleContext


#: Tensor methods that return a converted copy and leave the receiver unchanged.
COPYING_CASTS = {"float", "double", "half", "bfloat16", "long", "int", "short", "bool", "byte",
                 "char", "to", "type", "cuda", "cpu", "contiguous"}


@register
class DiscardedCast(Rule):
    """
    ## What it does
    Flags a tensor cast whose result is thrown away: a bare statement such as
    `x.float()`, `x.to(torch.float32)`, `x.type(torch.float64)` or `x.cuda()` where `x` is
    a tensor.

    ## Why is this bad?
    Tensor casts are not in place: they return a new tensor and leave `x` exactly as it
    was. The line does nothing, and the code after it still sees the old dtype or device,
    which typically surfaces much later as `mat1 and mat2 must have the same dtype` or
    `expected scalar type Float but found Long`. The same methods on an `nn.Module`
    (`model.float()`, `model.to(device)`) *are* in place, which is why the mistake is easy
    to make; they are not flagged. Nor is a notebook cell's last bare expression: IPython
    displays its value (unless a trailing `;` silences it), so it is not thrown away.

    ## Example
    ```python
    x = torch.tensor([1, 2, 3])
    x.float()
    ```

    ## Use instead
    ```python
    x = torch.tensor([1, 2, 3])
    x = x.float()
    ```

    ## Fix safety
    Safe when the receiver is a plain name or attribute: the fix assigns the result back
    (`x = x.float()`), which is what the line was meant to do. Other receivers (`xs[0]`,
    calls) get no fix, and neither does a `for` loop variable (`for t in xs: t.float()`):
    rebinding it would leave the items of `xs` unchanged.
    """

    code = "TTL101"
    name = "discarded-cast"
    summary = "result of a tensor cast is discarded (tensor casts are not in place)"
    severity = "warning"
    listens = (cst.Expr,)
    fix_safety = "safe"
    runtime = RuntimeClaim("AssertionError")

    def visit(self, node: cst.Expr, ctx: RuleContext) -> None:
        call = node.value
        if not isinstance(call, cst.Call) or not isinstance(call.func, cst.Attribute):
            return
        method = call.func.attr.value
        if method not in COPYING_CASTS:
            return
        if method == "type" and not call.args:
            return  # x.type() returns a string; discarding it is harmless
        receiver = ctx.value(call.func.value)
        if not isinstance(receiver, TensorValue):
            return
        target = expr_text(call.func.value)
        what = "device" if method in ("cuda", "cpu") else "dtype"
        state = describe_dtypes(receiver.dtypes) if what == "dtype" else (receiver.device or "unchanged")
        fix = None
        loop_variable = isinstance(call.func.value, cst.Name) and ctx.is_loop_variable(call.func.value.value)
        # Rebinding a loop variable would leave the iterated items unchanged: no fix there.
        if isinstance(call.func.value, (cst.Name, cst.Attribute)) and not loop_variable:
            fix = Fix(
                old=node,
                new=cst.Assign(targets=[cst.AssignTarget(target=call.func.value)], value=call),
                description=f"Assign the result: `{target} = {expr_text(call)}`",
                safe=True,
            )
        still = f"`{target}` is still {state}" if state not in ("?", "unchanged") else f"`{target}` is unchanged"
        origin_note = " ({origin})" if receiver.origin is not None and what == "dtype" else ""
        self.report(
            node,
            f"result of `{expr_text(call)}` is discarded: tensor casts are not in place, "
            f"{still}{origin_note}; " + (
                f"use the returned tensor (rebinding the loop variable `{target}` would leave the "
                f"iterated items unchanged)" if loop_variable else
                f"assign it: `{target} = {expr_text(call)}`"),
            origin=receiver.origin,
            fix=fix,
        )
