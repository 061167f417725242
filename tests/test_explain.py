"""`torchtype-lint explain` on the engine fixture programs.

Three layers of checks:
- the whole output is pinned in ``fixtures/engine/<name>.explain`` (reviewed by hand; after a
  deliberate engine change, regenerate with ``TTL_UPDATE_EXPLAIN=1 pytest tests/test_explain.py``
  and review the diff);
- key lines are asserted here, one per behaviour the engine promises (so the intent survives a
  regeneration);
- each fixture is also *run* with real torch, and every module-level value the engine claims at
  the end of the file must agree with the real value (dtype and shape).
"""
from __future__ import annotations

import errno
import os
import subprocess
import sys
from pathlib import Path

import pytest

from torchtype_lint.cli.main import main
from torchtype_lint.cli.explain import explain_path

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "engine"
PROGRAMS = sorted(p for p in FIXTURES.glob("*.py"))


def _explain(name: str) -> str:
    return explain_path(str(FIXTURES / name))


@pytest.mark.parametrize("program", PROGRAMS, ids=lambda p: p.stem)
def test_explain_output_is_pinned(program):
    expected_file = program.with_suffix(".explain")
    got = explain_path(str(program))
    if os.environ.get("TTL_UPDATE_EXPLAIN"):
        expected_file.write_text(got)
    assert expected_file.exists(), f"no pinned output for {program.name}"
    assert got == expected_file.read_text()


def _line(output: str, prefix: str) -> str:
    matches = [line for line in output.splitlines() if line.startswith(prefix)]
    assert matches, f"no line starting with {prefix!r} in:\n{output}"
    return matches[0]


def test_format_value_and_provenance_chain():
    out = _explain("reassignments.py")
    assert _line(out, "6: x:") == (
        "6: x: Tensor[float64, (4, 3), cpu] <- line 6: torch.from_numpy(a) (torch.from_numpy "
        "keeps the ndarray's dtype) <- line 5: np.random.rand(4, 3) (np.random.rand gives float64)")


def test_reassignment_augmented_assignment_and_unpacking():
    out = _explain("reassignments.py")
    assert _line(out, "8: x:").startswith("8: x: Tensor[float32, (4, 3), cpu]")
    assert _line(out, "11: y:").startswith("11: y: Tensor[float32, (3, 3), cpu]")
    assert _line(out, "13: counts:").startswith("13: counts: Tensor[int64, (4,), cpu]")
    assert _line(out, "14: z:").startswith("14: z: Tensor[float32, (7, 3), cpu]")
    assert _line(out, "15: flat:").startswith("15: flat: Tensor[float32, (21,), cpu]")
    assert _line(out, "17: rows:") == "17: rows: int = 7"
    assert _line(out, "18: rest:") == "18: rest: list[Tensor[float32, (2,), cpu]]"
    assert _line(out, "21: scaled:").startswith("21: scaled: Tensor[float32, (3,), cpu]")


def test_branches_join_into_dtype_sets():
    out = _explain("branches.py")
    assert _line(out, "10: y:").startswith("10: y: Tensor[{float32, float64}, (3,), cpu]")
    assert _line(out, "11: same:").startswith("11: same: Tensor[float32, (2,), cpu]")
    assert _line(out, "12: either:").startswith("12: either: Tensor[{float16, float32}, (2,), cpu]")
    assert _line(out, "22: out:").startswith("22: out: Tensor[{int64, float32}, (2,), cpu]")
    # the else branch raises: after the if, only the if branch's value flows on
    assert _line(out, "28: after:").startswith("28: after: Tensor[int64, (1,), cpu]")


def test_loops_reach_a_fixed_point():
    out = _explain("loops.py")
    assert _line(out, "6: acc:").startswith("6: acc: Tensor[int64, (3,), cpu]")
    assert _line(out, "10: total:").startswith("10: total: Tensor[float64, (2,), cpu]")
    assert _line(out, "14: grow:").startswith("14: grow: Tensor[float32, (?,), cpu]")
    assert _line(out, "18: summed:").startswith("18: summed: Tensor[float32, (5,), cpu]")
    assert _line(out, "20: picked:").startswith("20: picked: Tensor[float32, (3,), cpu]")


def test_helper_functions_bind_call_sites_and_annotated_returns():
    out = _explain("functions.py")
    assert _line(out, "33: halves:").startswith("33: halves: Tensor[float32, (4,), cpu]")
    assert _line(out, "34: twice:").startswith("34: twice: Tensor[int64, (4,), cpu]")
    assert _line(out, "35: wide:").startswith("35: wide: Tensor[float64, (2,), cpu]")
    assert _line(out, "36: probs:").startswith("36: probs: Tensor[float32, (4,), cpu]")
    # load_ids's body is unknown (torch.load): its annotated return seeds the call site
    assert _line(out, "38: ids:").startswith(
        '38: ids: Tensor[int64, (batch, 2)] <- line 18: Int64[Tensor, "batch 2"]')
    assert _line(out, "42: as_float:").startswith("42: as_float: Tensor[float32, (2,), cpu]")
    assert _line(out, "42: as_long:").startswith("42: as_long: Tensor[int64, (2,), cpu]")
    # per call site, the helper's body shows each context's value
    assert "10: result: Tensor[float32, (4,), cpu]" in out
    assert "10: result: Tensor[int64, (4,), cpu]" in out
    assert "9: factor (parameter): float = 0.5" in out


def test_module_attributes_buffers_and_in_place_casts():
    out = _explain("module_attrs.py")
    assert _line(out, "10: self.fc:").startswith("10: self.fc: Linear(in_features=4, out_features=2) params float32")
    assert _line(out, "11: self.scale:").startswith("11: self.scale: Tensor[float32, (2,), cpu]")
    assert _line(out, "17: hidden:").startswith("17: hidden: Tensor[float32, (8, 2), cpu]")
    assert _line(out, "24: outputs:").startswith("24: outputs: Tensor[float32, (8, 2), cpu]")
    # model.double() converts parameters and floating buffers, not int buffers or plain tensors
    assert _line(out, "26: scale_after:").startswith("26: scale_after: Tensor[float64, (2,), cpu]")
    assert _line(out, "27: steps_after:").startswith("27: steps_after: Tensor[int64, (1,), cpu]")
    assert _line(out, "28: bias_after:").startswith("28: bias_after: Tensor[float64, (2,), cpu]")
    assert _line(out, "29: offset_after:").startswith("29: offset_after: Tensor[float32, (2,), cpu]")
    assert _line(out, "30: weight_after:").startswith("30: weight_after: Tensor[float64, (2, 4)]")
    assert _line(out, "31: outputs64:").startswith("31: outputs64: Tensor[float64, (8, 2), cpu]")


def test_module_description_is_the_one_at_the_assignment():
    # model.double() later mutates the module; the assignment line shows it as it was then.
    source = "import torch\nlayer = torch.nn.Linear(2, 3)\nlayer.double()\nsame = layer\n"
    from torchtype_lint.checker.check import Settings, check_source
    from torchtype_lint.cli.explain import explain_interpreter
    from torchtype_lint.model.selection import Selection

    result = check_source(source, "m.py", Settings(selection=Selection(select=[])), keep_analysis=True)
    out = explain_interpreter(result.interpreter, result.module)
    assert "2: layer: Linear(in_features=2, out_features=3) params float32" in out
    assert "4: same: Linear(in_features=2, out_features=3) params float64" in out


def _lines(output: str, prefix: str) -> list:
    return [line for line in output.splitlines() if line.startswith(prefix)]


def test_dataset_through_a_dataloader():
    out = _explain("dataloader.py")
    # any batch: 4 points or the last 2; where the dataset's length is known, the first batch
    # (run on its own first) is shown before it with its 4 points
    *first, any_batch = _lines(out, "29: features:")
    assert any_batch.startswith("29: features: Tensor[float64, (?, 3), cpu]")
    assert all(line.startswith("29: features: Tensor[float64, (4, 3), cpu]") and "the first batch holds 4" in line
               for line in first)
    assert _lines(out, "29: target:")[-1].startswith("29: target: Tensor[float64, (?,), cpu]")
    assert "default_collate turns Python floats into float64" in _line(out, "29: target:")
    assert _lines(out, "29: idx:")[-1].startswith("29: idx: Tensor[int64, (?,), cpu]")
    # drop_last=True: every batch is full, so the batch dim is known
    assert _line(out, "32: xs:").startswith("32: xs: Tensor[float32, (4, 3), cpu]")
    assert _line(out, "32: ys:").startswith("32: ys: Tensor[float64, (4,), cpu]")


def test_comprehensions():
    out = _explain("comprehensions.py")
    assert _line(out, "4: xs:") == "4: xs: list[Tensor[float32, (2, 3), cpu]]"
    # range(4) has known items: the comprehension is evaluated item by item, a list of 4 known tensors
    assert _line(out, "5: stacked:").startswith("5: stacked: Tensor[float32, (4, 2, 3), cpu]")
    assert _line(out, "6: joined:").startswith("6: joined: Tensor[float32, (2, 12), cpu]")
    assert _line(out, "8: first_half:").startswith("8: first_half: Tensor[float16, (2, 3), cpu]")
    assert _line(out, "10: column:").startswith("10: column: Tensor[int32, (3,), cpu]")
    assert _line(out, "12: masks:") == "12: masks: list[Tensor[bool, (2, 3), cpu]]"
    assert _line(out, "14: inner:").startswith("14: inner: Tensor[float32, (2,), cpu]")


def test_annotations_seed_parameters():
    out = _explain("annotations.py")
    assert _line(out, "11: images (parameter):").startswith(
        "11: images (parameter): Tensor[any float, (b, c, h, w)]")
    assert _line(out, "11: mask (parameter):").startswith("11: mask (parameter): Tensor[bool, (b,)]")
    assert _line(out, "11: ids (parameter):").startswith("11: ids (parameter): Tensor[int64, (b, 4)]")
    assert _line(out, "12: anything (parameter):").startswith("12: anything (parameter): Tensor[?, ?]")
    assert _line(out, "12: numbers (parameter):").startswith("12: numbers (parameter): Tensor[any number, ?]")
    assert _line(out, "12: reals (parameter):").startswith("12: reals (parameter): Tensor[any real, (?, 3)]")
    assert _line(out, "13: broadcast (parameter):").startswith(
        "13: broadcast (parameter): Tensor[float32, (?, 3)]")
    assert _line(out, "13: documented (parameter):").startswith(
        "13: documented (parameter): Tensor[any float, (3, m)]")
    assert _line(out, "13: ints (parameter):").startswith("13: ints (parameter): Tensor[any int, (b,)]")
    assert _line(out, "14: typed (parameter):").startswith("14: typed (parameter): Tensor[float32, (batch, 3)]")
    assert _line(out, "15: legacy (parameter):").startswith("15: legacy (parameter): Tensor[float32, ?]")
    assert _line(out, "15: quoted (parameter):").startswith("15: quoted (parameter): Tensor[float32, (n,)]")
    assert _line(out, "17: area:").startswith("17: area: Tensor[any float, (b, c)]")


def test_explain_command_prints_the_same(capsys):
    assert main(["explain", str(FIXTURES / "reassignments.py")]) == 0
    assert capsys.readouterr().out == _explain("reassignments.py")


# ------------------------------------------------------------------ truth: run the programs


@pytest.mark.parametrize("program", [p for p in PROGRAMS if p.stem != "annotations"],
                         ids=lambda p: p.stem)
def test_module_level_values_agree_with_a_real_run(program, monkeypatch, tmp_path):
    pytest.importorskip("torch")
    from knowledge_truth import contradiction, engine_globals

    monkeypatch.chdir(tmp_path)  # programs may look for files; they find none here
    source = program.read_text()
    namespace = {"__name__": "__main__"}
    exec(compile(source, str(program), "exec"), namespace)  # noqa: S102
    engine = engine_globals(source)
    wrong, compared = [], 0
    for name, value in engine.items():
        if name not in namespace:
            continue
        why = contradiction(value, namespace[name])
        compared += 1
        if why:
            wrong.append(f"{name}: {why}")
    assert compared >= 5
    assert not wrong, "\n".join(wrong)


def test_scopes_global_writes_and_method_attributes():
    out = _explain("scopes.py")
    assert _line(out, "15: after_call:").startswith("15: after_call: Tensor[float64, (2,), cpu]")
    # via the instance built at module level (reset() never ran): the __init__ value
    assert _line(out, "28: seen:").startswith("28: seen: Tensor[float32, (2,), cpu]")
    assert _line(out, "29: kept:").startswith("29: kept: Tensor[float32, (3,), cpu]")


def test_a_method_alone_does_not_trust_attributes_other_methods_reassign():
    from torchtype_lint.checker.check import Settings, check_source
    from torchtype_lint.model.selection import Selection

    source = (FIXTURES / "scopes.py").read_text().replace(
        "tracker = Tracker()\nout = tracker(torch.ones(3))\n", "")
    result = check_source(source, "m.py", Settings(selection=Selection(select=[])), keep_analysis=True)
    values = {a.name: a.description for a in result.interpreter.assignments
              if a.name in ("seen", "kept")}
    assert values == {"seen": "unknown", "kept": "Tensor[float32, (3,), cpu]"}


def test_dict_items_and_tensor_datasets_through_a_dataloader():
    out = _explain("dataloader.py")
    # Records.__len__ returns 6 and TensorDataset holds 10 rows: batches of 3 and of 5 are all full
    assert _line(out, "45: weights:").startswith("45: weights: Tensor[float64, (3,), cpu]")
    assert _line(out, "47: inputs:").startswith("47: inputs: Tensor[float32, (5, 3), cpu]")
    assert _line(out, "47: labels:").startswith("47: labels: Tensor[int64, (5,), cpu]")


def test_conversions_that_may_not_happen_are_weak_updates():
    out = _explain("scopes.py")
    # maybe_half() runs on one branch only: the layer is float32 or float16 afterwards
    assert _line(out, "46: weights_after_maybe:").startswith(
        "46: weights_after_maybe: Tensor[{float16, float32}, (2, 3)]")
    # never_called() is analysed on its own, after the module body: it changes nothing there
    assert _line(out, "53: logits:").startswith("53: logits: Tensor[{float16, float32}, (1, 2), cpu]")


def test_super_calls_reach_base_classes_of_the_file():
    out = _explain("module_attrs.py")
    assert _line(out, "49: features:").startswith("49: features: Tensor[float32, (5, 4), cpu]")
    assert _line(out, "54: scores:").startswith("54: scores: Tensor[float32, (5, 2), cpu]")


def test_default_batch_size_of_one_is_always_full():
    out = _explain("dataloader.py")
    assert _line(out, "49: single:").startswith("49: single: Tensor[float32, (1, 3), cpu]")
    assert _line(out, "49: label:").startswith("49: label: Tensor[int64, (1,), cpu]")


def test_explain_reports_files_it_cannot_analyse(tmp_path):
    broken = tmp_path / "broken.py"
    broken.write_text("import torch\nx = (\n")
    assert "TTL001 syntax error" in explain_path(str(broken))
    plain = tmp_path / "plain.py"
    plain.write_text("x = 1\n")
    assert explain_path(str(plain)) == "(nothing to explain)\n"


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes are POSIX")
def test_explain_refuses_a_fifo_instead_of_blocking(tmp_path):
    # A named pipe called x.py with no writer: reading it would wait forever for one.
    fifo = tmp_path / "x.py"
    os.mkfifo(fifo)
    proc = subprocess.run([sys.executable, "-m", "torchtype_lint", "explain", str(fifo)],
                          capture_output=True, text=True, timeout=60)
    assert (proc.returncode, proc.stdout) == (2, "")
    assert proc.stderr == f"torchtype-lint: error: could not read {fifo}: not a regular file\n"


@pytest.mark.parametrize("make, reason", [
    (lambda path: None, os.strerror(errno.ENOENT)),  # the C library's wording, whatever the OS
    (lambda path: path.mkdir(), os.strerror(errno.EISDIR)),
])
def test_explain_reports_a_file_it_cannot_read_as_an_error(tmp_path, capsys, make, reason):
    path = tmp_path / "model.py"
    make(path)
    assert main(["explain", str(path)]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err == f"torchtype-lint: error: could not read {path}: {reason}\n"


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() == 0, reason="root reads any file")
def test_explain_reports_an_unreadable_file_as_an_error(tmp_path, capsys):
    path = tmp_path / "secret.py"
    path.write_text("import torch\nx = torch.ones(2)\n")
    path.chmod(0)
    try:
        assert main(["explain", str(path)]) == 2
    finally:
        path.chmod(0o644)
    assert capsys.readouterr().err == f"torchtype-lint: error: could not read {path}: {os.strerror(errno.EACCES)}\n"


def test_explain_a_notebook_names_cells_and_a_missing_file_exits_2(tmp_path):
    import json
    import subprocess
    import sys

    cells = [("code", "import numpy as np\nimport torch\na = np.random.rand(4, 3)\n"), ("markdown", "# x\n"),
             ("code", "x = torch.from_numpy(a)\n")]
    notebook = {"cells": [{"cell_type": kind, "metadata": {}, "source": text.splitlines(keepends=True),
                           **({"execution_count": None, "outputs": []} if kind == "code" else {})}
                          for kind, text in cells],
                "metadata": {"language_info": {"name": "python"}}, "nbformat": 4, "nbformat_minor": 5}
    (tmp_path / "nb.ipynb").write_text(json.dumps(notebook))
    script = [sys.executable, "-m", "torchtype_lint", "explain"]
    proc = subprocess.run(script + ["nb.ipynb"], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0
    assert proc.stdout.splitlines() == [
        "cell 1:3: a: ndarray[float64, (4, 3)] <- cell 1, line 3: np.random.rand(4, 3) (np.random.rand gives float64)",
        "cell 3:1: x: Tensor[float64, (4, 3), cpu] <- cell 3, line 1: torch.from_numpy(a) (torch.from_numpy keeps "
        "the ndarray's dtype) <- cell 1, line 3: np.random.rand(4, 3) (np.random.rand gives float64)"]
    missing = subprocess.run(script + ["missing.py"], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert missing.returncode == 2 and "could not read missing.py" in missing.stderr
