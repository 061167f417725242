"""Class-index targets of ``cross_entropy`` / ``nll_loss`` (functional and module forms).

- TTL512: an integer target whose rank does not fit the input's ``(C,)``, ``(N, C)`` or
  ``(N, C, d1, ..., dK)`` form (multi-target labels, one per segment; a class column);
- TTL529: a class index the input has no class for, certainly in the data: labels built with
  ``torch.arange(n) % k``, literals, ``list(range(k))``... reaching the loss whole, or batch by
  batch over a whole pass of a DataLoader.

Each case is a program with the finding expected on the line marked ``# <-`` and a fixed twin
that runs and gets no finding; look-alikes run and stay silent. Every program runs in torch in
one subprocess: the bad ones raise the exception the case names, and a finding that quotes torch
quotes what the torch installed here raised.
"""
from __future__ import annotations

import textwrap
from dataclasses import dataclass
from typing import Dict, List, Tuple

import pytest
from torch_runs import quotes_what_torch_raised, run_in_torch

from torchtype_lint.checker.check import Settings, check_source
from torchtype_lint.model.selection import Selection

HEADER = ("import numpy as np\nimport torch\nimport torch.nn as nn\nimport torch.nn.functional as F\n"
          "from torch.utils.data import DataLoader, Dataset, TensorDataset\n")
HEADER_LINES = HEADER.count("\n")


@dataclass(frozen=True)
class Case:
    """``bad`` raises ``exception`` in torch, with ``raises`` in its message, and gets ``code`` on
    its ``# <-`` line; ``good`` runs and gets no finding."""

    name: str
    code: str
    exception: str
    raises: str
    bad: str
    good: str


def _program(body: str) -> str:
    return HEADER + textwrap.dedent(body).lstrip("\n")


def _findings(body: str):
    settings = Settings(selection=Selection(select=["TTL"], extend_select=["TTL529"]))
    return check_source(_program(body), "program.py", settings).findings


def findings(body: str) -> List[Tuple[int, str]]:
    return [(f.line - HEADER_LINES, f.code) for f in _findings(body)]


def marked_line(body: str) -> int:
    lines = textwrap.dedent(body).lstrip("\n").splitlines()
    return next(i for i, line in enumerate(lines, start=1) if "# <-" in line)


CASES = [
    # --- TTL512: integer targets of the wrong rank --------------------------------------------
    Case("segment_labels_multi_target", "TTL512", "RuntimeError", "multi-target not supported", """
        logits = torch.randn(4, 6)
        labels = torch.zeros(4, 10, dtype=torch.long)
        loss = nn.CrossEntropyLoss()(logits, labels)  # <-
        """, """
        logits = torch.randn(4, 6)
        labels = torch.zeros(4, dtype=torch.long)
        loss = nn.CrossEntropyLoss()(logits, labels)
        """),
    Case("nll_multi_target", "TTL512", "RuntimeError", "multi-target not supported", """
        logp = F.log_softmax(torch.randn(4, 6), dim=1)
        labels = torch.zeros(4, 10, dtype=torch.long)
        loss = F.nll_loss(logp, labels)  # <-
        """, """
        logp = F.log_softmax(torch.randn(4, 6), dim=1)
        labels = torch.zeros(4, 10, dtype=torch.long)
        loss = F.nll_loss(logp.unsqueeze(2).expand(4, 6, 10), labels)
        """),
    Case("one_sample_multi_target", "TTL512", "RuntimeError", "multi-target not supported", """
        logits = torch.randn(6)
        labels = torch.zeros(4, 2, dtype=torch.long)
        loss = F.cross_entropy(logits, labels)  # <-
        """, """
        logits = torch.randn(6)
        labels = torch.tensor(3)
        loss = F.cross_entropy(logits, labels)
        """),
    Case("sequence_target_without_positions", "TTL512", "RuntimeError", "Expected target size", """
        logits = torch.randn(4, 6, 5)
        labels = torch.zeros(4, dtype=torch.long)
        loss = F.cross_entropy(logits, labels)  # <-
        """, """
        logits = torch.randn(4, 6, 5)
        labels = torch.zeros(4, 5, dtype=torch.long)
        loss = F.cross_entropy(logits, labels)
        """),
    Case("segmentation_target_extra_dim", "TTL512", "RuntimeError", "only batches of spatial targets supported", """
        logits = torch.randn(2, 3, 8, 8)
        masks = torch.zeros(2, 8, 8, 2, dtype=torch.long)
        loss = nn.CrossEntropyLoss()(logits, masks)  # <-
        """, """
        logits = torch.randn(2, 3, 8, 8)
        masks = torch.zeros(2, 8, 8, dtype=torch.long)
        loss = nn.CrossEntropyLoss()(logits, masks)
        """),
    Case("loader_of_segment_labels", "TTL512", "RuntimeError", "multi-target not supported", """
        x = torch.randn(16, 10, 8)
        y = torch.zeros(16, 10, dtype=torch.long)
        model = nn.Sequential(nn.Flatten(), nn.Linear(80, 6))
        for xb, yb in DataLoader(TensorDataset(x, y), batch_size=4):
            loss = F.cross_entropy(model(xb), yb)  # <-
        """, """
        x = torch.randn(16, 10, 8)
        y = torch.zeros(16, dtype=torch.long)
        model = nn.Sequential(nn.Flatten(), nn.Linear(80, 6))
        for xb, yb in DataLoader(TensorDataset(x, y), batch_size=4):
            loss = F.cross_entropy(model(xb), yb)
        """),
]

#: Programs that run in torch and get no finding of these rules.
SILENT: Dict[str, str] = {
    # probabilities of the input's shape (float) are cross-entropy's other target form
    "probabilities_same_shape": """
        logits = torch.randn(4, 6)
        loss = F.cross_entropy(logits, torch.softmax(torch.randn(4, 6), dim=1))
        """,
    # per-position class indices of a sequence: (N, d1) against (N, C, d1)
    "per_position_indices": """
        logits = torch.randn(4, 6, 10)
        loss = nn.CrossEntropyLoss()(logits, torch.zeros(4, 10, dtype=torch.long))
        """,
    # a 3-D volume: (N, d1, d2, d3) against (N, C, d1, d2, d3)
    "volume_indices": """
        logits = torch.randn(2, 3, 4, 4, 4)
        loss = F.cross_entropy(logits, torch.zeros(2, 4, 4, 4, dtype=torch.long))
        """,
    # one sample: a 0-d class index against (C,)
    "one_sample_scalar_target": """
        loss = F.cross_entropy(torch.randn(6), torch.tensor(2))
        """,
    # segment labels flattened with the logits' rows
    "segments_flattened": """
        logits = torch.randn(4 * 10, 6)
        labels = torch.zeros(4, 10, dtype=torch.long)
        loss = F.cross_entropy(logits, labels.reshape(-1))
        """,
}


@pytest.mark.parametrize("name", sorted(SILENT))
def test_look_alikes_are_silent(name: str) -> None:
    assert [f for f in findings(SILENT[name]) if f[1] in ("TTL512", "TTL529")] == []


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_bad_program_reported_on_its_line(case: Case) -> None:
    assert (marked_line(case.bad), case.code) in findings(case.bad)


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_fixed_twin_is_silent(case: Case) -> None:
    assert findings(case.good) == []


def test_every_case_is_true_in_torch() -> None:
    programs = {}
    for case in CASES:
        programs[f"bad:{case.name}"] = _program(case.bad)
        programs[f"good:{case.name}"] = _program(case.good)
    for name, body in SILENT.items():
        programs[f"silent:{name}"] = _program(body)
    results = run_in_torch(programs)
    for case in CASES:
        outcome = results[f"bad:{case.name}"]
        assert outcome.startswith(case.exception + ": ") and case.raises in outcome, (case.name, outcome)
        assert results[f"good:{case.name}"] == "", (case.name, results[f"good:{case.name}"])
        quoted = [f.message for f in _findings(case.bad) if f.code == case.code and "torch raises" in f.message]
        for message in quoted:
            assert quotes_what_torch_raised(message, outcome), (case.name, message, outcome)
    for name in SILENT:
        assert results[f"silent:{name}"] == "", (name, results[f"silent:{name}"])
