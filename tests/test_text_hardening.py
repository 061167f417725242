"""Text the linter reads and prints: lines numbered as Python numbers them, output no input can forge.

1. ``str.splitlines`` ends a line at ``\\f``, ``\\v``, ``\\x1c``-``\\x1e``, ``\\x85``, ``\\u2028``,
   ``\\u2029``; Python's tokenizer (and libcst, flake8, the LSP) only at ``\\n``, ``\\r\\n``, ``\\r``.
   Numbering lines the first way put ``# noqa`` on the wrong line (read and written), the
   ``full`` excerpt under the wrong finding, and phantom statements into the incremental parse.
2. File names and quoted source were printed raw: a name or a string holding a newline and
   ``::warning ...::`` made a GitHub Actions workflow command of the linter's output.
"""
from __future__ import annotations

import ast
import json
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from torchtype_lint.checker.check import check_source
from torchtype_lint.cli.main import main
from torchtype_lint.source.lines import line_breaks, source_lines
from torchtype_lint.report.printable import printable, printable_path

#: Characters that end a line for str.splitlines but not for Python's tokenizer.
NOT_LINE_BREAKS = ["\f", "\v", "\x1c", "\x1d", "\x1e", "\x85", "\u2028", "\u2029"]

HEAD = textwrap.dedent("""\
    import torch

    labels = torch.tensor([0, 1, 1, 0])
    """)
#: A page break (a form feed on a line of its own, as Emacs and the CPython sources have them).
PAGED = "\"\"\"Module docstring.\f\nSecond page.\n\"\"\"\n\f\n" + HEAD + "labels.float()\n"
#: The finding's line shares its first line with the end of a string holding a form feed.
STRING_THEN_FINDING = HEAD + "note = \"\"\"Page one.\f\nPage two.\n\"\"\"; labels.float()\n"


def _finding_line(source: str) -> int:
    """Where CPython puts the ``labels.float()`` call: the line every front end must report."""
    calls = [n for n in ast.walk(ast.parse(source)) if isinstance(n, ast.Call)
             and isinstance(n.func, ast.Attribute) and n.func.attr == "float"]
    return calls[0].lineno


def _with_comment(source: str, line: int, comment: str) -> str:
    lines = source_lines(source, keepends=True)
    lines[line - 1] = lines[line - 1].rstrip("\r\n") + f"  {comment}\n"
    return "".join(lines)


def _strings(source: str) -> list:
    return [n.value for n in ast.walk(ast.parse(source)) if isinstance(n, ast.Constant) and isinstance(n.value, str)]


# --------------------------------------------------------------------------- lines.py


@pytest.mark.parametrize("char", NOT_LINE_BREAKS)
def test_source_lines_end_only_where_the_tokenizer_ends_a_line(char):
    text = f"a = 1  # one{char}still one\r\nb = '{char}'\rc = 3\n\nd = 4"
    assert source_lines(text) == [f"a = 1  # one{char}still one", f"b = '{char}'", "c = 3", "", "d = 4"]
    assert "".join(source_lines(text, keepends=True)) == text
    assert line_breaks(text) == 4
    # The tokenizer agrees: d is on line 5.
    assert [n.lineno for n in ast.parse(text).body] == [1, 2, 3, 5]


# --------------------------------------------------------------------------- noqa, findings


@pytest.mark.parametrize("source", [PAGED, STRING_THEN_FINDING], ids=["page-break", "string"])
def test_findings_are_on_the_tokenizers_line_and_noqa_is_read_there(source):
    line = _finding_line(source)
    assert [(f.code, f.line) for f in check_source(source, "t.py").findings] == [("TTL101", line)]
    # On the finding's line, the comment suppresses it.
    assert check_source(_with_comment(source, line, "# noqa: TTL101"), "t.py").findings == []
    # On the line above (the assignment), it does not.
    above = _with_comment(source, line - 1 if source is PAGED else 3, "# noqa: TTL101")
    assert [(f.code, f.line) for f in check_source(above, "t.py").findings] == [("TTL101", line)]


@pytest.mark.parametrize("char", NOT_LINE_BREAKS)
def test_noqa_after_a_comment_holding_any_splitlines_break(char):
    source = HEAD.replace("import torch", f"import torch  # see{char}page 2") + "labels.float()  # noqa: TTL101\n"
    assert check_source(source, "t.py").findings == []


@pytest.mark.parametrize("source", [PAGED, STRING_THEN_FINDING], ids=["page-break", "string"])
def test_add_noqa_writes_on_the_findings_line_and_leaves_strings_alone(tmp_path, capsys, monkeypatch, source):
    monkeypatch.chdir(tmp_path)
    Path("t.py").write_bytes(source.encode("utf-8"))
    assert main(["check", "--isolated", "--no-cache", "--add-noqa", "t.py"]) == 0
    capsys.readouterr()
    edited = Path("t.py").read_bytes().decode("utf-8")
    line = _finding_line(source)
    # Only the finding's line changed, and the docstring and every string kept their value.
    assert edited == _with_comment(source, line, "# noqa: TTL101")
    assert _strings(edited) == _strings(source)
    assert ast.get_docstring(ast.parse(edited), clean=False) == ast.get_docstring(ast.parse(source), clean=False)
    assert main(["check", "--isolated", "--no-cache", "t.py"]) == 0


def test_full_format_shows_the_findings_own_line(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    Path("t.py").write_text(PAGED, encoding="utf-8")
    main(["check", "--isolated", "--no-cache", "--output-format", "full", "t.py"])
    out = capsys.readouterr().out
    assert f"{_finding_line(PAGED)} | labels.float()\n" in out


FLAKE8 = [sys.executable, "-m", "flake8", "--isolated", "--select=TTL"]
CLI = [sys.executable, "-m", "torchtype_lint", "check", "--isolated", "--no-cache"]


@pytest.mark.parametrize("where", ["none", "finding", "above"])
def test_the_cli_and_flake8_agree_after_a_page_break(tmp_path, where):
    line = _finding_line(PAGED)
    source = {"none": PAGED, "finding": _with_comment(PAGED, line, "# noqa: TTL101"),
              "above": _with_comment(PAGED, line - 1, "# noqa: TTL101")}[where]
    (tmp_path / "t.py").write_bytes(source.encode("utf-8"))
    flake8 = subprocess.run(FLAKE8 + ["t.py"], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    cli = subprocess.run(CLI + ["t.py"], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert flake8.stdout == cli.stdout
    expected = "" if where == "finding" else f"t.py:{line}:1: TTL101 "
    assert cli.stdout.startswith(expected) and bool(cli.stdout) == bool(expected)


# --------------------------------------------------------------------------- incremental


def test_a_comment_holding_a_form_feed_is_no_statement_for_the_incremental_parse():
    from torchtype_lint.run.incremental.chunks import split_module
    from torchtype_lint.run.incremental.session import IncrementalChecker

    # Python reads one statement on line 2 (the rest is a comment), not a matmul on line 3.
    text = "import torch\nx = 1  # page\fy = torch.zeros(2, 3) @ torch.zeros(4, 5)\nz = x\n"
    split = split_module(text)
    assert split is None or len(split.module.body) == 3
    checker = IncrementalChecker()
    assert checker.check(text, "t.py").findings == check_source(text, "t.py").findings == []
    edited = text.replace("z = x", "z = x + 1")
    assert checker.check(edited, "t.py").findings == check_source(edited, "t.py").findings == []


def test_a_comment_holding_a_form_feed_is_no_statement_in_the_body_of_main():
    from torchtype_lint.run.incremental.session import IncrementalChecker

    text = ("import torch\n\n\ndef main():\n    x = 1  # page\f    y = torch.zeros(2, 3) @ torch.zeros(4, 5)\n"
            "    z = x\n\n\nif __name__ == \"__main__\":\n    main()\n")
    checker = IncrementalChecker()
    assert checker.check(text, "t.py").findings == []
    edited = text.replace("z = x", "z = x + 1")
    assert checker.check(edited, "t.py").findings == check_source(edited, "t.py").findings == []


# --------------------------------------------------------------------------- printable.py

#: Raw control characters (a line break between output lines aside) and bidi overrides.
RAW = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")
#: What the GitHub Actions runner reads as a command at the start of a line (blanks trimmed).
COMMAND = re.compile(r"^\s*(?:::|##)", re.MULTILINE)
INJECTED_NAME = "x\n::warning file=README.md::INJECTED\n.py"
#: No control character at all: the name itself starts with a workflow command.
BARE_NAME = "::warning file=README.md::BARE.py"
#: A cast whose discarded call quotes a string holding a newline, an escape sequence and friends.
QUOTING = HEAD + ('labels.to(torch.float32, non_blocking="""\n::warning file=README.md::INJECTED'
                  '\x1b[2J\x85\u2028\u202e\r::error::CR""")\n')


def test_printable_escapes_every_control_character():
    assert printable("a\nb\tc\x1b[31md\x7f\x85\u2028\u2029\u202e\u2066é✓") == \
        "a\\nb\\tc\\x1b[31md\\x7f\\x85\\u2028\\u2029\\u202e\\u2066é✓"
    assert printable("src/train.py:4:1: TTL101 `x`") == "src/train.py:4:1: TTL101 `x`"
    assert all(not RAW.search(printable(chr(c))) for c in range(0x3000))


@pytest.mark.parametrize("name, shown", [
    ("train.py", "train.py"),
    ("::warning file=README.md::X.py", "./::warning file=README.md::X.py"),
    ("##[warning]X.py", "./##[warning]X.py"),
    (" ::error::X.py", "./ ::error::X.py"),
    ("/abs/::x.py", "/abs/::x.py"),
])
def test_printable_path_never_starts_a_workflow_command(name, shown):
    assert printable_path(name) == shown


def _clean(text: str) -> None:
    assert not RAW.search(text), repr(text)
    assert not COMMAND.search(text), text


@pytest.mark.parametrize("fmt", ["concise", "full"])
def test_a_file_name_cannot_inject_ci_log_lines(tmp_path, capsys, monkeypatch, fmt):
    monkeypatch.chdir(tmp_path)
    Path(INJECTED_NAME).write_text(HEAD + "labels.float()\n", encoding="utf-8")
    Path(BARE_NAME).write_text(HEAD + "labels.float()\n", encoding="utf-8")
    # Named on the command line, so shown as given (a directory walk would show ./ before them).
    assert main(["check", "--isolated", "--no-cache", "--output-format", fmt, INJECTED_NAME, BARE_NAME]) == 1
    out, err = capsys.readouterr()
    _clean(out)
    _clean(err)
    assert "x\\n::warning file=README.md::INJECTED\\n.py:4:1: TTL101 " in out
    assert "./::warning file=README.md::BARE.py:4:1: TTL101 " in out
    for extra in (["--show-files"], ["--statistics"], ["--diff"], ["--verbose", "--fix", "--show-fixes"]):
        main(["check", "--isolated", "--no-cache", "--output-format", fmt, *extra, INJECTED_NAME, BARE_NAME])
        out, err = capsys.readouterr()
        _clean(out.replace("\t", " ") if extra == ["--statistics"] else out)  # its columns: our own tabs
        _clean(err)
    assert "- x\\n::warning file=README.md::INJECTED\\n.py:" in err  # --show-fixes named the file


@pytest.mark.parametrize("fmt", ["concise", "full"])
def test_quoted_source_cannot_inject_ci_log_lines(tmp_path, capsys, monkeypatch, fmt):
    monkeypatch.chdir(tmp_path)
    Path("t.py").write_bytes(QUOTING.encode("utf-8"))
    assert main(["check", "--isolated", "--no-cache", "--output-format", fmt, "t.py"]) == 1
    out, err = capsys.readouterr()
    _clean(out)
    _clean(err)
    assert "\\x1b[2J" in out and "\\u202e" in out


def test_flake8_prints_the_escaped_headline_the_cli_prints(tmp_path):
    (tmp_path / "t.py").write_bytes(QUOTING.encode("utf-8"))
    flake8 = subprocess.run(FLAKE8 + ["t.py"], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    cli = subprocess.run(CLI + ["t.py"], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert flake8.stdout == cli.stdout
    _clean(flake8.stdout)


def test_warnings_and_errors_on_stderr_are_escaped(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    notebook = INJECTED_NAME[:-3] + ".ipynb"
    cell = {"cell_type": "code", "metadata": {}, "execution_count": None, "outputs": [],
            "source": HEAD + "labels.float()\nprint(labels)\n"}  # not last: a cell shows its last value
    Path(notebook).write_text(json.dumps({"cells": [cell], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}))
    main(["check", "--isolated", "--no-cache", "--add-noqa", notebook])  # warns: notebooks are left alone
    err = capsys.readouterr().err
    _clean(err)
    assert "warning: x\\n::warning file=README.md::INJECTED\\n.ipynb: --add-noqa leaves notebooks" in err
    Path(INJECTED_NAME).write_bytes(b"import torch\nx = (1,\n")  # a syntax error: explain's TTL001 line
    assert main(["explain", INJECTED_NAME]) == 0
    _clean(capsys.readouterr().out)
    assert main(["explain", INJECTED_NAME + ".missing"]) == 2
    _clean(capsys.readouterr().err)


def test_explain_escapes_quoted_source(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    source = "import torch\nx = torch.zeros(2, 3)\ny = x.to(torch.float16, non_blocking='\x1b[2J\u2028\u202e')\n"
    Path("t.py").write_bytes(source.encode("utf-8"))
    assert main(["explain", "t.py"]) == 0
    out = capsys.readouterr().out
    _clean(out)
    assert "non_blocking='\\x1b[2J \\u202e')" in out  # the snippet is there (blanks collapsed), escaped


def test_the_github_format_keeps_its_own_escaping(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    Path(INJECTED_NAME).write_text(HEAD + "labels.float()\n", encoding="utf-8")
    main(["check", "--isolated", "--no-cache", "--output-format", "github", INJECTED_NAME])
    out = capsys.readouterr().out
    assert out.startswith("::warning file=x%0A%3A%3Awarning file=README.md%3A%3AINJECTED%0A.py,line=4,")
    assert len(out.splitlines()) == 1
