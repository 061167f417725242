"""A list's item changed through an index (``rows[i].append(x)``, ``rows[i][j] = v``): the
engine must not keep claiming the item it knew before (a list of empty lists, whose tensor it
then thought (n, 0)). Regression for a false TTL515 on a position-weight table filled row by
row. The engine's claims are compared with torch; the program runs and gets no finding."""
from __future__ import annotations

import pytest
from knowledge_truth import contradiction, engine_globals, real_globals

from torchtype_lint.checker.check import Settings, check_source
from torchtype_lint.model.selection import Selection

pytest.importorskip("torch")

PROGRAM = """\
import torch


def position_weight(n, k):
    weight = [[] for _ in range(n)]
    for i in range(n):
        for j in range(k):
            weight[i].append(1.0 - j / k)
    return torch.tensor(weight).unsqueeze(2)


rows = [[0.0, 0.0] for _ in range(3)]
rows[1][0] = 2.0
grid = torch.tensor(rows)
w = position_weight(4, 3)
result = w * torch.randn(4, 3, 8)
"""


def test_rows_filled_through_an_index_are_not_claimed_empty():
    engine, real = engine_globals(PROGRAM), real_globals(PROGRAM)
    for name in ("w", "grid", "result"):
        assert contradiction(engine[name], real[name]) is None, name


def test_program_gets_no_finding():
    assert check_source(PROGRAM, "p.py", Settings(selection=Selection(select=["TTL"]))).findings == []
