"""Notebooks follow imports of the project's own modules like scripts do (issue 15).

``fixtures/projects/notebook/{bug,fixed}``: ``analysis.ipynb`` does ``from data import make_batch``
with ``data.py`` beside it (where Jupyter starts the kernel); the bug twin feeds the int64 batch to
an ``nn.Linear``, the fixed twin converts it. The same engine runs the notebook's code cells as one
program, so the finding, its provenance in ``data.py``, the cache's dependencies and the language
server's notebook analysis are those of a script. The cells are also run with torch (in a child
process started in the notebook's directory, as a kernel is): the bug twin must fail the way the
finding says, the fixed twin must run.
"""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Dict, List, Set, Tuple

import pytest

from torchtype_lint.run.cache import Cache
from torchtype_lint.checker.check import Settings, check_path
from torchtype_lint.source.project.imports import ProjectImports
from torchtype_lint.run.runner import run_files

REPO = Path(__file__).resolve().parent.parent
FIXTURE = REPO / "fixtures" / "projects" / "notebook"
CLI = [sys.executable, "-m", "torchtype_lint"]

#: (cell number, line within the cell, code)
CellFinding = Tuple[int, int, str]


def _code_cells(notebook: Path) -> List[Tuple[int, str]]:
    cells = json.loads(notebook.read_text(encoding="utf-8"))["cells"]
    return [(number, "".join(cell["source"])) for number, cell in enumerate(cells, start=1)
            if cell["cell_type"] == "code"]


def _expected(notebook: Path) -> Set[CellFinding]:
    """Each ``# expect: CODE`` marker in the notebook's code cells."""
    return {(number, line_number, match.group(1))
            for number, source in _code_cells(notebook)
            for line_number, line in enumerate(source.splitlines(), start=1)
            for match in [re.search(r"# expect: (TTL\d{3})", line)] if match}


def _cli_json(*args: str, cwd: Path = REPO) -> List[Dict]:
    run = subprocess.run(CLI + ["check", "--output-format", "json", *args], capture_output=True, text=True,
                         cwd=cwd, timeout=120)
    assert run.returncode in (0, 1), run.stderr
    return json.loads(run.stdout)


def _write(root: Path, files: Dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def _notebook(path: Path, *sources: str) -> Path:
    cells = [{"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [],
              "source": source.splitlines(keepends=True)} for source in sources]
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}, indent=1))
    return path


def _run_cells(notebook: Path, env: Dict[str, str] = None) -> subprocess.CompletedProcess:
    """The notebook's code cells run in order by a Python started in its directory (``python -c``
    puts that directory first on sys.path, as Jupyter's kernel has it). Only tests run user code."""
    code = "\n".join(source for _, source in _code_cells(notebook))
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=notebook.parent,
                          env=dict(os.environ, **(env or {})), timeout=120)


BATCH = "import torch\n\n\ndef make_batch(n):\n    return torch.randint(0, 10, (n, 8))\n"
USE = "import torch.nn as nn\n\nlogits = nn.Linear(8, 2)(make_batch(4))\n"


def test_the_fixture_has_a_marked_bug_and_a_silent_twin_that_differ_only_in_the_notebook():
    assert _expected(FIXTURE / "bug" / "analysis.ipynb") == {(5, 1, "TTL202")}
    assert _expected(FIXTURE / "fixed" / "analysis.ipynb") == set()
    assert (FIXTURE / "bug" / "data.py").read_text() == (FIXTURE / "fixed" / "data.py").read_text()


def test_torch_fails_on_the_bug_notebook_and_runs_the_fixed_twin(tmp_path):
    pytest.importorskip("torch")
    for variant in ("bug", "fixed"):
        copy = tmp_path / variant
        shutil.copytree(FIXTURE / variant, copy)  # no __pycache__ left in the fixtures
        run = _run_cells(copy / "analysis.ipynb")
        if variant == "bug":
            assert run.returncode != 0 and "RuntimeError" in run.stderr and "dtype" in run.stderr, run.stderr
        else:
            assert run.returncode == 0, run.stderr


def test_the_cli_catches_the_bug_across_files_and_names_data_py():
    bug = FIXTURE / "bug"
    report = _cli_json("--no-cache", str(FIXTURE))
    assert {(f["cell"], f["location"]["row"], f["code"]) for f in report} == _expected(bug / "analysis.ipynb")
    [finding] = report
    assert Path(finding["filename"]).resolve() == bug / "analysis.ipynb"
    assert "since data.py:6: `torch.randint(0, 10, (n, 8))`" in finding["message"]
    [step] = finding["provenance"]
    assert Path(step["filename"]).resolve() == bug / "data.py" and step["row"] == 6
    concise = subprocess.run(CLI + ["check", "--no-cache", "analysis.ipynb"], capture_output=True, text=True,
                             cwd=bug, timeout=120).stdout
    assert concise.startswith("analysis.ipynb:cell 5:1:10: TTL202 ") and "(since data.py:6)" in concise
    # SARIF: a cell's lines are not lines of the .ipynb file, but data.py's are: a related location.
    sarif = json.loads(subprocess.run(CLI + ["check", "--no-cache", "--output-format", "sarif", "analysis.ipynb"],
                                      capture_output=True, text=True, cwd=bug, timeout=120).stdout)
    [result] = sarif["runs"][0]["results"]
    [related] = result["relatedLocations"]
    assert related["physicalLocation"]["artifactLocation"]["uri"] == "data.py"
    assert related["physicalLocation"]["region"]["startLine"] == 6


def test_an_edit_to_data_py_rechecks_the_notebook_through_the_cache(tmp_path):
    project = tmp_path / "proj"
    shutil.copytree(FIXTURE / "bug", project)
    notebook, data = project / "analysis.ipynb", project / "data.py"
    cache_dir = tmp_path / "cache"

    def run() -> Tuple[List[CellFinding], int]:
        cache = Cache(str(cache_dir), Settings())
        [result] = run_files([str(notebook)], Settings(), jobs=1, cache=cache)
        return [(f.cell, f.line, f.code) for f in result.findings], cache.hits

    assert run() == ([(5, 1, "TTL202")], 0)
    [entry] = cache_dir.rglob("*.json")  # the notebook's entry records the module it imported
    assert str(data.resolve()) in json.loads(entry.read_text())["dependencies"]
    assert run() == ([(5, 1, "TTL202")], 1)  # answered from the cache, cell and provenance kept
    cached = check_path(str(notebook))
    assert [s.path for s in cached.findings[0].provenance] == ["data.py"]
    data.write_text(data.read_text().replace("(n, 8))", "(n, 8)).float()"))
    assert run() == ([], 0)  # the notebook is unchanged; its dependency is not
    assert run() == ([], 1)
    data.write_text(data.read_text().replace(".float()", ""))
    assert run() == ([(5, 1, "TTL202")], 0)


def test_provenance_in_data_py_survives_the_cache_and_worker_transport(tmp_path):
    # Findings cross processes and the cache as dicts: a step in data.py keeps its file (no cell).
    shutil.copytree(FIXTURE / "bug", tmp_path / "proj")
    cache = Cache(str(tmp_path / "cache"), Settings())
    notebook = str(tmp_path / "proj" / "analysis.ipynb")
    for _ in range(2):  # computed by a worker, then read back from the cache
        [result] = run_files([notebook], Settings(), jobs=1, cache=cache)
        [finding] = result.findings
        assert [(s.path, s.line, getattr(s, "cell", None)) for s in finding.provenance] == [("data.py", 6, None)]
        assert finding.provenance[0].render().startswith("data.py:6: `torch.randint")
    assert cache.hits == 1


def test_the_language_servers_notebook_analysis_follows_imports():
    pytest.importorskip("pygls")
    from torchtype_lint.frontends.lsp import analyse_notebook

    for variant in ("bug", "fixed"):
        notebook = FIXTURE / variant / "analysis.ipynb"
        cells = [(number, f"cell:{number}", source, 1) for number, source in _code_cells(notebook)]
        analyses = analyse_notebook(cells, str(notebook))
        found = {(int(uri.split(":")[1]), f.line, f.code) for uri, analysis in analyses.items()
                 for f in analysis.findings}
        assert found == _expected(notebook), variant
        for analysis in analyses.values():
            for finding in analysis.findings:
                assert [s.path for s in finding.provenance] == ["data.py"]


def test_a_notebook_imports_from_its_own_directory_even_inside_a_package(tmp_path):
    # Jupyter starts the kernel in the notebook's directory: ``batches`` is found beside it even
    # in a package directory, where a module of the package would need ``pkg.batches``.
    _write(tmp_path, {"pyproject.toml": "", "pkg/__init__.py": "", "pkg/batches.py": BATCH})
    beside = _notebook(tmp_path / "pkg" / "beside.ipynb", "from batches import make_batch\n", USE)
    imports = ProjectImports(str(beside))
    assert imports.roots.search[0] == str((tmp_path / "pkg").resolve())
    assert [(f.cell, f.code) for f in check_path(str(beside)).findings] == [(2, "TTL202")]
    pytest.importorskip("torch")
    run = _run_cells(beside)
    assert run.returncode != 0 and "RuntimeError" in run.stderr and "dtype" in run.stderr, run.stderr


def test_a_notebooks_own_relative_import_is_not_followed(tmp_path):
    # A notebook is no module of a package: Python refuses ``from .batches import ...`` in it
    # (ImportError), so nothing after it runs and nothing is reported.
    _write(tmp_path, {"pyproject.toml": "", "pkg/__init__.py": "", "pkg/batches.py": BATCH})
    relative = _notebook(tmp_path / "pkg" / "relative.ipynb", "from .batches import make_batch\n", USE)
    imports = ProjectImports(str(relative))
    assert imports.relative(imports.path, 1, "batches") is None
    assert check_path(str(relative)).findings == []
    run = _run_cells(relative)
    assert run.returncode != 0 and "ImportError" in run.stderr, run.stderr


def test_a_notebook_outside_the_package_imports_the_project_package(tmp_path):
    # notebooks/explore.ipynb importing the project's package (installed with ``pip install -e .``
    # in real projects; PYTHONPATH here): the package is looked up from the project root.
    _write(tmp_path, {"pyproject.toml": "", "mypkg/__init__.py": "from .batches import make_batch\n",
                      "mypkg/batches.py": BATCH})
    explore = _notebook(tmp_path / "notebooks" / "explore.ipynb", "from mypkg import make_batch\n", USE)
    result = check_path(str(explore))
    assert [(f.cell, f.code) for f in result.findings] == [(2, "TTL202")]
    assert [s.path for s in result.findings[0].provenance] == ["../mypkg/batches.py"]
    pytest.importorskip("torch")
    run = _run_cells(explore, env={"PYTHONPATH": str(tmp_path)})
    assert run.returncode != 0 and "RuntimeError" in run.stderr and "dtype" in run.stderr, run.stderr
