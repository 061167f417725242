"""TTL211 op-undefined-for-dtype: mean/std/var/softmax/norm on an integer or bool tensor (float-only ops)."""
from __future__ import annotations


import libcst as cst

from ...model.findings import Fix
from ...knowledge.float_only_ops import ACCEPTS_DTYPE, FLOAT_ONLY, OP_NAMES
from ...knowledge.ops import METHOD
from ...model.values import FLOAT32
from ..base import RuntimeClaim, register
from ..dtype_names import one, origin_note, said, scalar_type_name, show
from ..dtype_predicates import all_dtypes, is_int_or_bool
from ..dtype_rule import DtypeRule
from ..source_edits import cast_expr, code
from ..context import RuleContext


@register
class OpUndefinedForDtype(DtypeRule):
    """
    ## What it does
    Flags operations that only exist for floating-point tensors, applied to an integer or
    bool tensor: `.mean()`, `.std()`, `.var()`, `std_mean`, `var_mean`, `nanmean`,
    `.norm()` / `F.normalize`, `quantile`, `softmax` / `log_softmax` (method, `torch.`,
    `F.` and `nn.Softmax`), `F.gelu` / `nn.GELU`, `rand_like` / `randn_like`, and
    `F.cross_entropy` with integer logits. The classic case is accuracy as
    `(pred == y).mean()`.

    ## Why is this bad?
    torch does not convert for you: `RuntimeError: mean(): could not infer output dtype.
    Input dtype must be either a floating point or complex dtype. Got: Bool`, `std and var
    only support floating point and complex dtypes`, `NotImplementedError:
    "softmax_lastdim_kernel_impl" not implemented for 'Long'`. (`sum`, `max`, `median`,
    `exp`, `sigmoid` work on integers and are not flagged.)

    ## Example
    ```python
    accuracy = (pred == y).mean()
    ```

    ## Use instead
    ```python
    accuracy = (pred == y).float().mean()
    ```

    ## Fix safety
    Safe for the method form: `x.mean()` becomes `x.float().mean()`, which computes exactly
    what the call was written to compute. Other forms get no fix.
    """

    code = "TTL211"
    name = "op-undefined-for-dtype"
    summary = "mean/std/var/softmax/norm on an integer or bool tensor (float-only ops)"
    severity = "error"
    listens = (cst.Call,)
    ops = frozenset(OP_NAMES)
    fix_safety = "safe"
    # NotImplementedError is a RuntimeError subclass.
    runtime = RuntimeClaim("RuntimeError", r"could not infer output dtype|only support floating point|"
                                           r"Expected a floating point or complex tensor|"
                                           r"must be either float or double|not implemented for|"
                                           r"expected input to have floating point", pattern_devices=("cpu",))

    def visit(self, node: cst.Call, ctx: RuleContext) -> None:
        call = ctx.op_call(node)
        if call is None or call.has_star or (call.spelling == METHOD and call.receiver_node is None):
            return
        op, args, label, receiver_node = OP_NAMES[call.op], call.args, call.label, call.receiver_node
        x = call.arg("input")
        if "dtype" in args.kw and op in ACCEPTS_DTYPE:
            return
        if not all_dtypes(x, is_int_or_bool):
            return
        d = one(x)
        torch_says = FLOAT_ONLY[op].format(d=scalar_type_name(d) if d else "...")
        exception = "NotImplementedError" if "not implemented" in torch_says else "RuntimeError"
        fix = None
        hint = "convert it first with `.float()`"
        if receiver_node is not None:
            fixed = cst.Call(func=cst.Attribute(value=cast_expr(receiver_node, FLOAT32), attr=node.func.attr),
                             args=node.args)
            fix = Fix(node, fixed, f"Convert to float first: `{code(fixed)}`", safe=True)
            hint = f"use `{code(fixed)}`"
        self.flag(ctx, node,
                  f"`{label}` on a {show(x)} tensor{origin_note(x)} raises {exception} ({said(torch_says)}): "
                  f"it is only defined for floating-point tensors; {hint}",
                  origin=x.origin, fix=fix)
