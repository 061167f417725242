"""``.ipynb`` files that are not notebooks: always one TTL001 that says what is wrong, never
TTL000 (an internal error) and never an exception, whatever the JSON or the bytes."""
from __future__ import annotations

import json
import subprocess
import sys
import time
from typing import Any, Dict, List

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from torchtype_lint.checker.check import check_bytes

CODE = {"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None,
        "source": ["import torch\n", "x = torch.tensor([1, 2])\n", "x.float()\n", "print(x)\n"]}


def _nb(**fields: Any) -> Dict[str, Any]:
    notebook = {"cells": [CODE], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    notebook.update(fields)
    return {k: v for k, v in notebook.items() if v is not _MISSING}


_MISSING = object()


def _cell(**fields: Any) -> Dict[str, Any]:
    cell = dict(CODE)
    cell.update(fields)
    return {k: v for k, v in cell.items() if v is not _MISSING}


def _findings(raw: str) -> List[Any]:
    return check_bytes(raw.encode("utf-8"), "nb.ipynb").findings


def test_the_base_notebook_is_checked():
    # The cases below differ from this one in one field; this one has a real finding.
    assert [f.code for f in _findings(json.dumps(_nb()))] == ["TTL101"]


# (notebook, the message after "not a valid notebook: ")
STRUCTURES = {
    "top level is an array": ([_nb()], "the top level must be an object, not an array"),
    "top level is a string": ("cells", "the top level must be an object, not a string"),
    "top level is null": (None, "the top level must be an object, not null"),
    "nbformat missing": (_nb(nbformat=_MISSING), "no `nbformat` version (only nbformat 4 is supported)"),
    "nbformat a string": (_nb(nbformat="4"), "`nbformat` must be an integer, not a string"),
    "nbformat a float": (_nb(nbformat=4.0), "`nbformat` must be an integer, not 4.0"),
    "nbformat a boolean": (_nb(nbformat=True), "`nbformat` must be an integer, not a boolean"),
    "nbformat 3": (_nb(nbformat=3, cells=_MISSING, worksheets=[]), "nbformat 3 is not supported (only nbformat 4)"),
    "nbformat_minor negative": (_nb(nbformat_minor=-1), "`nbformat_minor` must be a non-negative integer, not -1"),
    "nbformat_minor an object": (_nb(nbformat_minor={}),
                                 "`nbformat_minor` must be a non-negative integer, not an object"),
    "cells missing": (_nb(cells=_MISSING), "`cells` must be an array, found none"),
    "cells an object": (_nb(cells={"0": CODE}), "`cells` must be an array, found an object"),
    "cells null": (_nb(cells=None), "`cells` must be an array, found null"),
    "a cell is a string": (_nb(cells=[CODE, "x = 1"]), "cell 2 (`cells[1]`) must be an object, not a string"),
    "a cell without a type": (_nb(cells=[_cell(cell_type=_MISSING)]),
                              "cell 1 (`cells[0]`) needs a string `cell_type`, found missing"),
    "a cell type that is a number": (_nb(cells=[_cell(cell_type=1)]),
                                     "cell 1 (`cells[0]`) needs a string `cell_type`, found a number"),
    "a code cell without source": (_nb(cells=[_cell(source=_MISSING)]),
                                   "the source of cell 1 (`cells[0]`) must be a string or an array of strings, "
                                   "found missing"),
    "source a number": (_nb(cells=[_cell(source=5)]),
                        "the source of cell 1 (`cells[0]`) must be a string or an array of strings, found a number"),
    "source an object": (_nb(cells=[_cell(source={"a": "b"})]),
                         "the source of cell 1 (`cells[0]`) must be a string or an array of strings, "
                         "found an object"),
    "source lines not all strings": (_nb(cells=[_cell(source=["import torch\n", 3, None])]),
                                     "the source of cell 1 (`cells[0]`) must be a string or an array of strings; "
                                     "item 1 is a number"),
    "source with nested lists": (_nb(cells=[_cell(source=[["import torch\n"]])]),
                                 "the source of cell 1 (`cells[0]`) must be a string or an array of strings; "
                                 "item 0 is an array"),
    "source with a lone surrogate": (_nb(cells=[_cell(source="import torch\nx = '\ud800'\n")]),
                                     "the source of cell 1 (`cells[0]`) contains a lone surrogate (U+D800), "
                                     "which is not valid Unicode"),
    "metadata an array": (_nb(metadata=[]), "`metadata` must be an object, not an array"),
    "metadata a string": (_nb(metadata="python"), "`metadata` must be an object, not a string"),
    "language_info a string": (_nb(metadata={"language_info": "python"}),
                               "`metadata.language_info` must be an object, not a string"),
    "language name a list": (_nb(metadata={"language_info": {"name": ["python"]}}),
                             "`metadata.language_info.name` must be a string, not an array"),
    "kernelspec a number": (_nb(metadata={"kernelspec": 3}), "`metadata.kernelspec` must be an object, not a number"),
    "kernel language an object": (_nb(metadata={"kernelspec": {"language": {}}}),
                                  "`metadata.kernelspec.language` must be a string, not an object"),
}


@pytest.mark.parametrize("case", list(STRUCTURES))
def test_bad_structure_is_one_precise_ttl001(case: str):
    notebook, message = STRUCTURES[case]
    [finding] = _findings(json.dumps(notebook))
    assert (finding.code, finding.message) == ("TTL001", f"not a valid notebook: {message}")
    assert (finding.location.line, finding.location.column) == (1, 0)


def test_fields_the_linter_does_not_read_are_not_validated():
    # Markdown cells' source, outputs and null metadata members are never read: no TTL001 for them.
    markdown = {"cell_type": "markdown", "metadata": {}, "source": 42}
    notebook = _nb(cells=[markdown, _cell(outputs="odd", metadata=None)],
                   metadata={"language_info": None, "kernelspec": {"language": None}})
    [finding] = _findings(json.dumps(notebook))
    assert (finding.code, finding.cell) == ("TTL101", 2)


@pytest.mark.parametrize("raw, message", [
    ("[" * 100_000 + "]" * 100_000, "JSON nested too deeply to read"),
    ('{"cells": ' * 100_000 + "[]" + "}" * 100_000, "JSON nested too deeply to read"),
    ('{"nbformat": ' + "9" * 5000 + "}", "invalid JSON (Exceeds the limit"),
    ("", "invalid JSON (Expecting value at line 1)"),
])
def test_json_that_python_cannot_read_is_ttl001(raw: str, message: str):
    [finding] = _findings(raw)
    assert finding.code == "TTL001"
    assert finding.message.startswith(f"not a valid notebook: {message}")


def test_deep_json_through_the_cli_on_its_deep_analysis_stack(tmp_path):
    # The CLI analyses on a thread with a raised recursion limit; the JSON must still be refused
    # cleanly there, and the other files of the run still checked.
    (tmp_path / "deep.ipynb").write_text("[" * 100_000 + "]" * 100_000)
    (tmp_path / "shape.ipynb").write_text(json.dumps(_nb(cells=[CODE, 7])))
    (tmp_path / "good.ipynb").write_text(json.dumps(_nb()))
    proc = subprocess.run([sys.executable, "-m", "torchtype_lint", "check", "--isolated", "--no-cache",
                           "deep.ipynb", "good.ipynb", "shape.ipynb"], cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert "Traceback" not in proc.stderr and "TTL000" not in proc.stdout
    deep, good, shape = proc.stdout.splitlines()
    assert deep == "deep.ipynb:1:1: TTL001 not a valid notebook: JSON nested too deeply to read"
    assert good.startswith("good.ipynb:cell 1:3:1: TTL101 result of `x.float()` is discarded")
    assert shape == "shape.ipynb:1:1: TTL001 not a valid notebook: cell 2 (`cells[1]`) must be an object, not a number"


def test_fix_leaves_a_malformed_notebook_alone(tmp_path):
    notebook = tmp_path / "nb.ipynb"
    text = json.dumps(_nb(cells=[CODE, _cell(source=[1])]))
    notebook.write_text(text)
    proc = subprocess.run([sys.executable, "-m", "torchtype_lint", "check", "--isolated", "--no-cache", "--fix",
                           "nb.ipynb"], cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert "Traceback" not in proc.stderr
    assert proc.stdout.startswith("nb.ipynb:1:1: TTL001 not a valid notebook: the source of cell 2")
    assert notebook.read_text() == text


# --------------------------------------------------------------------------- fuzzing

_json_scalars = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True) | st.text(max_size=20)
_json = st.recursive(_json_scalars, lambda inner: st.lists(inner, max_size=4)
                     | st.dictionaries(st.text(max_size=10), inner, max_size=4), max_leaves=20)
_source = st.text(max_size=40) | st.lists(st.text(max_size=20) | _json_scalars, max_size=4) | _json
_cell_strategy = st.fixed_dictionaries({}, optional={
    "cell_type": st.sampled_from(["code", "markdown", "raw"]) | _json_scalars,
    "source": _source, "metadata": _json, "outputs": _json})
#: Near-notebooks: the right keys with random (often wrong) values, so validation is exercised
#: past the first check as well as at it.
_notebook_like = st.fixed_dictionaries({}, optional={
    "cells": st.lists(_cell_strategy | _json, max_size=4) | _json,
    "metadata": st.fixed_dictionaries({}, optional={"language_info": _json, "kernelspec": _json}) | _json,
    "nbformat": st.sampled_from([4, 3, "4", 4.0, None]) | _json,
    "nbformat_minor": st.integers() | _json,
})


def _assert_clean(data: bytes) -> float:
    started = time.perf_counter()
    findings = check_bytes(data, "fuzz.ipynb").findings
    elapsed = time.perf_counter() - started
    assert not [f for f in findings if f.code == "TTL000"], findings
    return elapsed


FUZZ = settings(max_examples=100, deadline=None, derandomize=True,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


@FUZZ
@given(_notebook_like | _json)
def test_fuzz_random_json_structures_never_ttl000(data: Any):
    raw = json.dumps(data).encode()  # ASCII: lone surrogates are escaped
    # Each file is small: a bounded time per file (generous for a loaded machine).
    assert _assert_clean(raw) < 5.0


@FUZZ
@given(st.binary(max_size=300) | _json.map(lambda d: json.dumps(d).encode()[:-1]))
def test_fuzz_random_bytes_never_ttl000(data: bytes):
    assert _assert_clean(data) < 5.0
