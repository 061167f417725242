"""TTL201 matmul-dtype-mismatch: an integer tensor in a matrix product with another dtype (no promotion)."""
from __future__ import annotations

from typing import Any

import libcst as cst

from ..base import RuntimeClaim, register
from ...knowledge.ops import MATRIX_PRODUCTS
from .matmul_mismatch import matmul_operands
from ..dtype_predicates import mismatch_kind
from ..dtype_rule import DtypeRule
from .matmul_mismatch import MATMUL_PATTERN, report_mismatch
from ..context import RuleContext


@register
class MatmulDtypeMismatch(DtypeRule):
    """
    ## What it does
    Flags a matrix product (`@`, `torch.matmul`, `mm`, `bmm`, `mv`, `dot`, `einsum`,
    `F.linear`, `addmm`, `baddbmm`, `tensordot`, `cdist`) whose operands always have
    different dtypes and at least one of them is an integer or bool tensor: int64 vs
    float32, or even int32 vs int64.

    ## Why is this bad?
    Unlike elementwise arithmetic, matrix products never promote: torch raises
    `RuntimeError: expected m1 and m2 to have the same dtype, but got: long int != float`
    (or `expected scalar type Long but found Float`, depending on the op). Integer data
    usually comes from `torch.tensor([1, 2, 3])`, `torch.arange`, `F.one_hot` or numpy int
    arrays.

    ## Example
    ```python
    counts = torch.tensor([[1, 0, 2]])
    weights = torch.randn(3, 2)
    scores = counts @ weights
    ```

    ## Use instead
    ```python
    scores = counts.float() @ weights
    ```

    ## Fix safety
    Unsafe: the fix converts the operand with the unusual dtype (`.float()`, `.long()`) to
    the other operand's dtype; converting integers to floats is normally the intent, but
    the result dtype of the expression changes.
    """

    code = "TTL201"
    name = "matmul-dtype-mismatch"
    summary = "matrix product of an integer tensor with a tensor of another dtype (matmul never promotes)"
    severity = "error"
    listens = (cst.Call, cst.BinaryOperation)
    ops = frozenset(MATRIX_PRODUCTS)
    fix_safety = "unsafe"
    runtime = RuntimeClaim("RuntimeError", MATMUL_PATTERN, pattern_devices=("cpu",))

    def visit(self, node: Any, ctx: RuleContext) -> None:
        found = matmul_operands(node, ctx)
        if found is None:
            return
        op, label, a, b, a_node, b_node = found
        if mismatch_kind(a, b) != "mixing" or op == "torch.cdist":
            return  # cdist rejects integers with a message of its own
        report_mismatch(self, ctx, node, op, label, a, b, a_node, b_node)
