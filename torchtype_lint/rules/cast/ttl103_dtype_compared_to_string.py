"""TTL103 dtype-compared-to-string: tensor dtype compared with a string or a Python type is always False."""
from __future__ import annotations

from typing import Any, Dict, List, Optional, Set, Tuple

import libcst as cst

from ...model.findings import Fix
from ...knowledge.dtypes import TORCH_DTYPE_ATTRS
from ...model.values import StringValue, SymbolValue, TensorValue
from ..base import Rule, RuntimeClaim, expr_text, register
from .comparisons import _EQUALITY, _always, _comparison_pairs
from ..context import RuleContext


_PYTHON_TYPES = {"builtins.float": "float", "builtins.int": "int", "builtins.bool": "bool",
                 "builtins.complex": "complex"}


def _non_tensor_guard(node: Any) -> Tuple[Any, Any]:
    """(test, guarded part) of ``test and ...``, ``if test: ...`` and ``... if test else ...``."""
    if isinstance(node, cst.BooleanOperation) and isinstance(node.operator, cst.And):
        return node.left, node.right
    if isinstance(node, cst.If):
        return node.test, node.body
    if isinstance(node, cst.IfExp):
        return node.test, node.body
    return None, None


def _is_non_tensor_isinstance(test: Any, ctx: RuleContext) -> bool:
    """``isinstance(x, np.ndarray)`` (or any class that is not a torch tensor), possibly the
    last operand of an ``and`` chain."""
    while isinstance(test, cst.BooleanOperation) and isinstance(test.operator, cst.And):
        test = test.right
    if not (isinstance(test, cst.Call) and isinstance(test.func, cst.Name) and test.func.value == "isinstance"
            and len(test.args) == 2):
        return False
    kind = ctx.value(test.args[1].value)
    return not (isinstance(kind, SymbolValue) and kind.qualname.startswith("torch."))


class _Comparisons(cst.CSTVisitor):
    def __init__(self) -> None:
        self.found: List[Any] = []

    def visit_Comparison(self, node: cst.Comparison) -> None:
        self.found.append(node)


def _comparisons_in(node: Any) -> List[Any]:
    finder = _Comparisons()
    node.visit(finder)
    return finder.found


@register
class DtypeComparedToStringOrType(Rule):
    """
    ## What it does
    Flags `x.dtype` of a tensor compared with a string (`x.dtype == "float32"`) or with a
    Python type (`x.dtype == float`, `x.dtype is float`).

    ## Why is this bad?
    A `torch.dtype` never equals a string or a Python type, so the comparison is always
    False (`!=` always True). (It works for numpy arrays, where `a.dtype == "float32"` is
    True, which is where the habit comes from; numpy arrays are not flagged.)

    ## Example
    ```python
    if x.dtype == "float32":
        ...
    if x.dtype is float:
        ...
    ```

    ## Use instead
    ```python
    if x.dtype == torch.float32:
        ...
    if x.is_floating_point():
        ...
    ```

    ## Fix safety
    Unsafe: a string naming a dtype (`"float32"`, `"torch.float32"`) becomes that dtype
    (`torch.float32`), which makes the comparison work, so behaviour changes. Python types
    get no fix (`float` may mean float64 or "any float").
    """

    code = "TTL103"
    name = "dtype-compared-to-string"
    summary = "tensor dtype compared with a string or a Python type is always False"
    severity = "warning"
    listens = (cst.Comparison, cst.BooleanOperation, cst.If, cst.IfExp, cst.Module)
    fix_safety = "unsafe"
    runtime = RuntimeClaim("AssertionError")

    def __init__(self, sink: Any):
        super().__init__(sink)
        # Reported at the end of the file: a comparison turns out to be guarded by
        # `isinstance(x, np.ndarray)` only when the enclosing `and` / `if` is evaluated.
        self._pending: Dict[Any, Tuple[str, Optional[Fix]]] = {}
        self._guarded: Set[Any] = set()
        #: Guarded blocks whose comparisons are in _guarded (a block is walked once per file).
        self._collected: Set[Any] = set()

    def report(self, node: Any, message: str, origin: Any = None, fix: Optional[Fix] = None) -> None:
        self._pending.setdefault(node, (message, fix))

    def visit(self, node: Any, ctx: RuleContext) -> None:
        if isinstance(node, cst.Module):
            for comparison, (message, fix) in self._pending.items():
                if comparison not in self._guarded:
                    Rule.report(self, comparison, message, fix=fix)
            self._pending.clear()
            return
        if not isinstance(node, cst.Comparison):
            guard, guarded = _non_tensor_guard(node)
            if guard is not None and guarded not in self._collected and _is_non_tensor_isinstance(guard, ctx):
                self._collected.add(guarded)
                self._guarded.update(_comparisons_in(guarded))
            return
        for left, operator, right in _comparison_pairs(node):
            if not isinstance(operator, _EQUALITY):
                continue
            for attr, other in ((left, right), (right, left)):
                if not (isinstance(attr, cst.Attribute) and attr.attr.value == "dtype"
                        and isinstance(ctx.value(attr.value), TensorValue)):
                    continue
                other_value = ctx.value(other)
                fix = None
                if isinstance(other_value, StringValue) and other_value.const is not None:
                    name = other_value.const.removeprefix("torch.")
                    dtype = TORCH_DTYPE_ATTRS.get(name)
                    torch_module = ctx.lookup("torch")
                    if dtype is not None and isinstance(torch_module, SymbolValue) and torch_module.qualname == "torch":
                        fix = Fix(other, cst.Attribute(value=cst.Name("torch"), attr=cst.Name(name)),
                                  f"Compare with `torch.{name}`", safe=False)
                    use = f"`torch.{name}`" if dtype is not None else "a torch dtype such as `torch.float32`"
                    self.report(node,
                                f"`{expr_text(node)}` is always {_always(operator)}: a torch.dtype never equals "
                                f"a string; compare with {use}", fix=fix)
                    return
                if isinstance(other_value, SymbolValue) and other_value.qualname in _PYTHON_TYPES:
                    pytype = _PYTHON_TYPES[other_value.qualname]
                    use = ("`x.is_floating_point()` (or `torch.float64`, which `dtype=float` means)"
                           if pytype == "float" else f"`torch.{ {'int': 'int64', 'bool': 'bool', 'complex': 'complex128'}[pytype]}`")
                    self.report(node,
                                f"`{expr_text(node)}` is always {_always(operator)}: a torch.dtype is never the "
                                f"Python type `{pytype}`; use {use}")
                    return
