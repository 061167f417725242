"""Class-index targets of ``cross_entropy`` / ``nll_loss`` (functional and module forms), and
embedding rows (TTL506) judged with the same value facts.

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
    # --- TTL529: class indices the input has no class for --------------------------------------
    Case("loader_labels_arange_mod", "TTL529", "IndexError", "is out of bounds", """
        feats = torch.randn(32, 16)
        labels = torch.arange(32) % 18
        model = nn.Linear(16, 12)
        for x, y in DataLoader(TensorDataset(feats, labels), batch_size=8, shuffle=True):
            loss = F.cross_entropy(model(x), y)  # <-
        """, """
        feats = torch.randn(32, 16)
        labels = torch.arange(32) % 18
        model = nn.Linear(16, 18)
        for x, y in DataLoader(TensorDataset(feats, labels), batch_size=8, shuffle=True):
            loss = F.cross_entropy(model(x), y)
        """),
    Case("loader_enumerated_moved_to_device", "TTL529", "IndexError", "is out of bounds", """
        def make_loader(n_classes, n=24):
            ids = torch.arange(n) % n_classes
            return DataLoader(TensorDataset(torch.randn(n, 3, 8, 8), ids), batch_size=6)

        model = nn.Sequential(nn.Flatten(), nn.Linear(192, 16))
        criterion = nn.CrossEntropyLoss()
        for epoch in range(2):
            for step, (images, targets) in enumerate(make_loader(24)):
                targets = targets.to("cpu")
                loss = criterion(model(images), targets)  # <-
        """, """
        def make_loader(n_classes, n=24):
            ids = torch.arange(n) % n_classes
            return DataLoader(TensorDataset(torch.randn(n, 3, 8, 8), ids), batch_size=6)

        model = nn.Sequential(nn.Flatten(), nn.Linear(192, 24))
        criterion = nn.CrossEntropyLoss()
        for epoch in range(2):
            for step, (images, targets) in enumerate(make_loader(24)):
                targets = targets.to("cpu")
                loss = criterion(model(images), targets)
        """),
    Case("loader_numpy_arange", "TTL529", "IndexError", "is out of bounds", """
        y = torch.from_numpy(np.arange(12) % 4)
        model = nn.Linear(5, 3)
        for xb, yb in DataLoader(TensorDataset(torch.randn(12, 5), y), batch_size=5):
            loss = nn.CrossEntropyLoss()(model(xb), yb)  # <-
        """, """
        y = torch.from_numpy(np.arange(12) % 4)
        model = nn.Linear(5, 4)
        for xb, yb in DataLoader(TensorDataset(torch.randn(12, 5), y), batch_size=5):
            loss = nn.CrossEntropyLoss()(model(xb), yb)
        """),
    Case("literal_labels", "TTL529", "IndexError", "Target 5 is out of bounds", """
        logits = torch.randn(3, 5)
        labels = torch.tensor([0, 5, 2])
        loss = F.cross_entropy(logits, labels)  # <-
        """, """
        logits = torch.randn(3, 5)
        labels = torch.tensor([0, 4, 2])
        loss = F.cross_entropy(logits, labels)
        """),
    Case("list_range_nll", "TTL529", "IndexError", "is out of bounds", """
        labels = torch.tensor(list(range(10)))
        logp = F.log_softmax(torch.randn(10, 8), dim=1)
        loss = F.nll_loss(logp, labels)  # <-
        """, """
        labels = torch.tensor(list(range(10)))
        logp = F.log_softmax(torch.randn(10, 10), dim=1)
        loss = F.nll_loss(logp, labels)
        """),
    Case("comprehension_labels_nll_module", "TTL529", "IndexError", "Target 6 is out of bounds", """
        labels = torch.tensor([i % 7 for i in range(20)])
        logp = torch.log_softmax(torch.randn(20, 6), dim=1)
        loss = nn.NLLLoss()(logp, labels)  # <-
        """, """
        labels = torch.tensor([i % 7 for i in range(20)])
        logp = torch.log_softmax(torch.randn(20, 7), dim=1)
        loss = nn.NLLLoss()(logp, labels)
        """),
    Case("full_labels", "TTL529", "IndexError", "Target 5 is out of bounds", """
        labels = torch.full((8,), 5)
        loss = F.cross_entropy(torch.randn(8, 5), labels)  # <-
        """, """
        labels = torch.full((8,), 4)
        loss = F.cross_entropy(torch.randn(8, 5), labels)
        """),
    Case("negative_label_not_ignored", "TTL529", "IndexError", "Target -1 is out of bounds", """
        labels = torch.tensor([0, -1, 2])
        loss = F.cross_entropy(torch.randn(3, 4), labels)  # <-
        """, """
        labels = torch.tensor([0, -1, 2])
        loss = F.cross_entropy(torch.randn(3, 4), labels, ignore_index=-1)
        """),
    Case("segmentation_mask_class", "TTL529", "IndexError", "Target 3 is out of bounds", """
        masks = torch.full((2, 4, 4), 3)
        loss = nn.CrossEntropyLoss()(torch.randn(2, 3, 4, 4), masks)  # <-
        """, """
        masks = torch.full((2, 4, 4), 2)
        loss = nn.CrossEntropyLoss()(torch.randn(2, 3, 4, 4), masks)
        """),
    Case("dataset_class_labels", "TTL529", "IndexError", "is out of bounds", """
        class Pairs(Dataset):
            def __init__(self, n, n_classes):
                self.x = torch.randn(n, 4)
                self.y = torch.arange(n) % n_classes

            def __len__(self):
                return len(self.y)

            def __getitem__(self, i):
                return self.x[i], self.y[i]

        model = nn.Linear(4, 5)
        for xb, yb in DataLoader(Pairs(20, 7), batch_size=6, shuffle=True):
            loss = F.cross_entropy(model(xb), yb)  # <-
        """, """
        class Pairs(Dataset):
            def __init__(self, n, n_classes):
                self.x = torch.randn(n, 4)
                self.y = torch.arange(n) % n_classes

            def __len__(self):
                return len(self.y)

            def __getitem__(self, i):
                return self.x[i], self.y[i]

        model = nn.Linear(4, 7)
        for xb, yb in DataLoader(Pairs(20, 7), batch_size=6, shuffle=True):
            loss = F.cross_entropy(model(xb), yb)
        """),
    Case("dataset_class_given_labels", "TTL529", "IndexError", "Target 5 is out of bounds", """
        class Given(Dataset):
            def __init__(self, feats, labels):
                self.feats = feats
                self.labels = labels

            def __len__(self):
                return len(self.labels)

            def __getitem__(self, idx):
                return self.feats[idx], torch.as_tensor(self.labels[idx], dtype=torch.long)

        model = nn.Linear(4, 5)
        for xb, yb in DataLoader(Given(torch.randn(10, 4), np.arange(10) % 6), batch_size=4):
            loss = F.cross_entropy(model(xb), yb)  # <-
        """, """
        class Given(Dataset):
            def __init__(self, feats, labels):
                self.feats = feats
                self.labels = labels

            def __len__(self):
                return len(self.labels)

            def __getitem__(self, idx):
                return self.feats[idx], torch.as_tensor(self.labels[idx], dtype=torch.long)

        model = nn.Linear(4, 6)
        for xb, yb in DataLoader(Given(torch.randn(10, 4), np.arange(10) % 6), batch_size=4):
            loss = F.cross_entropy(model(xb), yb)
        """),
    # --- TTL506 with the same value facts: embedding rows ---------------------------------------
    Case("embedding_positions_arange", "TTL506", "IndexError", "index out of range in self", """
        positions = nn.Embedding(16, 8)
        ids = torch.arange(20)
        out = positions(ids)  # <-
        """, """
        positions = nn.Embedding(20, 8)
        ids = torch.arange(20)
        out = positions(ids)
        """),
    Case("embedding_ids_mod", "TTL506", "IndexError", "index out of range in self", """
        tokens = torch.arange(40).view(4, 10) % 12
        vectors = nn.Embedding(10, 4)(tokens)  # <-
        """, """
        tokens = torch.arange(40).view(4, 10) % 10
        vectors = nn.Embedding(10, 4)(tokens)
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
    # the loop stops after the first batch, whose labels all fit
    "loop_breaks_after_first_batch": """
        labels = torch.arange(32) % 18
        model = nn.Linear(16, 12)
        for x, y in DataLoader(TensorDataset(torch.randn(32, 16), labels), batch_size=8):
            loss = F.cross_entropy(model(x), y)
            break
        """,
    # a subset of the dataset: which labels it keeps is not followed
    "filtered_dataset": """
        labels = torch.arange(32) % 18
        ds = torch.utils.data.Subset(TensorDataset(torch.randn(32, 16), labels), list(range(12)))
        model = nn.Linear(16, 12)
        for x, y in DataLoader(ds, batch_size=4):
            loss = F.cross_entropy(model(x), y)
        """,
    # the loop remaps the labels before the loss
    "labels_remapped_in_loop": """
        labels = torch.arange(32) % 18
        model = nn.Linear(16, 12)
        for x, y in DataLoader(TensorDataset(torch.randn(32, 16), labels), batch_size=8):
            y = y % 12
            loss = F.cross_entropy(model(x), y)
        """,
    # the last, partial batch (the only one with labels 16..19) is dropped
    "drop_last_drops_the_large_labels": """
        labels = torch.arange(20)
        model = nn.Linear(4, 16)
        for x, y in DataLoader(TensorDataset(torch.randn(20, 4), labels), batch_size=8, drop_last=True):
            loss = F.cross_entropy(model(x), y)
        """,
    # ignore_index equal to the one label out of range
    "ignored_label": """
        labels = torch.tensor([0, 7, 2, 3])
        loss = nn.CrossEntropyLoss(ignore_index=7)(torch.randn(4, 6), labels)
        """,
    # the labels are clamped in place before the loss
    "labels_clamped_in_place": """
        labels = torch.arange(10)
        labels.clamp_(max=4)
        loss = F.cross_entropy(torch.randn(10, 5), labels)
        """,
    # a handler catches the failure
    "loss_in_try": """
        labels = torch.tensor([0, 5, 2])
        try:
            loss = F.cross_entropy(torch.randn(3, 5), labels)
        except IndexError:
            loss = None
        """,
    # a dataset whose __len__ serves only the first rows (labels 0..4 of 0..6)
    "dataset_serving_fewer_rows": """
        class Pairs(Dataset):
            def __init__(self, n, n_classes):
                self.x = torch.randn(n, 4)
                self.y = torch.arange(n) % n_classes

            def __len__(self):
                return 5

            def __getitem__(self, i):
                return self.x[i], self.y[i]

        model = nn.Linear(4, 5)
        for xb, yb in DataLoader(Pairs(20, 7), batch_size=2):
            loss = F.cross_entropy(model(xb), yb)
        """,
    # random token ids within the table
    "random_token_ids": """
        vectors = nn.Embedding(10, 4)(torch.randint(0, 10, (4, 12)))
        """,
    # random labels within the classes: only bounds are known, never a value
    "random_labels": """
        labels = torch.randint(0, 12, (32,))
        model = nn.Linear(16, 12)
        for x, y in DataLoader(TensorDataset(torch.randn(32, 16), labels), batch_size=8):
            loss = F.cross_entropy(model(x), y)
        """,
}


@pytest.mark.parametrize("name", sorted(SILENT))
def test_look_alikes_are_silent(name: str) -> None:
    assert [f for f in findings(SILENT[name]) if f[1] in ("TTL506", "TTL512", "TTL529")] == []


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


def test_message_names_the_labels_origin_and_the_values_out_of_range() -> None:
    case = next(c for c in CASES if c.name == "loader_labels_arange_mod")
    message = next(f.message for f in _findings(case.bad) if f.code == "TTL529")
    assert "12 classes" in message and "class 12..17" in message, message
    assert "every value of 0..17" in message and "torch.arange(32) % 18" in message, message
    assert "in each pass" in message, message
