"""Notebooks: ``check`` lints the code cells of ``.ipynb`` files and ``--fix`` writes them back."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Dict, List

from torchtype_lint.checker.check import check_path
from torchtype_lint.cli.main import main
from torchtype_lint.source.notebook import neutralise


def _cell(kind: str, source: Any, **extra: Any) -> Dict[str, Any]:
    cell = {"cell_type": kind, "id": f"id-{abs(hash(str(source))) % 10**8}", "metadata": {"tags": ["keep"]},
            "source": source}
    if kind == "code":
        output = {"output_type": "stream", "name": "stdout", "text": ["out\n"]}
        cell.update({"execution_count": 7, "outputs": [output]})
    cell.update(extra)
    return cell


def _notebook(cells: List[Dict[str, Any]], language: str = "python") -> Dict[str, Any]:
    return {"cells": cells,
            "metadata": {"kernelspec": {"display_name": "Python 3", "language": language, "name": "python3"},
                         "language_info": {"name": language}},
            "nbformat": 4, "nbformat_minor": 5}


def _write(path: Path, notebook: Dict[str, Any]) -> Path:
    # nbformat's own layout: one-space indent, non-ASCII kept, trailing newline.
    path.write_text(json.dumps(notebook, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return path


TRAINING = _notebook([
    _cell("markdown", ["# Training\n", "Labels as floats.\n"]),                 # cell 1
    _cell("code", ["%matplotlib inline\n", "!pip install torch\n", "import torch\n",
                   "labels = torch.tensor([0, 1, 1, 0])"]),                     # cell 2
    _cell("code", "%%bash\necho this is not python\n"),                          # cell 3
    _cell("code", ["total = (3\n", "         % 2)\n", "labels.float()\n", "print(labels)\n"]),  # cell 4
])


def _check(capsys, *args: str):
    code = main(["check", *args])
    out, err = capsys.readouterr()
    return code, out, err


def test_findings_name_the_cell_and_the_line_within_it(tmp_path, capsys):
    nb = _write(tmp_path / "train.ipynb", TRAINING)
    code, out, _ = _check(capsys, str(nb))
    assert code == 1
    [line] = out.splitlines()
    # Cell 4, line 3: the magics in cell 2 and the skipped %%bash cell shift nothing.
    assert line.startswith(f"{nb}:cell 4:3:1: TTL101 result of `labels.float()` is discarded")
    # Provenance points into the cell that made the value: the concise headline names it, the
    # full format quotes it.
    assert "(since cell 2, line 4)" in line
    _, full, _ = _check(capsys, "--output-format", "full", str(nb))
    assert "since cell 2, line 4: `torch.tensor([0, 1, 1, 0])`" in full.splitlines()[0]


def test_provenance_steps_carry_cell_and_line(tmp_path):
    result = check_path(str(_write(tmp_path / "train.ipynb", TRAINING)))
    [finding] = result.findings
    assert (finding.cell, finding.location.line, finding.location.column) == (4, 3, 0)
    assert [(s.cell, s.line) for s in finding.provenance] == [(2, 4)]
    assert finding.provenance[0].render().startswith("cell 2, line 4: `torch.tensor")
    assert finding.fix.location.line == 3  # the fix counts lines within the cell too


def test_directories_include_notebooks_and_checkpoints_are_skipped(tmp_path, capsys):
    _write(tmp_path / "train.ipynb", TRAINING)
    (tmp_path / ".ipynb_checkpoints").mkdir()
    _write(tmp_path / ".ipynb_checkpoints" / "train-checkpoint.ipynb", TRAINING)
    code, out, _ = _check(capsys, str(tmp_path))
    assert code == 1
    assert [line.split(": ")[0] for line in out.splitlines()] == [f"{tmp_path / 'train.ipynb'}:cell 4:3:1"]


def test_fix_writes_back_a_valid_notebook_keeping_everything_else(tmp_path, capsys):
    nb = _write(tmp_path / "train.ipynb", TRAINING)
    code, out, err = _check(capsys, "--fix", str(nb))
    assert code == 0, out + err
    assert out == ""
    fixed = json.loads(nb.read_text(encoding="utf-8"))
    # Only cell 4's source changed; outputs, ids, metadata and the magic lines are untouched.
    expected = json.loads(json.dumps(TRAINING))
    expected["cells"][3]["source"] = ["total = (3\n", "         % 2)\n", "labels = labels.float()\n",
                                      "print(labels)\n"]
    assert fixed == expected
    assert nb.read_text(encoding="utf-8") == json.dumps(expected, indent=1, ensure_ascii=False) + "\n"
    assert _check(capsys, str(nb))[0] == 0


def test_fix_restores_magics_in_a_changed_cell(tmp_path, capsys):
    nb = _write(tmp_path / "magic.ipynb", _notebook([
        _cell("code", "import torch\nx = torch.zeros(2, dtype=torch.int64)\n%time y = 1\nx.float()\n!ls"),
    ]))
    assert _check(capsys, "--fix", str(nb))[0] == 0
    [cell] = json.loads(nb.read_text(encoding="utf-8"))["cells"]
    # String sources stay strings; the missing final newline stays missing.
    assert cell["source"] == "import torch\nx = torch.zeros(2, dtype=torch.int64)\n%time y = 1\nx = x.float()\n!ls"


def test_diff_shows_the_cell_and_changes_nothing(tmp_path, capsys):
    nb = _write(tmp_path / "train.ipynb", TRAINING)
    before = nb.read_bytes()
    code, out, _ = _check(capsys, "--diff", str(nb))
    assert code == 1
    assert f"--- a/{nb}:cell 4" in out and "+labels = labels.float()" in out
    assert nb.read_bytes() == before


def test_non_python_kernels_and_broken_notebooks(tmp_path, capsys):
    r_notebook = _write(tmp_path / "r.ipynb", _notebook([_cell("code", "import torch\nx <- 1\n")], "R"))
    assert _check(capsys, str(r_notebook))[0] == 0
    broken = tmp_path / "broken.ipynb"
    broken.write_text('{"cells": [', encoding="utf-8")
    code, out, _ = _check(capsys, str(broken))
    assert code == 1 and out.startswith(f"{broken}:1:1: TTL001 not a valid notebook: invalid JSON")


def test_syntax_error_is_reported_in_its_cell(tmp_path, capsys):
    nb = _write(tmp_path / "syntax.ipynb", _notebook([
        _cell("code", "import torch\n"), _cell("markdown", "text"), _cell("code", "x = (1,\ny = 2\n")]))
    code, out, _ = _check(capsys, str(nb))
    assert code == 1
    assert out.startswith(f"{nb}:cell 3:1:") and "TTL001 syntax error" in out


def test_neutralise_keeps_line_count_and_leaves_python_alone():
    source = "%load_ext autoreload\nfor i in range(2):\n    !echo $i\n    %time f(i)\nfiles = !ls\nhelp?\n"
    text, replaced = neutralise(source)
    assert text.count("\n") == source.count("\n")
    assert replaced == ["%load_ext autoreload", "    !echo $i", "    %time f(i)", "files = !ls", "help?"]
    assert text.splitlines()[2] == "    pass  # torchtype-lint: ipython syntax"
    compile(text, "<cell>", "exec")
    # Python that parses is never touched, and a `%` continuing an expression is not a magic
    # even in a cell that needs neutralising.
    assert neutralise("x = (3\n     % 2)\n") == ("x = (3\n     % 2)\n", [])
    mixed = '!pip install "torch (cpu)"\nx = (3\n     % 2)\ns = """\n%not magic\n"""\ny = 1 + \\\n  2\n%time f()\n'
    text, replaced = neutralise(mixed)
    assert replaced == ['!pip install "torch (cpu)"', "%time f()"]
    compile(text, "<cell>", "exec")


def test_full_and_json_formats_show_the_cell(tmp_path, capsys):
    nb = _write(tmp_path / "train.ipynb", TRAINING)
    code, out, _ = _check(capsys, "--output-format", "full", str(nb))
    assert code == 1
    assert "3 | labels.float()\n  | ^^^^^^^^^^^^^^" in out  # the cell's line, not the JSON's
    code, out, _ = _check(capsys, "--output-format", "json", str(nb))
    [finding] = json.loads(out)
    assert (finding["cell"], finding["location"], finding["filename"]) == (4, {"row": 3, "column": 1}, str(nb))


def test_cells_survive_the_cache_and_worker_processes(tmp_path):
    from torchtype_lint.run.cache import Cache
    from torchtype_lint.checker.check import Settings
    from torchtype_lint.run.runner import run_files

    nbs = [str(_write(tmp_path / f"train{i}.ipynb", TRAINING)) for i in range(2)]
    expected = [f.concise() for path in nbs for f in check_path(path).findings]
    assert len(expected) == 2 and all(":cell 4:3:1: TTL101" in line for line in expected)
    cache = Cache(str(tmp_path / "cache"), Settings())
    for jobs, cached in ((2, None), (1, cache), (1, cache)):  # workers, cache miss, cache hit
        results = run_files(nbs, Settings(), jobs=jobs, cache=cached)
        findings = [f for r in results for f in r.findings]
        assert [f.concise() for f in findings] == expected
        assert findings[0].provenance[0].render().startswith("cell 2, line 4:")
    assert cache.hits == 2


def test_fix_reports_unfixable_findings_in_their_cell(tmp_path, capsys):
    # A cast on a subscript gets no fix: --fix changes nothing and reports it where it is.
    nb = _write(tmp_path / "unfixable.ipynb", _notebook([
        _cell("markdown", "intro"),
        _cell("code", "import torch\nxs = [torch.tensor([1, 2])]\n"),
        _cell("code", "# cast\nxs[0].float()\nprint(xs)\n"),
    ]))
    before = nb.read_bytes()
    code, out, _ = _check(capsys, "--fix", str(nb))
    assert code == 1
    assert out.startswith(f"{nb}:cell 3:2:1: TTL101 ")
    assert nb.read_bytes() == before


def test_a_cells_displayed_expression_is_not_a_discarded_cast(tmp_path):
    # IPython shows the value of a cell's last bare expression; a trailing `;` hides it.
    cells = [_cell("code", "import torch\nx = torch.zeros(2)\n"),
             _cell("code", "x.to(torch.float64)"),           # displayed
             _cell("code", "y = x + 1\nx.float()\n"),        # displayed, after another statement
             _cell("code", "x.double()\nprint(1)"),          # not the last statement: discarded
             _cell("code", "x.half();")]                     # display silenced: discarded
    path = _write(tmp_path / "n.ipynb", _notebook(cells))
    found = [(f.code, f.cell) for f in check_path(str(path)).findings]
    assert found == [("TTL101", 4), ("TTL101", 5)]
