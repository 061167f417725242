"""Fuzzing: generated tensor programs and mutated fixtures never break the linter.

Two sources of input: a small grammar of tensor code (constructors with dtypes and shapes,
numpy conversions, casts kept and discarded, arithmetic, matrix products, reductions, layers,
losses, in-place updates, branches, loops, autocast, functions), and the project's own
fixtures mutated line by line and token by token. For every input:

* no exception escapes the analysis (the checker turns one into TTL000, so: no TTL000);
* the output is deterministic (two runs, same findings);
* for generated programs, every offered fix, applied alone, gives valid Python, and linting
  the fixed program does not report the fixed finding again.

The budget is fixed and the search derandomized, so CI runs the same examples every time.
"""
from __future__ import annotations

import ast
import glob
import os
import re

import libcst as cst
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from torchtype_lint.checker.check import Settings, check_source
from torchtype_lint.model.selection import Selection

ALL_RULES = Settings(selection=Selection(select=["TTL"], extend_select=["TTL9"]))
FUZZ = settings(max_examples=200, deadline=None, derandomize=True, database=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                       HealthCheck.filter_too_much])
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

NAMES = ["a", "b", "c", "d"]
DTYPES = ["float32", "float64", "float16", "bfloat16", "int64", "int32", "uint8", "bool"]
CASTS = ["float", "double", "half", "long", "int", "bool", "bfloat16"]
DIMS = ["2", "3", "4", "2, 3", "3, 2", "3, 3", "2, 3, 4", "4, 1"]

name = st.sampled_from(NAMES)
dtype = st.sampled_from(DTYPES)
dims = st.sampled_from(DIMS)


@st.composite
def expression(draw):
    kind = draw(st.integers(0, 13))
    a, b = draw(name), draw(name)
    if kind == 0:
        ctor = draw(st.sampled_from(["zeros", "ones", "empty", "full"]))
        fill = ", 1" if ctor == "full" else ""
        size = f"({draw(dims)},)" if ctor == "full" else draw(dims)
        return f"torch.{ctor}({size}{fill}, dtype=torch.{draw(dtype)})"
    if kind == 1:
        return f"torch.randn({draw(dims)})"
    if kind == 2:
        return f"torch.randint(0, 5, ({draw(dims)},))"
    if kind == 3:
        conv = draw(st.sampled_from(["torch.from_numpy", "torch.tensor", "torch.as_tensor"]))
        arr = draw(st.sampled_from(["np.zeros", "np.ones", "np.random.rand"]))
        arg = f"({draw(dims)},)" if arr != "np.random.rand" else draw(dims)
        return f"{conv}({arr}({arg}))"
    if kind == 4:
        return f"{a} {draw(st.sampled_from(['+', '-', '*', '/', '@', '//', '==', '<']))} {b}"
    if kind == 5:
        return f"{a}.{draw(st.sampled_from(CASTS))}()"
    if kind == 6:
        return f"{a}.to(torch.{draw(dtype)})"
    if kind == 7:
        method = draw(st.sampled_from(["sum()", "mean()", "std()", "t()", "flatten()", "squeeze()",
                                       "unsqueeze(0)", "view(-1)", "reshape(3, -1)", "transpose(0, 1)",
                                       "softmax(dim=-1)", "argmax(dim=1)", "abs()", "item()"]))
        return f"{a}.{method}"
    if kind == 8:
        fn = draw(st.sampled_from(["torch.matmul", "torch.mm", "torch.bmm", "torch.cat", "torch.stack",
                                   "torch.where", "F.linear", "F.cross_entropy", "F.mse_loss",
                                   "F.binary_cross_entropy_with_logits", "torch.einsum"]))
        if fn in ("torch.cat", "torch.stack"):
            return f"{fn}([{a}, {b}])"
        if fn == "torch.where":
            return f"torch.where({a} > 0, {a}, {b})"
        if fn == "torch.einsum":
            return f"torch.einsum('ij,jk->ik', {a}, {b})"
        return f"{fn}({a}, {b})"
    if kind == 9:
        return f"layer({a})"
    if kind == 10:
        return f"{a}[{draw(st.sampled_from(['0', '1:', '..., 0', 'b > 0', 'None', '0.5', 'c']))}]"
    if kind == 11:
        return f"f({a})"
    if kind == 12:
        return f"{a}.dtype {draw(st.sampled_from(['==', '!=', 'is']))} " \
               f"{draw(st.sampled_from(['torch.float32', repr('float32'), 'float', 'bool', 'b.dtype']))}"
    return draw(st.sampled_from(["1", "2.5", "True", "None", "[a, b]", "(a, 3)", "len(a)"]))


@st.composite
def statement(draw, depth):
    kind = draw(st.integers(0, 12 if depth < 2 else 7))
    target = draw(name)
    if kind <= 2:
        return [f"{target} = {draw(expression())}"]
    if kind == 3:
        return [f"{draw(name)}.{draw(st.sampled_from(CASTS))}()"]  # discarded cast
    if kind == 4:
        op = draw(st.sampled_from(["+=", "-=", "*=", "/=", "//="]))
        return [f"{target} {op} {draw(st.sampled_from(['0.5', '2', 'b', 'torch.ones(2)']))}"]
    if kind == 5:
        method = draw(st.sampled_from(["add_(0.5)", "mul_(b)", "div_(2)", "clamp_(0, 1)",
                                       "requires_grad_()", "index_add_(0, c, b)", "masked_fill_(b > 0, 1.5)"]))
        return [f"{target}.{method}"]
    if kind == 6:
        layer = draw(st.sampled_from(["nn.Linear(3, 4)", "nn.Conv2d(3, 8, 3)", "nn.Embedding(10, 3)",
                                      "nn.LSTM(3, 4)", "nn.LayerNorm(3)", "nn.Linear(3, 4).double()",
                                      "nn.Linear(3, 4).half()", "nn.Sequential(nn.Linear(3, 4), nn.ReLU())"]))
        return [f"layer = {layer}"]
    if kind == 7:
        return [f"{target}[{draw(st.sampled_from(['0', 'b > 0', 'c']))}] = {draw(expression())}"]
    body = [line for _ in range(draw(st.integers(1, 3))) for line in draw(statement(depth + 1))]
    inner = ["    " + line for line in body]
    if kind == 8:
        orelse = [line for line in draw(statement(depth + 1))]
        return [f"if {draw(name)}.sum() > 0:"] + inner + ["else:"] + ["    " + line for line in orelse]
    if kind == 9:
        return [f"for _ in range({draw(st.integers(0, 3))}):"] + inner
    if kind == 10:
        device = draw(st.sampled_from(["cpu", "cuda"]))
        return [f"with torch.autocast({device!r}):"] + inner
    if kind == 11:
        return [f"while {draw(name)}.numel() > 1:"] + inner + ["    break"]
    return ["def f(x):"] + ["    " + re.sub(rf"\b{target}\b", "x", line) for line in body] + ["    return x"]


@st.composite
def program(draw):
    lines = ["import numpy as np", "import torch", "import torch.nn as nn", "import torch.nn.functional as F",
             "a = torch.randn(3, 3)", "b = torch.ones(3, dtype=torch.int64)", "c = torch.zeros(2, 3)",
             "d = np.zeros((3, 3))", "layer = nn.Linear(3, 4)", "def f(x):", "    return x * 2"]
    for _ in range(draw(st.integers(1, 12))):
        lines.extend(draw(statement(0)))
    return "\n".join(lines) + "\n"


def _shown(result):
    return [(f.code, f.line, f.column, f.message, f.fix.new_text if f.fix else None) for f in result.findings]


class _ReplaceOne(cst.CSTTransformer):
    def __init__(self, old, new):
        super().__init__()
        self.old, self.new = old, new

    def on_leave(self, original_node, updated_node):
        return self.new if original_node is self.old else updated_node


@FUZZ
@given(program())
def test_generated_tensor_programs(source):
    ast.parse(source)  # the grammar only makes valid Python
    first = check_source(source, "generated.py", ALL_RULES, keep_analysis=True)
    codes = [f.code for f in first.findings]
    assert "TTL000" not in codes and "TTL001" not in codes, (source, first.findings)
    assert _shown(check_source(source, "generated.py", ALL_RULES)) == _shown(first)
    for finding in first.findings:
        if finding.fix is None or finding.fix.old is None:
            continue
        fixed = first.module.visit(_ReplaceOne(finding.fix.old, finding.fix.new)).code
        compile(fixed, "fixed.py", "exec", flags=ast.PyCF_ONLY_AST, dont_inherit=True)
        cst.parse_module(fixed)
        if fixed.count("\n") != source.count("\n"):
            continue  # lines moved: the finding can no longer be matched by position
        again = check_source(fixed, "generated.py", ALL_RULES)
        assert "TTL000" not in [f.code for f in again.findings]
        assert not [f for f in again.findings if (f.code, f.line) == (finding.code, finding.line)], (
            f"{finding.code} at line {finding.line} still reported after its fix:\n{fixed}")


def _fixture_sources():
    paths = sorted(glob.glob(os.path.join(ROOT, "fixtures", "TTL*", "*.py")))
    return [open(p, encoding="utf-8").read() for p in paths]


FIXTURES = _fixture_sources()
SWAPS = [("float32", "int64"), ("int64", "float16"), ("float", "long"), ("torch.", "np."), ("(", "(("),
         (":", ""), ("    ", "\t"), ("=", "=="), ("self.", ""), ("@", "*"), ("dtype=", "")]


@st.composite
def mutated_fixture(draw):
    source = draw(st.sampled_from(FIXTURES))
    lines = source.splitlines(keepends=True)
    for _ in range(draw(st.integers(1, 4))):
        if not lines:
            break
        i = draw(st.integers(0, len(lines) - 1))
        op = draw(st.integers(0, 4))
        if op == 0:
            del lines[i]
        elif op == 1:
            lines.insert(i, lines[i])
        elif op == 2:
            j = draw(st.integers(0, len(lines) - 1))
            lines[i], lines[j] = lines[j], lines[i]
        elif op == 3:
            old, new = draw(st.sampled_from(SWAPS))
            lines[i] = lines[i].replace(old, new, 1)
        else:
            cut = draw(st.integers(0, len(lines[i])))
            lines[i] = lines[i][:cut] + "\n"
    return "".join(lines)


@pytest.mark.skipif(not FIXTURES, reason="no fixtures in this checkout")
@FUZZ
@given(mutated_fixture())
def test_mutated_fixtures(source):
    first = check_source(source, "mutated.py", ALL_RULES)
    assert "TTL000" not in [f.code for f in first.findings], (source, first.findings)
    assert _shown(check_source(source, "mutated.py", ALL_RULES)) == _shown(first)
