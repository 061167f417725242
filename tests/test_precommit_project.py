"""The pre-commit hook follows imports (issue 15), through real ``git commit``s with the hook
installed by the real ``pre-commit`` (see precommit_support.py for how the hook repository is made).

pre-commit passes the hook the files staged in the commit, no others. A bug in ``train.py`` that
comes from ``data.py`` is caught whenever ``train.py`` is committed; a commit that changes only
``data.py`` does not re-check ``train.py`` (the hook never sees it). The project-wide setting the
README once gave for that (``pass_filenames: false`` and ``args: [.]``) catches it, but pre-commit
still skips a hook when no staged file matches its types, so a commit of ``.pre-commit-config.yaml``
alone went through with a known bug (issue 27). The ``torchtype-lint-project`` hook
(``always_run: true``, ``pass_filenames: false``) checks the whole project on every commit, the
cache answering for unchanged files; the documented way to pin it (no release tag yet:
``pre-commit autoupdate`` writes the newest commit's full SHA) is run here as the docs give it.
"""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from precommit_support import CHECKOUT, git, hook_repo, make_project, pre_commit

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="pre-commit needs git")

DATA = textwrap.dedent('''\
    """Batches: token ids drawn at random."""
    import torch


    def make_batch(n):
        return torch.randint(0, 10, (n, 8)).float()
    ''')
TRAIN = textwrap.dedent('''\
    import torch.nn as nn

    from data import make_batch

    model = nn.Linear(8, 2)
    logits = model(make_batch(4))
    ''')
BUG_DATA = DATA.replace(".float()", "")
#: The finding in train.py when make_batch gives int64, as the concise format starts it.
FINDING = "train.py:6:10: TTL202 `Linear` has float32 parameters but gets an int64 input (since data.py:6)"


def _commit(project: Path, message: str) -> subprocess.CompletedProcess:
    """``git commit`` of what is staged, through the pre-commit hook ``pre-commit install`` wrote."""
    _, _, home = hook_repo()
    env = dict(os.environ, PRE_COMMIT_HOME=str(home), PRE_COMMIT_COLOR="never",
               GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@example.invalid",
               GIT_COMMITTER_NAME="t", GIT_COMMITTER_EMAIL="t@example.invalid")
    env.pop("VIRTUAL_ENV", None)  # the hook runs in pre-commit's environment, not the test's
    # git runs the hook with its output on stderr: one stream, in order, for the assertions.
    return subprocess.run(["git", "commit", "-q", "-m", message], cwd=project, env=env, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True, timeout=600)


def _commits(project: Path) -> int:
    """How many commits the repository has (0 before the first)."""
    run = subprocess.run(["git", "rev-list", "--count", "HEAD"], cwd=project, capture_output=True, text=True)
    return int(run.stdout) if run.returncode == 0 else 0


def _project_wide_config(project: Path) -> None:
    """The README's setting: the hook checks the whole project instead of the staged files."""
    repo, sha, _ = hook_repo()
    (project / ".pre-commit-config.yaml").write_text(textwrap.dedent(f"""\
        repos:
        - repo: {repo.as_posix()}
          rev: {sha}
          hooks:
          - id: torchtype-lint
            pass_filenames: false
            args: [.]
        """))
    git("add", ".pre-commit-config.yaml", cwd=project)


def test_the_hook_follows_imports_and_only_sees_the_staged_files(tmp_path):
    project = make_project(tmp_path / "proj", {"pyproject.toml": "[project]\nname = 'p'\n",
                                               "data.py": BUG_DATA, "train.py": TRAIN})
    install = pre_commit(project, "install")
    assert install.returncode == 0, install.stdout + install.stderr

    # The first commit holds both files: the bug that spans them stops it.
    bug = _commit(project, "bug")
    assert bug.returncode == 1, bug.stdout
    assert FINDING in bug.stdout and "Failed" in bug.stdout
    assert _commits(project) == 0

    # The fixed twin is committed.
    (project / "data.py").write_text(DATA)
    git("add", "data.py", cwd=project)
    fixed = _commit(project, "fixed")
    assert fixed.returncode == 0, fixed.stdout
    assert "Passed" in fixed.stdout and "TTL" not in fixed.stdout and _commits(project) == 1

    # A commit of data.py alone: the hook gets data.py only, so train.py, which the change
    # breaks, is not re-checked and the commit goes through (the documented limitation).
    (project / "data.py").write_text(BUG_DATA)
    git("add", "data.py", cwd=project)
    only_data = _commit(project, "data only")
    assert only_data.returncode == 0, only_data.stdout
    assert "Passed" in only_data.stdout and "TTL" not in only_data.stdout and _commits(project) == 2
    checked = subprocess.run([sys.executable, "-m", "torchtype_lint", "check", "--no-cache", "train.py"],
                             capture_output=True, text=True, cwd=project, timeout=120)
    assert checked.returncode == 1 and FINDING in checked.stdout  # the bug is there all the same

    # With the project-wide setting, the next commit touching data.py re-checks train.py.
    _project_wide_config(project)
    (project / "data.py").write_text(BUG_DATA + "\n# a later edit\n")
    git("add", "data.py", cwd=project)
    project_wide = _commit(project, "data again")
    assert project_wide.returncode == 1, project_wide.stdout
    assert FINDING in project_wide.stdout and _commits(project) == 2


def _config(project: Path, hooks: str) -> None:
    """A .pre-commit-config.yaml using the snapshot's ``hooks`` (YAML, indented as a hook list)."""
    repo, sha, _ = hook_repo()
    (project / ".pre-commit-config.yaml").write_text(
        f"repos:\n- repo: {repo.as_posix()}\n  rev: {sha}\n  hooks:\n" + textwrap.indent(hooks, "  "))
    git("add", ".pre-commit-config.yaml", cwd=project)


def test_the_project_hook_checks_the_whole_project_on_every_commit(tmp_path):
    project = make_project(tmp_path / "proj", {"pyproject.toml": "[project]\nname = 'p'\n",
                                               "data.py": BUG_DATA, "train.py": TRAIN})
    git("commit", "-q", "-m", "a known bug, committed before any hook", cwd=project)
    install = pre_commit(project, "install")
    assert install.returncode == 0, install.stdout + install.stderr

    # The recipe the docs used to give: with no Python file staged, pre-commit skips the hook,
    # and the commit of the configuration alone goes through with the bug in train.py.
    _config(project, "- id: torchtype-lint\n  pass_filenames: false\n  args: [.]\n")
    skipped = _commit(project, "configure the hook")
    assert skipped.returncode == 0, skipped.stdout
    assert "(no files to check)Skipped" in skipped.stdout and _commits(project) == 2

    # The project hook runs on every commit, whatever it stages: this one stages no Python file.
    _config(project, "- id: torchtype-lint-project\n")
    stopped = _commit(project, "switch to the project hook")
    assert stopped.returncode == 1, stopped.stdout
    assert FINDING in stopped.stdout and "Failed" in stopped.stdout and _commits(project) == 2

    # Fixed, the same commit goes through; so does a later one of a file that is not Python.
    (project / "data.py").write_text(DATA)
    git("add", "data.py", cwd=project)
    fixed = _commit(project, "fix data.py, switch hooks")
    assert fixed.returncode == 0, fixed.stdout
    assert "torchtype-lint (whole project)" in fixed.stdout and "Passed" in fixed.stdout
    assert _commits(project) == 3
    (project / "NOTES.txt").write_text("no Python here\n")
    git("add", "NOTES.txt", cwd=project)
    notes = _commit(project, "notes")
    assert notes.returncode == 0 and "Passed" in notes.stdout and "Skipped" not in notes.stdout, notes.stdout

    # Arguments narrow it: the project hook checks what `args` names instead of the whole project.
    (project / "data.py").write_text(BUG_DATA)
    (project / "other.py").write_text("x = 1\n")
    _config(project, "- id: torchtype-lint-project\n  args: [other.py]\n")
    git("add", "data.py", "other.py", cwd=project)
    narrowed = _commit(project, "only other.py is checked")
    assert narrowed.returncode == 0 and "TTL" not in narrowed.stdout, narrowed.stdout


def _docs_pre_commit_configs() -> list:
    """The .pre-commit-config.yaml examples of docs/integrations.md's pre-commit section."""
    text = (CHECKOUT / "docs" / "integrations.md").read_text(encoding="utf-8")
    section = text[text.index("## pre-commit"):]
    section = section[:section.index("\n## ", 1)]
    return [block for block in re.findall(r"```yaml\n(.*?)```", section, flags=re.S) if "repos:" in block]


def test_the_documented_configuration_pins_a_commit_and_runs(tmp_path):
    configs = _docs_pre_commit_configs()
    assert configs, "docs/integrations.md gives no .pre-commit-config.yaml"
    hook_ids = {hook["id"] for hook in __import__("yaml").safe_load((CHECKOUT / ".pre-commit-hooks.yaml").read_text())}
    repo, sha, _ = hook_repo()
    for config in configs:
        assert "v0.1.0" not in config  # no such tag: the repository has no release yet
        named = set(re.findall(r"^\s*(?:# )?- id: ([\w-]+)", config, flags=re.M))
        assert named and named <= hook_ids, named - hook_ids
    config = configs[0]
    assert "torchtype-lint-project" in config
    url = re.search(r"repo: (\S+)", config).group(1)
    project = make_project(tmp_path / "proj", {"pyproject.toml": "[project]\nname = 'p'\n",
                                               "data.py": BUG_DATA, "train.py": TRAIN})
    (project / ".pre-commit-config.yaml").write_text(config.replace(url, repo.as_posix()))
    git("add", ".pre-commit-config.yaml", cwd=project)
    # What the docs say to run until a release exists: the rev becomes the newest commit's full SHA.
    update = pre_commit(project, "autoupdate", "--repo", repo.as_posix())
    assert update.returncode == 0, update.stdout + update.stderr
    pinned = (project / ".pre-commit-config.yaml").read_text()
    assert re.search(rf"^\s*rev: {sha}\b", pinned, flags=re.M), pinned
    git("add", ".pre-commit-config.yaml", cwd=project)
    run = pre_commit(project, "run", "--all-files")
    assert run.returncode == 1 and FINDING in run.stdout, run.stdout + run.stderr
