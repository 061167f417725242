"""What models return, as the engine follows it: namedtuple classes made by a call and their
instances (knowledge/named_tuples.py), a module's training mode (knowledge/training_mode.py),
and TTL216 when such an output reaches an op that takes only a Tensor. The facts about
Python and torch are checked against them; each silent program runs in torch."""
from __future__ import annotations

import textwrap

import pytest

from knowledge_truth import contradiction, engine_globals, real_globals

torch = pytest.importorskip("torch")


def codes(source: str):
    from torchtype_lint.checker.check import check_source

    return [(f.code, f.location.line) for f in check_source(textwrap.dedent(source), "t.py").findings]


NAMEDTUPLE_ROWS = [
    'P = namedtuple("P", ["a", "b"])\nresult = P(torch.zeros(2), torch.ones(3, dtype=torch.int64))',
    'P = namedtuple("P", "a b")\nresult = P(torch.zeros(2), 1.5).a',
    'P = namedtuple("P", "a, b")\nresult = P(b=torch.zeros(2, 3), a=2).b',
    'P = NamedTuple("P", [("logits", torch.Tensor), ("aux", torch.Tensor)])\nresult = P(torch.zeros(4), torch.ones(1)).aux',
    'P = namedtuple("P", ["x"])\nresult = P(torch.zeros(2))[0]',
    "class P(NamedTuple):\n    a: torch.Tensor\n    b: int = 3\nresult = P(torch.zeros(2))",
    "class P(NamedTuple):\n    a: torch.Tensor\n    b: torch.Tensor\nresult = P(b=torch.ones(2, 2), a=torch.zeros(1)).b",
]


@pytest.mark.parametrize("source", NAMEDTUPLE_ROWS)
def test_namedtuples_as_python_makes_them(source):
    program = "import torch\nfrom collections import namedtuple\nfrom typing import NamedTuple\n" + source + "\n"
    engine = engine_globals(program)["result"]
    assert contradiction(engine, real_globals(program)["result"], require_known=True) is None, engine.describe()


def test_training_mode_in_torch():
    class Block(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.inner = torch.nn.Sequential(torch.nn.Linear(2, 2))

    block = torch.nn.Sequential(Block())
    assert block[0].training and block[0].inner[0].training
    block.eval()
    assert not block[0].training and not block[0].inner[0].training
    block.train()
    assert block[0].training
    block.train(False)
    assert not block[0].training


MODEL = """\
from collections import namedtuple

import torch
import torch.nn as nn

Outputs = namedtuple("Outputs", ["logits", "aux"])


class Backbone(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 4)
        self.aux = nn.Linear(8, 4)

    def forward(self, x):
        if self.training:
            return Outputs(self.fc(x), self.aux(x))
        return self.fc(x)


class Encoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.backbone = Backbone()
        self.act = nn.ReLU()

    def forward(self, x):
        return self.act(self.backbone(x))


def frozen_norms(m):
    if isinstance(m, nn.BatchNorm1d):
        m.eval()


def init_weights(m):
    if isinstance(m, nn.Linear):
        nn.init.zeros_(m.bias)


encoder = Encoder()
{setup}
with torch.no_grad():
    print(encoder(torch.randn(3, 8)).shape)
"""


@pytest.mark.parametrize("setup, found, fails", [
    ("", True, True),  # training mode from construction on
    ("encoder.train()", True, True),
    ("encoder.apply(init_weights)", True, True),  # a function that never sets a mode
    ("encoder.eval()", False, False),
    ("encoder.train(False)", False, False),
    ("encoder.eval()\nencoder.train()", True, True),
    ("encoder.backbone.eval()", False, False),
    ("for m in encoder.modules():\n    m.eval()", False, False),  # modes set on modules the engine does not see
    # a function that may set modes: every mode unknown (here it sets none; silent all the same)
    ("encoder.apply(frozen_norms)", False, True),
    ("import sys\nif len(sys.argv) > 100:\n    encoder.eval()", False, True),  # maybe in eval mode
])
def test_a_training_mode_output_reaching_relu(setup, found, fails):
    source = MODEL.format(setup=setup)
    line = source.splitlines().index("        return self.act(self.backbone(x))") + 1
    assert codes(source) == ([("TTL216", line)] if found else [])
    if fails:
        with pytest.raises(TypeError, match="must be Tensor, not Outputs"):
            exec(compile(source, "<bad>", "exec"), {"__name__": "bad"})
    else:
        exec(compile(source, "<silent>", "exec"), {"__name__": "silent"})  # torch runs it
