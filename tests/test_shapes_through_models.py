"""Shapes through models: what the engine knows of a batch, a layer's output and a view.

Each case is a small program with the finding expected on the line marked ``# <-`` and a twin
that is fine and must be silent (no finding at all). Every claim is checked against torch in
one subprocess: the bad program raises what the case says, the twin runs to its end.

- A DataLoader whose dataset size is known and a multiple of the batch size gives full batches
  only: the batch dim is the batch size (``view(-1, C)`` after a pool that leaves 2x2 maps then
  has four rows per sample).
- ``F.pad``'s shape, sizes read from ``x.shape[-2:]``, Python ``%`` and ``**`` of known numbers.
- A failure on one iteration of a loop over a few known items (unrolled, two deep) is found.
- A list appended to once per iteration of a loop of known count holds that many items, as does
  a comprehension with one ``for`` and no ``if``; ``a.tolist()`` of a known array, ``f(*t)`` of a
  tuple of known items, ``nn.EmbeddingBag`` of a 2-D input.
"""
from __future__ import annotations

import textwrap
from dataclasses import dataclass
from typing import List, Tuple

import pytest
from torch_runs import run_in_torch

from torchtype_lint.checker.check import Settings, check_source
from torchtype_lint.model.selection import Selection

HEADER = ("import numpy as np\nimport torch\nimport torch.nn as nn\nimport torch.nn.functional as F\n"
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


CASES = [
    Case(
        "full_batches_pool_leaves_extra_rows", "TTL510",
        "Expected input batch_size (32) to match target batch_size (8)",
        bad="""
        data = TensorDataset(torch.randn(24, 3, 8, 8), torch.randint(0, 5, (24,)))
        conv, fc = nn.Conv2d(3, 4, 3, padding=1), nn.Linear(4, 5)
        for x, y in DataLoader(data, batch_size=8, shuffle=True):
            out = F.avg_pool2d(conv(x), 4).view(-1, 4)
            loss = F.cross_entropy(fc(out), y)  # <-
        """,
        good="""
        data = TensorDataset(torch.randn(24, 3, 8, 8), torch.randint(0, 5, (24,)))
        conv, fc = nn.Conv2d(3, 4, 3, padding=1), nn.Linear(4, 5)
        for x, y in DataLoader(data, batch_size=8, shuffle=True):
            out = F.adaptive_avg_pool2d(conv(x), 1).view(-1, 4)
            loss = F.cross_entropy(fc(out), y)
        """,
    ),
    Case(
        "pad_to_multiple_never_cropped", "TTL515", "must match the size of tensor b (63)",
        bad="""
        x = torch.randn(2, 3, 47, 63)
        h, w = x.shape[-2:]
        padded = F.pad(x, (0, -w % 16, 0, -h % 16), mode="reflect")
        loss = F.mse_loss(padded, torch.rand(2, 3, 47, 63))  # <-
        """,
        good="""
        x = torch.randn(2, 3, 47, 63)
        h, w = x.shape[-2:]
        padded = F.pad(x, (0, -w % 16, 0, -h % 16), mode="reflect")
        loss = F.mse_loss(padded[..., :h, :w], torch.rand(2, 3, 47, 63))
        """,
    ),
    Case(
        "power_of_two_sizes", "TTL515", "must match the size of tensor b (15)",
        bad="""
        depth = 4
        codes = torch.zeros(2 ** depth) + torch.ones(2 ** depth - 1)  # <-
        """,
        good="""
        depth = 4
        codes = torch.zeros(2 ** depth) + torch.ones(2 ** depth)
        """,
    ),
    Case(
        "windows_appended_once_per_step", "TTL508", "stack expects each tensor to be equal size",
        bad="""
        series = np.arange(30, dtype=np.float32)
        windows, targets = [], []
        for i in range(len(series) - 5):
            windows.append(series[i:i + 5])
            targets.append(series[i + 5])
        X, y = torch.from_numpy(np.array(windows)), torch.from_numpy(np.array(targets))
        pairs = torch.stack([X[:, -1], y[1:]])  # <-
        """,
        good="""
        series = np.arange(30, dtype=np.float32)
        windows, targets = [], []
        for i in range(len(series) - 5):
            windows.append(series[i:i + 5])
            targets.append(series[i + 5])
        X, y = torch.from_numpy(np.array(windows)), torch.from_numpy(np.array(targets))
        pairs = torch.stack([X[:, -1], y])
        """,
    ),
    Case(
        "comprehension_one_item_per_row", "TTL515", "must match the size of tensor b (99)",
        bad="""
        table = np.random.rand(300, 4).astype(np.float32)
        rows = [row[1:] for row in table]
        features = torch.tensor(np.array(rows))
        scaled = features[:, 0] * torch.ones(299)[:99]  # <-
        """,
        good="""
        table = np.random.rand(300, 4).astype(np.float32)
        rows = [row[1:] for row in table]
        features = torch.tensor(np.array(rows))
        scaled = features[:, 0] * torch.ones(300)
        """,
    ),
    Case(
        "csv_columns_after_the_text", "TTL510", "must be the same as input size",
        bad="""
        def read_csv(n_rows=24, n_labels=36):
            rng = np.random.default_rng(0)
            rows = [[1] + rng.integers(0, 2, n_labels).tolist() for _ in range(n_rows)]
            return ["text"] * (n_labels + 1), rows

        def targets_of(header, rows):
            return torch.from_numpy(np.array([row[1:] for row in rows], dtype=np.float32))

        targets = targets_of(*read_csv())
        bags = nn.EmbeddingBag(500, 8)(torch.randint(0, 500, (24, 16)))
        loss = F.binary_cross_entropy_with_logits(nn.Linear(8, 6)(bags), targets)  # <-
        """,
        good="""
        def read_csv(n_rows=24, n_labels=36):
            rng = np.random.default_rng(0)
            rows = [[1] + rng.integers(0, 2, n_labels).tolist() for _ in range(n_rows)]
            return ["text"] * (n_labels + 1), rows

        def targets_of(header, rows):
            return torch.from_numpy(np.array([row[1:7] for row in rows], dtype=np.float32))

        targets = targets_of(*read_csv())
        bags = nn.EmbeddingBag(500, 8)(torch.randint(0, 500, (24, 16)))
        loss = F.binary_cross_entropy_with_logits(nn.Linear(8, 6)(bags), targets)
        """,
    ),
    Case(
        "state_of_init_hidden_in_the_training_loop", "TTL530", "Expected hidden[0] size (1, 1, 16), got [1, 4, 16]",
        bad="""
        class Tagger(nn.Module):
            def __init__(self, batch, hidden=16):
                super().__init__()
                self.batch, self.hidden_size = batch, hidden
                self.lstm = nn.LSTM(8, hidden, batch_first=True)
                self.hidden = self.init_hidden()

            def init_hidden(self):
                return (torch.zeros(1, self.batch, self.hidden_size), torch.zeros(1, self.batch, self.hidden_size))

            def forward(self, x):
                out, self.hidden = self.lstm(x.view(1, self.batch, 8), self.hidden)  # <-
                return out

        model = Tagger(4)
        for step in range(3):
            model.hidden = model.init_hidden()
            model(torch.randn(4, 8))
        """,
        good="""
        class Tagger(nn.Module):
            def __init__(self, batch, hidden=16):
                super().__init__()
                self.batch, self.hidden_size = batch, hidden
                self.lstm = nn.LSTM(8, hidden, batch_first=True)
                self.hidden = self.init_hidden()

            def init_hidden(self):
                return (torch.zeros(1, self.batch, self.hidden_size), torch.zeros(1, self.batch, self.hidden_size))

            def forward(self, x):
                out, self.hidden = self.lstm(x.view(self.batch, 1, 8), self.hidden)
                return out

        model = Tagger(4)
        for step in range(3):
            model.hidden = model.init_hidden()
            model(torch.randn(4, 8))
        """,
    ),
    Case(
        "topk_rows_in_an_unrolled_loop", "TTL526", "view size is not compatible with input tensor's size and stride",
        bad="""
        def top_rows(correct, topk):
            res = []
            for k in topk:
                res.append(correct[:k].view(-1).float().sum(0))  # <-
            return res

        for epoch in range(2):
            scores, labels = torch.randn(16, 20), torch.arange(16) % 20
            _, pred = scores.topk(5, 1, True, True)
            pred = pred.t()
            top_rows(pred.eq(labels.view(1, -1).expand_as(pred)), (1, 5))
        """,
        good="""
        def top_rows(correct, topk):
            res = []
            for k in topk:
                res.append(correct[:k].reshape(-1).float().sum(0))
            return res

        for epoch in range(2):
            scores, labels = torch.randn(16, 20), torch.arange(16) % 20
            _, pred = scores.topk(5, 1, True, True)
            pred = pred.t()
            top_rows(pred.eq(labels.view(1, -1).expand_as(pred)), (1, 5))
            top_rows(pred.eq(labels.view(1, -1).expand_as(pred)), (1,))
        """,
    ),
]

#: Programs that run in torch and must stay silent.
SILENT = {
    # appended on some iterations only, twice per iteration, after a break, or to a list
    # that was not empty: the count of iterations is not the list's length
    "appended_on_odd_steps": """
        xs = []
        for i in range(20):
            if i % 2:
                xs.append(float(i))
        total = torch.tensor(xs) + torch.zeros(10)
        """,
    "appended_twice_per_step": """
        xs = []
        for i in range(20):
            xs.append(float(i))
            xs.append(-float(i))
        total = torch.tensor(xs) + torch.zeros(40)
        """,
    "appended_until_break": """
        xs = []
        for i in range(20):
            if i == 10:
                break
            xs.append(float(i))
        total = torch.tensor(xs) + torch.zeros(10)
        """,
    "appended_to_a_started_list": """
        xs = [0.0]
        for i in range(20):
            xs.append(float(i))
        total = torch.tensor(xs) + torch.zeros(21)
        """,
    "appended_and_popped": """
        xs = []
        for i in range(20):
            xs.append(float(i))
            if i % 2:
                xs.pop()
        total = torch.tensor(xs) + torch.zeros(10)
        """,
    # the state is rebuilt for each batch's own size, and carried between calls of one size
    "state_rebuilt_per_batch": """
        gru = nn.GRU(8, 16, batch_first=True)
        h = None
        for n in (4, 3):
            x = torch.randn(n, 5, 8)
            h = torch.zeros(1, x.size(0), 16)
            out, h = gru(x, h)
            out, h = gru(x, h)
        """,
    "filtered_comprehension": """
        rows = [r for r in range(300) if r % 3 == 0]
        total = torch.tensor(rows) + torch.zeros(100)
        """,
    # 20 samples in batches of 8: the last batch holds 4, so no batch size is assumed
    "last_batch_smaller_rows_unknown": """
        data = TensorDataset(torch.randn(20, 6), torch.randn(20, 1))
        for x, y in DataLoader(data, batch_size=8):
            loss = F.mse_loss(x.view(-1, 3)[: x.size(0)].sum(1, keepdim=True), y)
        """,
}


@pytest.mark.parametrize("name", sorted(SILENT))
def test_look_alikes_are_silent(name: str) -> None:
    assert findings(SILENT[name]) == []


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
    for name, body in SILENT.items():
        programs[name + ":silent"] = _program(body)
    results = run_in_torch(programs)
    for name in SILENT:
        assert results[name + ":silent"] == "", (name, results[name + ":silent"])
    for case in CASES:
        assert case.raises in results[case.name + ":bad"], (case.name, results[case.name + ":bad"])
        assert results[case.name + ":good"] == "", (case.name, results[case.name + ":good"])


def test_recurrent_state_shapes_are_torchs() -> None:
    """``recurrent_state_shape`` is the state torch accepts: each layer runs with it, and
    refuses it with one dim off by one (or the state of the other layout)."""
    from torchtype_lint.knowledge.nn_modules import recurrent_state_shape
    from torchtype_lint.model.values import ModuleValue

    layers = [
        ("LSTM", {"input_size": 8, "hidden_size": 6, "num_layers": 2, "batch_first": True}, (4, 5, 8)),
        ("LSTM", {"input_size": 8, "hidden_size": 6, "bidirectional": True, "proj_size": 3}, (5, 4, 8)),
        ("LSTM", {"input_size": 8, "hidden_size": 6, "num_layers": 3}, (5, 8)),
        ("GRU", {"input_size": 8, "hidden_size": 6, "num_layers": 2}, (5, 4, 8)),
        ("RNN", {"input_size": 8, "hidden_size": 6, "batch_first": True, "bidirectional": True}, (4, 5, 8)),
        ("LSTMCell", {"input_size": 8, "hidden_size": 6}, (4, 8)),
        ("GRUCell", {"input_size": 8, "hidden_size": 6}, (4, 8)),
    ]
    programs = {}
    for i, (name, cfg, shape) in enumerate(layers):
        module = ModuleValue(f"torch.nn.{name}", cfg, None)
        states = [recurrent_state_shape(module, shape, which) for which in ("h", "c")]
        assert all(s is not None for s in states), (name, cfg)
        kwargs = ", ".join(f"{k}={v!r}" for k, v in cfg.items())
        for j, dim in [(None, None)] + [(j, d) for j in range(len(states[0])) for d in (1,)]:
            h = list(states[0])
            if j is not None:
                h[j] += dim
            hx = f"(torch.zeros{tuple(h)}, torch.zeros{states[1]})" if name in ("LSTM", "LSTMCell") \
                else f"torch.zeros{tuple(h)}"
            programs[f"{i}:{j}"] = (f"import torch\nlayer = torch.nn.{name}({kwargs})\n"
                                    f"layer(torch.randn{shape}, {hx})\n")
    results = run_in_torch(programs)
    for key, result in results.items():
        fits = key.endswith(":None")
        assert (result == "") == fits, (key, programs[key], result)


def test_a_refused_layer_has_no_output_to_follow() -> None:
    """torch stops at a layer that refuses its input: the lines after it, which read its
    output, get no finding of their own (before, the loss below was TTL510 too)."""
    program = """
    head = nn.Sequential(nn.Linear(8, 4), nn.ReLU(), nn.Linear(4, 1))
    scores = head(torch.randn(8, 6))  # <-
    loss = F.mse_loss(scores, torch.randn(4, 1))
    conv = nn.Conv2d(3, 8, 3)
    maps = conv(torch.randn(2, 4, 9, 9))
    total = maps + torch.randn(2, 5, 7, 7)
    """
    assert findings(program) == [(marked_line(program), "TTL502"), (marked_line(program) + 3, "TTL501")]
