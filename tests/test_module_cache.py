"""A project module's body is run once per process and reused by the next analyses that import
it (``engine/module_cache.py``) only where that cannot change any finding: what one analysis
does to the module's values is never seen by another, and a body that depends on anything but
its own text and its import-time defaults is run again each time.

Each test compares the findings of analyses run one after the other in this process (reusing
kept bodies) with the findings of each file analysed alone, with nothing kept."""
from __future__ import annotations

from pathlib import Path
from typing import Dict, List, Tuple

import pytest

from torchtype_lint.checker.check import Settings, check_source
from torchtype_lint.engine import module_cache
from torchtype_lint.source.project import sources

Findings = List[Tuple[int, str]]


@pytest.fixture(autouse=True)
def nothing_kept(monkeypatch):
    monkeypatch.setattr(module_cache, "_kept", type(module_cache._kept)())
    monkeypatch.setattr(sources, "_parsed", type(sources._parsed)())


def _project(tmp_path: Path, files: Dict[str, str]) -> Path:
    (tmp_path / "pyproject.toml").write_text("")
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    return tmp_path


def _findings(path: Path) -> Findings:
    result = check_source(path.read_text(), str(path), Settings())
    return [(f.line, f.code) for f in result.findings]


def _alone(path: Path) -> Findings:
    module_cache.forget_all()
    sources._parsed.clear()
    return _findings(path)


def _kept_paths() -> List[str]:
    return sorted(Path(key[0]).name for key in module_cache._kept)


CONSTS = """\
import torch

W = torch.randn(4, 4, dtype=torch.float64)
SIZES = (4, 8)

def project(x):
    return x @ W

class Scale:
    factor = 2.0
"""

#: Replaces the module's global: only its own analysis may see the float32 W.
MUTATES = """\
import torch
import consts

consts.W = consts.W.float()
y = torch.ones(2, 4) @ consts.W
z = consts.project(torch.ones(2, 4))
"""

#: Uses the module as its text makes it: float64 W against a float32 tensor, twice.
READS = """\
import torch
from consts import W, project

y = torch.ones(2, 4) @ W
z = project(torch.ones(2, 4))
"""


def test_a_kept_module_never_carries_one_analysis_assignment_into_the_next(tmp_path):
    root = _project(tmp_path, {"consts.py": CONSTS, "a.py": MUTATES, "b.py": READS})
    alone = {name: _alone(root / name) for name in ("a.py", "b.py")}
    assert alone["b.py"] and not alone["a.py"]  # the float64 W fails in b only
    module_cache.forget_all()
    for order in (("a.py", "b.py", "a.py"), ("b.py", "a.py", "b.py")):
        for name in order:
            assert _findings(root / name) == alone[name], (order, name)
    assert _kept_paths() == ["consts.py"]  # reused, not merely run again


LAYERS = """\
import torch
import torch.nn as nn

layer = nn.Linear(4, 4)
"""

CASTS = """\
import torch
import layers

layers.layer.double()
out = layers.layer(torch.ones(2, 4, dtype=torch.float64))
"""

USES = """\
import torch
from layers import layer

out = layer(torch.ones(2, 4, dtype=torch.float64))
"""


def test_a_module_holding_an_nn_module_is_run_again_for_each_analysis(tmp_path):
    # layers.layer.double() acts in place: the next analysis must see a float32 layer again.
    root = _project(tmp_path, {"layers.py": LAYERS, "casts.py": CASTS, "uses.py": USES})
    alone = {name: _alone(root / name) for name in ("casts.py", "uses.py")}
    assert alone["uses.py"] and not alone["casts.py"]
    module_cache.forget_all()
    for name in ("casts.py", "uses.py", "casts.py"):
        assert _findings(root / name) == alone[name], name
    assert _kept_paths() == []


def test_a_module_importing_another_project_module_is_run_again(tmp_path):
    root = _project(tmp_path, {
        "consts.py": CONSTS,
        "wrap.py": "import torch\nfrom consts import W\n\nV = W * 2\n",
        "user.py": "import torch\nfrom wrap import V\n\ny = torch.ones(2, 4) @ V\n",
    })
    alone = _alone(root / "user.py")
    assert alone
    module_cache.forget_all()
    assert _findings(root / "user.py") == alone
    assert _findings(root / "user.py") == alone
    assert _kept_paths() == ["consts.py"]  # wrap.py's result depends on consts.py's


def test_the_defaults_a_module_is_imported_under_are_part_of_what_is_kept(tmp_path):
    root = _project(tmp_path, {
        "ones.py": "import torch\n\nW = torch.ones(4, 4)\n",
        "double.py": ("import torch\ntorch.set_default_dtype(torch.float64)\nfrom ones import W\n\n"
                      "y = torch.ones(2, 4, dtype=torch.float32) @ W\n"),
        "single.py": "import torch\nfrom ones import W\n\ny = torch.ones(2, 4, dtype=torch.float64) @ W\n",
    })
    alone = {name: _alone(root / name) for name in ("double.py", "single.py")}
    assert alone["double.py"] and alone["single.py"]  # float64 W in one, float32 W in the other
    module_cache.forget_all()
    for name in ("double.py", "single.py", "double.py", "single.py"):
        assert _findings(root / name) == alone[name], name
    assert len(module_cache._kept) == 2  # one body per state of the defaults


def test_an_edited_module_is_run_again(tmp_path):
    root = _project(tmp_path, {"consts.py": CONSTS, "b.py": READS})
    assert _findings(root / "b.py")
    (root / "consts.py").write_text(CONSTS.replace("dtype=torch.float64", "dtype=torch.float32"))
    assert _findings(root / "b.py") == []  # a new hash: a new key


def test_what_counts_as_immutable():
    import torch  # noqa: F401 - not needed; values are the engine's, built below

    from torchtype_lint.model.values import TOP, ModuleValue, SequenceValue, TensorValue

    tensor = TensorValue(frozenset({"float32"}), (2,))
    assert module_cache.immutable(tensor) and module_cache.immutable(TOP)
    assert module_cache.immutable(SequenceValue("tuple", tensor, (tensor, TOP)))
    layer = ModuleValue("torch.nn.Linear")
    assert not module_cache.immutable(layer)
    assert not module_cache.immutable(SequenceValue("list", layer, (layer,)))
