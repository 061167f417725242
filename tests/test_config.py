"""[tool.torchtype-lint] in pyproject.toml: discovery, options, precedence, errors."""
from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from torchtype_lint.cli.main import main
from torchtype_lint.run.config import ConfigError, RunPlan, find_config_file, load_config, path_matches

DISCARDED = textwrap.dedent("""\
    import torch

    labels = torch.tensor([0, 1, 1, 0])
    labels.float()
    """)


def write(root: Path, rel: str, text: str) -> Path:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


def check(capsys, *argv):
    code = main(["check", *argv])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def project(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    write(tmp_path, "src/train.py", DISCARDED)
    write(tmp_path, "tests/test_train.py", DISCARDED)
    write(tmp_path, "generated/gen.py", DISCARDED)
    return tmp_path


def reported_files(out: str):
    return sorted({line.split(":", 1)[0] for line in out.splitlines()})


def test_no_config_checks_everything(project, capsys):
    code, out, _ = check(capsys, ".")
    assert code == 1
    assert reported_files(out) == ["./generated/gen.py", "./src/train.py", "./tests/test_train.py"]


def test_ignore_exclude_and_per_file_ignores(project, capsys):
    write(project, "pyproject.toml", """\
        [project]
        name = "demo"

        [tool.torchtype-lint]
        exclude = ["generated"]

        [tool.torchtype-lint.per-file-ignores]
        "tests/*" = ["TTL101"]
        """)
    code, out, _ = check(capsys, ".")
    assert code == 1
    assert reported_files(out) == ["./src/train.py"]


def test_config_ignore_and_cli_precedence(project, capsys):
    write(project, "pyproject.toml", """\
        [tool.torchtype-lint]
        ignore = ["TTL1"]
        """)
    assert check(capsys, "src/train.py")[:2] == (0, "")
    # --select on the command line replaces the configured selection; the most specific wins.
    code, out, _ = check(capsys, "--select", "TTL101", "src/train.py")
    assert code == 1 and out.startswith("src/train.py:4:1: TTL101 ")
    # --extend-select adds to the configuration; TTL10 is more specific than the ignored TTL1.
    assert check(capsys, "--extend-select", "TTL10", "src/train.py")[0] == 1
    # --isolated ignores the file.
    assert check(capsys, "--isolated", "src/train.py")[0] == 1


def test_select_in_config(project, capsys):
    write(project, "pyproject.toml", '[tool.torchtype-lint]\nselect = ["TTL5"]\n')
    assert check(capsys, "src/train.py")[:2] == (0, "")
    write(project, "pyproject.toml", '[tool.torchtype-lint]\nselect = ["TTL5"]\nextend-select = ["TTL101"]\n')
    assert check(capsys, "src/train.py")[0] == 1


def test_closest_config_wins_and_sections_without_our_table_are_skipped(project, capsys):
    write(project, "pyproject.toml", '[tool.torchtype-lint]\nignore = ["TTL101"]\n')
    # tests/ has its own config: it wins for files below it (no merging with the parent).
    write(project, "tests/pyproject.toml", '[tool.torchtype-lint]\nselect = ["TTL"]\n')
    # src/ has a pyproject without our table: skipped, the root one applies.
    write(project, "src/pyproject.toml", '[tool.black]\nline-length = 100\n')
    code, out, _ = check(capsys, ".")
    assert reported_files(out) == ["./tests/test_train.py"]
    assert find_config_file(str(project / "src" / "train.py")) == str(project / "pyproject.toml")
    assert find_config_file(str(project / "tests")) == str(project / "tests" / "pyproject.toml")


def test_explicit_config_option(project, capsys):
    write(project, "other.toml", '[tool.torchtype-lint]\nignore = ["TTL101"]\n')
    assert check(capsys, "--config", "other.toml", "src/train.py")[:2] == (0, "")
    code, _, err = check(capsys, "--config", "missing.toml", "src/train.py")
    assert code == 2 and "--config: no such file: missing.toml" in err


@pytest.mark.parametrize("table, message", [
    ('selct = ["TTL1"]', "unknown key 'selct'; did you mean 'select'?"),
    ('colour = "red"', "unknown key 'colour' (known keys: select, extend-select, ignore, per-file-ignores, "
                       "exclude, extend-exclude, respect-gitignore, src)"),
    ('src = "lib"\nsrc = 1', "invalid TOML"),
    ('src = [1]', "'src' must be a list of strings, got [1]"),
    ('respect-gitignore = "no"', "'respect-gitignore' must be true or false, got 'no'"),
    ('select = ["TTL1"]\nignore = ["E501"]', "'ignore': 'E501' is not a rule code or prefix"),
    # Like ruff: a code no rule has, and a string where a list belongs, are errors.
    ('ignore = ["TTL999"]', "'ignore': unknown rule code or prefix 'TTL999'"),
    ('extend-select = ["TTL99"]', "'extend-select': unknown rule code or prefix 'TTL99'"),
    ('select = "TTL1"', "'select' must be a list of rule codes such as [\"TTL1\"], got 'TTL1'"),
    ('select = "TTL1,TTL2"', "'select' must be a list of rule codes"),
    ('select = [1]', "'select' must be a list of strings, got [1]"),
    ('extend-exclude = [1]', "'extend-exclude' must be a list of strings"),
    ('exclude = [1, 2]', "'exclude' must be a list of strings"),
    ('per-file-ignores = ["tests/*"]', "'per-file-ignores' must be a table of glob = [codes], got list"),
    ('[tool.torchtype-lint.per-file-ignores]\n"tests/*" = ["XYZ1"]',
     "\"per-file-ignores.'tests/*'\": 'XYZ1' is not a rule code or prefix"),
])
def test_bad_configuration_names_the_key_and_exits_2(project, capsys, table, message):
    header = "" if table.startswith("[tool") else "[tool.torchtype-lint]\n"
    write(project, "pyproject.toml", header + table + "\n")
    code, out, err = check(capsys, "src/train.py")
    assert code == 2
    assert out == ""
    assert err.startswith("torchtype-lint: error: ")
    assert str(project / "pyproject.toml") in err
    assert message in err


def test_invalid_toml_is_a_clear_error(project, capsys):
    write(project, "pyproject.toml", "[tool.torchtype-lint\nselect = \n")
    code, _, err = check(capsys, "src/train.py")
    assert code == 2 and "invalid TOML" in err and "Traceback" not in err


def test_path_matching():
    assert path_matches("generated/gen.py", ["generated"])
    assert path_matches("a/generated/gen.py", ["generated"])
    assert path_matches("legacy/old.py", ["legacy/*.py"])
    assert path_matches("pkg/stubs.pyi", ["*.pyi"])
    assert path_matches("tests/unit/test_a.py", ["tests/*"])
    assert not path_matches("src/generated_utils.py", ["generated"])
    assert not path_matches("src/train.py", ["tests/*"])


def test_load_config_values(tmp_path):
    path = write(tmp_path, "pyproject.toml", """\
        [tool.torchtype-lint]
        select = ["ttl1", "TTL5"]
        extend-select = ["TTL9"]
        ignore = ["TTL101"]
        exclude = ["build2"]
        [tool.torchtype-lint.per-file-ignores]
        "tests/*" = ["TTL5", "TTL6"]
        """)
    config = load_config(str(path))
    assert (config.select, config.extend_select, config.ignore, config.exclude) == (
        ["TTL1", "TTL5"], ["TTL9"], ["TTL101"], ["build2"])
    assert config.per_file_ignores == [("tests/*", ["TTL5", "TTL6"])]
    assert config.ignored_codes(str(tmp_path / "tests" / "t.py")) == ["TTL5", "TTL6"]
    plan = RunPlan.from_args(select=None, ignore=["TTL2"])
    selection = plan.settings_for(str(tmp_path / "x.py")).selection
    assert (selection.select, selection.extend_select, selection.ignore) == (
        ["TTL1", "TTL5"], ["TTL9"], ["TTL101", "TTL2"])
    with pytest.raises(ConfigError):
        RunPlan.from_args(select=None, config_path=str(tmp_path / "nope.toml"))


def test_flake8_plugin_honours_the_same_configuration(project):
    write(project, "pyproject.toml", """\
        [tool.torchtype-lint]
        exclude = ["generated"]
        [tool.torchtype-lint.per-file-ignores]
        "tests/*" = ["TTL101"]
        """)
    flake8 = subprocess.run([sys.executable, "-m", "flake8", "--isolated", "--select=TTL", "."],
                            cwd=project, capture_output=True, text=True, timeout=300)
    cli = subprocess.run([sys.executable, "-m", "torchtype_lint", "check", "."],
                         cwd=project, capture_output=True, text=True, timeout=300)
    assert flake8.stdout == cli.stdout
    assert reported_files(cli.stdout) == ["./src/train.py"]


def test_flake8_plugin_reports_a_bad_configuration_without_crashing(project):
    write(project, "pyproject.toml", '[tool.torchtype-lint]\nselct = ["TTL"]\n')
    proc = subprocess.run([sys.executable, "-m", "flake8", "--isolated", "--select=TTL", "src/train.py"],
                          cwd=project, capture_output=True, text=True, timeout=300)
    assert "Traceback" not in proc.stderr
    assert proc.stdout.startswith("src/train.py:1:1: TTL000 invalid torchtype-lint configuration: ")
    assert "unknown key 'selct'" in proc.stdout
