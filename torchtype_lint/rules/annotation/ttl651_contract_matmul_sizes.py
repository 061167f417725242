"""TTL651 contract-matmul-sizes: matrix product whose contracted dims are different annotated sizes."""
from __future__ import annotations

from typing import Any, Optional, Tuple

import libcst as cst

from ...knowledge import shapes as S
from ...model.values import TensorValue, describe_shape
from ..base import Rule, RuntimeClaim, register
from ..context import RuleContext
from ..dtype.matmul_mismatch import matmul_operands
from .size_contracts import never_equal, promise, shown, sizes_condition


def _contracted(op: str, a: Tuple[Any, ...], b: Tuple[Any, ...]) -> Optional[Tuple[Any, Any]]:
    """The two dims the product contracts (which torch requires equal), by op and rank."""
    if op == "torch.matmul":
        return S.matmul_inner(a, b)
    if op == "torch.mm" and len(a) == 2 and len(b) == 2:
        return a[1], b[0]
    if op == "torch.bmm" and len(a) == 3 and len(b) == 3:
        return a[2], b[1]
    if op == "torch.mv" and len(a) == 2 and len(b) == 1:
        return a[1], b[0]
    return None


@register
class ContractMatmulSizes(Rule):
    """
    ## What it does
    In a function whose parameters carry shape annotations, flags a matrix product
    (`a @ b`, `torch.matmul`, `mm`, `bmm`, `mv` and the methods) whose contracted dimensions
    are two *different* sizes of the annotations: `x @ x` for `x: Float[Tensor, "b d"]`
    contracts `d` with `b`, so it runs only when `b == d`; `x.flatten() @ w` for
    `w: Float[Tensor, "d k"]` contracts `b*d` with `d` and runs only when `b == 1`. The
    message says which sizes would have to be equal. Only dimensions named by the
    function's own annotations (or flattened from them) count; unknown dims never fire.

    ## Why is this bad?
    An annotation with named dimensions promises that the function works for every size:
    callers read `"b d"` as "any batch, any width". A product that only works when two of
    them happen to be equal breaks for the first caller whose sizes differ, with
    `mat1 and mat2 shapes cannot be multiplied`. Either the code needs a transpose
    (`x @ x.T`), or the annotation should say the sizes are equal (`"d d"`).
    These are *contract* findings: the program may run today, with the sizes it is given;
    select or ignore them together with `TTL65`.

    ## Example
    ```python
    def gram(x: Float[Tensor, "b d"]) -> Float[Tensor, "b b"]:
        return x @ x
    ```

    ## Use instead
    ```python
    def gram(x: Float[Tensor, "b d"]) -> Float[Tensor, "b b"]:
        return x @ x.T
    ```

    ## Fix safety
    No fix.
    """

    code = "TTL651"
    name = "contract-matmul-sizes"
    summary = "matrix product that runs only when two different annotated sizes are equal"
    listens = (cst.Call, cst.BinaryOperation)
    ops = frozenset({"torch.matmul", "torch.mm", "torch.bmm", "torch.mv"})
    runtime = RuntimeClaim(
        "RuntimeError",
        r"shapes cannot be multiplied|size mismatch, got|inconsistent tensor size|"
        r"Expected size for first two dimensions of batch2 tensor")

    def visit(self, node: Any, ctx: RuleContext) -> None:
        found = matmul_operands(node, ctx)
        if found is None:
            return
        op, how, left, right, _, _ = found
        if not isinstance(left, TensorValue) or not isinstance(right, TensorValue) \
                or left.shape is None or right.shape is None:
            return
        a, b = tuple(left.shape), tuple(right.shape)
        pair = _contracted(op, a, b)
        if pair is None:
            return
        x, y = pair
        condition = sizes_condition(x, y, ctx)
        if condition is not None:
            verdict = f"runs only when {condition}"
        elif never_equal(x, y, ctx):
            verdict = f"fails for every size ({x} is never {y})"
        else:
            return
        self.report(node, f"`{shown(node if isinstance(node, cst.BinaryOperation) else how)}` multiplies shapes {describe_shape(a)} and {describe_shape(b)}, contracting "
                          f"`{x}` with `{y}`: it {verdict}, while {promise(ctx)}", origin=left.origin)
