"""Autocast regions the analysis follows beyond ``with torch.autocast(...)``: a function decorated
with ``@torch.autocast(...)`` runs its body in the region, and an ``nn.Sequential`` called in a
region runs layer by layer as autocast runs each layer. The programs run in torch here: the bad
one raises where TTL402 reports, its twin runs and gets no finding."""
from __future__ import annotations

import pytest
from torch_runs import run_in_torch

from torchtype_lint.checker.check import Settings, check_source
from torchtype_lint.model.selection import Selection

pytest.importorskip("torch")

PROGRAM = """\
import torch
import torch.nn as nn

encoder = nn.Sequential(nn.Linear(12, 32), nn.GELU(), nn.Linear(32, 16))


@torch.autocast("cpu", dtype=torch.bfloat16)
def embed(x):
    return encoder(x)


index = encoder(torch.randn(40, 12)).detach()
queries = embed(torch.randn(5, 12)){cast}
sims = queries @ index.T
"""


def _findings(source):
    return [(f.line, f.code) for f in check_source(source, "p.py", Settings(selection=Selection(select=["TTL"]))).findings]


def test_decorated_function_output_leaves_the_region_in_bfloat16():
    bad, good = PROGRAM.format(cast=""), PROGRAM.format(cast=".float()")
    assert _findings(bad) == [(14, "TTL402")]
    assert _findings(good) == []
    ran = run_in_torch({"bad": bad, "good": good})
    assert ran["bad"].startswith("RuntimeError") and ran["good"] == ""
