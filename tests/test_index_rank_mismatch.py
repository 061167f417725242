"""TTL533 index-rank-mismatch: gather / scatter / take_along_dim with an index of another number
of dims. Every program runs in torch: the bad ones raise with the message the rule quotes, the
twins and look-alikes run and stay silent."""
from __future__ import annotations

import pytest
from rule_cases import bad_outcomes, program, reported
from torch_runs import AsClaimed, quotes_what_torch_raised, raised_as_said

pytest.importorskip("torch")

HEADER = "import torch\nimport torch.nn as nn\n"

#: (name, bad program with TTL533 on its last line, twin)
CASES = [
    ("gather_method", "q = torch.randn(6, 3)\na = torch.randint(0, 3, (6,))\nv = q.gather(1, a)",
     "q = torch.randn(6, 3)\na = torch.randint(0, 3, (6,))\nv = q.gather(1, a.unsqueeze(1))"),
    ("gather_function", "q = nn.Linear(4, 3)(torch.randn(6, 4))\nv = torch.gather(q, 1, torch.zeros(6, dtype=torch.long))",
     "q = nn.Linear(4, 3)(torch.randn(6, 4))\nv = torch.gather(q, 1, torch.zeros(6, 1, dtype=torch.long))"),
    ("scatter_in_place", "y = torch.tensor([0, 2, 1])\nz = torch.zeros(3, 3).scatter_(1, y, 1.0)",
     "y = torch.tensor([0, 2, 1])\nz = torch.zeros(3, 3).scatter_(1, y[:, None], 1.0)"),
    ("scatter_add_of_counts", "i = torch.tensor([[0, 1], [1, 0]])\nc = torch.zeros(4).scatter_add(0, i, torch.ones(2, 2))",
     "i = torch.tensor([[0, 1], [1, 0]])\nc = torch.zeros(4).scatter_add(0, i.flatten(), torch.ones(4))"),
    ("take_along_dim_with_dim", "s = torch.randn(4, 5)\nk = torch.take_along_dim(s, torch.zeros(4, dtype=torch.long), dim=1)",
     "s = torch.randn(4, 5)\nk = torch.take_along_dim(s, torch.zeros(4, 1, dtype=torch.long), dim=1)"),
]

SILENT = {
    "take_along_dim_flattened": "s = torch.randn(4, 5)\nk = torch.take_along_dim(s, torch.tensor([0, 7]))",
    "zero_dim_input": "v = torch.tensor(3.0).gather(0, torch.tensor([0]))",
    "index_of_unknown_shape": "import sys\nq = torch.randn(6, 3)\nv = q.gather(1, torch.zeros(6, len(sys.argv), dtype=torch.long))",
}


def _ttl533(body: str):
    source = program(HEADER, body) + "\n"
    return reported(source, "TTL533"), source


@pytest.mark.parametrize("name,bad,good", CASES, ids=[c[0] for c in CASES])
def test_bad_program_reported_on_its_last_line(name, bad, good):
    found, source = _ttl533(bad)
    assert [line for line, _ in found] == [source.count("\n")]


@pytest.mark.parametrize("name,bad,good", CASES, ids=[c[0] for c in CASES])
def test_twin_is_silent(name, bad, good):
    assert _ttl533(good)[0] == []


@pytest.mark.parametrize("name", sorted(SILENT))
def test_look_alikes_are_silent(name):
    assert _ttl533(SILENT[name])[0] == []


def test_cases_are_true_in_torch():
    # the exception class, the wording as the rule's claim accepts it, and the quote as raised here
    outcomes = bad_outcomes(HEADER, CASES, SILENT)
    for name, bad, _ in CASES:
        assert raised_as_said("TTL533", AsClaimed("RuntimeError"), outcomes[name]), (name, outcomes[name])
        message = _ttl533(bad)[0][0][1]
        assert quotes_what_torch_raised(message, outcomes[name]), (message, outcomes[name])
