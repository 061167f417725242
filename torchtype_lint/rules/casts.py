"""TTL1xx: casts that do nothing."""
from __future__ import annotations

from typing import Any, Dict, List, Optional, Set, Tuple

import libcst as cst

from ..findings import Fix
from ..knowledge.dtypes import TORCH_DTYPE_ATTRS
from ..values import DTypeValue, StringValue, SymbolValue, TensorValue, describe_dtypes
from .base import Rule, RuntimeClaim, expr_text, register

#: Tensor methods that return a converted copy and leave the receiver unchanged.
COPYING_CASTS = {"float", "double", "half", "bfloat16", "long", "int", "short", "bool", "byte",
                 "char", "to", "type", "cuda", "cpu", "contiguous"}


@register
class DiscardedCast(Rule):
    """
    ## What it does
    Flags a tensor cast whose result is thrown away: a bare statement such as
    `x.float()`, `x.to(torch.float32)`, `x.type(torch.float64)` or `x.cuda()` where `x` is
    a tensor.

    ## Why is this bad?
    Tensor casts are not in place: they return a new tensor and leave `x` exactly as it
    was. The line does nothing, and the code after it still sees the old dtype or device,
    which typically surfaces much later as `mat1 and mat2 must have the same dtype` or
    `expected scalar type Float but found Long`. The same methods on an `nn.Module`
    (`model.float()`, `model.to(device)`) *are* in place, which is why the mistake is easy
    to make; they are not flagged.

    ## Example
    ```python
    x = torch.tensor([1, 2, 3])
    x.float()
    ```

    ## Use instead
    ```python
    x = torch.tensor([1, 2, 3])
    x = x.float()
    ```

    ## Fix safety
    Safe when the receiver is a plain name or attribute: the fix assigns the result back
    (`x = x.float()`), which is what the line was meant to do. Other receivers (`xs[0]`,
    calls) get no fix, and neither does a `for` loop variable (`for t in xs: t.float()`):
    rebinding it would leave the items of `xs` unchanged.
    """

    code = "TTL101"
    name = "discarded-cast"
    summary = "result of a tensor cast is discarded (tensor casts are not in place)"
    severity = "warning"
    listens = (cst.Expr,)
    fix_safety = "safe"
    runtime = RuntimeClaim("AssertionError")

    def visit(self, node: cst.Expr, ev: Any) -> None:
        call = node.value
        if not isinstance(call, cst.Call) or not isinstance(call.func, cst.Attribute):
            return
        method = call.func.attr.value
        if method not in COPYING_CASTS:
            return
        if method == "type" and not call.args:
            return  # x.type() returns a string; discarding it is harmless
        receiver = ev.value(call.func.value)
        if not isinstance(receiver, TensorValue):
            return
        target = expr_text(call.func.value)
        what = "device" if method in ("cuda", "cpu") else "dtype"
        state = describe_dtypes(receiver.dtypes) if what == "dtype" else (receiver.device or "unchanged")
        fix = None
        loop_variable = isinstance(call.func.value, cst.Name) and ev.is_loop_variable(call.func.value.value)
        # Rebinding a loop variable would leave the iterated items unchanged: no fix there.
        if isinstance(call.func.value, (cst.Name, cst.Attribute)) and not loop_variable:
            fix = Fix(
                old=node,
                new=cst.Assign(targets=[cst.AssignTarget(target=call.func.value)], value=call),
                description=f"Assign the result: `{target} = {expr_text(call)}`",
                safe=True,
            )
        still = f"`{target}` is still {state}" if state not in ("?", "unchanged") else f"`{target}` is unchanged"
        origin_note = " ({origin})" if receiver.origin is not None and what == "dtype" else ""
        self.report(
            node,
            f"result of `{expr_text(call)}` is discarded: tensor casts are not in place, "
            f"{still}{origin_note}; " + (
                f"use the returned tensor (rebinding the loop variable `{target}` would leave the "
                f"iterated items unchanged)" if loop_variable else
                f"assign it: `{target} = {expr_text(call)}`"),
            origin=receiver.origin,
            fix=fix,
        )


# --------------------------------------------------------------------------- TTL102 / TTL103

_EQUALITY = (cst.Equal, cst.NotEqual, cst.Is, cst.IsNot)


def _comparison_pairs(node: cst.Comparison):
    """(left node, operator, right node) for each link of a comparison chain."""
    left = node.left
    for target in node.comparisons:
        yield left, target.operator, target.comparator
        left = target.comparator


def _always(operator: Any) -> str:
    return "True" if isinstance(operator, (cst.NotEqual, cst.IsNot)) else "False"


def _is_type_string_call(node: Any, ev: Any) -> bool:
    """``x.type()`` with no argument on a tensor: it returns a string like 'torch.FloatTensor'."""
    return (isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute)
            and node.func.attr.value == "type" and not node.args
            and isinstance(ev.value(node.func.value), TensorValue))


@register
class TypeStringComparedToDtype(Rule):
    """
    ## What it does
    Flags a comparison of `x.type()` (no argument) with a dtype, such as
    `x.type() == torch.float32`, where `x` is a tensor.

    ## Why is this bad?
    Without an argument, `Tensor.type()` returns a *string* such as `'torch.FloatTensor'`,
    and a string never equals a `torch.dtype`: the test is always False (`!=` always True),
    so the branch it guards never runs (or always runs).

    ## Example
    ```python
    if x.type() == torch.float32:
        x = x * 2
    ```

    ## Use instead
    ```python
    if x.dtype == torch.float32:
        x = x * 2
    ```

    ## Fix safety
    Unsafe: replacing `x.type()` by `x.dtype` makes the comparison work, so code that never
    ran before starts running.
    """

    code = "TTL102"
    name = "type-string-compared-to-dtype"
    summary = "`x.type()` (a string) compared with a torch.dtype is always False"
    severity = "warning"
    listens = (cst.Comparison,)
    fix_safety = "unsafe"
    runtime = RuntimeClaim("AssertionError")

    def visit(self, node: cst.Comparison, ev: Any) -> None:
        for left, operator, right in _comparison_pairs(node):
            if not isinstance(operator, _EQUALITY):
                continue
            for call, other in ((left, right), (right, left)):
                if _is_type_string_call(call, ev) and isinstance(ev.value(other), DTypeValue):
                    dtype_text = expr_text(other)
                    receiver = call.func.value
                    new = cst.Attribute(value=receiver, attr=cst.Name("dtype"))
                    self.report(
                        node,
                        f"`{expr_text(node)}` is always {_always(operator)}: `{expr_text(call)}` returns a "
                        f"string such as 'torch.FloatTensor', never a dtype; compare "
                        f"`{expr_text(receiver)}.dtype` with `{dtype_text}`",
                        fix=Fix(call, new, f"Use `{expr_text(receiver)}.dtype`", safe=False),
                    )
                    return


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


def _is_non_tensor_isinstance(test: Any, ev: Any) -> bool:
    """``isinstance(x, np.ndarray)`` (or any class that is not a torch tensor), possibly the
    last operand of an ``and`` chain."""
    while isinstance(test, cst.BooleanOperation) and isinstance(test.operator, cst.And):
        test = test.right
    if not (isinstance(test, cst.Call) and isinstance(test.func, cst.Name) and test.func.value == "isinstance"
            and len(test.args) == 2):
        return False
    kind = ev.value(test.args[1].value)
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

    def report(self, node: Any, message: str, origin: Any = None, fix: Optional[Fix] = None) -> None:
        self._pending.setdefault(node, (message, fix))

    def visit(self, node: Any, ev: Any) -> None:
        if isinstance(node, cst.Module):
            for comparison, (message, fix) in self._pending.items():
                if comparison not in self._guarded:
                    Rule.report(self, comparison, message, fix=fix)
            self._pending.clear()
            return
        if not isinstance(node, cst.Comparison):
            guard, guarded = _non_tensor_guard(node)
            if guard is not None and _is_non_tensor_isinstance(guard, ev):
                self._guarded.update(_comparisons_in(guarded))
            return
        for left, operator, right in _comparison_pairs(node):
            if not isinstance(operator, _EQUALITY):
                continue
            for attr, other in ((left, right), (right, left)):
                if not (isinstance(attr, cst.Attribute) and attr.attr.value == "dtype"
                        and isinstance(ev.value(attr.value), TensorValue)):
                    continue
                other_value = ev.value(other)
                fix = None
                if isinstance(other_value, StringValue) and other_value.const is not None:
                    name = other_value.const.removeprefix("torch.")
                    dtype = TORCH_DTYPE_ATTRS.get(name)
                    torch_module = ev.lookup("torch")
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
