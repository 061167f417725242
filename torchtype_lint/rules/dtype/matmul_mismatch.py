"""A matrix product whose operands' dtypes differ: torch's wordings and the TTL201/TTL401 report."""
from __future__ import annotations

from typing import Any

from ...findings import Fix
from ...values import FLOAT32, INT64, Value
from ..dtype_support import (
    DtypeRule, cast_expr, cast_text, castable, code, dtypes_of, matmul_message, one, origin_note,
    rank, said, show,
)
from ..context import RuleContext

MATMUL_PATTERN = (r"same dtype|expected scalar type \w+ but found \w+|both inputs should have same dtype")


def _culprit(a: Value, b: Value) -> int:
    """Which operand (0 or 1) holds the unusual dtype: the one that is neither float32 nor the
    other's dtype class default. The second operand when undecidable."""
    da, db = dtypes_of(a) or frozenset(), dtypes_of(b) or frozenset()
    usual = {FLOAT32, INT64}
    if not (da & usual) and (db & usual):
        return 0
    if not (db & usual) and (da & usual):
        return 1
    if FLOAT32 in db and FLOAT32 not in da:
        return 0
    return 1


def report_mismatch(rule: DtypeRule, ctx: RuleContext, node: Any, op: str, label: str, a: Value, b: Value,
                    a_node: Any, b_node: Any) -> None:
    """The TTL201/TTL401 report for a matrix product of mismatched dtypes."""
    bad = _culprit(a, b)
    culprit, culprit_node = (a, a_node) if bad == 0 else (b, b_node)
    other = b if bad == 0 else a
    da, db = one(a), one(b)
    torch_says = (matmul_message(op, da, db, rank(a), rank(b)) if da and db
                  else "expected m1 and m2 to have the same dtype")
    target = one(other)
    fix = None
    hint = "convert one operand so both have the same dtype"
    if castable(target) and culprit_node is not None:
        hint = f"convert it: `{cast_text(code(culprit_node, 30), target)}`"
        fix = Fix(culprit_node, cast_expr(culprit_node, target),
                  f"Convert the operand to {target}: `{cast_text(code(culprit_node, 30), target)}`",
                  safe=False)
    what = f"`{code(culprit_node, 30)}`" if culprit_node is not None else "an operand"
    rule.flag(ctx, node,
              f"`{label}` of {show(a)} and {show(b)} raises RuntimeError: matrix products do not "
              f"promote dtypes (torch: {said(torch_says)}); {what} is {show(culprit)}"
              f"{origin_note(culprit)}; {hint}",
              origin=culprit.origin, fix=fix)
