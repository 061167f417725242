"""False alarms seen on real code (issue 14), each pinned: torch runs the program without an
error, and the linter stays silent on it; the true-positive twin is still reported."""
from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

from torchtype_lint.checker.check import check_source
from torchtype_lint.model.selection import Selection
from torchtype_lint.model.settings import Settings

torch = pytest.importorskip("torch")

HEADER = "import numpy as np\nimport torch\nimport torch.nn as nn\n"

NET = """
        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = nn.Linear(3, 2)

            def forward(self, x):
                return self.fc(x)
"""

#: name -> program that runs cleanly in torch 2.13 (CPU).
WORKING = {
    "model made float64 by .double()": """
        model = nn.Linear(3, 2).double()
        out = model(torch.from_numpy(np.random.rand(4, 3)))
    """,
    "model made float64 by .to(torch.float64)": """
        model = nn.Linear(3, 2).to(torch.float64)
        out = model(torch.from_numpy(np.random.rand(4, 3)))
    """,
    "model made float64 by a helper's default dtype= argument": """
        def build(dtype=torch.float64):
            model = nn.Linear(3, 2)
            return model.to(dtype)

        model = build()
        out = model(torch.from_numpy(np.random.rand(4, 3)))
    """,
    "parameters replaced by a helper (p.data = p.data.half())": NET + """
        def to_half(m):
            for p in m.parameters():
                p.data = p.data.half()

        net = Net()
        to_half(net)
        x = torch.randn(4, 3).half()
        assert net.fc.weight.dtype == torch.float16 and x.dtype == torch.float16
    """,
    "model cast to a dtype the code computes": NET + """
        dt = getattr(torch, "float" + "64")
        net = Net().to(dt)
        y = net(torch.randn(4, 3).double())
    """,
    "0-d float64 numpy value used as a number": """
        a = np.random.rand(4)
        scale = torch.tensor(a.mean())
        y = torch.ones(3) * scale
        assert y.dtype == torch.float32
    """,
    "0-dim int tensor as a size argument": """
        lengths = torch.tensor([3, 5, 2])
        x = torch.randn(3, lengths.max(), 4)
        y = torch.zeros(2, lengths.max())
        z = torch.full((lengths.max(), 2), 1.5)
    """,
}

#: name -> (program that fails in torch, the line reported). The fixes above must not hide these.
FAILING = {
    "parameters iterated without a dtype change": (NET + """
        def freeze(m):
            for name, p in m.named_parameters():
                p.requires_grad = False

        net = Net()
        freeze(net)
        y = net(torch.randn(4, 3).double())
    """, "TTL401"),
    "model moved to a device, still float32": (NET + """
        device = "cpu"
        net = Net().to(device)
        y = net(torch.randn(4, 3).double())
    """, "TTL401"),
    "float64 data into a float32 model": ("""
        model = nn.Linear(3, 2)
        out = model(torch.from_numpy(np.random.rand(4, 3)))
    """, "TTL401"),
}


def _program(body: str) -> str:
    return HEADER + textwrap.dedent(body)


def _run(source: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", source], capture_output=True, text=True, timeout=120)


def _codes(source: str):
    settings = Settings(selection=Selection(select=["TTL"]))
    return [f.code for f in check_source(source, "p.py", settings).findings]


@pytest.mark.parametrize("name", sorted(WORKING))
def test_working_program_runs_in_torch_and_is_not_reported(name):
    source = _program(WORKING[name])
    ran = _run(source)
    assert ran.returncode == 0, ran.stderr[-800:]
    assert _codes(source) == []


@pytest.mark.parametrize("name", sorted(FAILING))
def test_failing_twin_fails_in_torch_and_is_reported(name):
    body, code = FAILING[name]
    source = _program(body)
    ran = _run(source)
    assert ran.returncode != 0 and "RuntimeError" in ran.stderr
    assert code in _codes(source)
