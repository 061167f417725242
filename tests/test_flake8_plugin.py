"""The flake8 front end, through real flake8: same findings as the CLI, and it never raises."""
from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
FLAKE8 = [sys.executable, "-m", "flake8", "--isolated"]
CLI = [sys.executable, "-m", "torchtype_lint", "check", "--isolated"]

DISCARDED = textwrap.dedent("""\
    import torch

    labels = torch.tensor([0, 1, 1, 0])
    labels.float()
    """)


@pytest.fixture(autouse=True)
def fresh_resident_child():
    """In-process flake8 runs analyse in this process's resident child (resident.py), forked
    with what this process held then: a test's monkeypatches reach it only if it starts after."""
    from torchtype_lint.run.resident import stop_resident

    stop_resident()
    yield
    stop_resident()


def _run(cmd, cwd):
    return subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=300)


@pytest.mark.parametrize("select, families", [
    ("TTL", "TTL*"),            # the default set over every fixture: opt-in TTL9xx rules stay off in both
    ("TTL,TTL9", "TTL9*"),      # opt-in rules named explicitly: on in both
])
def test_flake8_prints_exactly_what_the_cli_prints_on_fixtures(select, families):
    paths = sorted(str(p.relative_to(REPO)) for p in (REPO / "fixtures").glob(families) if p.is_dir())
    flake8 = _run(FLAKE8 + [f"--select={select}", *paths], REPO)
    cli = _run(CLI + ["--select", select, *paths], REPO)
    assert "Traceback" not in flake8.stderr + cli.stderr
    assert cli.returncode in (0, 1), cli.stderr
    assert flake8.returncode == cli.returncode
    assert sorted(flake8.stdout.splitlines()) == sorted(cli.stdout.splitlines())
    # Not vacuous: the bad fixtures of the selected families produce findings (that each one
    # reports exactly its expected lines is tests/test_fixtures.py's job).
    bad = {str(p.relative_to(REPO)) for p in (REPO / "fixtures").glob(f"{families}/bad_*.py")}
    reported = {line.split(":", 1)[0] for line in cli.stdout.splitlines()}
    opt_in_bad = {p for p in bad if p.startswith("fixtures/TTL9")}
    if select == "TTL":
        assert not [line for line in cli.stdout.splitlines() if ": TTL9" in line]
        bad -= opt_in_bad
    assert len(bad & reported) >= len(bad) // 2 > 0


def test_flake8_config_file_options_apply_to_the_plugin(tmp_path):
    # flake8 reads setup.cfg / tox.ini / .flake8 (not pyproject.toml): its own select,
    # per-file-ignores and exclude work on TTL codes like on any other plugin's.
    for rel in ("src/train.py", "tests/test_train.py", "generated/gen.py"):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(DISCARDED, encoding="utf-8")
    (tmp_path / "setup.cfg").write_text(textwrap.dedent("""\
        [flake8]
        select = TTL
        per-file-ignores = tests/*:TTL101
        extend-exclude = generated
        """))
    proc = _run([sys.executable, "-m", "flake8", "."], tmp_path)
    assert [line.split(": ")[0] for line in proc.stdout.splitlines()] == ["./src/train.py:4:1"]
    assert proc.returncode == 1


def test_flake8_columns_are_code_points_like_the_cli(tmp_path):
    # Non-ASCII text before the finding on the same line: ast counts bytes, libcst code points.
    (tmp_path / "t.py").write_text(DISCARDED.replace("labels.float()", 's = "é"; labels.float()'),
                                   encoding="utf-8")
    flake8 = _run(FLAKE8 + ["--select=TTL", "t.py"], tmp_path)
    cli = _run(CLI + ["t.py"], tmp_path)
    assert flake8.stdout == cli.stdout
    assert flake8.stdout.startswith("t.py:4:10: TTL101 ")  # 9 code points before it, 10 bytes


def test_flake8_noqa_and_selection(tmp_path):
    (tmp_path / "t.py").write_text(DISCARDED + "labels.double()  # noqa: TTL101\n", encoding="utf-8")
    out = _run(FLAKE8 + ["--select=TTL", "t.py"], tmp_path)
    assert [line.split(": ")[0] for line in out.stdout.splitlines()] == ["t.py:4:1"]
    assert out.returncode == 1
    assert _run(FLAKE8 + ["--select=TTL", "--extend-ignore=TTL101", "t.py"], tmp_path).stdout == ""
    # Another family selected: our plugin's findings are filtered out by flake8.
    assert _run(FLAKE8 + ["--select=E9", "t.py"], tmp_path).stdout == ""


@pytest.mark.parametrize("comment", [
    "# noqa", "# NOQA: TTL101", "# NOQA: ttl101", "#noqa:TTL101", "# noqa: ttl101, TTL1", "# noqa: E501",
])
def test_flake8_and_the_cli_read_noqa_comments_alike(tmp_path, comment):
    (tmp_path / "t.py").write_text(DISCARDED.replace("labels.float()", f"labels.float()  {comment}"),
                                   encoding="utf-8")
    flake8 = _run(FLAKE8 + ["--select=TTL", "t.py"], tmp_path)
    cli = _run(CLI + ["t.py"], tmp_path)
    assert flake8.stdout == cli.stdout
    assert flake8.returncode == cli.returncode


def test_flake8_disable_noqa_reports_our_suppressed_findings(tmp_path):
    (tmp_path / "t.py").write_text(DISCARDED.replace("labels.float()", "labels.float()  #noqa:TTL101"),
                                   encoding="utf-8")
    assert _run(FLAKE8 + ["--select=TTL", "t.py"], tmp_path).stdout == ""
    out = _run(FLAKE8 + ["--select=TTL", "--disable-noqa", "t.py"], tmp_path).stdout
    assert out.startswith("t.py:4:1: TTL101 ")


def _flake8_in_process(argv, capsys):
    from flake8.main import cli as flake8_cli

    code = flake8_cli.main(["--isolated", "--jobs=1", *argv])
    return code, capsys.readouterr()


@pytest.fixture
def three_files(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for name in ("a.py", "boom.py", "c.py"):
        (tmp_path / name).write_text(DISCARDED, encoding="utf-8")
    return tmp_path


def test_plugin_failure_becomes_one_ttl000_and_other_files_are_checked(three_files, monkeypatch, capsys):
    import torchtype_lint.checker.check as check_module

    real = check_module.check_source

    def exploding(source, path="<stdin>", *args, **kwargs):
        if path.endswith("boom.py"):
            raise RuntimeError("simulated engine failure")
        return real(source, path, *args, **kwargs)

    monkeypatch.setattr(check_module, "check_source", exploding)
    code, captured = _flake8_in_process(["--select=TTL", "a.py", "boom.py", "c.py"], capsys)
    lines = captured.out.splitlines()
    assert code == 1
    assert [line.split(": ")[0] for line in lines] == ["a.py:4:1", "boom.py:1:1", "c.py:4:1"]
    # The same words as the CLI for the same failure (runner.check_bytes_bounded).
    assert lines[1] == "boom.py:1:1: TTL000 internal error while analysing this file: RuntimeError: simulated engine failure"
    assert "Traceback" not in captured.err


def test_engine_failure_inside_check_is_a_ttl000_too(three_files, monkeypatch, capsys):
    # A crash deeper down (in the interpreter) is caught by check itself, for every front end.
    from torchtype_lint.engine import interpreter

    import torchtype_lint.checker.check as check_module

    real_run = interpreter.Interpreter.run

    real = check_module.check_source

    def check_boom(source, path="<stdin>", *args, **kwargs):
        if path.endswith("boom.py"):
            monkeypatch.setattr(interpreter.Interpreter, "run", lambda self, *args: (_ for _ in ()).throw(
                RuntimeError("simulated interpreter failure")))
            try:
                return real(source, path, *args, **kwargs)
            finally:
                monkeypatch.setattr(interpreter.Interpreter, "run", real_run)
        return real(source, path, *args, **kwargs)

    monkeypatch.setattr(check_module, "check_source", check_boom)
    code, captured = _flake8_in_process(["--select=TTL", "a.py", "boom.py", "c.py"], capsys)
    lines = captured.out.splitlines()
    assert [line.split(": ")[0] for line in lines] == ["a.py:4:1", "boom.py:1:1", "c.py:4:1"]
    assert lines[1].startswith("boom.py:1:1: TTL000 internal error while analysing this file: "
                               "RuntimeError: simulated interpreter failure")
    assert "Traceback" not in captured.err


def test_plugin_registered_under_ttl():
    from importlib.metadata import entry_points

    eps = entry_points()
    group = eps.select(group="flake8.extension") if hasattr(eps, "select") else eps.get("flake8.extension", [])
    assert {ep.name: ep.value for ep in group}["TTL"] == "torchtype_lint.frontends.flake8_plugin:TorchTypeChecker"
