"""knowledge/ops.py: every spelling of an op is the one op, its arguments bound by torch's own
parameter names (checked against torch), and rules that declare ops see every spelling."""
from __future__ import annotations

import inspect
import re

import libcst as cst
import pytest

torch = pytest.importorskip("torch")

from torchtype_lint.checker.check import check_source, run_rules  # noqa: E402
from torchtype_lint.knowledge.ops import MATRIX_PRODUCTS, SIGNATURES, method_op, module_op  # noqa: E402
from torchtype_lint.rules.base import Rule  # noqa: E402
from torchtype_lint.model.selection import Selection  # noqa: E402
from torchtype_lint.model.settings import Settings  # noqa: E402
from torchtype_lint.model.values import TOP  # noqa: E402


def _torch_object(name):
    obj = torch
    for part in name.split(".")[1:]:
        obj = getattr(obj, part)
    return obj


def _positional_parameters(fn):
    """torch's positional parameter names: from the signature where Python has one, else
    from the signature line of the docstring (C++ builtins), else torch's testing overrides."""
    try:
        sig = inspect.signature(fn)
        return [p.name for p in sig.parameters.values()
                if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    except (TypeError, ValueError):
        pass
    first = (fn.__doc__ or "").strip().splitlines()[:1]
    match = re.match(r"\w+\(([^)]*)\)", first[0]) if first else None
    if match:
        names = []
        for part in match.group(1).split(","):
            part = part.strip()
            if part in ("*", "") or part.startswith("*"):
                break
            names.append(part.split("=")[0].split(":")[0].strip())  # "dim: int = 0" names dim
        return names
    from torch.overrides import get_testing_overrides
    return _positional_parameters(get_testing_overrides()[fn])


@pytest.mark.parametrize("name", sorted(SIGNATURES))
def test_signatures_are_torchs(name):
    params = SIGNATURES[name]
    assert tuple(_positional_parameters(_torch_object(name))[:len(params)]) == params


@pytest.mark.parametrize("name", sorted(n for n in MATRIX_PRODUCTS if n != "torch.einsum"))
def test_matrix_product_operands_are_parameters_of_the_op(name):
    left, right = MATRIX_PRODUCTS[name]
    assert {left, right} <= set(SIGNATURES[name])


def test_method_and_module_spellings_resolve_to_the_function():
    assert method_op("mm") == ("torch.mm", False)
    assert method_op("add_") == ("torch.add", True)
    assert method_op("view") == ("Tensor.view", False)
    assert method_op("__add__") == ("Tensor.__add__", False)
    assert module_op("MSELoss") == "torch.nn.functional.mse_loss"
    assert module_op("CrossEntropyLoss") == "torch.nn.functional.cross_entropy"
    assert module_op("Linear") == "torch.nn.Linear"


def _op_calls(source):
    seen = []

    class Probe(Rule):
        code = "TTL998"
        listens = (cst.Call, cst.BinaryOperation)

        def visit(self, node, ctx):  # noqa: ANN001
            call = ctx.op_call(node)
            if call is not None:
                seen.append(call)

    run_rules(cst.parse_module(source), [Probe], 10.0, lambda report, ctx: None)
    return seen


def test_every_spelling_binds_the_same_parameters():
    source = ("import torch\nimport torch.nn as nn\n"
              "a = torch.zeros(2, 3)\nb = torch.zeros(3, 4, dtype=torch.float64)\n"
              "torch.mm(a, b)\ntorch.mm(input=a, mat2=b)\na.mm(b)\na @ b\n")
    calls = [c for c in _op_calls(source) if c.op in ("torch.mm", "torch.matmul")]
    assert [(c.op, c.spelling, c.label) for c in calls] == [
        ("torch.mm", "function", "torch.mm"), ("torch.mm", "function", "torch.mm"),
        ("torch.mm", "method", ".mm()"), ("torch.matmul", "operator", "@")]
    for call in calls:
        left, right = MATRIX_PRODUCTS[call.op]
        assert call.arg(left).dtypes == frozenset({"float32"})
        assert call.arg(right).dtypes == frozenset({"float64"})
        assert call.arg("no_such_parameter") is TOP


def test_module_call_binds_input_and_target():
    source = ("import torch\nimport torch.nn as nn\n"
              "x = torch.zeros(4)\ny = torch.zeros(4, dtype=torch.int64)\nnn.MSELoss()(x, y)\n")
    call = [c for c in _op_calls(source) if c.spelling == "module"][0]
    assert call.op == "torch.nn.functional.mse_loss" and call.label == "nn.MSELoss"
    assert call.arg("target").dtypes == frozenset({"int64"})


def _error_of(method, *operands):
    try:
        getattr(operands[0], method)(*operands[1:])
    except RuntimeError as exc:
        return str(exc).splitlines()[0]
    return None


def test_a_new_spelling_of_a_matrix_product_is_judged_and_fails_in_torch():
    # `x.addmm(m1, m2)` was never matched by hand; as the op torch.addmm it is.
    x, m1 = torch.zeros(2, 4), torch.zeros(2, 3)
    m2 = torch.zeros(3, 4, dtype=torch.int64)
    torch_says = _error_of("addmm", x, m1, m2)
    assert torch_says is not None
    source = ("import torch\nx = torch.zeros(2, 4)\nm1 = torch.zeros(2, 3)\n"
              "m2 = torch.zeros(3, 4, dtype=torch.int64)\ny = x.addmm(m1, m2)\n")
    found = check_source(source, "t.py", Settings(selection=Selection(select=["TTL201"]))).findings
    assert [(f.code, f.line) for f in found] == [("TTL201", 5)]
    quoted = re.search(r'torch: "([^"]+)"', found[0].message).group(1)
    assert torch_says.startswith(quoted)  # the linter quotes what torch says
