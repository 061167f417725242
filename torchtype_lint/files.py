"""Which files a run checks: paths given, directories walked, default excludes applied."""
from __future__ import annotations

import fnmatch
import os
from typing import Iterable, Iterator, List, Sequence

#: Directory names skipped while walking (like ruff's defaults).
DEFAULT_EXCLUDES = (
    ".git", ".hg", ".svn", ".venv", "venv", ".tox", ".nox", ".eggs", "*.egg-info", "__pycache__",
    "build", "dist", "node_modules", "site-packages", ".mypy_cache", ".pytest_cache",
    ".ruff_cache", ".torchtype_lint_cache", ".ipynb_checkpoints", "__pypackages__",
)
PYTHON_SUFFIXES = (".py", ".pyi")
#: Jupyter notebooks, checked through notebook.py (code cells only).
NOTEBOOK_SUFFIXES = (".ipynb",)


def is_excluded(path: str, patterns: Sequence[str]) -> bool:
    name = os.path.basename(os.path.normpath(path))
    norm = os.path.normpath(path).replace(os.sep, "/")
    for pattern in patterns:
        if fnmatch.fnmatch(name, pattern) or fnmatch.fnmatch(norm, pattern) or \
                fnmatch.fnmatch(norm, f"*/{pattern}") or fnmatch.fnmatch(norm, f"*/{pattern}/*"):
            return True
    return False


def discover(paths: Iterable[str], extra_excludes: Sequence[str] = (),
             suffixes: Sequence[str] = PYTHON_SUFFIXES + NOTEBOOK_SUFFIXES) -> Iterator[str]:
    """Files to check, in a stable order. Explicitly named files are always checked."""
    excludes = tuple(DEFAULT_EXCLUDES) + tuple(extra_excludes)
    for path in paths:
        if os.path.isdir(path):
            found: List[str] = []
            for root, dirs, files in os.walk(path):
                dirs[:] = sorted(d for d in dirs if not is_excluded(os.path.join(root, d), excludes))
                for f in files:
                    full = os.path.join(root, f)
                    if f.endswith(tuple(suffixes)) and not is_excluded(full, extra_excludes):
                        found.append(full)
            yield from sorted(found)
        else:
            yield path
