"""``view`` judged on layouts that real programs make before it (issue 25): the output of a
recurrent layer on the CPU (time-major row-major; ``batch_first`` the time-major one transposed
back), ``narrow``/``select``/``chunk`` views, ``torch.cat``/``repeat``/``F.pad`` copies, a
dtype conversion of a numpy column (its long dim moves by one element, its size-1 dim's stride
not known), and the first iteration of a ``range`` loop of known ints (it certainly runs, with
its first number).

Each case is a small program with the TTL526 finding on the line marked ``# <-`` and a twin
that is fine and silent; look-alikes must be silent. Every program is run in torch (one
subprocess): the bad ones raise torch's view error, the twins and look-alikes run to the end.
"""
from __future__ import annotations

import textwrap
from dataclasses import dataclass
from typing import List, Tuple

import pytest
from torch_runs import run_in_torch

from torchtype_lint.checker.check import Settings, check_source
from torchtype_lint.model.selection import Selection

HEADER = ("import numpy as np\nimport torch\nimport torch.nn as nn\nimport torch.nn.functional as F\n\n\n"
          "def show(*values):\n    return values\n\n\n")
HEADER_LINES = HEADER.count("\n")
VIEW_ERROR = "view size is not compatible with input tensor's size and stride"


@dataclass(frozen=True)
class Case:
    name: str
    bad: str
    good: str


def _program(body: str) -> str:
    return HEADER + textwrap.dedent(body).lstrip("\n")


def findings(body: str) -> List[Tuple[int, str, str]]:
    settings = Settings(selection=Selection(select=["TTL"]))
    return [(f.line - HEADER_LINES, f.code, f.message)
            for f in check_source(_program(body), "program.py", settings).findings]


def marked_line(body: str) -> int:
    lines = textwrap.dedent(body).lstrip("\n").splitlines()
    return next(i for i, line in enumerate(lines, 1) if "# <-" in line)


_GRU_TRANSPOSED = """
class Tagger(nn.Module):
    def __init__(self):
        super().__init__()
        self.gru = nn.GRU(8, 16, bidirectional=True)
        self.out = nn.Linear(32, 4)

    def forward(self, x):
        output, _ = self.gru(x)
        batch_first = output.transpose(0, 1){fix}
        return self.out(batch_first.view(-1, 32))  # <-


show(Tagger()(torch.randn(12, 4, 8)).shape)
"""

_LSTM_BATCH_FIRST = """
lstm = nn.LSTM(5, 7, num_layers=2, batch_first=True)
out, (h, c) = lstm(torch.randn(3, 4, 5))
flat = out.{flatten}(-1, 7)  # <-
show(flat.shape)
"""

_BATCHIFY = """
def batchify(data, bsz):
    nbatch = data.size(0) // bsz
    data = data.narrow(0, 0, nbatch * bsz)
    return data.view(bsz, -1, data.size(-1)).transpose(0, 1){fix}


series = torch.from_numpy(np.sin(np.arange(203) / 5.0)[:, None]).float()
source = batchify(series, 4)
for i in range(0, source.size(0) - 1, 10):
    seq_len = min(10, source.size(0) - 1 - i)
    target = source[i + 1:i + 1 + seq_len]
    show(target.view(4, -1).shape)  # <-
"""

_CHUNKED_HEADS = """
qkv = torch.randn(2, 10, 48).transpose(0, 1)
q, k, v = qkv.chunk(3, dim=-1)
merged = torch.cat([q, k], dim=-1).view(20, 32)
show(q.{flatten}(20, 16).shape)  # <-
"""

CASES = [
    Case("gru_output_transposed_then_viewed", _GRU_TRANSPOSED.format(fix=""),
         _GRU_TRANSPOSED.format(fix=".contiguous()").replace("  # <-", "")),
    Case("lstm_batch_first_output_viewed", _LSTM_BATCH_FIRST.format(flatten="view"),
         _LSTM_BATCH_FIRST.format(flatten="reshape").replace("  # <-", "")),
    Case("batchify_narrow_view_transpose_then_slice_viewed", _BATCHIFY.format(fix=""),
         _BATCHIFY.format(fix=".contiguous()").replace("  # <-", "")),
    Case("chunk_of_transposed_viewed", _CHUNKED_HEADS.format(flatten="view"),
         _CHUNKED_HEADS.format(flatten="reshape").replace("  # <-", "")),
]

#: Programs that run: views the strides allow, and layouts the linter must not claim.
SILENT = {
    # the time-major output is row-major: any view of it fits
    "time_major_output_viewed": """
        out, _ = nn.LSTM(5, 7)(torch.randn(3, 4, 5))
        show(out.view(-1, 7).shape)
    """,
    # a batch_first output split along its last dim keeps the other dims' strides
    "batch_first_output_split_last_dim": """
        out, _ = nn.GRU(5, 8, batch_first=True)(torch.randn(3, 4, 5))
        show(out.view(3, 4, 2, 4).shape)
    """,
    # the final states are row-major even with batch_first
    "batch_first_hidden_viewed": """
        _, h = nn.GRU(5, 8, 2, batch_first=True)(torch.randn(3, 4, 5))
        show(h.view(-1, 8).shape)
    """,
    # cat of transposed pieces is a new row-major tensor
    "cat_of_transposed_viewed": """
        t = torch.randn(6, 4, 5).transpose(0, 1)
        show(torch.cat([t, t], 0).view(-1, 5).shape)
    """,
    # repeat and F.pad copy into row-major memory
    "repeat_and_pad_of_transposed_viewed": """
        t = torch.randn(6, 4).t()
        show(t.repeat(2, 1).view(-1).shape, F.pad(t, (1, 1)).view(-1).shape)
    """,
    # narrow along the first dim keeps a row-major tensor row-major
    "narrow_rows_viewed": """
        show(torch.randn(10, 3).narrow(0, 2, 4).view(-1).shape)
    """,
    # a column whose size-1 stride is not known views fine where only the long dim matters
    "column_converted_viewed": """
        col = torch.from_numpy(np.arange(12.0)[:, None]).float()
        show(col.view(3, 4).shape, col.view(12).shape)
    """,
    # a range loop that may run no iteration is not run on its own
    "empty_range_not_peeled": """
        x = torch.randn(4, 6).t()
        for i in range(0):
            x = x.view(-1)
        show(x.shape)
    """,
    # the first iteration's number is the range's start: a view that fits for it
    "range_first_iteration_fits": """
        x = torch.randn(8, 6).t()
        for i in range(1, 5):
            show(x[:, :i].reshape(-1).shape, x[:i].view(i, 8).shape)
    """,
}


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_bad_program_reported_on_its_line(case: Case) -> None:
    found = findings(case.bad)
    assert (marked_line(case.bad), "TTL526") in [(line, code) for line, code, _ in found], found
    message = next(m for line, code, m in found if code == "TTL526")
    assert "reshape" in message and ".contiguous()" in message


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_fixed_twin_is_silent(case: Case) -> None:
    assert findings(case.good) == []


@pytest.mark.parametrize("name", sorted(SILENT))
def test_look_alikes_are_silent(name: str) -> None:
    assert findings(SILENT[name]) == []


def test_message_names_the_line_the_layout_came_from() -> None:
    """The finding on the GRU output names the transpose, by line and text."""
    found = findings(CASES[0].bad)
    message = next(m for _, code, m in found if code == "TTL526")
    lines = textwrap.dedent(CASES[0].bad).lstrip("\n").splitlines()
    transpose_line = next(i for i, line in enumerate(lines, 1) if "transpose(0, 1)" in line) + HEADER_LINES
    assert f"since line {transpose_line}: `output.transpose(0, 1)`" in message, message


def test_unknown_device_leaves_recurrent_layouts_unknown() -> None:
    """cuDNN's layout was not measured: a recurrent output on a device not known to be the CPU
    gives no view finding (the program is not run: it may need a GPU)."""
    body = """
        device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
        lstm = nn.LSTM(5, 7, batch_first=True).to(device)
        out, _ = lstm(torch.randn(3, 4, 5, device=device))
        show(out.view(-1, 7).shape)
    """
    assert [f for f in findings(body) if f[1] == "TTL526"] == []


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
        assert VIEW_ERROR in results[case.name + ":bad"], (case.name, results[case.name + ":bad"])
        assert results[case.name + ":good"] == "", (case.name, results[case.name + ":good"])
