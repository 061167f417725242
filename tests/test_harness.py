"""The runtime harness, run for real: every rule's claim against the installed torch.

One ``confirm`` run (a few fresh torch workers, fixtures run one at a time in each) is shared by the per-rule
tests; CUDA cases are collected and skipped with the reason when no GPU exists.
"""
from __future__ import annotations

import argparse
import contextlib
import importlib.util
import io
import json
import textwrap
import time
from dataclasses import dataclass
from pathlib import Path
from typing import List

import pytest

# The harness runs torch in worker subprocesses; this process only needs to know it is there.
if importlib.util.find_spec("torch") is None:
    pytest.skip("torch is not installed: the runtime harness cannot run", allow_module_level=True)

from torchtype_lint.cli import main as cli  # noqa: E402
from torchtype_lint.checker.check import check_path  # noqa: E402
from torchtype_lint.harness import confirm as C  # noqa: E402
from torchtype_lint.harness import fixtures as fx  # noqa: E402
from torchtype_lint.harness import pool  # noqa: E402
from torchtype_lint.harness.commands import confirm_hook  # noqa: E402
from torchtype_lint.harness.reproduce import PRELUDE  # noqa: E402
from torchtype_lint.rules import base  # noqa: E402
from torchtype_lint.rules.base import Rule, RuntimeClaim, all_rules  # noqa: E402
from torchtype_lint.model.values import COMMON_DTYPES  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures"
DEMO = ROOT / "examples" / "demo_training.py"
CLAIMED = [r.code for r in all_rules() if r.runtime is not None]


@pytest.fixture(scope="module")
def report() -> C.ConfirmReport:
    return C.confirm(devices=("cpu", "cuda"), root=FIXTURES)


def _contradictions(status: C.RuleStatus) -> str:
    return "\n".join(f"{v.fixture.name}: {v.reason}" for v in status.verdicts if v.verdict != C.CONFIRMED)


@pytest.mark.parametrize("code", CLAIMED)
def test_rule_claim_confirmed_on_cpu(report: C.ConfirmReport, code: str) -> None:
    status = report.statuses[code]["cpu"]
    assert status.verdicts, f"{code} states a runtime claim but has no fixtures under fixtures/{code}/"
    assert any(v.fixture.kind == "bad" for v in status.verdicts), f"{code} has no bad fixture"
    assert status.status == C.CONFIRMED, _contradictions(status) or status.message


@pytest.mark.parametrize("code", CLAIMED)
def test_rule_claim_on_cuda(report: C.ConfirmReport, code: str) -> None:
    if not report.available.get("cuda"):
        pytest.skip("no CUDA device on this machine: the CUDA claim is not confirmed, only skipped")
    status = report.statuses[code]["cuda"]
    assert status.status == C.CONFIRMED, _contradictions(status) or status.message


@pytest.mark.parametrize("code", CLAIMED)
def test_linter_agrees_with_torch(report: C.ConfirmReport, code: str) -> None:
    agreement = report.lint[code]
    assert not agreement.false_negative, f"torch fails but the linter is silent: {agreement.false_negative}"
    assert not agreement.false_positive, f"the linter reports where it should not: {agreement.false_positive}"
    assert not agreement.unbacked, f"labelled lines whose fixture torch did not confirm: {agreement.unbacked}"
    assert agreement.true_positive, f"{code}: no labelled line both confirmed by torch and flagged"


def test_cuda_absence_is_skipped_never_confirmed(report: C.ConfirmReport) -> None:
    if report.available.get("cuda"):
        pytest.skip("CUDA present: the absent-device path is not exercised here")
    for by_device in report.statuses.values():
        assert by_device["cuda"].status in (C.SKIPPED, C.UNVERIFIED)
    table = C.render(report)
    assert "skipped (no CUDA)" in table and "confirmed" in table


def test_table_and_record_round_trip(report: C.ConfirmReport, tmp_path: Path) -> None:
    table = C.render(report)
    assert "precision" in table and "recall" in table
    for code in CLAIMED:
        assert code in table
    path = C.record(report, tmp_path / "confirmations.json")
    data = json.loads(path.read_text())
    assert data["torch"].startswith("2.")
    entry = data["rules"]["TTL101"]
    assert entry["cpu"]["status"] == "confirmed"
    assert entry["cpu"]["message"].startswith("AssertionError")
    assert entry["cuda"]["status"] in ("skipped", "confirmed")


# --------------------------------------------------------------------------- planted claims


PLANTED = {
    # int + float promotes to float in torch: claiming it raises is wrong and must be caught.
    "TTL990": ("bad_int_plus_float.py", """
        x = torch.tensor([1, 2, 3], device=DEVICE)
        y = x + 0.5  # expect: TTL990
        """, RuntimeClaim("RuntimeError", "result type Float can't be cast")),
    # Claimed only on CUDA: on CPU the bad fixture must run cleanly, and it does.
    "TTL991": ("bad_cuda_only.py", """
        a = torch.ones(2, 2, dtype=torch.int64, device=DEVICE)
        if DEVICE == "cuda":
            raise NotImplementedError('"addmm_cuda" not implemented for \\'Long\\'')
        b = a @ a
        """, RuntimeClaim("NotImplementedError", "not implemented for", devices=("cuda",))),
    # Claimed only on CUDA, but it fails on CPU too: the per-device policy catches that.
    "TTL992": ("bad_fails_everywhere.py", """
        a = torch.ones(2, 3, device=DEVICE)
        b = a @ a  # expect: TTL992
        """, RuntimeClaim("RuntimeError", "cannot be multiplied", devices=("cuda",))),
    # An AssertionError raised inside a library is not the fixture's own assert.
    "TTL993": ("bad_foreign_assert.py", """
        import unittest
        unittest.TestCase().assertEqual(1, 2)
        """, RuntimeClaim("AssertionError")),
    # A silent bug shown by the fixture's own assert: confirmed.
    "TTL994": ("bad_own_assert.py", """
        x = torch.tensor([1, 2], device=DEVICE)
        x.float()
        assert x.dtype == torch.float32, "still int64"
        """, RuntimeClaim("AssertionError")),
}


@dataclass
class PlantedRun:
    exit_code: int
    output: str
    report: C.ConfirmReport


@pytest.fixture(scope="module")
def planted(tmp_path_factory: pytest.TempPathFactory) -> PlantedRun:
    """One ``torchtype-lint confirm`` run over planted rules (registered for the run only)."""
    root = tmp_path_factory.mktemp("planted")
    header = "import os\nimport torch\nDEVICE = os.environ.get('TTL_DEVICE', 'cpu')\n"
    for code, (name, body, _) in PLANTED.items():
        (root / code).mkdir()
        (root / code / name).write_text(header + textwrap.dedent(body))
    (root / "TTL994" / "good_assigned.py").write_text(
        header + "x = torch.tensor([1, 2])\nx = x.float()\nassert x.dtype == torch.float32\n")
    (root / "TTL994" / "good_exits_cleanly.py").write_text(header + "import sys\nsys.exit(0)\n")
    # The reproduction helpers of `check --confirm` must build every dtype the engine names.
    (root / "TTL994" / "good_prelude_dtypes.py").write_text(
        header + PRELUDE + "".join(f"_tensor(torch.{d}, (2, 3))\n" for d in COMMON_DTYPES))
    reports: List[C.ConfirmReport] = []
    original_render = C.render

    def keep(report: C.ConfirmReport) -> str:
        reports.append(report)
        return original_render(report)

    out = io.StringIO()
    with pytest.MonkeyPatch.context() as patch:
        for code, (_, _, claim) in PLANTED.items():
            rule = type(f"Planted{code}", (Rule,), {"code": code, "runtime": claim, "__doc__": claim.exception})
            patch.setitem(base._REGISTRY, code, rule)
        patch.setattr(C, "render", keep)
        with contextlib.redirect_stdout(out):
            exit_code = cli.main(["confirm", "--fixtures", str(root), "--device", "all", "--no-lint",
                                  "--rule", ",".join(PLANTED)])
    return PlantedRun(exit_code, out.getvalue(), reports[0])


def test_wrong_claim_int_plus_float_is_a_contradiction(planted: PlantedRun) -> None:
    status = planted.report.statuses["TTL990"]["cpu"]
    assert status.status == C.CONTRADICTED
    assert "ran without error" in status.verdicts[0].reason
    assert planted.exit_code == 1
    row = next(line for line in planted.output.splitlines() if line.startswith("TTL990"))
    assert "contradicted" in row


def test_claim_limited_to_cuda_expects_success_on_cpu(planted: PlantedRun) -> None:
    statuses = planted.report.statuses
    assert statuses["TTL991"]["cpu"].status == C.CONFIRMED
    assert statuses["TTL992"]["cpu"].status == C.CONTRADICTED
    assert "claim excludes cpu" in statuses["TTL992"]["cpu"].verdicts[0].reason
    if not planted.report.available.get("cuda"):
        assert statuses["TTL991"]["cuda"].status == C.SKIPPED
        assert "skipped (no CUDA)" in planted.output


def test_assertion_claims_need_the_fixtures_own_assert(planted: PlantedRun) -> None:
    assert planted.report.statuses["TTL993"]["cpu"].status == C.CONTRADICTED
    status = planted.report.statuses["TTL994"]["cpu"]
    assert status.status == C.CONFIRMED, _contradictions(status)
    assert status.message == "AssertionError: still int64"


# --------------------------------------------------------------------------- check --confirm


SIDE_EFFECT_PROGRAM = """
import pathlib
import torch
pathlib.Path(MARKER).write_text("the user's code ran")
a = torch.randn(4, 3)
b = torch.randn(5, 2)
c = a @ b
labels = torch.tensor([0, 1])
labels.float()
"""


NOTEBOOK = {
    "cells": [
        {"cell_type": "markdown", "metadata": {}, "source": ["# a notebook"]},
        {"cell_type": "code", "metadata": {}, "execution_count": None, "outputs": [],
         "source": ["import torch\n", "x = torch.randn(8, 10)\n"]},
        {"cell_type": "code", "metadata": {}, "execution_count": None, "outputs": [],
         "source": ["w = torch.randn(3, 2)\n", "y = x @ w\n"]},
    ],
    "metadata": {"kernelspec": {"language": "python", "name": "python3", "display_name": "Python 3"},
                 "language_info": {"name": "python"}},
    "nbformat": 4, "nbformat_minor": 5,
}


@dataclass
class CheckRun:
    exit_code: int
    findings: List[dict]
    marker: Path
    program: Path
    seconds: float


@pytest.fixture(scope="module")
def checked(tmp_path_factory: pytest.TempPathFactory) -> CheckRun:
    """One ``check --confirm --output-format json`` over the demo and a program with a side effect."""
    root = tmp_path_factory.mktemp("confirm")
    marker, program = root / "ran", root / "prog.py"
    program.write_text(SIDE_EFFECT_PROGRAM.replace("MARKER", repr(str(marker))))
    notebook = root / "nb.ipynb"
    notebook.write_text(json.dumps(NOTEBOOK))
    huge = root / "huge.py"
    huge.write_text("import torch\nbig = torch.zeros(100000, 100000)\nout = big @ torch.zeros(3, 3)\n")
    bad_fixtures = sorted(str(p) for p in FIXTURES.glob("TTL*/bad_*.py"))
    paths = [str(program), str(notebook), str(huge)] + ([str(DEMO)] if DEMO.exists() else []) + bad_fixtures
    out = io.StringIO()
    started = time.perf_counter()
    with contextlib.redirect_stdout(out):
        exit_code = cli.main(["check", "--confirm", "--isolated", "--no-cache", "--extend-select", "TTL9",
                              "--save-reproductions", str(root / "repros"), "--output-format", "json"]
                             + paths)
    return CheckRun(exit_code, json.loads(out.getvalue()), marker, program, time.perf_counter() - started)


def test_check_confirm_attaches_torch_messages_to_the_demo(checked: CheckRun) -> None:
    if not DEMO.exists():
        pytest.skip("examples/demo_training.py not present")
    demo = [f for f in checked.findings if f["filename"].endswith("demo_training.py")]
    assert checked.exit_code == 1 and demo
    confirmed = [c for f in demo for c in f["confirmations"] if c.startswith("confirmed on cpu: ")]
    assert any("RuntimeError: mat1 and mat2 shapes cannot be multiplied" in c for c in confirmed), demo
    by_code = {f["code"]: f["confirmations"] for f in demo}
    assert any(c.startswith("confirmed on cpu: AssertionError") for c in by_code.get("TTL101", [])), by_code
    # Every finding of a rule with a runtime claim gets a verdict, confirmed or not.
    for f in demo:
        if base.get_rule(f["code"]).runtime is not None:
            assert f["confirmations"], f


def test_check_confirm_never_runs_user_code(checked: CheckRun) -> None:
    assert not checked.marker.exists(), "check --confirm executed the user's program"
    mine = [f for f in checked.findings if f["filename"] == str(checked.program)]
    assert {f["code"] for f in mine} >= {"TTL101", "TTL507"}, mine
    for f in mine:
        assert f["confirmations"] and f["confirmations"][0].startswith("confirmed on cpu: "), f


def test_check_confirm_in_a_notebook(checked: CheckRun) -> None:
    # Notebook findings count lines within their cell; the reproduction still finds the operation.
    cells = [f for f in checked.findings if f["filename"].endswith("nb.ipynb")]
    assert [(f["code"], f.get("cell")) for f in cells] == [("TTL507", 3)], cells
    assert cells[0]["confirmations"][0] == \
        "confirmed on cpu: RuntimeError: mat1 and mat2 shapes cannot be multiplied (8x10 and 3x2)"


def test_check_confirm_saves_standalone_reproductions(checked: CheckRun) -> None:
    mine = [f for f in checked.findings if f["filename"] == str(checked.program)]
    scripts = [c.split(": ", 1)[1] for f in mine for c in f["confirmations"] if c.startswith("reproduction: ")]
    assert len(scripts) == len(mine), mine
    for script in scripts:
        text = Path(script).read_text()
        compile(text, script, "exec")
        assert 'DEVICE = os.environ.get("TTL_DEVICE", "cpu")' in text
        assert "pathlib" not in text, "the user's own statements must not be copied into a reproduction"


def test_check_confirm_caps_the_memory_of_a_reproduction(checked: CheckRun) -> None:
    # 40 GB operands rebuilt from the user's sizes fail with torch's allocation error.
    found = [f for f in checked.findings if f["filename"].endswith("huge.py")]
    assert [f["code"] for f in found] == ["TTL507"], found
    assert "can't allocate memory" in found[0]["confirmations"][0], found[0]["confirmations"]


def test_check_confirm_reproduces_most_bad_fixtures(checked: CheckRun) -> None:
    # The synthesized reproductions are rebuilt from inferred facts only; most must still make
    # torch fail the way the rule says (annotation rules and value-dependent bugs cannot).
    findings = [f for f in checked.findings if "/fixtures/TTL" in f["filename"]
                and base.get_rule(f["code"]).runtime is not None]
    assert len(findings) >= 40, len(findings)
    agreeing = ("confirmed on cpu: ", "runs on cpu, as the rule says")
    confirmed = [f for f in findings if any(c.startswith(agreeing) for c in f["confirmations"])]
    others = "\n".join(f"{f['filename']}:{f['location']['row']} {f['code']} {f['confirmations']}"
                       for f in findings if f not in confirmed)
    assert len(confirmed) / len(findings) >= 0.75, others


def test_confirm_without_torch_is_a_usage_error(monkeypatch: pytest.MonkeyPatch,
                                                capsys: pytest.CaptureFixture) -> None:
    monkeypatch.setattr(pool, "torch_installed", lambda: False)
    assert cli.main(["confirm", "--rule", "TTL101", "--no-lint"]) == 2
    assert "torch is not installed" in capsys.readouterr().err


def test_a_rules_own_reproduce_hook_comes_first(monkeypatch: pytest.MonkeyPatch) -> None:
    import libcst as cst

    from torchtype_lint.checker.check import Settings
    from torchtype_lint.harness.facts import collect
    from torchtype_lint.harness.reproduce import build, generic
    from torchtype_lint.model.selection import Selection

    class ZerosRule(Rule):
        code = "TTL996"
        listens = (cst.Call,)
        runtime = RuntimeClaim("RuntimeError", "planted")

        def visit(self, node, ev):  # noqa: ANN001
            callee = ev.callee(node)
            if callee is not None and callee.name == "torch.zeros":
                self.report(node, "planted")

        @classmethod
        def reproduce(cls, facts):  # noqa: ANN001
            shape = facts.callee(facts.node).result.shape
            return f"raise RuntimeError('planted for shape {shape}')\n"

    monkeypatch.setitem(base._REGISTRY, "TTL996", ZerosRule)
    facts = collect("import torch\nx = torch.zeros(2, 3)\n", Settings(selection=Selection(select=["TTL996"])))
    assert list(facts) == [("TTL996", 2, 4)]
    repro = build(facts[("TTL996", 2, 4)])
    assert repro is not None and repro.source == "raise RuntimeError('planted for shape (2, 3)')\n"
    assert repro.summary == "torch.zeros(2, 3)"
    # Without the hook, the generic synthesizer rebuilds the call from its literal arguments.
    assert "torch.zeros(2, 3)" in generic(facts[("TTL996", 2, 4)])[0]


def test_reproductions_never_load_files_or_pickles(monkeypatch: pytest.MonkeyPatch) -> None:
    import libcst as cst

    from torchtype_lint.checker.check import Settings
    from torchtype_lint.harness.facts import collect
    from torchtype_lint.harness.reproduce import generic
    from torchtype_lint.model.selection import Selection

    class EveryAddition(Rule):
        code = "TTL997"
        listens = (cst.BinaryOperation,)
        runtime = RuntimeClaim("RuntimeError")

        def visit(self, node, ev):  # noqa: ANN001
            self.report(node, "planted")

    monkeypatch.setitem(base._REGISTRY, "TTL997", EveryAddition)
    source = textwrap.dedent("""
        import numpy as np
        import torch
        a = torch.load("weights.pt") + 1
        b = np.load("data.npy", allow_pickle=True) * 2
        c = torch.zeros(2, 3) + 1
        """)
    facts = collect(source, Settings(selection=Selection(select=["TTL997"])))
    built = {line: generic(f) for (_, line, _), f in facts.items()}
    # torch.load / np.load would unpickle (run code) or read the user's files: never rebuilt.
    assert built[4] is None and built[5] is None
    snippet, summary, needs_cuda = built[6]
    assert "= _tensor(torch.float32, (2, 3), DEVICE)" in snippet and summary == "torch.zeros(2, 3) + 1"
    assert not needs_cuda


def test_check_confirm_without_torch_leaves_the_result_unchanged(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture) -> None:
    monkeypatch.setattr(pool, "torch_installed", lambda: False)
    result = check_path(str(FIXTURES / "TTL101" / "bad_discarded_casts.py"))
    before = [f.concise() for f in result.findings]
    confirm_hook(result.findings, argparse.Namespace(confirm=True, stdin_filename=None))
    assert [f.concise() for f in result.findings] == before
    assert all(not f.confirmations for f in result.findings)
    assert "--confirm needs torch" in capsys.readouterr().err


# --------------------------------------------------------------------------- the convention


FIXTURE_FILES = [f for items in fx.discover(FIXTURES).values() for f in items]


@pytest.mark.parametrize("fixture", FIXTURE_FILES, ids=[f.ident for f in FIXTURE_FILES])
def test_fixture_follows_the_convention(fixture: fx.Fixture) -> None:
    text = fixture.path.read_text(encoding="utf-8")
    assert "TTL_DEVICE" in text, "fixtures take the device from the TTL_DEVICE environment variable"
    if fixture.kind == "bad":
        assert fixture.labels, "a bad fixture marks the reported line with `# expect: CODE`"
    else:
        assert not fixture.labels, "a good fixture has no `# expect:` labels"


def test_pattern_devices_claim_only_the_failure_where_the_wording_is_unobserved():
    # A dtype mismatch fails on every device, but its wording was only observed on CPU:
    # on CUDA any exception confirms the claim, a clean run contradicts it.
    from torchtype_lint.harness.confirm import claim_matches
    from torchtype_lint.rules.base import RuntimeClaim

    claim = RuntimeClaim("RuntimeError", r"mat1 and mat2 must have the same dtype",
                         pattern_devices=("cpu",))
    cuda_wording = {"outcome": "raised", "exception": "RuntimeError",
                    "mro": ["RuntimeError", "Exception"],
                    "message": "\"addmm_cuda\" not implemented for 'Long'"}
    assert claim_matches(claim, cuda_wording, "cuda")
    assert not claim_matches(claim, cuda_wording, "cpu")
    assert not claim_matches(claim, {"outcome": "ok"}, "cuda")
