"""TTL212 bool-tensor-subtraction: subtraction or negation of a bool tensor (use ~ or logical_not)."""
from __future__ import annotations

from typing import Any

import libcst as cst

from ...model.findings import Fix
from ...model.values import FLOAT32, INT64
from ..base import RuntimeClaim, register
from ..dtype_names import origin_note, said
from ..dtype_predicates import all_dtypes, is_bool
from ..dtype_rule import DtypeRule
from ..source_edits import cast_expr, code
from ..context import RuleContext


@register
class BoolTensorSubtraction(DtypeRule):
    """
    ## What it does
    Flags `-` with a bool tensor operand (`1 - mask`, `1.0 - mask`, `mask - other`) and
    unary negation of a bool tensor (`-mask`).

    ## Why is this bad?
    torch refuses arithmetic negation and subtraction on bool tensors: `RuntimeError:
    Subtraction, the `-` operator, with a bool tensor is not supported. If you are trying
    to invert a mask, use the `~` or `logical_not()` operator instead.` The attention-mask
    idiom `(1 - mask) * -1e9` fails as soon as the mask is bool (e.g. built with `==` or
    `<`). `mask * -1e9` and `~mask` are fine.

    ## Example
    ```python
    mask = tokens != pad_id
    penalty = (1 - mask) * -1e9
    ```

    ## Use instead
    ```python
    penalty = (~mask) * -1e9
    # or, keeping the arithmetic: (1 - mask.long()) * -1e9
    ```

    ## Fix safety
    Safe when the other operand is a number literal: `1 - mask` becomes
    `1 - mask.long()` and `1.0 - mask` becomes `1.0 - mask.float()`, which compute what the
    expression spells (Python's `1 - True == 0`). No fix otherwise.
    """

    code = "TTL212"
    name = "bool-tensor-subtraction"
    summary = "subtraction or negation of a bool tensor (use ~ or logical_not)"
    severity = "error"
    listens = (cst.BinaryOperation, cst.UnaryOperation)
    fix_safety = "safe"
    runtime = RuntimeClaim("RuntimeError", r"(Subtraction|Negation), the `-` operator, .*bool tensor")

    def visit(self, node: Any, ctx: RuleContext) -> None:
        if isinstance(node, cst.UnaryOperation):
            if isinstance(node.operator, cst.Minus):
                x = ctx.value(node.expression)
                if all_dtypes(x, is_bool):
                    self.flag(ctx, node,
                              f"`{code(node)}` raises RuntimeError (\"Negation, the `-` operator, on a bool "
                              f"tensor is not supported\"): `{code(node.expression, 30)}` is bool{origin_note(x)}; use "
                              f"`~{code(node.expression, 30)}` to invert a mask",
                              origin=x.origin)
            return
        if not isinstance(node.operator, cst.Subtract):
            return
        left, right = ctx.value(node.left), ctx.value(node.right)
        bool_side = None
        if all_dtypes(right, is_bool):
            bool_side = "right"
        elif all_dtypes(left, is_bool):
            bool_side = "left"
        if bool_side is None:
            return
        mask_node = node.right if bool_side == "right" else node.left
        other_node = node.left if bool_side == "right" else node.right
        mask = right if bool_side == "right" else left
        fix = None
        if isinstance(other_node, (cst.Integer, cst.Float)):
            dtype = INT64 if isinstance(other_node, cst.Integer) else FLOAT32
            new_mask = cast_expr(mask_node, dtype)
            fixed = node.with_changes(right=new_mask) if bool_side == "right" else node.with_changes(left=new_mask)
            fix = Fix(node, fixed, f"Convert the mask: `{code(fixed)}`", safe=True)
        two = all_dtypes(left, is_bool) and all_dtypes(right, is_bool)
        torch_says = ("Subtraction, the `-` operator, with two bool tensors is not supported" if two
                      else "Subtraction, the `-` operator, with a bool tensor is not supported")
        self.flag(ctx, node,
                  f"`{code(node)}` raises RuntimeError ({said(torch_says)}): "
                  f"`{code(mask_node, 30)}` is bool{origin_note(mask)}; use `~{code(mask_node, 30)}` to "
                  f"invert a mask, or convert it first: `{code(mask_node, 30)}.long()`",
                  origin=mask.origin, fix=fix)
