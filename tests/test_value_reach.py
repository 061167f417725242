"""Values the engine must carry from where they are made to where torch fails, through the
shapes real programs have: calls nested several levels deep (a factory called from a
constructor called from ``main``), heap objects of knowledge values joined in a list and
iterated (a list of ``TensorDataset``s, one per client), dtype comparisons that decide a
branch (``if pic.dtype == np.uint8:``), slices of a known tuple (``H, W = x.shape[-2:]``),
``math.ceil``/``math.floor`` of known numbers, ``Tensor.unfold`` windows.

Each case is a small program with the finding expected on the line marked ``# <-`` and a twin
that is fine and must be silent (no finding at all). Every claim is checked against torch in
one subprocess: the bad program raises what the case says, the twin runs to its end.
"""
from __future__ import annotations

import textwrap
from dataclasses import dataclass
from typing import List, Tuple

import pytest
from torch_runs import run_in_torch

from torchtype_lint.checker.check import Settings, check_source
from torchtype_lint.model.selection import Selection

HEADER = ("import math\nimport numpy as np\nimport torch\nimport torch.nn as nn\nimport torch.nn.functional as F\n"
          "from torch.utils.data import DataLoader, Dataset, TensorDataset\n")
HEADER_LINES = HEADER.count("\n")


@dataclass(frozen=True)
class Case:
    """``bad`` fails in torch with ``raises`` (a substring) and gets ``code`` on its ``# <-``
    line; ``good`` runs and gets no finding."""

    name: str
    code: str
    raises: str
    bad: str
    good: str


def _program(body: str) -> str:
    return HEADER + textwrap.dedent(body).lstrip("\n")


def findings(body: str) -> List[Tuple[int, str]]:
    settings = Settings(selection=Selection(select=["TTL"]))
    return [(f.line - HEADER_LINES, f.code) for f in check_source(_program(body), "program.py", settings).findings]


def marked_line(body: str) -> int:
    lines = textwrap.dedent(body).lstrip("\n").splitlines()
    return next(i for i, line in enumerate(lines, 1) if "# <-" in line)


_DEEP_FACTORY = """
    class Backbone(nn.Module):
        def __init__(self, width):
            super().__init__()
            self.conv = nn.Conv2d(3, width, 3)

        def forward(self, x):
            return self.conv(x)  # <-


    def build_backbone(width, half=False):
        model = Backbone(width)
        return model{cast}


    class Segmenter(nn.Module):
        def __init__(self, half=True):
            super().__init__()
            self.half_input = half
            self.net = build_backbone(8, half=half)

        def forward(self, images):
            if self.half_input:
                images = images.half()
            return self.net(images)


    def main():
        segmenter = Segmenter(half=True)
        return segmenter(torch.rand(2, 3, 16, 16))


    main()
"""

_DEEP_HELPER = """
    class Hasher(nn.Module):
        def rotate(self, vecs, n_buckets):
            rotations = torch.randn(1, vecs.shape[-1], n_buckets){cast}
            return torch.einsum("btf,bfi->bti", vecs, rotations.expand(vecs.shape[0], -1, -1))  # <-

        def forward(self, qk):
            return self.rotate(qk, 4).argmax(-1)


    class Attention(nn.Module):
        def __init__(self, dim):
            super().__init__()
            self.to_qk = nn.Linear(dim, dim)
            self.hasher = Hasher()

        def forward(self, x):
            return self.hasher(self.to_qk(x))


    class LM(nn.Module):
        def __init__(self, dim=16):
            super().__init__()
            self.attn = Attention(dim)

        def forward(self, x):
            return self.attn(x)


    def main():
        model = LM().half()
        with torch.no_grad():
            return model(torch.randn(2, 5, 16).half())


    main()
"""

CASES = [
    Case("factory_in_constructor_called_from_main", "TTL401", "should be the same",
         _DEEP_FACTORY.format(cast=""), _DEEP_FACTORY.format(cast=".half() if half else model")),
    Case("helper_method_four_calls_deep", "TTL401", "expected scalar type",
         _DEEP_HELPER.format(cast=""), _DEEP_HELPER.format(cast=".to(vecs.dtype)")),
]


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_bad_program_reported_on_its_line(case: Case) -> None:
    assert (marked_line(case.bad), case.code) in findings(case.bad)


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_fixed_twin_is_silent(case: Case) -> None:
    assert findings(case.good) == []


def test_every_case_is_true_in_torch() -> None:
    programs = {}
    for case in CASES:
        programs[case.name + ":bad"] = _program(case.bad)
        programs[case.name + ":good"] = _program(case.good)
    results = run_in_torch(programs)
    for case in CASES:
        assert case.raises in results[case.name + ":bad"], (case.name, results[case.name + ":bad"])
        assert results[case.name + ":good"] == "", (case.name, results[case.name + ":good"])
