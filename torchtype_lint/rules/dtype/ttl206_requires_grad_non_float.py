"""TTL206 requires-grad-non-float: requires_grad on an integer or bool tensor (only floats have gradients)."""
from __future__ import annotations

from typing import Any

import libcst as cst

from ...model.findings import Fix
from ...model.values import BOOL, ScalarValue, TensorValue, Value
from ..base import RuntimeClaim, register
from ..dtype_names import one, origin_note, show
from ..dtype_predicates import all_dtypes, is_int_or_bool
from ..dtype_rule import DtypeRule
from ..source_edits import code, dtype_attr, torch_module_expr
from ..context import RuleContext

_PARAMETER = {"torch.nn.Parameter", "torch.nn.parameter.Parameter"}


@register
class RequiresGradNonFloat(DtypeRule):
    """
    ## What it does
    Flags gradients requested on integer or bool tensors: `requires_grad=True` in a
    constructor that produces an integer tensor (`torch.tensor([1, 2, 3], ...)`,
    `torch.arange(5, ...)`, `torch.zeros(3, dtype=torch.long, ...)`), `x.requires_grad_()`
    and `x.requires_grad = True` on an integer tensor, and `nn.Parameter(int_tensor)`.

    ## Why is this bad?
    Only floating-point and complex tensors can have gradients: `RuntimeError: Only
    Tensors of floating point and complex dtype can require gradients`. `torch.tensor` of
    Python ints is int64, so `torch.tensor([1, 2, 3], requires_grad=True)` fails.

    ## Example
    ```python
    w = torch.tensor([1, 2, 3], requires_grad=True)
    ```

    ## Use instead
    ```python
    w = torch.tensor([1, 2, 3], requires_grad=True, dtype=torch.float32)
    # or float literals: torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    ```

    ## Fix safety
    Unsafe: the fix adds `dtype=torch.float32` to a constructor that has no `dtype=`; the
    tensor becomes float32, which changes later integer arithmetic.
    """

    code = "TTL206"
    name = "requires-grad-non-float"
    summary = "requires_grad on an integer or bool tensor (only float/complex tensors have gradients)"
    severity = "error"
    listens = (cst.Call, cst.Assign)
    fix_safety = "unsafe"
    runtime = RuntimeClaim("RuntimeError", r"(?i)only Tensors of floating point")

    def visit(self, node: Any, ctx: RuleContext) -> None:
        if isinstance(node, cst.Assign):
            for target in node.targets:
                t = target.target
                if isinstance(t, cst.Attribute) and t.attr.value == "requires_grad" and \
                        _is_true(ctx.value(node.value)):
                    owner = ctx.value(t.value)
                    if all_dtypes(owner, is_int_or_bool):
                        self.flag(ctx, node,
                                  f"`{code(t)} = True` raises RuntimeError: `{code(t.value)}` is "
                                  f"{show(owner)}{origin_note(owner)} and only floating-point tensors "
                                  f"can require gradients; convert it first: `{code(t.value)} = "
                                  f"{code(t.value)}.float()`",
                                  origin=owner.origin)
            return
        callee = ctx.callee(node)
        if callee is None or callee.args.has_star:
            return
        args = callee.args
        if callee.kind == "method" and callee.name == "requires_grad_" and \
                isinstance(callee.receiver, TensorValue):
            flag = args.get(0, "requires_grad")
            if args.has(0, "requires_grad") and not _is_true(flag):
                return
            x = callee.receiver
            if all_dtypes(x, is_int_or_bool):
                self.flag(ctx, node,
                          f"`{code(node)}` raises RuntimeError (\"only Tensors of floating point dtype "
                          f"can require gradients\"): the tensor is {show(x)}{origin_note(x)}; convert "
                          f"it first: `.float().requires_grad_()`",
                          origin=x.origin)
            return
        if callee.kind != "symbol":
            return
        if callee.name in _PARAMETER or callee.name.endswith(".Parameter"):
            data = args.get(0, "data")
            if args.has(1, "requires_grad") and not _is_true(args.get(1, "requires_grad")):
                return
            if all_dtypes(data, is_int_or_bool):
                self.flag(ctx, node,
                          f"`nn.Parameter(...)` of a {show(data)} tensor{origin_note(data)} raises "
                          f"RuntimeError (\"Only Tensors of floating point and complex dtype can require "
                          f"gradients\"); convert the data (`.float()`) or pass `requires_grad=False` "
                          f"for a non-trainable integer parameter",
                          origin=data.origin)
            return
        if not callee.name.startswith("torch.") or not _is_true(args.kw.get("requires_grad")):
            return
        result = callee.result
        if not all_dtypes(result, is_int_or_bool):
            return
        fix = None
        module_expr = torch_module_expr(node.func)
        if "dtype" not in args.kw and module_expr is not None and one(result) != BOOL:
            new_args = list(node.args)
            last = new_args[-1]
            new_args[-1] = last.with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
            new_args.append(cst.Arg(value=dtype_attr(module_expr, "float32"), keyword=cst.Name("dtype"),
                                    equal=cst.AssignEqual(whitespace_before=cst.SimpleWhitespace(""),
                                                          whitespace_after=cst.SimpleWhitespace(""))))
            fix = Fix(node, node.with_changes(args=new_args), "Add `dtype=torch.float32`", safe=False)
        self.flag(ctx, node,
                  f"`{code(node)}` creates a {show(result)} tensor"
                  f"{' (' + result.origin.note + ')' if result.origin is not None and result.origin.note else ''} with "
                  f"requires_grad=True: torch raises RuntimeError (\"Only Tensors of floating point and "
                  f"complex dtype can require gradients\"); use float data or add `dtype=torch.float32`",
                  origin=result.origin, fix=fix)


def _is_true(value: Value) -> bool:
    return isinstance(value, ScalarValue) and value.const is True
