"""Issue 23, items 5, 10, 13, 14 and 15: what the command line reads and writes stays bounded.

* 5: nothing is read or written through a symlink that leaves the file's project (an explicit
  one is TTL001, one found while walking a directory is skipped), and a linked file's imports
  are looked up in the project it is linked from;
* 10: stdin is read up to the file cap, never further;
* 13: a huge or deeply nested pyproject.toml, an absurd --time-budget and an --output-file in a
  missing directory are usage or configuration errors (exit 2), never "internal error";
* 14: --fix keeps the last line ending of a file with CR-only line endings;
* 15: a file stopped at the hard deadline is told the budget it was given, and why it ran longer.

Every test writes only under ``tmp_path`` and takes well under a second of analysis.
"""
from __future__ import annotations

import multiprocessing
import os
import sys
import textwrap
import time

import pytest

from torchtype_lint.edit import fix as fix_module
from torchtype_lint.source import reading
from torchtype_lint.run import runner
from torchtype_lint.cli.main import main
from torchtype_lint.source.project.imports import ProjectImports
from torchtype_lint.model.settings import Settings

BAD = textwrap.dedent("""\
    import torch
    x = torch.ones(3, dtype=torch.int64)
    x.float()
    """)
FIXED = BAD.replace("x.float()", "x = x.float()")
#: The linked file outside the checkout; its last line must never be printed.
SECRET = BAD.replace("x.float()", "x.float()  # SECRET outside the checkout")
#: A module beside the outside file: the linked file's `import batches` must not find it.
BATCHES = "import torch\n\ndef make_batch(n):\n    return torch.zeros(n, dtype=torch.int64)\n"

needs_symlinks = pytest.mark.skipif(not hasattr(os, "symlink"), reason="no symlinks")
needs_fork = pytest.mark.skipif("fork" not in multiprocessing.get_all_start_methods(),
                                reason="the deadline test patches the engine in forked workers")


def check(capsys, *argv):
    code = main(["check", "--no-cache", "-j1", *argv])
    out, err = capsys.readouterr()
    return code, out, err


# --------------------------------------------------------------------------- 5: symlinks


@pytest.fixture
def linked(tmp_path, monkeypatch):
    """A checkout (a git work tree) holding ``own.py`` and ``link.py``, a symlink to a file of
    another project outside it; the working directory is the checkout."""
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "pyproject.toml").write_text("")  # a project of its own
    (outside / "secret.py").write_text(SECRET)
    (outside / "batches.py").write_text(BATCHES)
    checkout = tmp_path / "checkout"
    (checkout / ".git").mkdir(parents=True)
    (checkout / "own.py").write_text(BAD)
    (checkout / "link.py").symlink_to(outside / "secret.py")
    monkeypatch.chdir(checkout)
    return outside / "secret.py"


@needs_symlinks
def test_an_explicit_symlink_leaving_the_project_is_not_read(linked, capsys):
    code, out, err = check(capsys, "--output-format", "full", "link.py")
    assert code == 1
    assert "link.py:1:1: TTL001" in out and "outside the project" in out
    assert "SECRET" not in out and "TTL101" not in out  # neither quoted nor analysed


@needs_symlinks
@pytest.mark.parametrize("option", ["--fix", "--add-noqa"])
def test_fix_and_add_noqa_never_write_through_a_symlink_leaving_the_project(linked, capsys, option):
    code, out, err = check(capsys, option, "link.py")
    assert linked.read_text() == SECRET
    if option == "--fix":
        assert code == 1 and "TTL001" in out and "outside the project" in out
    else:
        assert "link.py: could not read file" in err and "outside the project" in err


@needs_symlinks
def test_a_walk_skips_symlinks_leaving_the_project(linked, capsys):
    code, out, err = check(capsys, "--show-files", ".")
    assert code == 0 and out.split() == [os.path.join(".", "own.py")]
    code, out, err = check(capsys, "--fix", ".")
    assert (linked.parent.parent / "checkout" / "own.py").read_text() == FIXED
    assert linked.read_text() == SECRET and "link.py" not in out + err


@needs_symlinks
def test_the_writer_refuses_a_target_outside_the_project(linked):
    # The last line of defence: a file swapped for such a link after it was analysed.
    with pytest.raises(OSError, match="outside the project"):
        fix_module.write_if_unchanged("link.py", SECRET.encode(), b"overwritten\n")
    assert linked.read_text() == SECRET
    outcome = fix_module.fix_file("link.py")
    assert linked.read_text() == SECRET
    assert [f.code for f in outcome.remaining] == ["TTL001"]


@needs_symlinks
def test_a_symlink_inside_the_project_is_still_followed(linked, capsys):
    os.symlink("own.py", "alias.py")
    code, out, err = check(capsys, "--fix", "alias.py")
    assert code == 0 and os.path.islink("alias.py")
    assert (linked.parent.parent / "checkout" / "own.py").read_text() == FIXED


@needs_symlinks
def test_a_linked_file_imports_from_the_project_it_is_linked_from(linked):
    imports = ProjectImports("link.py")
    assert imports.roots.project == os.path.realpath(os.getcwd())
    assert imports.absolute("batches") is None  # outside/batches.py is another project's module
    assert not any(path.startswith(str(linked.parent)) for path in imports.dependencies)


# --------------------------------------------------------------------------- 10: stdin


class _EndlessInput:
    """A binary stdin that would go on for a terabyte; records how much was asked of it."""

    def __init__(self, head: bytes):
        self.head, self.taken = head, 0

    def read(self, size: int = -1) -> bytes:
        assert size is not None and size >= 0, "stdin read without a limit"
        chunk = (self.head + b"#" * size)[self.taken:self.taken + size]
        self.taken += len(chunk)
        return chunk


@pytest.fixture
def endless_stdin(monkeypatch):
    monkeypatch.setattr(reading, "MAX_READ_BYTES", 4096)  # the cap, small enough to exceed cheaply
    stream = _EndlessInput(BAD.encode())
    monkeypatch.setattr(sys, "stdin", type("Stdin", (), {"buffer": stream})())  # check reads stdin.buffer
    return stream


def test_stdin_beyond_the_cap_is_ttl001_and_read_no_further(endless_stdin, capsys):
    code, out, err = check(capsys, "--isolated", "-")
    assert code == 1 and "-:1:1: TTL001" in out and "too large" in out
    assert endless_stdin.taken <= 4096 + 1


@pytest.mark.parametrize("option", ["--fix", "--diff"])
def test_fixing_stdin_beyond_the_cap_echoes_nothing_and_exits_2(endless_stdin, capsys, option):
    code, out, err = check(capsys, "--isolated", option, "-")
    assert code == 2 and out == ""
    assert "too large" in err and "internal error" not in err
    assert endless_stdin.taken <= 4096 + 1


# --------------------------------------------------------------------------- 13: configuration, options


def _configured(tmp_path, monkeypatch, extra: str):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "pyproject.toml").write_text('[tool.torchtype-lint]\nselect = ["TTL"]\n' + extra)
    (tmp_path / "a.py").write_text(BAD)


@pytest.mark.parametrize("explicit", [False, True])
def test_a_huge_pyproject_is_a_configuration_error(tmp_path, monkeypatch, capsys, explicit):
    _configured(tmp_path, monkeypatch, "# padding\n" * 200_000)  # 2 MB; real ones are a few KB
    code, out, err = check(capsys, *(["--config", "pyproject.toml"] if explicit else []), "a.py")
    assert code == 2 and "pyproject.toml" in err and "too large" in err
    assert "internal error" not in err


def test_deeply_nested_toml_is_a_configuration_error(tmp_path, monkeypatch, capsys):
    _configured(tmp_path, monkeypatch, "x = " + "[" * 5000 + "]" * 5000 + "\n")
    code, out, err = check(capsys, "a.py")
    assert code == 2 and "pyproject.toml" in err and "nested too deeply" in err
    assert "internal error" not in err


@pytest.mark.parametrize("budget", ["1e308", "86401"])
def test_a_time_budget_beyond_a_day_is_a_usage_error(tmp_path, monkeypatch, capsys, budget):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "a.py").write_text(BAD)
    code, out, err = check(capsys, "--isolated", "--time-budget", budget, "a.py")
    assert code == 2 and "--time-budget" in err and "internal error" not in err


def test_a_time_budget_of_a_day_is_accepted(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "a.py").write_text(BAD)
    code, out, err = check(capsys, "--isolated", "--time-budget", "86400", "--show-settings", "a.py")
    assert code == 0 and "86400" in out


def test_an_output_file_in_a_missing_directory_fails_before_any_work(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "a.py").write_text(BAD)

    def must_not_run(*args, **kwargs):
        raise AssertionError("the files were checked before the output file was opened")

    monkeypatch.setattr(runner, "run_files", must_not_run)
    code, out, err = check(capsys, "--isolated", "-o", str(tmp_path / "missing" / "dir" / "x"), "a.py")
    assert code == 2 and "--output-file" in err and "internal error" not in err


# --------------------------------------------------------------------------- 14: CR-only line endings


def test_fix_keeps_the_last_carriage_return_of_a_cr_only_file(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "cr.py").write_bytes(BAD.replace("\n", "\r").encode())
    code, out, err = check(capsys, "--isolated", "--fix", "cr.py")
    assert code == 0
    assert (tmp_path / "cr.py").read_bytes() == FIXED.replace("\n", "\r").encode()
    assert fix_module.fix_source(BAD.replace("\n", "\r") + "\r", "cr.py")[0] == \
        FIXED.replace("\n", "\r") + "\r"  # a blank last line too


# --------------------------------------------------------------------------- 15: the budget applied


def _stuck(data, path, settings=None):
    time.sleep(60)  # stuck where the engine cannot stop itself (libcst's native parser)


@needs_fork
@pytest.mark.parametrize("front_end", ["pool", "one text"])
def test_a_file_stopped_at_the_hard_deadline_is_told_its_budget(tmp_path, monkeypatch, front_end):
    import torchtype_lint.checker.check as check_module

    monkeypatch.setattr(check_module, "check_bytes", _stuck)  # the workers are forked: they see it
    monkeypatch.setattr(runner, "hard_deadline", lambda settings: 1.0)  # the grace, shortened
    settings = Settings(time_budget=0.25)
    path = tmp_path / "big.py"
    path.write_text(BAD)
    started = time.monotonic()
    if front_end == "pool":
        result = runner.run_files([str(path)], settings, jobs=1)[0]
    else:
        result = runner.check_bytes_bounded(BAD.encode(), str(path), settings)
    assert time.monotonic() - started < 20
    [finding] = result.findings
    assert finding.code == "TTL000"
    assert "time budget of 0.25s" in finding.message and "stopped at 1s" in finding.message
