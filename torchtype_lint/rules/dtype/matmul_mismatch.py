"""A matrix product whose operands' dtypes differ: torch's wordings and the TTL201/TTL401 report."""
from __future__ import annotations

from typing import Any, Optional, Tuple

from ...model.findings import Fix
from ...knowledge.ops import FUNCTION, MATRIX_PRODUCTS
from ...model.values import FLOAT32, INT64, Value
from ..dtype_names import c10_name, one, origin_note, said, scalar_type_name, show
from ..dtype_predicates import dtypes_of, rank
from ..dtype_rule import DtypeRule
from ..source_edits import cast_expr, cast_text, castable, code
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


def matmul_operands(node: Any, ctx: RuleContext) -> Optional[Tuple[str, str, Value, Value, Any, Any]]:
    """(op, how it reads, left, right, left node, right node) when ``node`` is a matrix
    product, however it is spelled (``torch.mm(a, b)``, ``a.mm(b)``, ``a @ b``...)."""
    call = ctx.op_call(node)
    if call is None or call.has_star or call.op not in MATRIX_PRODUCTS:
        return None
    if call.op == "torch.einsum":
        args = call.args
        if call.spelling != FUNCTION or len(args.pos) != 3:
            return None
        return call.op, call.label, args.pos[1], args.pos[2], args.pos_nodes[1], args.pos_nodes[2]
    left, right = MATRIX_PRODUCTS[call.op]
    return (call.op, call.label, call.arg(left), call.arg(right), call.arg_node(left),
            call.arg_node(right))


def matmul_message(op: str, a: str, b: str, a_rank: Optional[int], b_rank: Optional[int]) -> str:
    """The first line torch 2.13 prints for matrix product ``op`` of dtypes ``a`` and ``b`` (CPU)."""
    if op in ("torch.bmm", "torch.einsum", "torch.baddbmm", "torch.cdist"):
        return f"expected scalar type {scalar_type_name(a)} but found {scalar_type_name(b)}"
    if op in ("torch.tensordot", "torch.inner"):
        return "both inputs should have same dtype"
    if op == "torch.dot" or (a_rank == 1 and b_rank == 1 and op == "torch.matmul"):
        return (f"dot : expected both vectors to have same dtype, but found "
                f"{scalar_type_name(a)} and {scalar_type_name(b)}")
    if op in ("torch.mv", "torch.addmv"):
        return "addmv input tensors must have the same dtype"
    if op in ("torch.addmm", "torch.addbmm"):
        return "self and mat2 must have the same dtype"
    return f"expected m1 and m2 to have the same dtype, but got: {c10_name(a)} != {c10_name(b)}"
