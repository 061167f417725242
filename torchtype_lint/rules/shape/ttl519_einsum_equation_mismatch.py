"""TTL519 einsum-equation-mismatch: the rule, with the helpers only it uses."""
from __future__ import annotations

from typing import Any, List

import libcst as cst

from ...knowledge.einsum import einsum_problem, parse_equation
from ...knowledge.torch_api import einsum_operands
from ...model.values import StringValue, TensorValue, describe_shape
from ..base import Rule, RuntimeClaim, register
from ..context import RuleContext
from .messages import shape_origin


@register
class EinsumEquationMismatch(Rule):
    """
    ## What it does
    Reads the equation of `torch.einsum` (`"bij,bjk->bik"`, with `...` and the implicit
    output of an equation without `->`) and flags calls whose known operand shapes cannot
    fit it: a subscript letter whose sizes differ between operands (neither being 1, which
    broadcasts) or within one operand, dims covered by `...` that cannot broadcast, an operand
    with more or fewer dims than its subscripts, more or fewer operands than the equation
    names, and output letters that name no input dim or appear twice.

    ## Why is this bad?
    torch raises `RuntimeError: einsum(): subscript j has size 4 for operand 1 which does not
    broadcast with previously seen size 3` (or `the number of subscripts in the equation (3)
    does not match the number of dimensions (2) for operand 0`, `output subscript l does not
    appear in the equation for any input operand`...). Usually one operand needs a transpose
    or the subscripts were written for another layout.

    ## Example
    ```python
    queries = torch.randn(2, 8, 64)  # (batch, query, dim)
    keys = torch.randn(2, 10, 64)    # (batch, key, dim)
    scores = torch.einsum("bqd,bdk->bqk", queries, keys)
    ```

    ## Use instead
    ```python
    scores = torch.einsum("bqd,bkd->bqk", queries, keys)  # (2, 8, 10)
    ```

    ## Fix safety
    No fix.
    """

    code = "TTL519"
    name = "einsum-equation-mismatch"
    summary = "torch.einsum operands whose shapes cannot fit the equation"
    listens = (cst.Call,)
    ops = frozenset({"torch.einsum"})
    runtime = RuntimeClaim("RuntimeError", r"einsum\(\): ")

    def visit(self, node: cst.Call, ctx: RuleContext) -> None:
        call = ctx.op_call(node)
        if call is None or not call.args.pos:
            return
        equation_value = call.args.pos[0]
        if not isinstance(equation_value, StringValue) or equation_value.const is None:
            return  # the sublist form, or an equation we cannot read
        equation = parse_equation(equation_value.const)
        operands = einsum_operands(call.args)
        if equation is None or operands is None or not operands:
            return
        if not all(isinstance(t, TensorValue) for t in operands):
            return
        shapes = [t.shape for t in operands]  # type: ignore[union-attr]
        problem = einsum_problem(equation, shapes)
        if problem is None:
            return
        origin = shape_origin(operands[problem.operand], ctx) if problem.operand is not None else None
        where = f" (operand {problem.operand} {{origin}})" if origin is not None else ""
        self.report(node, f"`torch.einsum(\"{equation_value.const}\", ...)` with operands of shapes "
                          f"{_shapes(shapes)}: {problem.reason}{where}; torch raises "
                          f"\"einsum(): {problem.torch_says}\"", origin=origin)


def _shapes(shapes: List[Any]) -> str:
    return ", ".join(describe_shape(s) for s in shapes)
