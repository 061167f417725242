"""The engine terminates on every loop and recursion, and is fast on big files.

Timings are measured, not asserted tightly: the machine is shared. The bounds below are
generous safety nets (an accidental exponential blow-up fails them by orders of magnitude).
"""
from __future__ import annotations

import time

import libcst as cst

from torchtype_lint.engine.interpreter import Interpreter
from torchtype_lint.model.values import TensorValue

BLOCK = '''
class Net{i}(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.fc = nn.Linear(width, {i} + 1)
        self.register_buffer("scale", torch.ones({i} + 1))

    def forward(self, x):
        h = self.fc(x)
        for _ in range(3):
            h = torch.relu(h) * self.scale
        return h.sum(-1)


def helper{i}(t, factor=2):
    out = t
    while out.numel() < 100:
        out = torch.cat([out, out * factor])
    if factor > 1:
        out = out.float()
    else:
        out = out.double()
    return out


data{i} = np.random.rand(8, 4)
x{i} = torch.from_numpy(data{i}).float()
model{i} = Net{i}(4)
y{i} = model{i}(x{i})
z{i} = helper{i}(torch.arange({i} + 1))
items{i} = [t * 2 for t in torch.eye(4)]
'''


def generated_source(lines: int = 5000) -> str:
    header = "import numpy as np\nimport torch\nimport torch.nn as nn\n"
    blocks = []
    count = header.count("\n")
    i = 0
    while count < lines:
        block = BLOCK.format(i=i)
        blocks.append(block)
        count += block.count("\n")
        i += 1
    return header + "".join(blocks)


def test_five_thousand_line_file_is_analysed_quickly():
    source = generated_source()
    assert source.count("\n") >= 5000
    start = time.perf_counter()
    module = cst.parse_module(source)
    parsed = time.perf_counter()
    interp = Interpreter(module).run()
    analysed = time.perf_counter()
    # Measured (CPU time, shared 2-core machine): parse ~1.05 s, analysis ~0.4 s. The bound is
    # a net against blow-ups, not a benchmark.
    assert analysed - parsed < 10.0, f"analysis took {analysed - parsed:.2f}s (parse {parsed - start:.2f}s)"
    y = interp.globals.vars["y0"]
    assert isinstance(y, TensorValue) and y.dtypes == frozenset({"float32"}) and y.shape == (8,)


NESTED = '''
import torch

def fib(n, t):
    if n < 2:
        return t
    return fib(n - 1, t) + fib(n - 2, t * 2)

def even(n, t):
    return t if n == 0 else odd(n - 1, t.double())

def odd(n, t):
    return t if n == 0 else even(n - 1, t.float())

x = torch.zeros(1)
shape_grows = torch.zeros(1)
for a in range(10):
    for b in range(10):
        for c in range(10):
            while x.sum() < 100:
                x = torch.cat([x, x]).view(-1, 1).flatten()
                shape_grows = shape_grows.unsqueeze(0)
                for d in range(3):
                    x = x.double() if d else x.half()
result = fib(20, torch.ones(3))
parity = even(7, torch.ones(2))
'''


def test_nested_loops_and_recursion_terminate():
    start = time.perf_counter()
    interp = Interpreter(cst.parse_module(NESTED)).run()
    elapsed = time.perf_counter() - start
    assert elapsed < 10.0, elapsed
    env = interp.globals.vars
    # the loop-carried values widen instead of iterating forever; what remains is sound
    x = env["x"]
    assert x is not None and (not isinstance(x, TensorValue) or x.dtypes is None
                              or {"float32", "float16", "float64"} >= x.dtypes)
    grows = env["shape_grows"]
    assert not isinstance(grows, TensorValue) or grows.shape is None or grows.shape[0] in (1, None)


def test_deeply_nested_helper_calls_terminate():
    lines = ["import torch", "def f0(t):", "    return t * 2"]
    for i in range(1, 60):
        lines += [f"def f{i}(t):", f"    return f{i - 1}(t) + f{i - 1}(t.double())"]
    lines.append("out = f59(torch.ones(2))")
    start = time.perf_counter()
    Interpreter(cst.parse_module("\n".join(lines) + "\n")).run()
    assert time.perf_counter() - start < 10.0


def test_an_imported_class_methods_are_walked_once_per_process(tmp_path, monkeypatch):
    # Every file subclassing an imported class builds the prototype of its subclass, which asks
    # what each inherited method assigns on self: the base's methods are walked once per
    # process (engine/syntax.py keeps the answer for trees analyses share), not once per file.
    from torchtype_lint.checker.check import check_source
    from torchtype_lint.engine import syntax

    (tmp_path / "base.py").write_text(
        "import torch.nn as nn\n\n\nclass Base(nn.Module):\n    def reset(self):\n        self.scale = 2.0\n")
    user = ("import torch\nfrom base import Base\n\n\nclass Net{i}(Base):\n    def forward(self, x):\n"
            "        return x.float() * self.scale\n")
    walked = []
    walk = syntax._self_attributes_assigned
    monkeypatch.setattr(syntax, "_self_attributes_assigned", lambda body, owner: walked.append(body) or walk(body, owner))
    syntax._kept_assigned.clear()
    for i in range(3):
        path = tmp_path / f"net{i}.py"
        path.write_text(user.format(i=i))
        check_source(path.read_text(), str(path))
    reset_bodies = [body for body in walked if "self.scale = " in cst.Module(body=[]).code_for_node(body)]
    assert len(reset_bodies) == 1
