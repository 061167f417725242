"""TTL902 implicit-int-float-promotion: integer tensor silently promoted to float by elementwise arithmetic (opt-in)."""
from __future__ import annotations


import libcst as cst

from ...model.values import Category, category
from ..base import RuntimeClaim, register
from ..dtype_names import origin_note, show
from ..dtype_predicates import all_dtypes, is_float
from ..dtype_rule import DtypeRule
from ..source_edits import code
from ..context import RuleContext


_ELEMENTWISE = (cst.Add, cst.Subtract, cst.Multiply, cst.Divide)


@register
class ImplicitIntFloatPromotion(DtypeRule):
    """
    ## What it does
    Flags elementwise `+`, `-`, `*`, `/` between an integer tensor and a floating-point
    tensor, where torch silently promotes the integer operand.

    ## Why is this bad?
    It is not an error: torch promotes to the float dtype. Some code bases prefer every
    int -> float conversion spelled out, because the promotion also hides mistakes such as
    integer labels mixed into float features. Opt-in.

    ## Example
    ```python
    scaled = counts * weights      # int64 * float32 -> float32
    ```

    ## Use instead
    ```python
    scaled = counts.float() * weights
    ```

    ## Fix safety
    No fix.
    """

    code = "TTL902"
    name = "implicit-int-float-promotion"
    summary = "integer tensor silently promoted to float by elementwise arithmetic (opt-in)"
    severity = "warning"
    listens = (cst.BinaryOperation,)
    default_enabled = False
    runtime = RuntimeClaim("AssertionError")

    def visit(self, node: cst.BinaryOperation, ctx: RuleContext) -> None:
        if not isinstance(node.operator, _ELEMENTWISE):
            return
        left, right = ctx.value(node.left), ctx.value(node.right)
        integer = lambda d: category(d) == Category.INT  # noqa: E731 - tiny predicate
        for int_side, float_side, int_node in ((left, right, node.left), (right, left, node.right)):
            if all_dtypes(int_side, integer) and all_dtypes(float_side, is_float):
                self.report(node,
                            f"`{code(int_node, 30)}` ({show(int_side)}{origin_note(int_side)}) is silently "
                            f"promoted to {show(float_side)} in `{code(node)}`; convert it explicitly",
                            origin=int_side.origin)
                return
