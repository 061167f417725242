"""Running the real ``pre-commit`` tool against our hooks, for test_precommit and test_frontends_agree.

The hook repository is a snapshot of the working tree (package, pyproject, hook file)
committed into a throw-away git repo, not the checkout itself: pre-commit clones a
``repo``/``rev`` pair, so pointing it at the checkout would test the last commit rather
than the code under test, and ``try-repo`` leaves out untracked files. pre-commit then
builds its own virtualenv and ``pip install``s the snapshot (libcst and hatchling come
from the package index) exactly as on a user's machine. That install takes about 9 s, so
the snapshot and pre-commit's cache are shared by the tests of a session; a new snapshot (and
install) is made only if the package changed meanwhile (others editing the working tree), so
the hook never runs stale code.
"""
from __future__ import annotations

import atexit
import functools
import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path
from typing import Dict, List, Optional, Sequence, Tuple

CHECKOUT = Path(__file__).resolve().parents[1]
HOOK_REPO_FILES = ("pyproject.toml", "README.md", ".pre-commit-hooks.yaml")
# The trees the wheel is built from (pyproject force-includes fixtures/), as in a clone.
HOOK_REPO_TREES = ("torchtype_lint", "fixtures")


def git(*args: str, cwd: Path) -> str:
    env = dict(os.environ, GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@example.invalid",
               GIT_COMMITTER_NAME="t", GIT_COMMITTER_EMAIL="t@example.invalid")
    return subprocess.run(["git", *args], cwd=cwd, env=env, check=True, capture_output=True,
                          text=True).stdout.strip()


def _package_files() -> List[Path]:
    files = [CHECKOUT / name for name in HOOK_REPO_FILES]
    for tree in HOOK_REPO_TREES:
        files += sorted(p for p in (CHECKOUT / tree).rglob("*")
                        if p.is_file() and "__pycache__" not in p.parts and p.suffix != ".pyc")
    return files


def _package_digest() -> str:
    digest = hashlib.sha256()
    for path in _package_files():
        digest.update(str(path.relative_to(CHECKOUT)).encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


@functools.lru_cache(maxsize=None)
def _pre_commit_home() -> Path:
    root = Path(tempfile.mkdtemp(prefix="ttl-precommit-"))
    atexit.register(shutil.rmtree, root, ignore_errors=True)
    return root


def hook_repo() -> Tuple[Path, str, Path]:
    """(snapshot repo, its commit sha, PRE_COMMIT_HOME) for the package as it is now."""
    return _snapshot(_package_digest())


@functools.lru_cache(maxsize=None)
def _snapshot(digest: str) -> Tuple[Path, str, Path]:
    root = _pre_commit_home()
    repo = root / f"hook-repo-{digest[:12]}"
    repo.mkdir()
    for name in HOOK_REPO_FILES:
        shutil.copy2(CHECKOUT / name, repo / name)
    for tree in HOOK_REPO_TREES:
        shutil.copytree(CHECKOUT / tree, repo / tree, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    git("init", "-q", cwd=repo)
    git("add", "-A", cwd=repo)
    git("commit", "-q", "-m", "snapshot", cwd=repo)
    return repo, git("rev-parse", "HEAD", cwd=repo), root / "pre-commit-home"


def make_project(directory: Path, files: Dict[str, str]) -> Path:
    """A git repo with ``files``, using both hooks (the fix hook on the manual stage)."""
    directory.mkdir(parents=True, exist_ok=True)
    git("init", "-q", cwd=directory)
    for name, text in files.items():
        path = directory / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    git("add", *files, cwd=directory)
    _use_current_snapshot(directory)
    return directory


def _use_current_snapshot(project: Path) -> None:
    """Point the project's .pre-commit-config.yaml at a snapshot of the package as it is now."""
    repo, sha, _ = hook_repo()
    (project / ".pre-commit-config.yaml").write_text(textwrap.dedent(f"""\
        repos:
        - repo: {repo.as_posix()}
          rev: {sha}
          hooks:
          - id: torchtype-lint
          - id: torchtype-lint-fix
            stages: [manual]
        """))
    git("add", ".pre-commit-config.yaml", cwd=project)  # pre-commit refuses an unstaged config


def pre_commit(project: Path, *args: str, env: Optional[Dict[str, str]] = None) -> subprocess.CompletedProcess:
    _, _, home = hook_repo()
    env = dict(os.environ, **(env or {}), PRE_COMMIT_HOME=str(home), PRE_COMMIT_COLOR="never")
    env.pop("VIRTUAL_ENV", None)  # the hook gets its own environment, not the test's
    return subprocess.run([sys.executable, "-m", "pre_commit", *args], cwd=project, env=env,
                          capture_output=True, text=True, timeout=600)


def run_hook(project: Path, hook: str, files: Sequence[str],
             env: Optional[Dict[str, str]] = None) -> subprocess.CompletedProcess:
    _use_current_snapshot(project)
    stage = ["--hook-stage", "manual"] if hook.endswith("-fix") else []
    return pre_commit(project, "run", hook, *stage, "--files", *files, env=env)
