"""False alarms of the default rules found on the real-world corpus's user-code half (issue 14:
courses, tutorials, research code, notebooks; docs/real-world.md), each reduced to a few lines
and fixed. For each: torch runs the program without an error, and the linter stays silent on
it (as a script, and laid out as a notebook where the corpus had it in one)."""
from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, List

import pytest

from torchtype_lint.checker.check import check_bytes
from torchtype_lint.model.selection import Selection
from torchtype_lint.model.settings import Settings

torch = pytest.importorskip("torch")

#: A third-party operator the linter cannot see into, as ``torchkbnufft.KbNufft`` is: a module
#: with a float32 buffer that ``.to(complex_tensor)`` turns complex128 (Module.to casts floating
#: buffers to a complex dtype too), combining its two inputs elementwise.
STAND_IN_OPERATOR = """
import torch


class KbNufft(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("table", torch.ones(8))

    def forward(self, image, traj):
        return image * torch.exp(1j * traj) * self.table
"""


@dataclass(frozen=True)
class FalseAlarm:
    """A program that works in torch, the rule that reports it, and where the corpus has it."""

    program: str
    code: str
    #: The corpus findings it reduces (benchmarks/triage.json keys, shortened).
    corpus: str
    #: Why the finding is wrong.
    reason: str


CASES: Dict[str, FalseAlarm] = {
    "float64 tensor that only meets complex128 data": FalseAlarm(
        """
        import numpy as np
        import torch

        image = torch.tensor(np.ones((1, 8)).astype(complex))
        traj = torch.tensor(np.linspace(-np.pi, np.pi, 8))
        kdata = image * torch.exp(1j * traj)
        assert kdata.dtype == torch.complex128
        """,
        "TTL301",
        "torchkbnufft-1.5.2/.../notebooks/*.ipynb:cell 7:2 (4 notebooks)",
        "the program computes in double precision on purpose (complex128 image): the float64 "
        "trajectory meets no float32 value, so nothing fails and nothing is silently promoted by it; "
        "the suggested dtype=torch.float32 only rounds the trajectory",
    ),
    "float64 tensor fed to a module cast .to(a complex128 tensor)": FalseAlarm(
        """
        import numpy as np
        import torch
        from nufft import KbNufft

        image = torch.tensor(np.ones((1, 8)).astype(complex))
        traj = torch.tensor(np.linspace(-np.pi, np.pi, 8))
        op = KbNufft().to(image)
        kdata = op(image, traj)
        assert kdata.dtype == torch.complex128 and op.table.dtype == torch.complex128
        """,
        "TTL301",
        "torchkbnufft-1.5.2/.../notebooks/*.ipynb:cell 7:2 (4 notebooks; the notebooks' own shape)",
        "the operator is made complex128 by .to(image), so the float64 trajectory is what it takes "
        "(the issue's 'model made float64' case, reached through .to(tensor))",
    ),
    "reduction .all(1) inside an & chain (found while reducing)": FalseAlarm(
        """
        import torch

        a = torch.randn(4, 3)
        singular = torch.zeros(4, dtype=torch.int32) > 0
        usable = ~singular & torch.isfinite(a).all(1)
        assert usable.shape == (4,)
        """,
        "TTL515",
        "none in the corpus: found reducing kornia's TTL213 (essential.py:394), whose shapes are unknown",
        "torch.isfinite(a).all(1) has shape (4,), not (4, 3): the engine keeps the unreduced shape here",
    ),
    "module cast .to(a float64 tensor), then fed float64 (found while reducing)": FalseAlarm(
        """
        import numpy as np
        import torch

        x = torch.tensor(np.zeros((4, 3)))
        model = torch.nn.Linear(3, 3).to(x)
        y = model(x)
        assert y.dtype == torch.float64
        """,
        "TTL401",
        "none in the corpus: the notebooks above cast a third-party module this way",
        "Module.to(tensor) takes the tensor's dtype (and device): the Linear is float64, not float32",
    ),
}


def _program(case: FalseAlarm) -> str:
    return textwrap.dedent(case.program).lstrip()


def _codes(data: bytes, path: str) -> List[str]:
    settings = Settings(selection=Selection(select=["TTL"]))
    return [f.code for f in check_bytes(data, path, settings).findings]


def _as_notebook(source: str) -> bytes:
    """The program as a notebook: imports in one code cell, each later line in a cell of its own
    after a markdown cell, as a tutorial notebook lays it out."""
    lines = source.splitlines()
    imports = [line for line in lines if line.startswith(("import ", "from "))]
    rest = [line for line in lines[len(imports):] if line.strip()]
    cells = [{"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None,
              "source": "\n".join(imports)}]
    for line in rest:
        cells.append({"cell_type": "markdown", "metadata": {}, "source": "next step"})
        cells.append({"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None, "source": line})
    notebook = {"cells": cells, "metadata": {"kernelspec": {"language": "python", "name": "python3"},
                                             "language_info": {"name": "python"}},
                "nbformat": 4, "nbformat_minor": 5}
    return json.dumps(notebook, indent=1).encode("utf-8")


@pytest.mark.parametrize("name", sorted(CASES))
def test_program_runs_in_torch(name, tmp_path: Path):
    (tmp_path / "nufft.py").write_text(STAND_IN_OPERATOR, encoding="utf-8")
    ran = subprocess.run([sys.executable, "-c", _program(CASES[name])], cwd=tmp_path,
                         capture_output=True, text=True, timeout=120)
    assert ran.returncode == 0, ran.stderr[-800:]


@pytest.mark.parametrize("name", sorted(CASES))
def test_linter_is_silent(name):
    case = CASES[name]
    assert _codes(_program(case).encode("utf-8"), "p.py") == [], f"{case.code}: {case.reason}"


@pytest.mark.parametrize("name", ["float64 tensor fed to a module cast .to(a complex128 tensor)"])
def test_linter_is_silent_in_the_notebook_layout(name):
    assert _codes(_as_notebook(_program(CASES[name])), "p.ipynb") == []
