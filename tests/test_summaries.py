"""The summary lines of ``check`` and the ``--statistics`` markers, in ruff's words (issue 27).

ruff (``crates/ruff/src/printer.rs``) counts findings apart from the fixes it could apply:
``Found 1 error.`` then ``[*] N fixable with the `--fix` option (M hidden fixes can be enabled
with the `--unsafe-fixes` option).``, or ``No fixes available (...)`` when every fix is unsafe;
with ``--diff`` or ``--fix-only`` it says what would be or was fixed and how many more fixes
``--unsafe-fixes`` would add, and ``--diff`` exits 1 only when something would change.
"""
from __future__ import annotations

import io
import sys
import textwrap

import pytest

from torchtype_lint.cli.main import main
from torchtype_lint.model.findings import Finding, Fix, Location
from torchtype_lint.report.statistics import count_codes, render_statistics

UNSAFE_ONLY = textwrap.dedent("""\
    import torch

    x = torch.randn(3)
    is_float = x.type() == torch.float32
    """)
TWO_UNSAFE = UNSAFE_ONLY + "is_half = x.type() == torch.float16\n"
SAFE_ONLY = textwrap.dedent("""\
    import torch

    labels = torch.tensor([0, 1])
    labels.float()
    """)
NO_FIX = "import torch\n\ny = torch.ones(3) @ torch.ones(4, 3)\n"
#: TTL102 twice (unsafe fixes), TTL507 (no fix), TTL101 (a safe fix).
MIXED = TWO_UNSAFE + "y = torch.ones(3) @ torch.ones(4, 3)\nlabels = torch.tensor([0, 1])\nlabels.float()\n"

HIDDEN_1 = "1 hidden fix can be enabled with the `--unsafe-fixes` option"
HIDDEN_2 = "2 hidden fixes can be enabled with the `--unsafe-fixes` option"


@pytest.fixture
def project(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for name, text in {"unsafe.py": UNSAFE_ONLY, "two_unsafe.py": TWO_UNSAFE, "safe.py": SAFE_ONLY,
                       "nofix.py": NO_FIX, "mixed.py": MIXED}.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    return tmp_path


def check(capsys, *argv, stdin=None, monkeypatch=None):
    if stdin is not None:
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(stdin.encode())))
    code = main(["check", "--isolated", "--no-cache", *argv])
    out, err = capsys.readouterr()
    return code, out, err


# --------------------------------------------------------------------------- check


def test_one_finding_with_only_an_unsafe_fix_is_one_finding(project, capsys):
    # Was "Found 1 finding (1 more with --unsafe-fixes).", which reads as two findings.
    code, out, err = check(capsys, "unsafe.py")
    assert code == 1 and out.count("\n") == 1
    assert err == f"Found 1 finding.\nNo fixes available ({HIDDEN_1}).\n"


def test_safe_fixes_only(project, capsys):
    assert check(capsys, "safe.py")[::2] == (1, "Found 1 finding.\n[*] 1 fixable with the `--fix` option.\n")


def test_safe_and_hidden_fixes(project, capsys):
    code, _, err = check(capsys, "mixed.py")
    assert (code, err) == (1, f"Found 4 findings.\n[*] 1 fixable with the `--fix` option ({HIDDEN_2}).\n")


def test_unsafe_fixes_count_as_fixable_with_the_option(project, capsys):
    code, _, err = check(capsys, "--unsafe-fixes", "mixed.py")
    assert (code, err) == (1, "Found 4 findings.\n[*] 3 fixable with the `--fix` option.\n")


def test_no_fix_at_all_says_nothing_about_fixes(project, capsys):
    assert check(capsys, "nofix.py")[::2] == (1, "Found 1 finding.\n")


def test_fix_reports_the_hidden_fixes_it_left(project, capsys):
    code, out, err = check(capsys, "--fix", "mixed.py")
    assert code == 1 and "labels = labels.float()" in (project / "mixed.py").read_text()
    assert err == f"Found 3 findings.\nNo fixes available ({HIDDEN_2}).\nFixed 1 finding.\n"


# --------------------------------------------------------------------------- --diff, --fix-only


def test_diff_with_only_unsafe_fixes_says_so_and_exits_0_like_ruff(project, capsys):
    # Was silent (no diff, no summary, exit 0): the user could not tell why nothing showed.
    code, out, err = check(capsys, "--diff", "unsafe.py")
    assert (code, out) == (0, "")
    assert err == "No findings would be fixed (1 fix available with `--unsafe-fixes`).\n"
    assert (project / "unsafe.py").read_text() == UNSAFE_ONLY
    code, out, err = check(capsys, "--diff", "--unsafe-fixes", "unsafe.py")
    assert code == 1 and "+is_float = x.dtype == torch.float32" in out
    assert err == "Would fix 1 finding.\n"


def test_diff_with_safe_and_unsafe_fixes(project, capsys):
    code, out, err = check(capsys, "--diff", "mixed.py")
    assert code == 1 and "+labels = labels.float()" in out and "x.dtype" not in out
    assert err == "Would fix 1 finding (2 additional fixes available with `--unsafe-fixes`).\n"


def test_diff_on_stdin_with_only_unsafe_fixes(project, capsys, monkeypatch):
    code, out, err = check(capsys, "--diff", "-", stdin=UNSAFE_ONLY, monkeypatch=monkeypatch)
    assert (code, out) == (0, "")
    assert err == "No findings would be fixed (1 fix available with `--unsafe-fixes`).\n"


def test_fix_only_with_hidden_fixes(project, capsys):
    code, out, err = check(capsys, "--fix-only", "unsafe.py")
    assert (code, out, err) == (0, "", "No findings fixed (1 fix available with `--unsafe-fixes`).\n")
    code, out, err = check(capsys, "--fix-only", "mixed.py")
    assert (code, out) == (0, "")
    assert err == "Fixed 1 finding (2 additional fixes available with `--unsafe-fixes`).\n"


# --------------------------------------------------------------------------- --statistics


def test_statistics_mark_unsafe_only_fixes_apart_from_no_fix(project, capsys):
    # Was "[ ]" for TTL102 (unsafe fixes) as for TTL507 (no fix).
    code, out, err = check(capsys, "--statistics", "mixed.py")
    assert code == 1
    assert out.splitlines() == ["2\tTTL102\t[-] type-string-compared-to-dtype",
                                "1\tTTL101\t[*] discarded-cast",
                                "1\tTTL507\t[ ] matmul-shape-mismatch"]
    assert err == f"Found 4 findings.\n[*] 1 fixable with the `--fix` option ({HIDDEN_2}).\n"
    code, out, _ = check(capsys, "--statistics", "--unsafe-fixes", "mixed.py")
    assert out.splitlines()[0] == "2\tTTL102\t[*] type-string-compared-to-dtype"


def _finding(code: str, fix: "Fix | None") -> Finding:
    return Finding(code=code, message="m", severity="warning", path="f.py", location=Location(1, 0, 1, 1), fix=fix)


def test_statistics_mark_a_rule_only_some_of_whose_findings_are_fixable():
    safe, unsafe = Fix(None, None, "d"), Fix(None, None, "d", safe=False)
    rows = count_codes([_finding("TTL101", safe), _finding("TTL101", None),
                        _finding("TTL102", unsafe), _finding("TTL102", None)])
    assert render_statistics(rows, "concise").splitlines() == ["2\tTTL101\t[~] discarded-cast",
                                                               "2\tTTL102\t[-] type-string-compared-to-dtype"]
    assert [(r.fixable_count, r.hidden_fix_count) for r in rows] == [(1, 0), (0, 1)]
    rows = count_codes([_finding("TTL102", unsafe), _finding("TTL102", None)], unsafe=True)
    assert render_statistics(rows, "concise") == "2\tTTL102\t[~] type-string-compared-to-dtype\n"


def test_fix_on_stdin_says_which_fixes_are_hidden(project, capsys, monkeypatch):
    code, out, err = check(capsys, "--fix", "--stdin-filename", "mixed.py", stdin=MIXED, monkeypatch=monkeypatch)
    assert code == 1 and "labels = labels.float()" in out
    assert err == ("Found 3 findings left after fixing (run without --fix to see them).\n"
                   f"No fixes available ({HIDDEN_2}).\nFixed 1 finding.\n")
