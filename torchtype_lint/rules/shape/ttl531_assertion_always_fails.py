"""TTL531 assertion-always-fails: the program's own ``assert`` on shapes, sizes or dtypes that
the values it compares can never pass."""
from __future__ import annotations

from typing import Any, List, Optional

import libcst as cst

from ...model.values import DTypeValue, ScalarValue, SequenceValue, TensorValue, Value
from ..base import Rule, RuntimeClaim, register
from ..context import RuleContext
from ..source_edits import code

#: Tensor attributes and methods whose values an assertion about shapes or dtypes reads.
_TENSOR_FACTS = frozenset({"shape", "dtype", "ndim", "device", "size", "dim", "numel"})


def _reads_tensor_facts(test: Any) -> bool:
    """Does the assertion read a shape, size, rank or dtype (``x.shape``, ``x.size(0)``,
    ``x.dim()``, ``len(x)``)? An assertion about other values (a config check) is not judged."""
    stack = [test]
    while stack:
        node = stack.pop()
        if isinstance(node, cst.Attribute) and node.attr.value in _TENSOR_FACTS:
            return True
        if isinstance(node, cst.Call) and isinstance(node.func, cst.Name) and node.func.value == "len":
            return True
        stack.extend(node.children)
    return False


def _shown(value: Value) -> Optional[str]:
    """How a message shows a known operand: ``(8, 8)``, ``2``, ``torch.float32``."""
    if isinstance(value, SequenceValue) and value.items is not None and value.container in ("tuple", "list"):
        parts = [_shown(item) for item in value.items]
        if any(p is None for p in parts):
            return None
        inner = ", ".join(parts)  # type: ignore[arg-type]
        return f"({inner}{',' if len(parts) == 1 else ''})" if value.container == "tuple" else f"[{inner}]"
    if isinstance(value, ScalarValue) and value.const is not None:
        return repr(value.const)
    if isinstance(value, DTypeValue):
        return f"torch.{value.dtype}"
    return None


@register
class AssertionAlwaysFails(Rule):
    """
    ## What it does
    Flags an `assert` about shapes, sizes, ranks or dtypes (`assert out.shape == y.shape`,
    `assert x.size(1) == 3`, `assert logits.dim() == 2`, `assert x.dtype == torch.float32`)
    that the values the code gives those tensors can never pass, where the code runs as
    analysed (a function nobody in the file calls is not judged).

    ## Why is this bad?
    The program stops with a bare `AssertionError` at the check, often far from the line that
    gave the tensor its shape: a `(N, 1)` prediction against `(N,)` targets broadcast by
    `mse_loss(..., reduction="none")` into `(N, N)`, a flatten that kept a spatial dimension.
    The message says what each side is and where it came from.

    ## Example
    ```python
    err = F.mse_loss(model(x), y, reduction="none")  # model(x): (8, 1), y: (8,)
    assert err.shape == y.shape
    ```

    ## Use instead
    ```python
    err = F.mse_loss(model(x).squeeze(-1), y, reduction="none")
    assert err.shape == y.shape
    ```
    """

    code = "TTL531"
    name = "assertion-always-fails"
    summary = "assert on shapes, sizes or dtypes that the inferred values never pass"
    severity = "error"
    listens = (cst.Assert,)
    runtime = RuntimeClaim("AssertionError", r"")

    def visit(self, node: cst.Assert, ctx: RuleContext) -> None:
        if ctx.analysed_on_its_own or not _reads_tensor_facts(node.test):
            return
        truth = ctx.value(node.test)
        if not (isinstance(truth, ScalarValue) and truth.pytype == "bool" and truth.const is False):
            return
        self.report(node, f"`assert {code(node.test, 60)}` always fails{self._why(node.test, ctx)}: "
                          "the program stops with AssertionError here", origin=self._origin(node.test, ctx))

    @staticmethod
    def _operands(test: Any) -> List[Any]:
        if isinstance(test, cst.Comparison) and len(test.comparisons) == 1:
            return [test.left, test.comparisons[0].comparator]
        return []

    def _why(self, test: Any, ctx: RuleContext) -> str:
        """``: `err.shape` is (8, 8) and `y.shape` is (8,)`` for a comparison of known operands."""
        parts = []
        for operand in self._operands(test):
            if isinstance(operand, (cst.Integer, cst.SimpleString, cst.Tuple, cst.List)):
                continue  # a literal shows itself
            shown = _shown(ctx.value(operand))
            if shown is None:
                return ""
            if shown != code(operand, 30):  # `torch.float32` is torch.float32: says nothing
                parts.append(f"`{code(operand, 30)}` is {shown}")
        return ": " + " and ".join(parts) if parts else ""

    def _origin(self, test: Any, ctx: RuleContext) -> Any:
        """Where the first tensor the comparison reads got its value."""
        for operand in self._operands(test) or [test]:
            node = operand
            while isinstance(node, (cst.Attribute, cst.Call, cst.Subscript)):
                node = node.func if isinstance(node, cst.Call) else node.value
                value = ctx.value(node)
                if isinstance(value, TensorValue) and value.origin is not None:
                    return value.origin
        return None
