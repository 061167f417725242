"""Issue 25: outputs of models and shapes through models.

Layers placed after a layer whose output rank does not fit (TTL524 BatchNorm, TTL525
convolution), a decoder whose padding makes its output larger than the regression target
(TTL515 on ``F.mse_loss``/``F.l1_loss``/``nn.MSELoss``/``nn.L1Loss``), and ``view`` on a
transposed or permuted tensor whose strides cannot take the new shape (TTL526, with torch's
stride arithmetic in ``rules/shape/strides.py`` checked against torch here).

Each case is a small program with the finding expected on the line marked ``# <-`` and a twin
that is fine and must be silent (no finding at all). Every claim is checked against torch in
one subprocess: the bad program raises what the case says, the twin runs to its end.
"""
from __future__ import annotations

import random
import textwrap
from dataclasses import dataclass
from typing import List, Tuple

import pytest
from torch_runs import run_in_torch

from torchtype_lint.checker.check import Settings, check_source
from torchtype_lint.rules.shape.strides import contiguous_strides, permuted, view_strides
from torchtype_lint.model.selection import Selection

HEADER = ("import math\nimport torch\nimport torch.nn as nn\nimport torch.nn.functional as F\n"
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
    Case("batchnorm2d_after_linear_in_forward", "TTL524", "expected 4D input (got 2D input)", """
        class Head(nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = nn.Linear(16, 32)
                self.bn = nn.BatchNorm2d(32)

            def forward(self, x):
                return F.relu(self.bn(self.fc(x)))  # <-

        out = Head()(torch.randn(4, 16))
        """, """
        class Head(nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = nn.Linear(16, 32)
                self.bn = nn.BatchNorm1d(32)

            def forward(self, x):
                return F.relu(self.bn(self.fc(x)))

        out = Head()(torch.randn(4, 16))
        """),
    Case("batchnorm1d_on_conv_maps_in_sequential", "TTL524", "expected 2D or 3D input (got 4D input)", """
        block = nn.Sequential(nn.Conv2d(3, 8, 3), nn.BatchNorm1d(8), nn.ReLU())
        out = block(torch.randn(2, 3, 10, 10))  # <-
        """, """
        block = nn.Sequential(nn.Conv2d(3, 8, 3), nn.BatchNorm2d(8), nn.ReLU())
        out = block(torch.randn(2, 3, 10, 10))
        """),
    Case("conv_after_flatten", "TTL525", "Expected 3D (unbatched) or 4D (batched) input to conv2d", """
        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.conv1 = nn.Conv2d(1, 8, 3)
                self.conv2 = nn.Conv2d(8, 8, 3)

            def forward(self, x):
                x = torch.flatten(F.relu(self.conv1(x)), 1)
                return self.conv2(x)  # <-

        out = Net()(torch.randn(2, 1, 12, 12))
        """, """
        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.conv1 = nn.Conv2d(1, 8, 3)
                self.conv2 = nn.Conv2d(8, 8, 3)

            def forward(self, x):
                x = F.relu(self.conv1(x))
                return torch.flatten(self.conv2(x), 1)

        out = Net()(torch.randn(2, 1, 12, 12))
        """),
    Case("conv2d_on_stacked_clips", "TTL525", "but got input of size: [1, 4, 3, 16, 16]", """
        conv = nn.Conv2d(3, 8, 3)
        clips = torch.stack([torch.randn(3, 16, 16) for _ in range(4)]).unsqueeze(0)
        out = conv(clips)  # <-
        """, """
        conv = nn.Conv2d(3, 8, 3)
        clips = torch.stack([torch.randn(3, 16, 16) for _ in range(4)])
        out = conv(clips)
        """),
    Case("decoder_output_larger_than_target", "TTL515", "must match the size of tensor b (28)", """
        decoder = nn.ConvTranspose2d(4, 1, 4, stride=2)
        images = torch.randn(2, 1, 28, 28)
        criterion = nn.MSELoss()
        loss = criterion(decoder(torch.randn(2, 4, 14, 14)), images)  # <-
        """, """
        decoder = nn.ConvTranspose2d(4, 1, 4, stride=2, padding=1)
        images = torch.randn(2, 1, 28, 28)
        criterion = nn.MSELoss()
        loss = criterion(decoder(torch.randn(2, 4, 14, 14)), images)
        """),
    Case("l1_loss_at_quarter_resolution", "TTL515", "must match the size of tensor b (32)", """
        net = nn.Sequential(nn.Conv2d(3, 1, 3, padding=1), nn.MaxPool2d(2), nn.MaxPool2d(2))
        target = torch.rand(2, 1, 32, 32)
        loss = F.l1_loss(net(torch.randn(2, 3, 32, 32)), target)  # <-
        """, """
        net = nn.Sequential(nn.Conv2d(3, 1, 3, padding=1), nn.MaxPool2d(2), nn.MaxPool2d(2))
        target = torch.rand(2, 1, 32, 32)
        pred = F.interpolate(net(torch.randn(2, 3, 32, 32)), size=(32, 32))
        loss = F.l1_loss(pred, target)
        """),
    Case("merge_heads_view_after_transpose", "TTL526", "view size is not compatible", """
        class Attention(nn.Module):
            def __init__(self):
                super().__init__()
                self.qkv = nn.Linear(16, 48)

            def forward(self, x):
                b, t, c = x.shape
                q, k, v = self.qkv(x).split(c, dim=2)
                q = q.view(b, t, 4, 4).transpose(1, 2)
                k = k.view(b, t, 4, 4).transpose(1, 2)
                v = v.view(b, t, 4, 4).transpose(1, 2)
                y = F.softmax(q @ k.transpose(-2, -1) / 2.0, dim=-1) @ v
                return y.transpose(1, 2).view(b, t, c)  # <-

        out = Attention()(torch.randn(2, 5, 16))
        """, """
        class Attention(nn.Module):
            def __init__(self):
                super().__init__()
                self.qkv = nn.Linear(16, 48)

            def forward(self, x):
                b, t, c = x.shape
                q, k, v = self.qkv(x).split(c, dim=2)
                q = q.view(b, t, 4, 4).transpose(1, 2)
                k = k.view(b, t, 4, 4).transpose(1, 2)
                v = v.view(b, t, 4, 4).transpose(1, 2)
                y = F.softmax(q @ k.transpose(-2, -1) / 2.0, dim=-1) @ v
                return y.transpose(1, 2).reshape(b, t, c)

        out = Attention()(torch.randn(2, 5, 16))
        """),
    Case("conv_features_permuted_then_viewed", "TTL526", "view size is not compatible", """
        conv = nn.Conv2d(3, 8, 3)
        feats = F.relu(conv(torch.randn(2, 3, 10, 10)))
        pairs = feats.permute(0, 2, 3, 1)
        pairs = pairs.view(-1, 2)  # <-
        """, """
        conv = nn.Conv2d(3, 8, 3)
        feats = F.relu(conv(torch.randn(2, 3, 10, 10)))
        pairs = feats.permute(0, 2, 3, 1)
        pairs = pairs.reshape(-1, 2)
        """),
    Case("permuted_name_flattened_with_view", "TTL526", "view size is not compatible", """
        features = nn.Linear(6, 8)(torch.randn(2, 5, 6))
        channels_first = features.permute(0, 2, 1)
        flat = channels_first.view(2, -1)  # <-
        """, """
        features = nn.Linear(6, 8)(torch.randn(2, 5, 6))
        channels_first = features.permute(0, 2, 1)
        flat = channels_first.contiguous().view(2, -1)
        """),
]

#: Programs near the bad ones that run in torch and must stay silent.
SILENT = {
    "unbatched_conv_and_sequence_batchnorm": """
        single = nn.Conv2d(3, 4, 3)(torch.randn(3, 8, 8))
        seq = nn.BatchNorm1d(4)(torch.randn(2, 4, 7))
        vol = nn.BatchNorm3d(4)(torch.randn(2, 4, 3, 3, 3))
        """,
    "loss_shapes_that_broadcast_are_ttl511s_or_fine": """
        pred = torch.randn(4, 3)
        loss = F.mse_loss(pred, torch.randn(4, 3))
        loss = F.l1_loss(pred, torch.randn(4, 3))
        """,
    "views_a_transposed_tensor_can_take": """
        table = torch.randn(4, 6)
        same = table.t().view(6, 4)
        split = table.t().view(3, 2, 4)
        heads = torch.randn(2, 4, 10, 8)
        more = heads.transpose(1, 2).view(2, 10, 4, 2, 4)
        """,
    "channels_last_conv_output_permuted_is_contiguous": """
        conv = nn.Conv2d(3, 8, 3)
        feats = conv(torch.randn(2, 3, 10, 10).contiguous(memory_format=torch.channels_last))
        pairs = feats.permute(0, 2, 3, 1).view(-1, 2)
        """,
    "cat_of_channels_last_maps_is_not_contiguous": """
        maps = torch.randn(2, 3, 4, 5).contiguous(memory_format=torch.channels_last)
        joined = torch.cat([maps, maps])
        pixels = joined.permute(0, 2, 3, 1).view(-1, 3)
        """,
    "from_numpy_keeps_the_arrays_layout": """
        import numpy as np
        table = torch.from_numpy(np.zeros((3, 4), dtype=np.float32).T)
        flat = table.t().view(-1)
        """,
    "torch_tensor_of_a_tensor_keeps_its_layout": """
        rows = torch.tensor(torch.randn(3, 4).t())
        flat = rows.t().view(-1)
        """,
    "transposed_twice_is_contiguous_again": """
        x = torch.randn(3, 4)
        y = x.t()
        y = y.t()
        flat = y.view(-1)
        """,
    "layout_of_a_parameter_is_unknown": """
        def flatten(x):
            x = x.transpose(0, 1)
            return x.view(-1)

        out = flatten(torch.randn(3, 4).t())
        """,
    "name_rebound_in_a_branch_is_unknown": """
        x = torch.randn(3, 4)
        y = x.t()
        if x.sum() > 1e9:
            y = torch.randn(4, 3)
        y = y.contiguous()
        flat = y.view(-1)
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


def test_view_stride_arithmetic_matches_torch() -> None:
    """``view_strides`` accepts exactly the views torch accepts on permuted contiguous tensors,
    with torch's strides."""
    torch = pytest.importorskip("torch")
    rng = random.Random(25)
    for _ in range(1500):
        shape = [rng.choice([1, 2, 3, 4, 6]) for _ in range(rng.randint(1, 4))]
        order = list(range(len(shape)))
        rng.shuffle(order)
        x = torch.zeros(*shape).permute(*order)
        view_shape, strides = permuted(shape, contiguous_strides(shape), order)
        assert (tuple(x.shape), tuple(x.stride())) == (view_shape, strides)
        target, rest = [], x.numel()
        while rest > 1 and len(target) < 4:
            size = rng.choice([d for d in range(1, rest + 1) if rest % d == 0])
            target.append(size)
            rest //= size
        target.append(rest)
        rng.shuffle(target)
        try:
            expected = tuple(x.view(*target).stride())
        except RuntimeError:
            expected = None
        assert view_strides(view_shape, strides, target) == expected, (shape, order, target)
