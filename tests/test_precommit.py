"""End to end: the real ``pre-commit`` tool installs our hooks from this checkout and runs them
(see precommit_support.py for how the hook repository is made)."""
from __future__ import annotations

import json
import shutil
import textwrap

import pytest
import yaml

from precommit_support import CHECKOUT, make_project, run_hook

BAD = textwrap.dedent("""\
    import torch

    labels = torch.tensor([0, 1, 1, 0])
    labels.float()
    """)
GOOD = textwrap.dedent("""\
    import torch

    labels = torch.tensor([0, 1, 1, 0])
    labels = labels.float()
    """)

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="pre-commit needs git")


def test_hook_file_declares_the_hooks_like_ruff():
    hooks = {h["id"]: h for h in yaml.safe_load((CHECKOUT / ".pre-commit-hooks.yaml").read_text())}
    assert list(hooks) == ["torchtype-lint", "torchtype-lint-fix", "torchtype-lint-project"]
    assert hooks["torchtype-lint"]["entry"] == "torchtype-lint check --force-exclude"
    assert hooks["torchtype-lint-fix"]["entry"] == "torchtype-lint check --fix --force-exclude"
    for hook in hooks.values():
        assert hook["language"] == "python"
        assert hook["require_serial"] is True
        assert hook["minimum_pre_commit_version"] == "2.9.2"
    for hook in (hooks["torchtype-lint"], hooks["torchtype-lint-fix"]):  # the staged files
        assert hook["types_or"] == ["python", "pyi", "jupyter"]
        assert "always_run" not in hook and "pass_filenames" not in hook
    # The whole project, on every commit: no file names (the CLI walks the current directory,
    # the repository's root), run even when the commit stages no Python file.
    project = hooks["torchtype-lint-project"]
    assert project["entry"] == "torchtype-lint check"
    assert project["always_run"] is True and project["pass_filenames"] is False


def test_hook_fails_on_bad_file_and_passes_on_good_file(tmp_path):
    project = make_project(tmp_path, {"bad.py": BAD, "good.py": GOOD})

    bad = run_hook(project, "torchtype-lint", ["bad.py"])
    assert bad.returncode == 1, bad.stdout + bad.stderr
    assert "bad.py:4:1: TTL101 result of `labels.float()` is discarded" in bad.stdout

    good = run_hook(project, "torchtype-lint", ["good.py"])
    assert good.returncode == 0, good.stdout + good.stderr
    assert "TTL" not in good.stdout
    assert "Passed" in good.stdout


def test_fix_hook_rewrites_the_file(tmp_path):
    project = make_project(tmp_path, {"fixme.py": BAD})
    run = run_hook(project, "torchtype-lint-fix", ["fixme.py"])
    # pre-commit fails a hook that modified files, so the user sees and stages the change.
    assert run.returncode == 1, run.stdout + run.stderr
    assert "files were modified by this hook" in run.stdout
    assert (project / "fixme.py").read_text() == GOOD


def test_hook_checks_notebooks(tmp_path):
    cell = {"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [],
            "source": (BAD + "print(labels)\n").splitlines(keepends=True)}  # not displayed
    notebook = {"cells": [cell], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    project = make_project(tmp_path, {"nb.ipynb": json.dumps(notebook, indent=1)})
    run = run_hook(project, "torchtype-lint", ["nb.ipynb"])
    assert run.returncode == 1, run.stdout + run.stderr
    assert "nb.ipynb:cell 1:4:1: TTL101" in run.stdout


def test_hook_respects_configured_excludes(tmp_path):
    # pre-commit names the file explicitly; the project's exclude still applies.
    project = make_project(tmp_path, {"generated/bad.py": BAD, "bad.py": BAD,
                                      "pyproject.toml": '[tool.torchtype-lint]\nexclude = ["generated"]\n'})
    run = run_hook(project, "torchtype-lint", ["generated/bad.py", "bad.py"])
    assert run.returncode == 1, run.stdout + run.stderr
    assert "bad.py:4:1: TTL101" in run.stdout
    assert "generated/bad.py" not in run.stdout
