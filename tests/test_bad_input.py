"""Files that are not clean UTF-8 Python, in one run: clean diagnostics, no traceback, and the
good files of the same run are still checked."""
from __future__ import annotations

import codecs
import subprocess
import sys
from pathlib import Path

import pytest

FINDING_SOURCE = "import torch\nx = torch.tensor([1, 2])\nx.float()\n"


@pytest.fixture
def messy_tree(tmp_path: Path) -> Path:
    files = {
        "a_syntax_error.py": b"import torch\ndef f(:\n    pass\n",
        "b_latin1_cookie.py": b"# -*- coding: latin-1 -*-\nimport torch\nname = 'caf\xe9'\n"
                              b"x = torch.tensor([1, 2])\nx.float()\n",
        "c_latin1_no_cookie.py": b"import torch\nname = 'caf\xe9'\n",
        "d_empty.py": b"",
        "e_binary.py": b"\x00\x01\x02torch\xff\xfe",
        "f_bom.py": codecs.BOM_UTF8 + FINDING_SOURCE.encode(),
        "g_crlf.py": FINDING_SOURCE.replace("\n", "\r\n").encode(),
        "h_good.py": FINDING_SOURCE.encode(),
    }
    for name, data in files.items():
        (tmp_path / name).write_bytes(data)
    return tmp_path


EXPECTED = [
    "a_syntax_error.py:2:7: TTL001 syntax error: invalid syntax",
    "b_latin1_cookie.py:5:1: TTL101",
    "c_latin1_no_cookie.py:2:12: TTL001 could not decode file: cannot decode as utf-8: invalid continuation byte"
    " (declare the encoding with a `# -*- coding: ... -*-` line)",
    "e_binary.py:1:1: TTL001 could not decode file: file contains null bytes (binary file?)",
    "f_bom.py:3:1: TTL101",
    "g_crlf.py:3:1: TTL101",
    "h_good.py:3:1: TTL101",
]


def test_one_run_over_bad_inputs(messy_tree):
    proc = subprocess.run([sys.executable, "-m", "torchtype_lint", "check", "--isolated",
                           *sorted(p.name for p in messy_tree.iterdir())],
                          cwd=messy_tree, capture_output=True, text=True, timeout=300)
    assert "Traceback" not in proc.stderr
    assert proc.returncode == 1
    lines = proc.stdout.splitlines()
    assert len(lines) == len(EXPECTED), proc.stdout
    for line, expected in zip(lines, EXPECTED):
        assert line.startswith(expected)
    assert proc.stderr == "Found 7 findings.\n[*] 4 fixable with the `--fix` option.\n"


def test_bad_inputs_in_a_directory_walk(messy_tree):
    proc = subprocess.run([sys.executable, "-m", "torchtype_lint", "check", "--isolated", "."],
                          cwd=messy_tree, capture_output=True, text=True, timeout=300)
    assert "Traceback" not in proc.stderr
    assert [line.split(": ")[0] for line in proc.stdout.splitlines()] == [
        "./" + e.split(": ")[0] for e in EXPECTED]


def test_bad_inputs_through_flake8(messy_tree):
    proc = subprocess.run([sys.executable, "-m", "flake8", "--isolated", "--select=TTL,E9", "."],
                          cwd=messy_tree, capture_output=True, text=True, timeout=300)
    assert "Traceback" not in proc.stderr
    ttl = [line for line in proc.stdout.splitlines() if " TTL" in line]
    # flake8 reports the syntax errors itself (E999) and never hands those files to plugins.
    assert [line.split(": ")[0] for line in ttl] == [
        "./b_latin1_cookie.py:5:1", "./f_bom.py:3:1", "./g_crlf.py:3:1", "./h_good.py:3:1"]
    assert any(line.startswith("./a_syntax_error.py:2:") and " E999 " in line for line in proc.stdout.splitlines())


def test_fix_keeps_encoding_bom_and_line_endings(messy_tree):
    names = ["b_latin1_cookie.py", "f_bom.py", "g_crlf.py"]
    before = {n: (messy_tree / n).read_bytes() for n in names}
    proc = subprocess.run([sys.executable, "-m", "torchtype_lint", "check", "--isolated", "--fix", *names],
                          cwd=messy_tree, capture_output=True, text=True, timeout=300)
    assert (proc.returncode, proc.stdout) == (0, ""), proc.stderr
    assert proc.stderr == "Fixed 3 findings.\n"
    for name in names:
        expected = before[name].replace(b"\nx.float()", b"\nx = x.float()")
        assert (messy_tree / name).read_bytes() == expected
