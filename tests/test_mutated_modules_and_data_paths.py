"""Issue 25: modules changed after construction, and paths the data decides.

Each case is a small program with the finding expected on the line marked ``# <-`` and a twin
that is fine and must be silent (no finding at all). Every claim is checked against torch in
one subprocess: the bad program raises what the case says, the twin runs to its end. A dtype
mismatch's wording depends on the CPU, device and torch version: those cases name the exception
class and take any wording the rule's runtime claim knows (tests/torch_runs.py).

Modules changed after construction: an attribute assigned twice (the later wins), ``setattr``
and ``__dict__`` stores (an unknown name makes the attributes unknown), tensors kept as plain
attributes that ``model.half()`` / ``.to(dtype)`` leave float32, a table rebuilt in ``forward``
with the dtype of such an attribute, a state loop reaching BatchNorm's int64 counter (TTL214),
the default dtype set by a loading function. Paths the data decides: ``torch.tensor`` of a list
the data may leave empty (TTL215), a DataLoader's smaller last batch meeting the configured
batch size (TTL522).
"""
from __future__ import annotations

import textwrap
from dataclasses import dataclass
from typing import List, Tuple

import pytest
from torch_runs import AsClaimed, Raises, raised_as_said, run_in_torch

from torchtype_lint.checker.check import Settings, check_source
from torchtype_lint.model.selection import Selection

HEADER = ("import copy\nimport torch\nimport torch.nn as nn\nimport torch.nn.functional as F\n"
          "from torch.utils.data import DataLoader, Dataset, TensorDataset\n")
HEADER_LINES = HEADER.count("\n")


@dataclass(frozen=True)
class Case:
    """``bad`` fails in torch with ``raises`` (a substring, or ``AsClaimed``: the exception
    class, with any wording the rule's runtime claim knows, where torch words it differently by
    CPU, device or version) and gets ``code`` on its ``# <-`` line; ``good`` runs and gets no
    finding."""

    name: str
    code: str
    raises: Raises
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


CASES = [
    Case("assigned_twice_later_wins", "TTL502", "mat1 and mat2 shapes cannot be multiplied", """
        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = nn.Linear(8, 4)
                self.fc = nn.Linear(16, 4)

            def forward(self, x):
                return self.fc(x)  # <-

        out = Net()(torch.randn(2, 8))
        """, """
        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = nn.Linear(16, 4)
                self.fc = nn.Linear(8, 4)

            def forward(self, x):
                return self.fc(x)

        out = Net()(torch.randn(2, 8))
        """),
    Case("setattr_known_name_replaces", "TTL502", "mat1 and mat2 shapes cannot be multiplied", """
        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = nn.Linear(8, 4)
                setattr(self, "fc", nn.Linear(16, 4))

            def forward(self, x):
                return self.fc(x)  # <-

        out = Net()(torch.randn(2, 8))
        """, """
        class Net(nn.Module):
            def __init__(self, names):
                super().__init__()
                self.fc = nn.Linear(16, 4)
                for name in names:
                    setattr(self, name, nn.Linear(8, 4))

            def forward(self, x):
                return self.fc(x)

        out = Net(["fc"])(torch.randn(2, 8))
        """),
    Case("dict_store_replaces", "TTL502", "mat1 and mat2 shapes cannot be multiplied", """
        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = nn.Linear(8, 4)
                self.__dict__["fc"] = nn.Linear(16, 4)

            def forward(self, x):
                return self.fc(x)  # <-

        out = Net()(torch.randn(2, 8))
        """, """
        class Net(nn.Module):
            def __init__(self, **layers):
                super().__init__()
                self.fc = nn.Linear(16, 4)
                self.__dict__.update(layers)

            def forward(self, x):
                return self.fc(x)

        out = Net(fc=nn.Linear(8, 4))(torch.randn(2, 8))
        """),
    Case("plain_tensor_attribute_after_half", "TTL401", AsClaimed("RuntimeError"), """
        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.pe = torch.zeros(1, 4, 8)
                self.fc = nn.Linear(8, 8)

            def forward(self, x):
                return self.fc(x + self.pe)  # <-

        model = Net().half()
        out = model(torch.randn(2, 4, 8).half())
        """, """
        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.register_buffer("pe", torch.zeros(1, 4, 8))
                self.fc = nn.Linear(8, 8)

            def forward(self, x):
                return self.fc(x + self.pe)

        model = Net().half()
        out = model(torch.randn(2, 4, 8).half())
        """),
    Case("plain_tensor_attribute_after_to_dtype", "TTL401", AsClaimed("RuntimeError"), """
        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.scale = torch.ones(8)
                self.fc = nn.Linear(8, 8)

            def forward(self, x):
                return self.fc(x * self.scale)  # <-

        model = Net().to(torch.float16)
        out = model(torch.randn(2, 8).to(torch.float16))
        """, """
        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.scale = nn.Parameter(torch.ones(8))
                self.fc = nn.Linear(8, 8)

            def forward(self, x):
                return self.fc(x * self.scale)

        model = Net().to(torch.float16)
        out = model(torch.randn(2, 8).to(torch.float16))
        """),
    Case("table_rebuilt_with_plain_attribute_dtype", "TTL401", AsClaimed("RuntimeError"), """
        class Rotary(nn.Module):
            def __init__(self, dim):
                super().__init__()
                self.inv_freq = 1.0 / (10000 ** (torch.arange(0, dim, 2).float() / dim))
                self.proj = nn.Linear(dim, dim)

            def forward(self, x):
                t = torch.arange(x.shape[1], device=x.device, dtype=self.inv_freq.dtype)
                freqs = torch.outer(t, self.inv_freq)
                emb = torch.cat([freqs.sin(), freqs.cos()], dim=-1)
                return self.proj(x + emb)  # <-

        model = Rotary(8).half()
        out = model(torch.randn(2, 4, 8).half())
        """, """
        class Rotary(nn.Module):
            def __init__(self, dim):
                super().__init__()
                self.register_buffer("inv_freq", 1.0 / (10000 ** (torch.arange(0, dim, 2).float() / dim)))
                self.proj = nn.Linear(dim, dim)

            def forward(self, x):
                t = torch.arange(x.shape[1], device=x.device, dtype=self.inv_freq.dtype)
                freqs = torch.outer(t, self.inv_freq)
                emb = torch.cat([freqs.sin(), freqs.cos()], dim=-1)
                return self.proj(x + emb)

        model = Rotary(8).half()
        out = model(torch.randn(2, 4, 8).half())
        """),
    Case("default_dtype_set_by_loading_code", "TTL401", AsClaimed("RuntimeError"), """
        def load_settings():
            torch.set_default_dtype(torch.float64)

        load_settings()
        layer = nn.Linear(4, 2)
        out = layer(torch.randn(3, 4, dtype=torch.float32))  # <-
        torch.set_default_dtype(torch.float32)
        """, """
        def load_settings():
            torch.set_default_dtype(torch.float64)

        load_settings()
        layer = nn.Linear(4, 2)
        out = layer(torch.randn(3, 4))
        torch.set_default_dtype(torch.float32)
        """),
    Case("state_dict_loop_normal", "TTL214", "not implemented for 'Long'", """
        model = nn.Sequential(nn.Linear(4, 4), nn.BatchNorm1d(4))
        with torch.no_grad():
            for name, v in model.state_dict().items():
                v.normal_(0.0, 0.02)  # <-
        """, """
        model = nn.Sequential(nn.Linear(4, 4), nn.BatchNorm1d(4))
        with torch.no_grad():
            for name, v in model.state_dict().items():
                if v.is_floating_point():
                    v.normal_(0.0, 0.02)
        """),
    Case("state_dict_average_divides", "TTL214", "can't be cast to the desired output type Long", """
        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.conv = nn.Conv2d(1, 2, 3)
                self.bn = nn.BatchNorm2d(2)

            def forward(self, x):
                return self.bn(self.conv(x))

        def average(models):
            total = copy.deepcopy(models[0].state_dict())
            for key in total.keys():
                for other in models[1:]:
                    total[key] += other.state_dict()[key]
                total[key] /= len(models)  # <-
            return total

        out = average([Net(), Net()])
        """, """
        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.conv = nn.Conv2d(1, 2, 3)
                self.bn = nn.BatchNorm2d(2)

            def forward(self, x):
                return self.bn(self.conv(x))

        def average(models):
            total = copy.deepcopy(models[0].state_dict())
            for key in total.keys():
                for other in models[1:]:
                    total[key] += other.state_dict()[key]
                total[key] = torch.div(total[key], len(models))
            return total

        out = average([Net(), Net()])
        """),
    Case("state_dict_update_scaled_by_float", "TTL214", "can't be cast to the desired output type Long", """
        def shrink(target, accumulated, eta, n):
            for name, data in target.state_dict().items():
                update = accumulated[name] * (eta / n)
                data.add_(update)  # <-

        model = nn.Sequential(nn.Conv2d(1, 2, 3), nn.BatchNorm2d(2))
        shrink(model, {k: torch.zeros_like(v) for k, v in model.state_dict().items()}, 0.1, 2)
        """, """
        def shrink(target, accumulated, eta, n):
            for name, data in target.state_dict().items():
                update = accumulated[name] * (eta / n)
                data.add_(update.to(data.dtype))

        model = nn.Sequential(nn.Conv2d(1, 2, 3), nn.BatchNorm2d(2))
        shrink(model, {k: torch.zeros_like(v) for k, v in model.state_dict().items()}, 0.1, 2)
        """),
    Case("empty_filtered_list_index", "TTL215", "tensors used as indices must be long", """
        scores = torch.zeros(6)
        keep = []
        for i in range(6):
            if scores[i] > 0.5:
                keep.append(i)
        out = scores[torch.tensor(keep)]  # <-
        """, """
        scores = torch.zeros(6)
        keep = []
        for i in range(6):
            if scores[i] > 0.5:
                keep.append(i)
        out = scores[torch.tensor(keep, dtype=torch.long)]
        """),
    Case("empty_comprehension_class_target", "TTL215", AsClaimed("RuntimeError"), """
        labels = [4, 5, 6]
        kept = [label for label in labels if label < 3]
        target = torch.tensor(kept)
        out = F.cross_entropy(torch.randn(len(kept), 3), target)  # <-
        """, """
        labels = [4, 5, 6]
        kept = [label for label in labels if label < 3]
        if len(kept) > 0:
            out = F.cross_entropy(torch.randn(len(kept), 3), torch.tensor(kept))
        """),
    Case("last_batch_view_known_size", "TTL522", "shapes cannot be multiplied", """
        batch_size = 4
        data = TensorDataset(torch.randn(10, 3, 8), torch.randint(0, 2, (10,)))
        fc = nn.Linear(24, 2)
        for x, y in DataLoader(data, batch_size=batch_size, shuffle=True):
            out = fc(x.view(batch_size, -1))  # <-
        """, """
        batch_size = 4
        data = TensorDataset(torch.randn(12, 3, 8), torch.randint(0, 2, (12,)))
        fc = nn.Linear(24, 2)
        for x, y in DataLoader(data, batch_size=batch_size, shuffle=True):
            out = fc(x.view(batch_size, -1))
        """),
    Case("last_batch_view_unknown_size", "TTL522", "shapes cannot be multiplied", """
        class Frames(Dataset):
            def __init__(self, n):
                self.x = torch.randn(n, 3, 8)

            def __len__(self):
                return len(self.x)

            def __getitem__(self, i):
                return self.x[i], 0

        batch_size = 4
        fc = nn.Linear(24, 2)
        n = torch.randint(10, 11, ()).item()  # a size the linter cannot know
        for x, y in DataLoader(Frames(n), batch_size=batch_size):
            out = fc(x.view(batch_size, -1))  # <-
        """, """
        class Frames(Dataset):
            def __init__(self, n):
                self.x = torch.randn(n, 3, 8)

            def __len__(self):
                return len(self.x)

            def __getitem__(self, i):
                return self.x[i], 0

        batch_size = 4
        fc = nn.Linear(24, 2)
        n = torch.randint(10, 11, ()).item()
        for x, y in DataLoader(Frames(n), batch_size=batch_size, drop_last=True):
            out = fc(x.view(batch_size, -1))
        """),
    Case("last_batch_fixed_loss_target", "TTL522", "must match the size of tensor b", """
        batch_size = 10
        disc = nn.Sequential(nn.Linear(6, 1), nn.Sigmoid())
        crit = nn.MSELoss()
        real_labels = torch.ones(batch_size, 1)

        def train(loader):
            for (y,) in loader:
                loss = crit(disc(y), real_labels)  # <-

        train(DataLoader(TensorDataset(torch.randn(15, 6)), batch_size=batch_size, shuffle=True))
        """, """
        batch_size = 10
        disc = nn.Sequential(nn.Linear(6, 1), nn.Sigmoid())
        crit = nn.MSELoss()

        def train(loader):
            for (y,) in loader:
                loss = crit(disc(y), torch.ones(y.size(0), 1))

        train(DataLoader(TensorDataset(torch.randn(15, 6)), batch_size=batch_size, shuffle=True))
        """),
    Case("last_batch_of_one_bare_squeeze", "TTL522", "must be the same as input size", """
        class Scorer(nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = nn.Linear(6, 1)

            def forward(self, x):
                return self.fc(x).squeeze()

        data = TensorDataset(torch.randn(17, 6), torch.randint(0, 2, (17,)).float())
        model = Scorer()
        for x, y in DataLoader(data, batch_size=8, shuffle=True):
            loss = F.binary_cross_entropy_with_logits(model(x), y)  # <-
        """, """
        class Scorer(nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = nn.Linear(6, 1)

            def forward(self, x):
                return self.fc(x).squeeze(1)

        data = TensorDataset(torch.randn(17, 6), torch.randint(0, 2, (17,)).float())
        model = Scorer()
        for x, y in DataLoader(data, batch_size=8, shuffle=True):
            loss = F.binary_cross_entropy_with_logits(model(x), y)
        """),
    Case("batch_rows_concatenated", "TTL523", "to match target batch_size", """
        class Fusion(nn.Module):
            def __init__(self):
                super().__init__()
                self.a = nn.Linear(5, 8)
                self.b = nn.Linear(3, 8)
                self.head = nn.Linear(8, 4)

            def forward(self, xa, xb):
                return self.head(torch.cat([self.a(xa), self.b(xb)]))

        data = TensorDataset(torch.randn(12, 5), torch.randn(12, 3), torch.randint(0, 4, (12,)))
        model = Fusion()
        for xa, xb, y in DataLoader(data, batch_size=4):
            loss = F.cross_entropy(model(xa, xb), y)  # <-
        """, """
        class Fusion(nn.Module):
            def __init__(self):
                super().__init__()
                self.a = nn.Linear(5, 8)
                self.b = nn.Linear(3, 8)
                self.head = nn.Linear(16, 4)

            def forward(self, xa, xb):
                return self.head(torch.cat([self.a(xa), self.b(xb)], dim=1))

        data = TensorDataset(torch.randn(12, 5), torch.randn(12, 3), torch.randint(0, 4, (12,)))
        model = Fusion()
        for xa, xb, y in DataLoader(data, batch_size=4):
            loss = F.cross_entropy(model(xa, xb), y)
        """),
    Case("last_batch_rnn_hidden", "TTL522", "Expected hidden size", """
        rnn = nn.GRU(8, 16, batch_first=True)
        data = TensorDataset(torch.randn(20, 5, 8))
        BATCH = 8
        for step, (x,) in enumerate(DataLoader(data, batch_size=BATCH)):
            h0 = torch.zeros(1, BATCH, 16)  # <-
            out, h = rnn(x, h0)
        """, """
        rnn = nn.GRU(8, 16, batch_first=True)
        data = TensorDataset(torch.randn(20, 5, 8))
        BATCH = 8
        for step, (x,) in enumerate(DataLoader(data, batch_size=BATCH)):
            h0 = torch.zeros(1, x.size(0), 16)
            out, h = rnn(x, h0)
        """),
]


#: Programs that run in torch and look like the bad ones: each must be silent.
SILENT = {
    "append_in_both_branches": """
        scores = torch.zeros(6)
        keep = []
        for i in range(6):
            if scores[i] > 0.5:
                keep.append(i)
            else:
                keep.append(0)
        out = scores[torch.tensor(keep)]
        """,
    "batches_of_any_size_concatenated": """
        batch_size = 8
        gen = nn.Linear(4, 6)
        disc = nn.Sequential(nn.Linear(6, 1), nn.Sigmoid())
        for (real,) in DataLoader(TensorDataset(torch.randn(20, 6)), batch_size=batch_size, shuffle=True):
            z = torch.randn(batch_size, 4)
            both = torch.cat([real, gen(z)])
            labels = torch.cat([torch.ones(real.size(0), 1), torch.zeros(batch_size, 1)])
            out = F.binary_cross_entropy(disc(both), labels)
        """,
    "plain_attribute_after_double_promotes": """
        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.pe = torch.zeros(1, 4, 8)
                self.fc = nn.Linear(8, 8)

            def forward(self, x):
                return self.fc(x + self.pe)

        model = Net().double()
        out = model(torch.randn(2, 4, 8).double())
        """,
    "rows_concatenated_with_their_targets": """
        head = nn.Linear(5, 4)
        data = TensorDataset(torch.randn(12, 5), torch.randint(0, 4, (12,)))
        for x, y in DataLoader(data, batch_size=4):
            both = torch.cat([x, x + 0.1 * torch.randn_like(x)])
            out = F.cross_entropy(head(both), torch.cat([y, y]))
            out = F.cross_entropy(head(both), y.repeat(2))
            out = F.cross_entropy(head(both)[: y.size(0)], y)
        """,
    "state_entry_reassigned_first": """
        model = nn.Sequential(nn.Linear(4, 4), nn.BatchNorm1d(4))
        state = model.state_dict()
        for key in state:
            state[key] = state[key].float()
            state[key] *= 0.5
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
    """TTL215 and TTL522 say on which run the program fails."""
    by_name = {c.name: c for c in CASES}
    assert any("when `keep` stays empty" in m for m in messages(by_name["empty_filtered_list_index"].bad))
    known = messages(by_name["last_batch_view_known_size"].bad)
    assert any("holds 2 samples because the dataset size (10) is not a multiple of the batch size (4)" in m
               for m in known)
    unknown = messages(by_name["last_batch_view_unknown_size"].bad)
    assert any("when the dataset size is not a multiple of the batch size (4)" in m for m in unknown)
    # the dataset class's own __len__ gives the size when it returns a known int
    own_len = messages(by_name["last_batch_view_unknown_size"].bad.replace("Frames(n)", "Frames(10)"))
    assert any("holds 2 samples because the dataset size (10) is not a multiple of the batch size (4)" in m
               for m in own_len)


def test_warning_severity() -> None:
    from torchtype_lint.rules.base import get_rule

    assert get_rule("TTL215").severity == "warning"
    assert get_rule("TTL522").severity == "warning"
    assert get_rule("TTL214").severity == "error"  # the loop visits the int64 buffer every time


def test_unknown_setattr_name_forgets_attributes() -> None:
    """Precision first: before, ``self.fc`` kept Linear(16, 4) and this program was TTL502."""
    assert findings(CASES[1].good) == []


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
        assert raised_as_said(case.code, case.raises, results[case.name + ":bad"]), (
            case.name, results[case.name + ":bad"])
        assert results[case.name + ":good"] == "", (case.name, results[case.name + ":good"])
