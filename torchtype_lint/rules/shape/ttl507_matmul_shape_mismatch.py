"""TTL507 matmul-shape-mismatch: the rule, with the helpers only it uses."""
from __future__ import annotations

from typing import Any, Optional, Tuple

import libcst as cst

from ...knowledge import shapes as S
from ...model.values import describe_shape
from ..base import Rule, RuntimeClaim, register
from ..dtype.matmul_mismatch import matmul_operands
from .known import _known, _shape
from .messages import shape_origin
from ..context import RuleContext


def matmul_problem(op: str, a: Tuple[Any, ...], b: Tuple[Any, ...]) -> Optional[str]:
    """Why matrix product ``op`` of shapes ``a`` and ``b`` fails, when the known dims prove it."""
    if op == "torch.matmul":
        if not a or not b:
            return None
        inner = S.matmul_inner(a, b)
        if inner is None:
            return None
        x, y = inner
        if _known(x) and _known(y) and x != y:
            which = "its only dimension" if len(b) == 1 else "its second-to-last dimension"
            return f"the left operand's last dimension is {x}, the right operand's {which} is {y}"
        return None
    if op == "torch.mm":
        if len(a) == 2 and len(b) == 2 and _known(a[1]) and _known(b[0]) and a[1] != b[0]:
            return f"the left matrix has {a[1]} columns, the right one {b[0]} rows"
        return None
    if op == "torch.bmm":
        if len(a) != 3 or len(b) != 3:
            return None
        if _known(a[0]) and _known(b[0]) and a[0] != b[0]:
            return f"the batch sizes differ ({a[0]} and {b[0]})"
        if _known(a[2]) and _known(b[1]) and a[2] != b[1]:
            return f"the left matrices have {a[2]} columns, the right ones {b[1]} rows"
    return None


@register
class MatmulInnerDimMismatch(Rule):
    """
    ## What it does
    Flags `a @ b`, `torch.matmul`, `torch.mm`, `torch.bmm` (and the tensor methods) when
    the known contracted dimensions differ: the last dimension of `a` and the
    second-to-last (or only) dimension of `b`; for `bmm` also the batch sizes.

    ## Why is this bad?
    The product is undefined and fails with `mat1 and mat2 shapes cannot be multiplied
    (3x4 and 5x6)` (or `size mismatch`, `inconsistent tensor size`, `Expected size for
    first two dimensions of batch2 tensor`, depending on the ranks). Often one operand
    needs a transpose (`b.T`, `b.transpose(-2, -1)`).

    ## Example
    ```python
    queries = torch.randn(8, 64)
    keys = torch.randn(10, 64)
    scores = queries @ keys
    ```

    ## Use instead
    ```python
    scores = queries @ keys.T
    ```

    ## Fix safety
    No fix.
    """

    code = "TTL507"
    name = "matmul-shape-mismatch"
    summary = "matrix product whose contracted dimensions differ"
    listens = (cst.Call, cst.BinaryOperation)
    ops = frozenset({"torch.matmul", "torch.mm", "torch.bmm"})
    runtime = RuntimeClaim(
        "RuntimeError",
        r"shapes cannot be multiplied|size mismatch, got|inconsistent tensor size|"
        r"Expected size for first two dimensions of batch2 tensor")

    def visit(self, node: Any, ctx: RuleContext) -> None:
        found = matmul_operands(node, ctx)
        if found is None:
            return
        op, how, left, right, _, _ = found
        a, b = _shape(left), _shape(right)
        if a is None or b is None:
            return
        problem = matmul_problem(op, a, b)
        if problem is None:
            return
        origin = shape_origin(left, ctx) or shape_origin(right, ctx)
        self.report(node, f"`{how}` cannot multiply shapes {describe_shape(a)} and {describe_shape(b)}: "
                          f"{problem}", origin=origin)
