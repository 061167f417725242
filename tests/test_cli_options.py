"""The ruff-like options of ``check``, each through the real console script (issue 16).

Every test runs ``torchtype-lint`` installed next to this interpreter in a subprocess, so the
output streams, terminal detection and exit codes are the ones a user sees.
"""
from __future__ import annotations

import ast
import io
import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from typing import Dict, Optional

import pytest

SCRIPT = Path(sys.executable).with_name("torchtype-lint")
if not SCRIPT.exists():  # pragma: no cover - the test extras install it
    pytest.skip("console script not installed next to this interpreter", allow_module_level=True)

DISCARDED = textwrap.dedent("""\
    import torch

    labels = torch.tensor([0, 1, 1, 0])
    labels.float()
    """)
TWO_CODES = DISCARDED + textwrap.dedent("""\
    labels.double()
    x = torch.ones(3) @ torch.ones(4, 3)
    """)
CLEAN = DISCARDED.replace("labels.float()", "labels = labels.float()")


def lint(cwd: Path, *argv: str, stdin: Optional[str] = None, env: Optional[Dict[str, str]] = None,
         ) -> subprocess.CompletedProcess:
    environment = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR", "CLICOLOR_FORCE")}
    environment.update(env or {})
    return subprocess.run([str(SCRIPT), *argv], cwd=cwd, input=stdin, capture_output=True, text=True,
                          timeout=180, env=environment)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "train.py").write_text(DISCARDED, encoding="utf-8")
    (tmp_path / "clean.py").write_text(CLEAN, encoding="utf-8")
    return tmp_path


# --------------------------------------------------------------------------- summaries


def test_a_clean_run_says_all_checks_passed(project):
    proc = lint(project, "check", "--isolated", "clean.py")
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, "", "All checks passed!\n")


def test_no_python_files_is_a_warning_and_exit_0(tmp_path):
    (tmp_path / "empty").mkdir()
    (tmp_path / "empty" / "notes.txt").write_text("x")
    proc = lint(tmp_path, "check", "--isolated", "empty")
    assert proc.returncode == 0 and proc.stdout == ""
    assert proc.stderr == "torchtype-lint: warning: No Python files found under the given path(s)\n"
    # Everything excluded: the same.
    (tmp_path / "empty" / "gen.py").write_text(DISCARDED)
    proc = lint(tmp_path, "check", "--isolated", "--extend-exclude", "gen.py", "empty")
    assert "No Python files found" in proc.stderr and proc.returncode == 0


def test_quiet_prints_findings_only_and_silent_nothing(project):
    quiet = lint(project, "check", "--isolated", "-q", "train.py")
    assert quiet.returncode == 1 and quiet.stdout.startswith("train.py:4:1: TTL101 ") and quiet.stderr == ""
    assert lint(project, "check", "--isolated", "--quiet", "clean.py").stderr == ""
    silent = lint(project, "check", "--isolated", "--silent", "train.py")
    assert (silent.returncode, silent.stdout, silent.stderr) == (1, "", "")


def test_verbose_says_what_configured_the_files_and_how_long_it_took(project):
    (project / "pyproject.toml").write_text('[tool.torchtype-lint]\nignore = ["TTL2"]\n')
    proc = lint(project, "check", "-v", "--no-cache", "train.py")
    assert proc.returncode == 1
    assert f"torchtype-lint: verbose: 1 file configured by {project / 'pyproject.toml'}" in proc.stderr
    assert "torchtype-lint: verbose: checked 1 file in " in proc.stderr


def test_output_file_takes_the_report(project):
    proc = lint(project, "check", "--isolated", "-o", "report.json", "--output-format", "json", "train.py")
    assert proc.returncode == 1 and proc.stdout == ""
    assert [f["code"] for f in json.loads((project / "report.json").read_text())] == ["TTL101"]


# --------------------------------------------------------------------------- statistics


def test_statistics_counts_each_code_like_ruff(project):
    (project / "two.py").write_text(TWO_CODES)
    proc = lint(project, "check", "--isolated", "--statistics", "train.py", "two.py")
    assert proc.returncode == 1
    assert proc.stdout.splitlines() == ["3\tTTL101\t[*] discarded-cast", "1\tTTL507\t[ ] matmul-shape-mismatch"]
    as_json = json.loads(lint(project, "check", "--isolated", "--statistics", "--output-format", "json",
                              "two.py").stdout)
    assert as_json == [{"code": "TTL101", "name": "discarded-cast", "count": 2, "fixable": True,
                        "fixable_count": 2, "hidden_fix_count": 0},
                       {"code": "TTL507", "name": "matmul-shape-mismatch", "count": 1, "fixable": False,
                        "fixable_count": 0, "hidden_fix_count": 0}]


# --------------------------------------------------------------------------- bad usage


def test_an_unknown_option_prints_checks_usage(project):
    proc = lint(project, "check", "--no-such-option", "train.py")
    assert proc.returncode == 2
    assert proc.stderr.startswith("usage: torchtype-lint check ")
    assert "torchtype-lint check: error: unrecognized arguments: --no-such-option" in proc.stderr


@pytest.mark.parametrize("argv, message", [
    (["--select", "TTL999"], "--select: unknown rule code or prefix 'TTL999'"),
    (["--ignore", "TTL1,TTL77"], "--ignore: unknown rule code or prefix 'TTL77'"),
    (["--extend-select", "TTL8"], "--extend-select: unknown rule code or prefix 'TTL8'"),
    (["--fixable", "TTL999"], "--fixable: unknown rule code or prefix 'TTL999'"),
    (["--per-file-ignores", "tests/*:TTL999"], "unknown rule code or prefix 'TTL999'"),
    (["--per-file-ignores", "TTL101"], "--per-file-ignores: expected PATTERN:CODES"),
    (["-j", "0"], "argument -j/--jobs: must be at least 1, got 0"),
    (["-j", "-3"], "argument -j/--jobs: must be at least 1, got -3"),
    (["-j", "two"], "argument -j/--jobs: expected a whole number, got 'two'"),
    (["--time-budget", "0"], "argument --time-budget: must be a positive number of seconds"),
    (["--color", "sometimes"], "argument --color: invalid choice: 'sometimes'"),
])
def test_unknown_codes_and_bad_values_exit_2_naming_the_problem(project, argv, message):
    proc = lint(project, "check", "--isolated", *argv, "train.py")
    assert proc.returncode == 2, proc.stderr
    assert message in proc.stderr and proc.stdout == ""
    assert "Traceback" not in proc.stderr


# --------------------------------------------------------------------------- files and settings


def test_show_files_lists_what_would_be_checked(project):
    (project / "gen").mkdir()
    (project / "gen" / "g.py").write_text(DISCARDED)
    proc = lint(project, "check", "--isolated", "--show-files", "--extend-exclude", "gen", ".")
    assert (proc.returncode, proc.stdout.splitlines()) == (0, ["./clean.py", "./train.py"])


def test_show_settings_shows_the_resolved_settings_of_the_first_file(project):
    (project / "pyproject.toml").write_text(textwrap.dedent("""\
        [tool.torchtype-lint]
        extend-select = ["TTL9"]
        ignore = ["TTL4"]
        extend-exclude = ["generated"]
        """))
    proc = lint(project, "check", "--show-settings", "--unfixable", "TTL101", "train.py")
    assert proc.returncode == 0
    lines = proc.stdout.splitlines()
    assert lines[0] == 'Resolved settings for: "train.py"'
    assert lines[1] == f"Settings path: {json.dumps(str(project / 'pyproject.toml'))}"
    for expected in ('select = ["TTL"]', 'extend-select = ["TTL9"]', 'ignore = ["TTL4"]',
                     'exclude = ["generated"]', 'unfixable = ["TTL101"]'):
        assert expected in lines


def test_per_file_ignores_on_the_command_line(project):
    (project / "tests").mkdir()
    (project / "tests" / "t.py").write_text(TWO_CODES)
    proc = lint(project, "check", "--isolated", "--per-file-ignores", "tests/*:TTL101", "tests/t.py", "train.py")
    assert sorted(line.split(": ")[1].split()[0] for line in proc.stdout.splitlines()) == ["TTL101", "TTL507"]
    proc = lint(project, "check", "--isolated", "--per-file-ignores", "tests/*:TTL101,TTL507,train.py:TTL1",
                "tests/t.py", "train.py")
    assert (proc.returncode, proc.stdout) == (0, "")


def test_extend_exclude_adds_to_the_configured_excludes(project):
    (project / "pyproject.toml").write_text('[tool.torchtype-lint]\nexclude = ["clean.py"]\n')
    (project / "legacy").mkdir()
    (project / "legacy" / "old.py").write_text(DISCARDED)
    proc = lint(project, "check", "--show-files", "--extend-exclude", "legacy", ".")
    assert proc.stdout.splitlines() == ["./train.py"]


# --------------------------------------------------------------------------- fixes


def test_fix_only_fixes_and_reports_nothing_left(project):
    (project / "two.py").write_text(TWO_CODES)
    proc = lint(project, "check", "--isolated", "--fix-only", "two.py")
    assert (proc.returncode, proc.stdout) == (0, "")
    assert proc.stderr == "Fixed 2 findings.\n"
    assert "labels = labels.float()" in (project / "two.py").read_text()
    assert lint(project, "check", "--isolated", "--fix-only", "--exit-non-zero-on-fix", "train.py").returncode == 1


def test_show_fixes_enumerates_what_was_fixed(project):
    proc = lint(project, "check", "--isolated", "--fix", "--show-fixes", "train.py")
    assert proc.returncode == 0
    assert proc.stderr == "Fixed 1 finding:\n- train.py:\n    1 × TTL101 (discarded-cast)\n"


def test_unfixable_and_fixable_decide_which_fixes_apply(project):
    proc = lint(project, "check", "--isolated", "--fix", "--unfixable", "TTL101", "train.py")
    assert proc.returncode == 1 and "labels.float()\n" in (project / "train.py").read_text()
    assert proc.stderr == "Found 1 finding.\n"  # no longer "fixable with --fix"
    proc = lint(project, "check", "--isolated", "--fix", "--fixable", "TTL5", "train.py")
    assert proc.returncode == 1 and "labels = labels.float()" not in (project / "train.py").read_text()
    proc = lint(project, "check", "--isolated", "--fix", "--fixable", "TTL1", "train.py")
    assert proc.returncode == 0 and "labels = labels.float()" in (project / "train.py").read_text()


def test_diff_on_stdin_prints_the_diff_and_exits_1(project):
    proc = lint(project, "check", "--isolated", "--diff", "-", stdin=DISCARDED)
    assert proc.returncode == 1
    assert "-labels.float()\n+labels = labels.float()\n" in proc.stdout
    assert proc.stderr == "Would fix 1 finding.\n"
    clean = lint(project, "check", "--isolated", "--diff", "-", stdin=CLEAN)
    assert (clean.returncode, clean.stdout) == (0, "")


def test_fix_on_stdin_prints_the_fixed_source(project):
    proc = lint(project, "check", "--isolated", "--fix", "-", stdin=DISCARDED)
    assert (proc.returncode, proc.stdout) == (0, CLEAN)
    assert proc.stderr == "Fixed 1 finding.\n"
    # What is left without a fix: the source is still the output, the count on stderr, exit 1.
    left = lint(project, "check", "--isolated", "--fix", "--stdin-filename", "two.py", stdin=TWO_CODES)
    assert left.returncode == 1 and left.stdout.startswith(CLEAN)
    assert "Found 1 finding left after fixing" in left.stderr


# --------------------------------------------------------------------------- add-noqa


NOQA_CASES = textwrap.dedent('''\
    import torch

    labels = torch.tensor([0, 1, 1, 0])
    labels.float()
    labels.double()  # keep this comment
    labels.half()  # noqa: E501
    labels.int(); labels.long()
    total = (torch.ones(3) @
             torch.ones(4, 3))
    other = torch.ones(2, 3) @ torch.ones(
        4, 3)
    ''')


def test_add_noqa_makes_a_rerun_clean_and_the_file_still_parses(tmp_path):
    path = tmp_path / "t.py"
    path.write_bytes(NOQA_CASES.replace("\n", "\r\n").encode())
    before = lint(tmp_path, "check", "--isolated", "--no-cache", "t.py")
    found = {line.split(":")[1] for line in before.stdout.splitlines()}
    assert before.returncode == 1 and len(before.stdout.splitlines()) == 7 and len(found) == 6
    proc = lint(tmp_path, "check", "--isolated", "--no-cache", "--add-noqa", "t.py")
    # One directive a line (two findings on line 7 share one).
    assert proc.returncode == 0 and proc.stderr == "Added 6 noqa directives.\n"
    text = path.read_bytes().decode()
    assert "\r\n" in text and "\n" not in text.replace("\r\n", "")  # line endings kept
    ast.parse(text)
    lines = text.splitlines()
    assert lines[3] == "labels.float()  # noqa: TTL101"
    assert lines[4] == "labels.double()  # keep this comment  # noqa: TTL101"
    assert lines[5] == "labels.half()  # noqa: E501, TTL101"  # merged into the comment there
    assert lines[6] == "labels.int(); labels.long()  # noqa: TTL101"  # one comment for both
    # Multi-line statements: on the line each finding is reported at.
    assert lines[7] == "total = (torch.ones(3) @  # noqa: TTL507"
    assert lines[9] == "other = torch.ones(2, 3) @ torch.ones(  # noqa: TTL507"
    rerun = lint(tmp_path, "check", "--isolated", "--no-cache", "t.py")
    assert (rerun.returncode, rerun.stdout) == (0, "")
    # Nothing more to add: the file is left as it is.
    again = lint(tmp_path, "check", "--isolated", "--no-cache", "--add-noqa", "t.py")
    assert again.stderr == "Added 0 noqa directives.\n" and path.read_bytes().decode() == text


def test_add_noqa_never_writes_inside_a_string(tmp_path):
    # The finding's line ends inside a triple-quoted string: a comment there would be text.
    source = 'import torch\n\nlabels = torch.tensor([0, 1, 1, 0])\nlabels.float(); s = """a\nb"""\n'
    path = tmp_path / "t.py"
    path.write_text(source)
    assert lint(tmp_path, "check", "--isolated", "--no-cache", "t.py").stdout.startswith("t.py:4:1: TTL101")
    proc = lint(tmp_path, "check", "--isolated", "--no-cache", "--add-noqa", "t.py")
    assert proc.returncode == 0 and "Added 0 noqa directives." in proc.stderr
    assert "1 finding is on lines that end inside a string" in proc.stderr
    assert path.read_text() == source


# --------------------------------------------------------------------------- colour


def test_colour_only_when_asked_or_on_a_terminal(project):
    piped = lint(project, "check", "--isolated", "train.py")
    assert "\033[" not in piped.stdout + piped.stderr
    forced = lint(project, "check", "--isolated", "--color", "always", "train.py")
    assert forced.stdout.startswith("\033[1mtrain.py\033[0m") and "\033[31mTTL101\033[0m" in forced.stdout
    assert "\033[" in lint(project, "check", "--isolated", "train.py", env={"FORCE_COLOR": "1"}).stdout
    assert "\033[" not in lint(project, "check", "--isolated", "--color", "never", "train.py",
                               env={"FORCE_COLOR": "1"}).stdout
    # The report written to a file never has colour codes.
    lint(project, "check", "--isolated", "--color", "always", "-o", "out.txt", "train.py")
    assert "\033[" not in (project / "out.txt").read_text()


@pytest.mark.skipif(not hasattr(os, "openpty"), reason="needs a pseudo-terminal")
def test_a_terminal_gets_colour_unless_no_color(project):
    def on_a_terminal(env):
        primary, secondary = os.openpty()
        environment = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR")}
        environment.update(env)
        proc = subprocess.run([str(SCRIPT), "check", "--isolated", "train.py"], cwd=project, stdout=secondary,
                              stderr=subprocess.DEVNULL, env=environment, timeout=180)
        os.close(secondary)
        out = b""
        while True:
            try:
                chunk = os.read(primary, 65536)
            except OSError:
                break
            if not chunk:
                break
            out += chunk
        os.close(primary)
        return proc.returncode, out.decode()

    code, out = on_a_terminal({})
    assert code == 1 and "\033[31mTTL101" in out
    assert "\033[" not in on_a_terminal({"NO_COLOR": "1"})[1]


# --------------------------------------------------------------------------- watch


def test_watch_checks_again_when_a_file_changes(project):
    pytest.importorskip("watchfiles")
    proc = subprocess.Popen([str(SCRIPT), "check", "--isolated", "--no-cache", "--watch", "train.py", "clean.py"],
                            cwd=project, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        lines = []

        def wait_for(text: str, timeout: float = 60) -> None:
            deadline = time.monotonic() + timeout
            while not any(text in line for line in lines):
                assert time.monotonic() < deadline, f"no {text!r} in {lines}"
                lines.append(proc.stdout.readline())

        wait_for("Found 1 finding")
        time.sleep(0.5)  # the watcher is set up right after the first check
        (project / "train.py").write_text(CLEAN)
        wait_for("File change detected")
        wait_for("All checks passed!")
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            code = proc.wait(timeout=30)
        finally:
            proc.kill()
    assert code == 0


def test_watch_without_watchfiles_is_a_clear_error(project, tmp_path):
    # A module named watchfiles that cannot be imported stands for a missing one.
    blocker = tmp_path / "blocker"
    blocker.mkdir()
    (blocker / "watchfiles.py").write_text("raise ImportError('not installed')\n")
    proc = lint(project, "check", "--isolated", "--watch", "train.py", env={"PYTHONPATH": str(blocker)})
    assert proc.returncode == 2
    assert "--watch needs the watchfiles package: pip install 'torchtype-lint[watch]'" in proc.stderr


# --------------------------------------------------------------------------- progress


def test_no_progress_in_piped_output(project):
    proc = lint(project, "check", "--isolated", "--no-cache", ".")
    assert "\r" not in proc.stderr and "files," not in proc.stderr


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_on_a_terminal_after_the_delay_and_cleared_at_the_end(monkeypatch):
    import torchtype_lint.report.progress as progress

    monkeypatch.setitem(sys.modules, "tqdm", None)  # the plain line, whatever is installed
    stream = _Terminal()
    bar = progress.Progress(3, stream=stream, delay=0.0)
    bar.advance(2)
    bar.advance(0)
    assert stream.getvalue().endswith("\r2/3 files, 2 findings\033[K")
    bar.close()
    assert stream.getvalue().endswith("\r\033[K")


def test_no_progress_before_the_delay_or_off_a_terminal():
    from torchtype_lint.report.progress import Progress

    quick = _Terminal()
    bar = Progress(3, stream=quick)  # the default delay: a fast run shows nothing
    bar.advance(1)
    bar.close()
    piped = io.StringIO()
    bar = Progress(3, stream=piped, delay=0.0)
    bar.advance(1)
    bar.close()
    assert quick.getvalue() == piped.getvalue() == ""


def test_progress_uses_tqdm_when_installed():
    pytest.importorskip("tqdm")
    from torchtype_lint.report.progress import Progress

    stream = _Terminal()
    bar = Progress(4, stream=stream, delay=0.0)
    bar.advance(3)
    bar.close()
    assert "1/4" in stream.getvalue() and "3 findings" in stream.getvalue()
