"""The command line: outputs, exit codes, selection, noqa, file discovery, entry points."""
from __future__ import annotations

import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from torchtype_lint.cli.main import COMMANDS, main
from torchtype_lint.rules.base import all_rules
from torchtype_lint.model.selection import Selection

REPO = Path(__file__).resolve().parent.parent

DISCARDED = textwrap.dedent("""\
    import torch

    labels = torch.tensor([0, 1, 1, 0])
    labels.float()
    """)
ASSIGNED = DISCARDED.replace("labels.float()", "labels = labels.float()")


def run(capsys, *argv: str):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def test_finding_line_format_and_exit_code_1(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    write(tmp_path, "train.py", DISCARDED)
    code, out, err = run(capsys, "check", "train.py")
    assert code == 1
    lines = out.splitlines()
    assert len(lines) == 1
    assert lines[0].startswith("train.py:4:1: TTL101 result of `labels.float()` is discarded")
    assert "`labels` is still int64" in lines[0]
    assert lines[0].endswith("assign it: `labels = labels.float()`")
    assert err == "Found 1 finding.\n[*] 1 fixable with the `--fix` option.\n"


def test_clean_file_exit_0_and_all_checks_passed(tmp_path, capsys, monkeypatch):
    # Like ruff, but on stderr with the other summaries: stdout holds only the report.
    monkeypatch.chdir(tmp_path)
    write(tmp_path, "train.py", ASSIGNED)
    assert run(capsys, "check", "train.py") == (0, "", "All checks passed!\n")


def test_exit_zero_still_prints(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    write(tmp_path, "train.py", DISCARDED)
    code, out, _ = run(capsys, "check", "--exit-zero", "train.py")
    assert code == 0
    assert out.startswith("train.py:4:1: TTL101 ")


@pytest.mark.parametrize("options, reported", [
    ([], True),
    (["--select", "TTL2"], False),
    (["--select", "TTL1"], True),
    (["--select", "TTL101"], True),
    (["--ignore", "TTL1"], False),
    (["--ignore", "TTL101"], False),
    (["--ignore", "TTL2,TTL3"], True),
    (["--select", "TTL", "--ignore", "TTL1", "--extend-select", "TTL101"], True),
    (["--select", "TTL2", "--extend-select", "TTL10"], True),
    (["--select", "ALL"], True),
    (["--select", "ttl101"], True),
])
def test_selection_by_prefix(tmp_path, capsys, monkeypatch, options, reported):
    monkeypatch.chdir(tmp_path)
    write(tmp_path, "train.py", DISCARDED)
    code, out, _ = run(capsys, "check", *options, "train.py")
    assert (code, "TTL101" in out) == ((1, True) if reported else (0, False))


@pytest.mark.parametrize("option", ["--select", "--ignore", "--extend-select"])
def test_bad_code_prefix_is_a_usage_error(tmp_path, capsys, monkeypatch, option):
    monkeypatch.chdir(tmp_path)
    write(tmp_path, "train.py", DISCARDED)
    code, out, err = run(capsys, "check", option, "E501", "train.py")
    assert code == 2
    assert out == ""
    assert err.startswith(f"torchtype-lint: error: {option}: 'E501' is not a rule code or prefix")


def test_opt_in_rules_need_an_explicit_prefix():
    assert not Selection(select=["TTL"]).is_enabled("TTL901", default_enabled=False)
    assert not Selection(select=["TTL9"], ignore=["TTL90"]).is_enabled("TTL901", default_enabled=False)
    assert Selection(select=["TTL"], extend_select=["TTL9"]).is_enabled("TTL901", default_enabled=False)
    assert Selection(select=["TTL901"]).is_enabled("TTL901", default_enabled=False)


@pytest.mark.parametrize("comment, suppressed", [
    ("# noqa", True),
    ("# noqa: TTL101", True),
    ("# NOQA:TTL101", True),
    ("# noqa: TTL1", True),
    ("# noqa: E501, TTL101", True),
    ("# noqa: E501", False),
    ("# noqa: TTL102", False),
    ("# a comment", False),
    ("#noqa:TTL101", True),
    # Codes are case-sensitive, as in flake8 and ruff: a lower-case code suppresses nothing
    # (and does not turn the comment into a blanket noqa).
    ("# NOQA: ttl101", False),
    ("# noqa: ttl101, TTL101", True),
])
def test_noqa_is_honoured_by_the_cli(tmp_path, capsys, monkeypatch, comment, suppressed):
    monkeypatch.chdir(tmp_path)
    write(tmp_path, "train.py", DISCARDED.replace("labels.float()", f"labels.float()  {comment}"))
    code, out, _ = run(capsys, "check", "train.py")
    assert (code, out.count("TTL101")) == ((0, 0) if suppressed else (1, 1))


def test_noqa_on_another_line_does_not_suppress(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    write(tmp_path, "train.py", DISCARDED.replace("labels = torch", "labels = torch  # noqa: TTL101\nlabels = torch"))
    code, out, _ = run(capsys, "check", "train.py")
    assert code == 1 and out.startswith("train.py:5:1: TTL101 ")


def test_discovery_skips_default_excludes_and_non_python(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    write(tmp_path, "proj/train.py", DISCARDED)
    write(tmp_path, "proj/pkg/model.pyi", DISCARDED)
    for skipped in (".venv/lib/x.py", "build/lib/x.py", "node_modules/x.py", "proj/__pycache__/x.py",
                    "dist/x.py", ".git/x.py", "proj/notes.txt", "proj/x.egg-info/x.py"):
        write(tmp_path, skipped, DISCARDED)
    code, out, _ = run(capsys, "check", ".")
    assert code == 1
    assert [line.split(":")[0] for line in out.splitlines()] == ["./proj/pkg/model.pyi", "./proj/train.py"]


def test_exclude_option_and_explicit_files(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    write(tmp_path, "src/train.py", DISCARDED)
    write(tmp_path, "src/generated/gen.py", DISCARDED)
    write(tmp_path, "src/legacy_old.py", DISCARDED)
    code, out, _ = run(capsys, "check", "--exclude", "generated,*_old.py", "src")
    assert [line.split(":")[0] for line in out.splitlines()] == ["src/train.py"]
    # A file named on the command line is checked even when excluded (like ruff) ...
    code, out, _ = run(capsys, "check", "--exclude", "generated", "src/generated/gen.py")
    assert code == 1 and out.startswith("src/generated/gen.py:4:1: TTL101")
    # ... unless --force-exclude (what pre-commit passes).
    code, out, _ = run(capsys, "check", "--force-exclude", "--exclude", "generated", "src/generated/gen.py")
    assert (code, out) == (0, "")


def test_findings_sorted_by_path_then_line(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    two = DISCARDED + "labels.double()\n"
    write(tmp_path, "b.py", two)
    write(tmp_path, "a.py", DISCARDED)
    code, out, err = run(capsys, "check", "b.py", "a.py")
    assert [line.split(": ")[0] for line in out.splitlines()] == ["a.py:4:1", "b.py:4:1", "b.py:5:1"]
    assert err.startswith("Found 3 findings")


def test_missing_file_is_a_diagnostic(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code, out, _ = run(capsys, "check", "nope.py")
    assert code == 1
    assert out == "nope.py:1:1: TTL001 could not read file: No such file or directory\n"


def test_stdin_filename(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    import io

    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(DISCARDED.encode())))
    code, out, _ = run(capsys, "check", "--stdin-filename", "from_stdin.py")
    assert code == 1 and out.startswith("from_stdin.py:4:1: TTL101 ")
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(DISCARDED.encode())))
    code, out, _ = run(capsys, "check", "-")
    assert code == 1 and out.startswith("-:4:1: TTL101 ")


def test_usage_errors_exit_2(capsys):
    assert run(capsys, "check", "--no-such-option")[0] == 2
    assert run(capsys)[0] == 2
    assert run(capsys, "frobnicate")[0] == 2


def test_a_crash_of_the_tool_exits_2_without_a_traceback(tmp_path, capsys, monkeypatch):
    import torchtype_lint.cli.check_command as check_command

    def crash(args):
        raise RuntimeError("simulated\ncrash")

    monkeypatch.setattr(check_command, "run_check", crash)
    monkeypatch.delenv("TORCHTYPE_LINT_DEBUG", raising=False)
    code, out, err = run(capsys, "check", ".")
    assert (code, out) == (2, "")
    assert err.startswith("torchtype-lint: internal error: RuntimeError: simulated crash (set TORCHTYPE_LINT_DEBUG=1")
    assert "Traceback" not in err
    monkeypatch.setenv("TORCHTYPE_LINT_DEBUG", "1")
    code, _, err = run(capsys, "check", ".")
    assert code == 2 and "Traceback" in err


def test_rule_prints_docs_and_lists_rules(capsys):
    code, out, _ = run(capsys, "rule", "TTL101")
    assert code == 0
    assert out.startswith("# TTL101: discarded-cast\n")
    for section in ("## What it does", "## Why is this bad?", "## Example", "## Use instead", "## Fix safety"):
        assert section in out
    code, out, _ = run(capsys, "rule", "--all")
    assert code == 0
    assert any(re.match(r"TTL101  discarded-cast +result of a tensor cast", line) for line in out.splitlines())
    code, out, err = run(capsys, "rule", "TTL999")
    assert code == 2 and "unknown rule 'TTL999'" in err
    # A prefix lists the family.
    code, out, _ = run(capsys, "rule", "ttl10")
    assert code == 0
    assert [line.split()[0] for line in out.splitlines()] == [
        r.code for r in all_rules() if r.code.startswith("TTL10")]
    assert "TTL101" in out
    assert run(capsys, "rule")[1] == run(capsys, "rule", "--all")[1]


def test_version(capsys):
    from torchtype_lint import __version__

    assert run(capsys, "--version") == (0, f"torchtype-lint {__version__}\n", "")


def test_command_table_drives_the_parser(capsys):
    # Every available command in the table is a real subcommand with help.
    code, out, _ = run(capsys, "--help")
    assert code == 0
    for name, command in COMMANDS.items():
        if command.available():
            assert name in out


@pytest.mark.parametrize("entry", [
    [sys.executable, "-m", "torchtype_lint"],
    [str(Path(sys.executable).with_name("torchtype-lint"))],
])
def test_entry_points_in_a_subprocess(tmp_path, entry):
    if not os.path.exists(entry[0]):
        pytest.skip("console script not installed next to this interpreter")
    write(tmp_path, "train.py", DISCARDED)
    write(tmp_path, "clean.py", ASSIGNED)
    proc = subprocess.run(entry + ["check", "."], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 1, proc.stderr
    assert proc.stdout.startswith("./train.py:4:1: TTL101 ")  # paths shown as flake8 shows them
    assert proc.stdout.count("\n") == 1
    assert "Traceback" not in proc.stderr
    proc = subprocess.run(entry + ["check", "clean.py"], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert (proc.returncode, proc.stdout) == (0, "")


def test_gitignore_is_respected_inside_a_git_work_tree(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".git" / "info").mkdir(parents=True)
    (tmp_path / ".git" / "info" / "exclude").write_text("scratch_*.py\n")
    write(tmp_path, ".gitignore", "# generated code\nwandb/\n/outputs\n*.gen.py\n!keep.gen.py\n")
    write(tmp_path, "src/.gitignore", "local_*.py\n")
    for rel in ("src/train.py", "src/keep.gen.py", "src/model.gen.py", "src/local_try.py",
                "wandb/run-1/files/code/train.py", "outputs/copy.py", "src/outputs/real.py",
                "scratch_1.py", "other/local_try.py"):
        write(tmp_path, rel, DISCARDED)
    expected = ["./other/local_try.py", "./src/keep.gen.py", "./src/outputs/real.py", "./src/train.py"]
    code, out, _ = run(capsys, "check", "--isolated", ".")
    assert sorted({line.split(":")[0] for line in out.splitlines()}) == expected
    # Checking a subdirectory still applies the .gitignore files above it.
    code, out, _ = run(capsys, "check", "--isolated", "src")
    assert sorted({line.split(":")[0] for line in out.splitlines()}) == [
        "src/keep.gen.py", "src/outputs/real.py", "src/train.py"]
    # Named files are checked even when ignored; --no-respect-gitignore walks everything.
    assert run(capsys, "check", "--isolated", "outputs/copy.py")[0] == 1
    code, out, _ = run(capsys, "check", "--isolated", "--no-respect-gitignore", ".")
    assert len({line.split(":")[0] for line in out.splitlines()}) == 9
    write(tmp_path, "pyproject.toml", "[tool.torchtype-lint]\nrespect-gitignore = false\n")
    code, out, _ = run(capsys, "check", ".")
    assert len({line.split(":")[0] for line in out.splitlines()}) == 9


def test_gitignore_means_nothing_outside_a_git_work_tree(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    write(tmp_path, ".gitignore", "*.py\n")
    write(tmp_path, "train.py", DISCARDED)
    assert run(capsys, "check", "--isolated", ".")[0] == 1
