"""End to end: the real ``pre-commit`` tool installs our hook from this checkout and runs it.

The hook repository is a snapshot of the working tree (package, pyproject, hook file)
committed into a throw-away git repo, not the checkout itself: pre-commit clones a
``repo``/``rev`` pair, so pointing it at the checkout would test the last commit rather
than the code under test, and ``try-repo`` leaves out untracked files. pre-commit then
builds its own virtualenv and ``pip install``s the snapshot (libcst and hatchling come
from the package index), exactly as a user's machine would; that install takes about
9 s here, so one install is shared by every test in this module.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

CHECKOUT = Path(__file__).resolve().parents[1]
HOOK_REPO_FILES = ("pyproject.toml", "README.md", ".pre-commit-hooks.yaml")

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


def _git(*args: str, cwd: Path) -> str:
    env = dict(os.environ, GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@example.invalid",
               GIT_COMMITTER_NAME="t", GIT_COMMITTER_EMAIL="t@example.invalid")
    return subprocess.run(["git", *args], cwd=cwd, env=env, check=True, capture_output=True,
                          text=True).stdout.strip()


def _snapshot_hook_repo(dest: Path) -> str:
    """Commit the working tree's installable parts into ``dest``; return the commit sha."""
    dest.mkdir()
    for name in HOOK_REPO_FILES:
        shutil.copy2(CHECKOUT / name, dest / name)
    shutil.copytree(CHECKOUT / "torchtype_lint", dest / "torchtype_lint",
                    ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    _git("init", "-q", cwd=dest)
    _git("add", "-A", cwd=dest)
    _git("commit", "-q", "-m", "snapshot", cwd=dest)
    return _git("rev-parse", "HEAD", cwd=dest)


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    """A user project whose .pre-commit-config.yaml uses both hooks from the snapshot."""
    root = tmp_path_factory.mktemp("precommit")
    hook_repo = root / "hook-repo"
    sha = _snapshot_hook_repo(hook_repo)
    proj = root / "project"
    proj.mkdir()
    _git("init", "-q", cwd=proj)
    (proj / ".pre-commit-config.yaml").write_text(textwrap.dedent(f"""\
        repos:
        - repo: {hook_repo.as_posix()}
          rev: {sha}
          hooks:
          - id: torchtype-lint
          - id: torchtype-lint-fix
            stages: [manual]
        """))
    env = dict(os.environ, PRE_COMMIT_HOME=str(root / "pre-commit-home"), PRE_COMMIT_COLOR="never")
    env.pop("VIRTUAL_ENV", None)
    return proj, env


def _pre_commit(proj: Path, env: dict, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "pre_commit", *args], cwd=proj, env=env,
                          capture_output=True, text=True, timeout=600)


def test_hook_fails_on_bad_file_and_passes_on_good_file(project):
    proj, env = project
    (proj / "bad.py").write_text(BAD)
    (proj / "good.py").write_text(GOOD)
    _git("add", "bad.py", "good.py", ".pre-commit-config.yaml", cwd=proj)

    bad = _pre_commit(proj, env, "run", "torchtype-lint", "--files", "bad.py")
    assert bad.returncode == 1, bad.stdout + bad.stderr
    assert "bad.py:4:1: TTL101 result of `labels.float()` is discarded" in bad.stdout

    good = _pre_commit(proj, env, "run", "torchtype-lint", "--files", "good.py")
    assert good.returncode == 0, good.stdout + good.stderr
    assert "TTL" not in good.stdout
    assert "Passed" in good.stdout


def test_fix_hook_rewrites_the_file(project):
    proj, env = project
    (proj / "fixme.py").write_text(BAD)
    _git("add", "fixme.py", ".pre-commit-config.yaml", cwd=proj)

    run = _pre_commit(proj, env, "run", "torchtype-lint-fix", "--hook-stage", "manual",
                      "--files", "fixme.py")
    # pre-commit fails a hook that modified files, so the user sees and stages the change.
    assert run.returncode == 1, run.stdout + run.stderr
    assert "files were modified by this hook" in run.stdout
    assert (proj / "fixme.py").read_text() == GOOD
