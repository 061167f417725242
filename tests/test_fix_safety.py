"""``check --fix`` never loses the user's data: an edit saved while fixing is kept, an unwritable
file is reported without stopping the run, and a write is all or nothing."""
from __future__ import annotations

import builtins
import json
import os
import stat
import subprocess
import sys
import textwrap

import pytest

from torchtype_lint.edit import fix as fix_module
from torchtype_lint.cli.main import main

BAD = textwrap.dedent("""\
    import torch
    x = torch.ones(3, dtype=torch.int64)
    x.float()
    """)
FIXED = BAD.replace("x.float()", "x = x.float()")
EDITED = BAD + "y = 1  # typed in the editor while the fix ran\n"
IS_ROOT = hasattr(os, "geteuid") and os.geteuid() == 0


@pytest.fixture
def project(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for name in ("a.py", "b.py"):
        (tmp_path / name).write_text(BAD, encoding="utf-8")
    return tmp_path


def check(capsys, *argv):
    code = main(["check", "--isolated", "--no-cache", "-j1", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def _codes(out):
    return sorted((os.path.normpath(line.split(":")[0]), line.split(": ")[1].split()[0])
                  for line in out.splitlines())


def _edit_during_fix(monkeypatch, victim, text):
    """Save ``text`` into ``victim`` after the fixes were computed, before they are written."""
    real = fix_module.fix_source

    def fix_source(source, path, *args, **kwargs):
        result = real(source, path, *args, **kwargs)
        if os.path.basename(path) == victim:
            with open(path, "w", encoding="utf-8") as handle:
                handle.write(text)
        return result

    monkeypatch.setattr(fix_module, "fix_source", fix_source)


def test_an_edit_saved_while_fixing_is_kept(project, monkeypatch, capsys):
    _edit_during_fix(monkeypatch, "a.py", EDITED)
    code, out, err = check(capsys, "--fix", "a.py", "b.py")
    assert (project / "a.py").read_text() == EDITED  # the user's edit survives
    assert (project / "b.py").read_text() == FIXED
    assert code == 1
    # a.py: why it was not fixed, and its finding as read; b.py: fixed, nothing left.
    assert _codes(out) == [("a.py", "TTL001"), ("a.py", "TTL101")]
    assert "a.py:1:1: TTL001 the file changed on disk while it was being fixed" in out
    assert "Fixed 1 finding." in err
    assert not [p for p in os.listdir(project) if p.endswith(".tmp")]


def _deny_writes_to(monkeypatch, victim):
    """As if ``victim`` were read-only, for any user (root included): writing it in place or
    renaming over it raises PermissionError."""
    real_open, real_replace = builtins.open, os.replace

    def is_victim(path):
        return isinstance(path, (str, os.PathLike)) and os.path.basename(os.fspath(path)) == victim

    def guarded_open(file, mode="r", *args, **kwargs):
        if is_victim(file) and any(c in mode for c in "wax+"):
            raise PermissionError(13, "Permission denied", file)
        return real_open(file, mode, *args, **kwargs)

    def guarded_replace(src, dst, *args, **kwargs):
        if is_victim(dst):
            raise PermissionError(13, "Permission denied", dst)
        return real_replace(src, dst, *args, **kwargs)

    monkeypatch.setattr(builtins, "open", guarded_open)
    monkeypatch.setattr(os, "replace", guarded_replace)


def test_unwritable_file_is_reported_and_the_rest_is_fixed(project, monkeypatch, capsys):
    (project / "c.py").write_text(BAD, encoding="utf-8")
    _deny_writes_to(monkeypatch, "b.py")
    code, out, err = check(capsys, "--fix", ".")
    assert (project / "a.py").read_text() == FIXED
    assert (project / "b.py").read_text() == BAD
    assert (project / "c.py").read_text() == FIXED  # files after the failing one are fixed too
    assert code == 1
    assert _codes(out) == [("b.py", "TTL001"), ("b.py", "TTL101")]
    assert "b.py:1:1: TTL001 could not write the fixes, the file is unchanged: Permission denied" in out
    assert "Fixed 2 findings." in err
    assert not [p for p in os.listdir(project) if p.endswith(".tmp")]  # the temp file is removed


def test_unwritable_file_with_ttl001_deselected_is_a_warning(project, monkeypatch, capsys):
    _deny_writes_to(monkeypatch, "a.py")
    code, out, err = check(capsys, "--fix", "--ignore", "TTL001", "a.py", "b.py")
    assert (project / "b.py").read_text() == FIXED
    assert _codes(out) == [("a.py", "TTL101")]
    assert "torchtype-lint: warning: a.py: could not write the fixes" in err
    assert code == 1


@pytest.mark.skipif(IS_ROOT, reason="root writes read-only files; the monkeypatched test covers root")
def test_read_only_file_through_the_real_cli(project):
    (project / "a.py").chmod(0o444)
    done = subprocess.run([sys.executable, "-m", "torchtype_lint", "check", "--isolated", "--no-cache",
                           "--fix", "a.py", "b.py"], cwd=project, capture_output=True, text=True)
    assert done.returncode == 1, done.stderr
    assert (project / "a.py").read_text() == BAD
    assert stat.S_IMODE((project / "a.py").stat().st_mode) == 0o444
    assert (project / "b.py").read_text() == FIXED
    assert "a.py:1:1: TTL001 could not write the fixes" in done.stdout
    assert "a.py:3:1: TTL101" in done.stdout


@pytest.mark.skipif(IS_ROOT, reason="root can create files in a read-only directory")
def test_read_only_directory_is_reported(project):
    locked = project / "locked"
    locked.mkdir()
    (locked / "m.py").write_text(BAD, encoding="utf-8")
    locked.chmod(0o555)
    try:
        done = subprocess.run([sys.executable, "-m", "torchtype_lint", "check", "--isolated", "--no-cache",
                               "--fix", "locked/m.py", "a.py"], cwd=project, capture_output=True, text=True)
    finally:
        locked.chmod(0o755)
    assert done.returncode == 1, done.stderr
    assert (locked / "m.py").read_text() == BAD
    assert (project / "a.py").read_text() == FIXED
    assert "TTL001 could not write the fixes" in done.stdout


def test_edit_during_fix_through_fix_file(project, monkeypatch):
    _edit_during_fix(monkeypatch, "a.py", EDITED)
    outcome = fix_module.fix_file("a.py")
    assert outcome.error and "changed on disk" in outcome.error
    assert (outcome.fixed, outcome.new_source, outcome.diff) == (0, BAD, "")
    assert [f.code for f in outcome.remaining] == ["TTL101", "TTL001"]
    assert (project / "a.py").read_text() == EDITED


@pytest.mark.parametrize("mode", [0o600, 0o640, 0o755])
def test_permission_bits_are_kept(project, mode):
    (project / "a.py").chmod(mode)
    assert fix_module.fix_file("a.py").error is None
    assert (project / "a.py").read_text() == FIXED
    assert stat.S_IMODE((project / "a.py").stat().st_mode) == mode


def test_bytes_encoding_bom_and_line_endings_are_kept(project):
    latin = b"# -*- coding: latin-1 -*-\r\n" + BAD.replace("\n", "\r\n").encode() + b"s = '\xe9'\r\n"
    (project / "latin.py").write_bytes(latin)
    (project / "bom.py").write_bytes(b"\xef\xbb\xbf" + BAD.encode())
    fix_module.fix_file("latin.py")
    fix_module.fix_file("bom.py")
    assert (project / "latin.py").read_bytes() == latin.replace(b"\r\nx.float()", b"\r\nx = x.float()")
    assert (project / "bom.py").read_bytes() == b"\xef\xbb\xbf" + FIXED.encode()


@pytest.mark.skipif(not hasattr(os, "symlink"), reason="no symlinks")
def test_a_symlink_stays_a_symlink(project):
    os.symlink("a.py", "link.py")
    fix_module.fix_file("link.py")
    assert os.path.islink("link.py") and os.readlink("link.py") == "a.py"
    assert (project / "a.py").read_text() == FIXED


def test_an_interrupted_write_leaves_the_original(project, monkeypatch):
    def killed(src, dst):
        raise KeyboardInterrupt  # the run is stopped between writing the copy and renaming it

    monkeypatch.setattr(os, "replace", killed)
    with pytest.raises(KeyboardInterrupt):
        fix_module.fix_file("a.py")
    assert (project / "a.py").read_text() == BAD
    assert sorted(os.listdir(project)) == ["a.py", "b.py"]


#: A notebook displays its last bare expression; a statement after the cast keeps it discarded.
NOT_LAST = "print(x)\n"


def _notebook(source):
    return {"cells": [{"cell_type": "code", "execution_count": None, "id": "c1", "metadata": {},
                       "outputs": [], "source": source}],
            "metadata": {"kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
                         "language_info": {"name": "python"}},
            "nbformat": 4, "nbformat_minor": 5}


def test_unwritable_notebook_is_reported_and_the_rest_is_fixed(project, monkeypatch, capsys):
    text = json.dumps(_notebook(BAD + NOT_LAST), indent=1) + "\n"
    (project / "n.ipynb").write_text(text, encoding="utf-8")
    _deny_writes_to(monkeypatch, "n.ipynb")
    code, out, err = check(capsys, "--fix", "n.ipynb", "a.py")
    assert (project / "n.ipynb").read_text() == text
    assert (project / "a.py").read_text() == FIXED
    assert code == 1
    assert _codes(out) == [("n.ipynb", "TTL001"), ("n.ipynb", "TTL101")]
    assert "could not write the fixes, the file is unchanged: Permission denied" in out


def test_a_notebook_saved_while_fixing_is_kept(project, monkeypatch, capsys):
    # Notebooks used to be written in place from the text read at the start.
    text = json.dumps(_notebook(BAD + NOT_LAST), indent=1) + "\n"
    saved = json.dumps(_notebook(EDITED + NOT_LAST), indent=1) + "\n"
    (project / "n.ipynb").write_text(text, encoding="utf-8")
    _edit_during_fix(monkeypatch, "n.ipynb", saved)
    code, out, err = check(capsys, "--fix", "n.ipynb", "a.py")
    assert (project / "n.ipynb").read_text() == saved  # the user's save survives
    assert (project / "a.py").read_text() == FIXED
    assert code == 1
    assert "n.ipynb:1:1: TTL001 the file changed on disk while it was being fixed" in out
    assert not [p for p in os.listdir(project) if p.endswith(".tmp")]
