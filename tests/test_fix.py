"""Autofix: --fix, --unsafe-fixes, --diff, --exit-non-zero-on-fix, and fix application itself."""
from __future__ import annotations

import textwrap

import libcst as cst
import pytest

from torchtype_lint.edit import fix as fix_module
from torchtype_lint.checker.check import Settings, check_source
from torchtype_lint.cli.main import main
from torchtype_lint.model.findings import Finding, Fix, Location
from torchtype_lint.model.selection import Selection

SOURCE = textwrap.dedent("""\
    import torch

    x = torch.randn(3)
    is_float = x.type() == torch.float32  # compare dtypes
    labels = torch.tensor([0, 1])
    labels.float()  # make them float
    if is_float:
        labels.double()
    """)
SAFE_FIXED = SOURCE.replace("labels.float()  #", "labels = labels.float()  #").replace(
    "    labels.double()", "    labels = labels.double()")
ALL_FIXED = SAFE_FIXED.replace("x.type() == torch.float32", "x.dtype == torch.float32")


@pytest.fixture
def project(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "t.py").write_text(SOURCE, encoding="utf-8")
    return tmp_path


def check(capsys, *argv):
    code = main(["check", "--isolated", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_fix_applies_safe_fixes_keeps_comments_and_reports_the_rest(project, capsys):
    code, out, err = check(capsys, "--fix", "t.py")
    assert (project / "t.py").read_text() == SAFE_FIXED
    # The unsafe TTL102 fix was not applied, so its finding is left and the exit code is 1.
    assert code == 1
    assert [line.split(": ")[1].split()[0] for line in out.splitlines()] == ["TTL102"]
    assert out.startswith("t.py:4:12: TTL102 ")
    assert err == ("Found 1 finding.\nNo fixes available (1 hidden fix can be enabled with the "
                   "`--unsafe-fixes` option).\nFixed 2 findings.\n")


def test_unsafe_fixes_fix_everything_exit_0(project, capsys):
    code, out, err = check(capsys, "--fix", "--unsafe-fixes", "t.py")
    assert (code, out, err) == (0, "", "Fixed 3 findings.\n")
    assert (project / "t.py").read_text() == ALL_FIXED
    # Fixed code is clean.
    assert check(capsys, "t.py")[:2] == (0, "")


def test_exit_non_zero_on_fix(project, capsys):
    code, out, _ = check(capsys, "--fix", "--unsafe-fixes", "--exit-non-zero-on-fix", "t.py")
    assert (code, out) == (1, "")
    # Nothing left to fix: exit 0 even with the option.
    assert check(capsys, "--fix", "--exit-non-zero-on-fix", "t.py")[:2] == (0, "")


def test_exit_zero_with_fix(project, capsys):
    assert check(capsys, "--fix", "--exit-zero", "t.py")[0] == 0


def test_diff_prints_and_does_not_write(project, capsys):
    code, out, err = check(capsys, "--diff", "t.py")
    assert (project / "t.py").read_text() == SOURCE
    assert code == 1
    assert out == textwrap.dedent("""\
        --- a/t.py
        +++ b/t.py
        @@ -3,6 +3,6 @@
         x = torch.randn(3)
         is_float = x.type() == torch.float32  # compare dtypes
         labels = torch.tensor([0, 1])
        -labels.float()  # make them float
        +labels = labels.float()  # make them float
         if is_float:
        -    labels.double()
        +    labels = labels.double()
        """)
    assert err == "Would fix 2 findings (1 additional fix available with `--unsafe-fixes`).\n"
    code, out, _ = check(capsys, "--diff", "--unsafe-fixes", "t.py")
    assert "+is_float = x.dtype == torch.float32  # compare dtypes" in out
    assert (project / "t.py").read_text() == SOURCE


def test_diff_with_nothing_to_fix(project, capsys):
    (project / "t.py").write_text(ALL_FIXED)
    assert check(capsys, "--diff", "t.py") == (0, "", "")


def test_fix_only_touches_files_with_fixes(project, capsys):
    (project / "clean.py").write_text(ALL_FIXED)
    before = (project / "clean.py").stat().st_mtime_ns
    check(capsys, "--fix", ".")
    assert (project / "clean.py").stat().st_mtime_ns == before
    assert (project / "t.py").read_text() == SAFE_FIXED


def test_fix_respects_selection_and_noqa(project, capsys):
    (project / "t.py").write_text(SOURCE.replace("labels.float()  # make them float", "labels.float()  # noqa: TTL101"))
    check(capsys, "--fix", "--ignore", "TTL102", "t.py")
    text = (project / "t.py").read_text()
    assert "labels.float()  # noqa: TTL101" in text        # suppressed: not fixed
    assert "    labels = labels.double()" in text           # fixed
    assert "x.type() == torch.float32" in text              # unsafe: not fixed


def test_fix_source_api():
    new, fixed, remaining = fix_module.fix_source(SOURCE, "t.py", Settings(), unsafe=True)
    assert (new, fixed, remaining) == (ALL_FIXED, 3, [])
    new, fixed, remaining = fix_module.fix_source(SOURCE, "t.py", Settings(selection=Selection(select=["TTL102"])))
    assert (new, fixed, [f.code for f in remaining]) == (SOURCE, 0, ["TTL102"])


def test_a_fix_that_breaks_the_file_is_never_written(project, capsys, monkeypatch):
    monkeypatch.setattr(fix_module, "is_valid_python", lambda source: False)
    code, out, err = check(capsys, "--fix", "t.py")
    assert (project / "t.py").read_text() == SOURCE
    assert code == 1 and out.count("\n") == 3 and "Fixed" not in err


def test_is_valid_python():
    assert fix_module.is_valid_python("x = 1\n")
    assert not fix_module.is_valid_python("x = (\n")
    assert not fix_module.is_valid_python("f() = 1\n")


def _finding(line: int, col: int, end_col: int, node: object) -> Finding:
    return Finding("TTL101", "m", "warning", "t.py", Location(line, col, line, end_col),
                   fix=Fix(old=node, new=node, description="d", location=Location(line, col, line, end_col)))


def test_overlapping_fixes_are_applied_one_per_round():
    a, b, c = object(), object(), object()
    outer = _finding(1, 0, 20, a)
    inner = _finding(1, 5, 10, b)
    later = _finding(2, 0, 5, c)
    assert fix_module._non_overlapping([inner, later, outer]) == [outer, later]


def test_replacement_is_by_node_identity():
    # Two equal-looking statements: only the reported one changes.
    source = "import torch\nx = torch.tensor([1])\nx.float()\nx.float()\n"
    result = check_source(source, "t.py", keep_analysis=True)
    first = result.findings[0]
    replaced = result.module.visit(fix_module._ReplaceByIdentity(
        {id(first.fix.old): (first.fix.old, first.fix.new)})).code
    assert replaced == "import torch\nx = torch.tensor([1])\nx = x.float()\nx.float()\n"
    assert isinstance(first.fix.old, cst.Expr)


def test_replacement_can_remove_or_split_statements():
    module = cst.parse_module("a = 1\nb = 2  # keep\nc = 3\n")
    first, second, third = module.body
    replacements = {id(first): (first, None),
                    id(third): (third, [cst.parse_statement("c = 3\n"), cst.parse_statement("d = 4\n")])}
    assert module.visit(fix_module._ReplaceByIdentity(replacements)).code == "b = 2  # keep\nc = 3\nd = 4\n"
