"""TTL213 mask-not-bool: masked_fill / masked_select / masked_scatter mask or torch.where condition
that is not a bool tensor."""
from __future__ import annotations

from typing import Any

import libcst as cst

from ...model.findings import Fix
from ...model.values import BOOL
from ..base import RuntimeClaim, register
from ..dtype_names import one, origin_note, said, scalar_type_name, show
from ..dtype_predicates import all_dtypes
from ..dtype_rule import DtypeRule
from ..source_edits import cast_expr, code
from ..context import RuleContext

#: op -> (the mask's parameter, dtypes torch also accepts there, what torch says: {d} its dtype)
_MASKED_OPS = {
    "torch.masked_fill": ("mask", (), "masked_fill_ only supports boolean masks, but got mask with dtype {t}"),
    "torch.masked_scatter": ("mask", (), "masked_scatter_ only supports boolean masks, but got mask with dtype {s}"),
    "torch.masked_select": ("mask", (), "masked_select: expected BoolTensor for mask"),
    # uint8 conditions still work (deprecated); torch.where(condition) alone is nonzero()
    "torch.where": ("condition", ("uint8",), "where expected condition to be a boolean tensor, but got a tensor "
                                             "with dtype {s}"),
}

#: How torch's C++ side names a dtype in the masked_* messages ("long int", "float").
_CPP_NAMES = {"float32": "float", "float64": "double", "float16": "c10::Half", "bfloat16": "c10::BFloat16",
              "int64": "long int", "int32": "int", "int16": "short int", "int8": "signed char",
              "uint8": "unsigned char"}


@register
class MaskNotBool(DtypeRule):
    """
    ## What it does
    Flags the mask of `masked_fill`, `masked_fill_`, `masked_select`, `masked_scatter(_)`
    (function or method) and the condition of the three-argument `torch.where` when it is a
    tensor whose dtype is known not to be bool (`torch.where` also accepts uint8).

    ## Why is this bad?
    torch takes masks as bool tensors only: `RuntimeError: masked_fill_ only supports boolean
    masks, but got mask with dtype float`. A padding or attention mask made "multipliable"
    with `.float()`, or built with `torch.ones(...)` / arithmetic, crashes the layer that
    fills with it, far from where it was made.

    ## Example
    ```python
    pad_mask = (ids == 0).float()
    scores = scores.masked_fill(pad_mask, float("-inf"))
    ```

    ## Use instead
    ```python
    pad_mask = ids == 0
    scores = scores.masked_fill(pad_mask, float("-inf"))
    ```

    ## Fix safety
    Unsafe: the fix converts the mask with `.bool()`, which is what a 0/1 mask means but
    treats every non-zero value as True.
    """

    code = "TTL213"
    name = "mask-not-bool"
    summary = "masked_fill / masked_select / masked_scatter mask or torch.where condition that is not bool"
    severity = "error"
    listens = (cst.Call,)
    ops = frozenset(_MASKED_OPS)
    fix_safety = "unsafe"
    runtime = RuntimeClaim("RuntimeError", r"only supports boolean masks|expected BoolTensor for mask|"
                                           r"where expected condition to be a boolean tensor")

    def visit(self, node: Any, ctx: RuleContext) -> None:
        call = ctx.op_call(node)
        if call is None or call.has_star or call.op not in _MASKED_OPS:
            return
        param, also_accepted, says = _MASKED_OPS[call.op]
        if call.op == "torch.where" and not call.has_arg("input"):
            return  # torch.where(condition) is condition.nonzero(as_tuple=True): any dtype
        mask, mask_node = call.arg(param), call.arg_node(param)
        if mask_node is None or not all_dtypes(mask, lambda d: d != BOOL and d not in also_accepted):
            return
        t = one(mask)
        # with several possible dtypes, quote torch's words up to the dtype it names
        message = says.format(t=_CPP_NAMES[t], s=scalar_type_name(t)) if t in _CPP_NAMES \
            else says.split("{")[0].rstrip()
        fix = Fix(mask_node, cast_expr(mask_node, BOOL), "Convert the mask with `.bool()`", safe=False)
        self.flag(ctx, node,
                  f"`{call.label}` needs a bool {param} but `{code(mask_node, 30)}` is {show(mask)}"
                  f"{origin_note(mask)}: torch raises RuntimeError ({said(message)}); make the mask bool "
                  f"where it is built, or convert it: `{code(mask_node, 30)}.bool()`",
                  origin=mask.origin, fix=fix)
