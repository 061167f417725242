"""Paths the data decides, through the batch's rows (rules/shape/batch_rows.py).

A DataLoader that keeps its last batch yields ``N % B`` samples last; the batch's rows follow
through the model, and code that is right for ``B`` rows fails on that batch: batch norm in
training mode on one row (TTL527), a bare ``.squeeze()`` that drops the batch dim of a batch of
one before an op that names a dim (TTL522), labels built from the configured batch size with
``torch.arange`` (TTL522), a list of crops joined along dim 0 before a per-sample loss (TTL523).
Also: a list the code tests for emptiness only after it became an index (TTL215), and the
engine facts these need (a dataset class's ``__len__``, comprehensions over known items
evaluated item by item, ``zip`` of known rows).

Each case is a program with the finding expected on the line marked ``# <-`` and a twin that
runs and gets no finding; every program runs in torch in one subprocess, and the torch facts
the rules rely on (which layers need more than one value per channel, which dims one-dim ops
accept) are measured here too.
"""
from __future__ import annotations

import textwrap
from dataclasses import dataclass
from typing import List, Tuple

import pytest
from torch_runs import run_in_torch

from torchtype_lint.checker.check import Settings, check_source
from torchtype_lint.cli.explain import explain_interpreter
from torchtype_lint.knowledge.batch_statistics import BATCH_STATISTICS_LAYERS, ONE_VALUE_MESSAGE, values_per_channel
from torchtype_lint.knowledge.dim_args import ONE_DIM_OPS, SEQUENCE_DIM_OPS
from torchtype_lint.knowledge.shapes import dim_in_range
from torchtype_lint.model.selection import Selection

HEADER = ("import argparse\nimport torch\nimport torch.nn as nn\nimport torch.nn.functional as F\n"
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


def messages(body: str) -> List[str]:
    settings = Settings(selection=Selection(select=["TTL"]))
    return [f.message for f in check_source(_program(body), "program.py", settings).findings]


def marked_line(body: str) -> int:
    lines = textwrap.dedent(body).lstrip("\n").splitlines()
    return next(i for i, line in enumerate(lines, 1) if "# <-" in line)


_REGRESSOR = """
    class Regressor(nn.Module):
        def __init__(self, n):
            super().__init__()
            self.norm = nn.BatchNorm1d(n)
            self.head = nn.Linear(n, 1)

        def forward(self, x):
            x = self.norm(x){mark}
            return self.head(x).squeeze(1)

"""

_TEXT_CNN = """
    class TextCNN(nn.Module):
        def __init__(self, sizes):
            super().__init__()
            self.embedding = nn.Embedding(50, 8)
            self.convs = nn.ModuleList([nn.Conv1d(8, 4, k) for k in sizes])

        def forward(self, text):
            x = self.embedding(text).permute(0, 2, 1)
            pooled = [F.max_pool1d(F.relu(conv(x)), F.relu(conv(x)).shape[2]).{squeeze} for conv in self.convs]
            return torch.cat(pooled, dim=1){mark}

"""


_TWO_DOMAINS = """
    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.features = nn.Sequential(nn.Conv2d(3, 4, 3), nn.MaxPool2d(2))
            self.classifier = nn.Sequential(nn.Linear(4 * 3 * 3, 16), nn.BatchNorm1d(16), nn.ReLU(), nn.Linear(16, 2))

        def forward(self, x):
            features = self.features(x).view(-1, 4 * 3 * 3)
            return self.classifier(features){mark}

    def loader(n):
        return DataLoader(TensorDataset(torch.randn(n, 3, 8, 8), torch.randint(0, 2, (n,))), batch_size=4{drop})

    model = Net()
    source, target = loader(16), loader(13)
    steps = min(len(source), len(target))
    source_iter, target_iter = iter(source), iter(target)
    for i in range(steps{fewer}):
        xs, ys = next(source_iter)
        loss = F.cross_entropy(model(xs), ys)
        xt, _ = next(target_iter)
        domain = model(xt)
"""

_POOLED_HEAD = """
    head = nn.Sequential(nn.AdaptiveAvgPool2d(1), nn.Sequential(nn.Conv2d(3, 4, 1), nn.BatchNorm2d(4), nn.ReLU()))
    data = TensorDataset(torch.randn(6, 3, 8, 8))
    head.train()
    for (images,) in DataLoader(data{batch}):
        pooled = head(images){mark}
"""


_CONCAT_POOL_HEAD = """
    class ConcatPool(nn.Module):
        def forward(self, x):
            return torch.cat([F.adaptive_max_pool2d(x, 1), F.adaptive_avg_pool2d(x, 1)], 1)

    class Gate(nn.Module):
        def __init__(self, ch):
            super().__init__()
            self.fc = nn.Conv2d(ch, ch, 1)

        def forward(self, x):
            return x * torch.sigmoid(self.fc(F.adaptive_avg_pool2d(x, 1)))

    def body():
        return nn.Sequential(nn.Conv2d(3, 4, 3, padding=1), nn.ReLU(), Gate(4))

    def head(nf, nc):
        return nn.Sequential({pool}, nn.Flatten(), nn.BatchNorm1d(nf), nn.Linear(nf, nc))

    def fit(model, loader):
        model.train()
        for xb, yb in loader:
            out = model(xb){mark}
            loss = F.cross_entropy(out, yb)

    data = TensorDataset(torch.randn(9, 3, 8, 8), torch.randint(0, 3, (9,)))
"""

_FOLDED = """
class Net(nn.Module):
    def __init__(self, batch_size):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3, padding=1)
        self.pool = nn.MaxPool2d(2)
        self.fc = nn.Linear({width}, 5)

    def forward(self, x):
        x = self.pool(F.relu(self.conv(x)))
        x = x.view(-1, {width}){mark}
        return self.fc(x)


batch_size = 4
loader = DataLoader(TensorDataset(torch.randn(13, 3, 8, 8)), batch_size=batch_size, shuffle=True)
model = Net(batch_size)
for (images,) in loader:
    out = model(images)
"""

CASES = [
    Case("norm_in_forward_last_row", "TTL527", ONE_VALUE_MESSAGE, _REGRESSOR.format(mark="  # <-") + """
    data = TensorDataset(torch.randn(33, 3), torch.randn(33))
    model = Regressor(3)
    model.train()
    for x, y in DataLoader(data, batch_size=8, shuffle=True):
        loss = F.mse_loss(model(x), y)
    """, _REGRESSOR.format(mark="") + """
    data = TensorDataset(torch.randn(33, 3), torch.randn(33))
    model = Regressor(3)
    model.train()
    for x, y in DataLoader(data, batch_size=8, shuffle=True):
        loss = F.mse_loss(model(x), y)
        model.eval()
    """),
    Case("pooled_norm_fresh_sequential", "TTL527", ONE_VALUE_MESSAGE, """
    class Images(Dataset):
        def __init__(self, n):
            self.x = torch.rand(n, 3, 8, 8)

        def __len__(self):
            return len(self.x)

        def __getitem__(self, i):
            return self.x[i]

    net = nn.Sequential(nn.Conv2d(3, 4, 3), nn.AdaptiveAvgPool2d(1), nn.BatchNorm2d(4), nn.Flatten())
    for images in DataLoader(Images(9), batch_size=4):
        features = net(images)  # <-
    """, """
    class Images(Dataset):
        def __init__(self, n):
            self.x = torch.rand(n, 3, 8, 8)

        def __len__(self):
            return len(self.x)

        def __getitem__(self, i):
            return self.x[i]

    net = nn.Sequential(nn.Conv2d(3, 4, 3), nn.AdaptiveAvgPool2d(1), nn.BatchNorm2d(4), nn.Flatten())
    for images in DataLoader(Images(9), batch_size=4, drop_last=True):
        features = net(images)
    """),
    # a loop that draws the target loader's batches by hand, next(it) once a step, for as many
    # steps as the loader has batches (13 = 4 + 4 + 4 + 1); the rows go through .view(-1, F)
    Case("norm_drawn_by_next_reaches_last_batch", "TTL527", f"ValueError: {ONE_VALUE_MESSAGE}",
         _TWO_DOMAINS.format(mark="  # <-", drop="", fewer=""),
         _TWO_DOMAINS.format(mark="", drop=", drop_last=True", fewer="")),
    # DataLoader's default batch size is 1: every batch holds one sample, and the global pool
    # leaves one value per channel for the norm of a nested nn.Sequential
    Case("pooled_norm_every_batch_of_one", "TTL527", f"ValueError: {ONE_VALUE_MESSAGE}",
         _POOLED_HEAD.format(batch="", mark="  # <-"), _POOLED_HEAD.format(batch=", batch_size=2", mark="")),
    Case("squeezed_maps_joined_on_dim_1", "TTL522", "Dimension out of range",
         _TEXT_CNN.format(squeeze="squeeze()", mark="  # <-") + """
    model = TextCNN((2, 3))
    for text, label in DataLoader(TensorDataset(torch.randint(0, 50, (17, 9)), torch.rand(17)), batch_size=8):
        scores = model(text)
    """, _TEXT_CNN.format(squeeze="squeeze(2)", mark="") + """
    model = TextCNN((2, 3))
    for text, label in DataLoader(TensorDataset(torch.randint(0, 50, (17, 9)), torch.rand(17)), batch_size=8):
        scores = model(text)
    """),
    Case("squeezed_scores_softmax_dim_1", "TTL522", "Dimension out of range", """
    head = nn.Linear(5, 3)
    for (x,) in DataLoader(TensorDataset(torch.randn(13, 1, 5)), batch_size=4):
        scores = head(x).squeeze()
        probs = F.softmax(scores, dim=1)  # <-
    """, """
    head = nn.Linear(5, 3)
    for (x,) in DataLoader(TensorDataset(torch.randn(13, 1, 5)), batch_size=4):
        scores = head(x).squeeze(1)
        probs = F.softmax(scores, dim=1)
    """),
    Case("arange_labels_of_configured_batch", "TTL522", "must match the size", """
    batch_size = 16
    encoder = nn.Linear(4, 3)
    for (x,) in DataLoader(TensorDataset(torch.randn(40, 4)), batch_size=batch_size, shuffle=True):
        labels = torch.arange(batch_size).repeat(2)  # <-
        views = torch.cat([x, x.flip(1)], dim=0)
        scores = encoder(views).sum(1) + labels
    """, """
    batch_size = 16
    encoder = nn.Linear(4, 3)
    for (x,) in DataLoader(TensorDataset(torch.randn(40, 4)), batch_size=batch_size, shuffle=True):
        labels = torch.arange(x.size(0)).repeat(2)
        views = torch.cat([x, x.flip(1)], dim=0)
        scores = encoder(views).sum(1) + labels
    """),
    Case("crops_list_joined_rows", "TTL523", "to match target batch_size", """
    def crops(images):
        return [images[..., :4, :4], images[..., 2:, 2:]]

    model = nn.Sequential(nn.Flatten(), nn.Linear(48, 3))
    for images, target in DataLoader(TensorDataset(torch.rand(8, 3, 6, 6), torch.randint(0, 3, (8,))), batch_size=4):
        output = model(torch.cat(crops(images)))
        loss = F.cross_entropy(output, target)  # <-
    """, """
    def crops(images):
        return [images[..., :4, :4], images[..., 2:, 2:]]

    model = nn.Sequential(nn.Flatten(), nn.Linear(48, 3))
    for images, target in DataLoader(TensorDataset(torch.rand(8, 3, 6, 6), torch.randint(0, 3, (8,))), batch_size=4):
        output = model(torch.cat(crops(images))).view(2, images.size(0), -1).mean(0)
        loss = F.cross_entropy(output, target)
    """),
    Case("function_squeeze_before_batch_norm1d", "TTL522", "expected 2D or 3D input", """
    class Head(nn.Module):
        def __init__(self):
            super().__init__()
            self.features = nn.Sequential(nn.Conv2d(3, 16, 3), nn.AdaptiveAvgPool2d((1, 1)))
            self.block = nn.Sequential(nn.Linear(16, 8), nn.BatchNorm1d(8))

        def forward(self, x):
            x = torch.squeeze(self.features(x))
            return self.block(x)  # <-

    model = Head().eval()
    with torch.no_grad():
        for x, y in DataLoader(TensorDataset(torch.rand(9, 3, 8, 8), torch.randint(0, 2, (9,))), batch_size=4):
            out = model(x)
    """, """
    class Head(nn.Module):
        def __init__(self):
            super().__init__()
            self.features = nn.Sequential(nn.Conv2d(3, 16, 3), nn.AdaptiveAvgPool2d((1, 1)))
            self.block = nn.Sequential(nn.Linear(16, 8), nn.BatchNorm1d(8))

        def forward(self, x):
            x = torch.flatten(self.features(x), 1)
            return self.block(x)

    model = Head().eval()
    with torch.no_grad():
        for x, y in DataLoader(TensorDataset(torch.rand(9, 3, 8, 8), torch.randint(0, 2, (9,))), batch_size=4):
            out = model(x)
    """),
    Case("empty_list_tested_after_index", "TTL215", "tensors used as indices must be long", """
    def keep(n):
        return list(range(n))

    rows = torch.randn(torch.randint(0, 1, ()).item(), 3)  # no rows this run
    chosen = keep(rows.shape[0])
    picked = rows[torch.tensor(chosen)]  # <-
    mean = picked.sum(0) / max(len(chosen), 1)
    """, """
    def keep(n):
        return list(range(n))

    rows = torch.randn(torch.randint(0, 1, ()).item(), 3)
    chosen = keep(rows.shape[0])
    if len(chosen) > 0:
        picked = rows[torch.tensor(chosen)]
    mean = rows.sum(0) / max(len(chosen), 1)
    """),
    # the file's own modules inside nested nn.Sequentials built by factories (a fastai-style
    # head), the model and loader handed to a fit function
    Case("concat_pool_head_in_factories", "TTL527", ONE_VALUE_MESSAGE,
         _CONCAT_POOL_HEAD.format(pool="ConcatPool()", mark="  # <-") + """
    fit(nn.Sequential(body(), head(8, 3)), DataLoader(data, batch_size=4, shuffle=True))
    """, _CONCAT_POOL_HEAD.format(pool="ConcatPool()", mark="") + """
    fit(nn.Sequential(body(), head(8, 3)), DataLoader(data, batch_size=4, shuffle=True, drop_last=True))
    """),
    # x.view(-1, batch_size * 8 * 4 * 4) folds whole batches into one row: 13 images in batches of 4
    # leave 1, whose 128 values cannot fill a row of 512
    Case("view_width_folds_the_batch", "TTL522", "is invalid for input of size",
         _FOLDED.format(width="batch_size * 8 * 4 * 4", mark="  # <-"), _FOLDED.format(width="8 * 4 * 4", mark="")),
    # batches sliced by hand: on the range's last index X[i:i + bs] holds the remainder (1000 % 32 = 8)
    Case("hand_sliced_last_batch_meets_a_full_size_state", "TTL508", "Sizes of tensors must match", """
    X = torch.randn(1000, 4)
    bs = 32
    state = torch.zeros(bs, 8)
    for i in range(0, len(X), bs):
        xb = X[i:i + bs]
        out = torch.cat([xb, state], dim=1)  # <-
    """, """
    X = torch.randn(1000, 4)
    bs = 32
    state = torch.zeros(bs, 8)
    for i in range(0, len(X) - bs + 1, bs):
        xb = X[i:i + bs]
        out = torch.cat([xb, state], dim=1)
    """),
    # the same in the loop, the dataset size not known: a width of B rows fails on every smaller batch
    Case("view_folds_batch_in_loop_unknown_size", "TTL522", "is invalid for input of size", """
    import sys
    n = 10 + len(sys.argv) * 3
    loader = DataLoader(TensorDataset(torch.randn(n, 6), torch.randn(n, 1)), batch_size=4)
    head = nn.Linear(24, 4)
    for x, y in loader:
        out = head(x.reshape(-1, 24)).view(-1, 1)  # <-
    """, """
    import sys
    n = 10 + len(sys.argv) * 3
    loader = DataLoader(TensorDataset(torch.randn(n, 6), torch.randn(n, 1)), batch_size=4, drop_last=True)
    head = nn.Linear(24, 4)
    for x, y in loader:
        out = head(x.reshape(-1, 24)).view(-1, 1)
    """),
]

#: Look-alikes that run and get no finding.
SILENT = {
    # the module of the file keeps 2 values per channel on a batch of one (no global pool)
    "own_module_keeps_values_per_channel": _CONCAT_POOL_HEAD.replace(
        "nn.Flatten(), nn.BatchNorm1d(nf), nn.Linear(nf, nc)",
        "nn.BatchNorm2d(nf), nn.Flatten(), nn.Linear(nf * 64, nc)").format(pool="Gate(4)", mark="") + """
    fit(nn.Sequential(body(), head(4, 3)), DataLoader(data, batch_size=4, shuffle=True))
    """,
    # the model's mode is its caller's: unknown, not training
    "norm_model_given_by_caller": _REGRESSOR.format(mark="") + """
    def evaluate(model, loader):
        for x, y in loader:
            out = model(x)

    model = Regressor(3).eval()
    evaluate(model, DataLoader(TensorDataset(torch.randn(33, 3), torch.randn(33)), batch_size=8))
    """,
    # (B, C, L) with L > 1: a batch of one still has L values per channel
    "norm_over_sequence": """
    net = nn.Sequential(nn.Conv1d(3, 4, 3), nn.BatchNorm1d(4))
    for (x,) in DataLoader(TensorDataset(torch.randn(9, 3, 7)), batch_size=4):
        out = net(x)
    """,
    # rows folded into the batch dim: two rows per sample reach the norm
    "norm_after_rows_folded": """
    norm = nn.BatchNorm1d(3)
    for (x,) in DataLoader(TensorDataset(torch.randn(9, 2, 3)), batch_size=4):
        out = norm(x.reshape(-1, 3))
    """,
    # the loop skips a batch of one itself before the model sees it
    "norm_loop_skips_batch_of_one": _REGRESSOR.format(mark="") + """
    model = Regressor(3)
    model.train()
    for x, y in DataLoader(TensorDataset(torch.randn(33, 3), torch.randn(33)), batch_size=8):
        if x.size(0) < 2:
            continue
        out = model(x)
    """,
    # a squeeze of a batch whose last batch holds two samples: the layer always gets 2-D input
    "function_squeeze_last_batch_of_two": """
    block = nn.Sequential(nn.Conv2d(3, 8, 3), nn.AdaptiveAvgPool2d(1))
    norm = nn.BatchNorm1d(8).eval()
    for (x,) in DataLoader(TensorDataset(torch.rand(10, 3, 6, 6)), batch_size=4):
        out = norm(torch.squeeze(block(x)))
    """,
    # the draws stop before the target loader's last batch
    "norm_drawn_by_next_stops_before_last_batch": _TWO_DOMAINS.format(mark="", drop="", fewer=" - 1"),
    # batches of one in eval mode
    "pooled_norm_every_batch_of_one_eval": _POOLED_HEAD.format(batch="", mark="").replace("head.train()",
                                                                                         "head.eval()"),
    # a last batch of two samples
    "norm_last_batch_of_two": _REGRESSOR.format(mark="") + """
    model = Regressor(3)
    for x, y in DataLoader(TensorDataset(torch.randn(34, 3), torch.randn(34)), batch_size=8):
        out = model(x)
    """,
    # squeeze() then ops without a dim, and a squeeze of a known-size tensor
    "squeeze_without_dim_op": """
    head = nn.Linear(5, 1)
    for (x,) in DataLoader(TensorDataset(torch.randn(13, 5)), batch_size=4):
        scores = torch.sigmoid(head(x).squeeze())
        total = scores.sum()
        fixed = torch.randn(4, 1).squeeze()
        both = torch.stack([fixed, fixed], dim=1)
    """,
    # an arange of a sequence length equal to the batch size
    "arange_positions": """
    batch_size, length = 8, 8
    embed = nn.Embedding(length, 4)
    for (x,) in DataLoader(TensorDataset(torch.randn(20, length, 4)), batch_size=batch_size):
        out = x + embed(torch.arange(length))
    """,
    # a list with an item by its syntax: testing it for emptiness later is only defensive
    "never_empty_list_tested_after": """
    def pick(rows, rest):
        chosen = [0] + rest
        picked = rows[torch.tensor(chosen)]
        return picked.sum(0) / max(len(chosen), 1)

    total = pick(torch.randn(4, 3), [1, 2])
    """,
    # the list is checked before it is an index
    "empty_list_checked_first": """
    rows = torch.randn(0, 3)
    chosen = list(range(rows.shape[0]))
    if chosen:
        picked = rows[torch.tensor(chosen)]
    count = len(chosen)
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


def test_warnings_name_the_path() -> None:
    by_name = {c.name: c for c in CASES}
    norm = messages(by_name["norm_in_forward_last_row"].bad)
    assert any("holds 1 sample when the dataset's 33 samples are split into batches of 8" in m for m in norm)
    assert any("on an input of shape (1, 3)" in m for m in norm)
    pooled = messages(by_name["pooled_norm_fresh_sequential"].bad)  # the size from Images.__len__
    assert any("the dataset's 9 samples are split into batches of 4" in m and "(layer [2]" in m for m in pooled)
    squeezed = messages(by_name["squeezed_maps_joined_on_dim_1"].bad)
    assert any("gets 1-D tensors and dim 1 is out of range" in m and "`.squeeze(2)`" in m for m in squeezed)
    sliced = messages(by_name["hand_sliced_last_batch_meets_a_full_size_state"].bad)
    assert any(m.startswith("On the loop's last iteration (`i` = 992): ") for m in sliced)
    folded = messages(by_name["view_width_folds_the_batch"].bad)
    assert any("holds 1 sample because the dataset size (13)" in m and "rows of 512 values" in m for m in folded)
    empty = messages(by_name["empty_list_tested_after_index"].bad)
    assert any("when `chosen` is empty, as the code allows for after this call" in m for m in empty)


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


_NORM_SHAPES = [(1, 3), (2, 3), (1, 3, 1), (1, 3, 2), (2, 3, 1), (1, 3, 1, 1), (1, 3, 2, 1), (2, 3, 1, 1),
                (1, 3, 1, 1, 1), (1, 3, 1, 2, 1)]


def test_batch_statistics_need_more_than_one_value_per_channel() -> None:
    """In training mode BatchNorm1d/2d/3d refuse an input whose channels hold one value each
    (``values_per_channel``), under no_grad too; in eval mode they take it; InstanceNorm,
    GroupNorm and LayerNorm do not depend on the batch's size."""
    ranks = {"BatchNorm1d": (2, 3), "BatchNorm2d": (4,), "BatchNorm3d": (5,)}
    programs = {}
    for layer in sorted(BATCH_STATISTICS_LAYERS):
        for shape in _NORM_SHAPES:
            if len(shape) not in ranks[layer]:
                continue
            for mode in ("train", "eval"):
                programs[f"{layer}:{shape}:{mode}"] = (
                    f"import torch\nm = torch.nn.{layer}(3).{mode}()\n"
                    f"with torch.no_grad():\n    m(torch.randn{shape})\n")
    others = {"InstanceNorm1d(3)": (1, 3, 2), "GroupNorm(1, 3)": (1, 3), "LayerNorm(3)": (1, 3)}
    for layer, shape in others.items():
        programs[f"{layer}:{shape}:other"] = f"import torch\ntorch.nn.{layer}.train()(torch.randn{shape})\n"
    results = run_in_torch(programs)
    for key, result in results.items():
        layer, shape_text, mode = key.split(":")
        shape = tuple(int(d) for d in shape_text.strip("()").split(",") if d.strip())
        if mode == "train" and values_per_channel(shape[0], shape) == 1:
            assert ONE_VALUE_MESSAGE in result, (key, result)
        else:
            assert result == "", (key, result)


def test_loader_length_counts_the_kept_last_batch() -> None:
    """``len(DataLoader(ds, batch_size=B))`` is ceil(N / B) when the last batch is kept, as
    torch counts it (each program asserts the engine's number in torch)."""
    programs = {}
    for n, b in ((13, 4), (16, 4), (33, 8), (5, 7)):
        body = f"n = len(DataLoader(TensorDataset(torch.randn({n}, 2)), batch_size={b}))\n"
        line = _line(_explain(body), f"{HEADER_LINES + 1}: n:")
        assert line.startswith(f"{HEADER_LINES + 1}: n: int = "), line
        programs[f"{n}/{b}"] = _program(body + f"assert n == {line.rsplit(' ', 1)[1]}, n\n")
    assert all(result == "" for result in run_in_torch(programs).values())


def test_one_dim_ops_accept_the_dims_of_their_rank() -> None:
    """Each op of ``ONE_DIM_OPS`` raises "Dimension out of range" exactly for the dims outside
    ``dim_range(rank, extra)`` (for cat/stack: the rank of the parts)."""
    programs = {}
    for name in sorted(ONE_DIM_OPS):
        for rank in (1, 2, 3):
            shape = ", ".join(["2"] * rank)
            for dim in range(-4, 5):
                if name in SEQUENCE_DIM_OPS:
                    call = f"torch.{name}([torch.ones({shape}), torch.ones({shape})], dim={dim})"
                else:
                    call = f"torch.ones({shape}).{name}({dim})"
                programs[f"{name}:{rank}:{dim}"] = f"import torch\n{call}\n"
    results = run_in_torch(programs)
    for key, result in results.items():
        name, rank, dim = key.split(":")
        if dim_in_range(int(dim), int(rank), ONE_DIM_OPS[name]):
            assert result == "", (key, result)
        else:
            assert "Dimension out of range" in result, (key, result)


def _explain(body: str) -> str:
    result = check_source(_program(body), "m.py", Settings(selection=Selection(select=[])), keep_analysis=True)
    return explain_interpreter(result.interpreter, result.module)


def _line(output: str, prefix: str) -> str:
    matches = [line for line in output.splitlines() if line.startswith(prefix)]
    assert matches, f"no line starting with {prefix!r} in:\n{output}"
    return matches[0]


def test_comprehension_over_known_items_keeps_each_item() -> None:
    """``[nn.Conv1d(8, 4, k) for k in (2, 3)]`` holds two layers, each with its kernel size, and
    so does an ``nn.ModuleList`` of them; a comprehension over it gives each layer's output."""
    out = _explain("""
    convs = nn.ModuleList([nn.Conv1d(8, 4, k) for k in (2, 3)])
    x = torch.randn(5, 8, 10)
    outs = [conv(x) for conv in convs]
    first, second, count = outs[0], outs[1], len(outs)
    convs.append(nn.Conv1d(8, 4, 5))
    more = [conv(x) for conv in convs]
    n_more = len(more)
    """)
    shown = HEADER_LINES
    assert _line(out, f"{shown + 4}: first:").startswith(f"{shown + 4}: first: Tensor[float32, (5, 4, 9)")
    assert _line(out, f"{shown + 4}: second:").startswith(f"{shown + 4}: second: Tensor[float32, (5, 4, 8)")
    assert _line(out, f"{shown + 4}: count:") == f"{shown + 4}: count: int = 2"
    # appended to: its layers one by one are no longer known
    assert _line(out, f"{shown + 7}: n_more:") == f"{shown + 7}: n_more: int"


def test_zip_of_known_rows_and_summaries_of_pairs() -> None:
    """``zip(*pairs)`` of known (model, loss) pairs gives each column's items, and a join of the
    pairs summarises the distinct models of one class position by position."""
    out = _explain("""
    def make(h):
        return nn.Sequential(nn.Linear(4, h), nn.ReLU()), 0.5

    pairs = [make(h) for h in (8, 16)]
    models, losses = zip(*pairs)
    for model in models:
        y = model(torch.randn(2, 4))
    """)
    shown = HEADER_LINES
    assert _line(out, f"{shown + 4}: pairs:").startswith(f"{shown + 4}: pairs: list[tuple[Sequential() params float32")
    assert _line(out, f"{shown + 5}: models:").startswith(f"{shown + 5}: models: tuple[Sequential() params float32, "
                                                         "Sequential() params float32]")
    assert _line(out, f"{shown + 7}: y:").startswith(f"{shown + 7}: y: Tensor[float32, (2, ?)")
