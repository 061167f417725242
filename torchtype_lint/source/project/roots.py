"""Where the user's own modules live: the project root above a file (the boundary nothing is read
beyond) and the directories an absolute import is looked up in, in Python's order.

The root is the closest directory at or above the file holding ``pyproject.toml``, ``setup.cfg``,
``setup.py`` or ``.git``; without one, the directory above the file's outermost package (the
file's own directory for a file in no package). It is found from where the file is named: a
symlink to another project's file still belongs to the project holding the link (whose
``boundary.py`` refuses to read it). Absolute imports are looked up,
like ruff's ``src`` setting, in the configured ``src`` directories (``[tool.torchtype-lint]
src = [...]``), else in the root and its ``src/`` directory. A file outside any package (a script
in ``scripts/``) also finds its neighbours first, as ``python scripts/train.py`` puts the
script's directory first on ``sys.path``.
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Optional, Sequence, Tuple

#: Files or directories that mark a project's root.
PROJECT_MARKERS = ("pyproject.toml", "setup.cfg", "setup.py", ".git")
#: Directories above a file searched for a marker at most (a file deep in a tree stays cheap).
MAX_ROOT_SEARCH = 32


@dataclass(frozen=True)
class ImportRoots:
    #: The project root, resolved (no symlink): a module file outside it is never read.
    project: str
    #: Directories absolute imports are looked up in, first match wins; all inside ``project``.
    search: Tuple[str, ...]


def project_root(path: str) -> Optional[str]:
    """The closest directory at or above ``path``'s directory that holds a project marker."""
    directory = os.path.dirname(os.path.abspath(path))
    for _ in range(MAX_ROOT_SEARCH):
        if any(os.path.exists(os.path.join(directory, marker)) for marker in PROJECT_MARKERS):
            return directory
        parent = os.path.dirname(directory)
        if parent == directory:
            return None
        directory = parent
    return None


def _above_packages(directory: str) -> str:
    """The directory holding the outermost package that contains ``directory``."""
    for _ in range(MAX_ROOT_SEARCH):
        if not os.path.isfile(os.path.join(directory, "__init__.py")):
            return directory
        directory = os.path.dirname(directory)
    return directory


def is_inside(path: str, directory: str) -> bool:
    """Whether the resolved ``path`` is ``directory`` or below it (both absolute, resolved)."""
    return path == directory or path.startswith(directory.rstrip(os.sep) + os.sep)


def file_project(path: str) -> str:
    """The project of the file named ``path``, resolved: found from where the file is named (a
    symlink's own directory), never from where a symlink leads, so a link cannot choose it."""
    absolute = os.path.abspath(path)
    return os.path.realpath(project_root(absolute) or _above_packages(os.path.dirname(absolute)))


def import_roots(path: str, configured_src: Sequence[str] = (), directory_first: bool = False) -> ImportRoots:
    """The roots for the file named ``path``; ``configured_src``: absolute ``src`` directories;
    ``directory_first``: the file's directory is searched first even inside a package (a notebook)."""
    # Python puts a script's resolved directory first on sys.path; outside the root it is dropped below.
    own_directory = os.path.dirname(os.path.realpath(path))
    root = file_project(path)
    candidates = list(configured_src) or [root, os.path.join(root, "src")]
    if directory_first or not os.path.isfile(os.path.join(own_directory, "__init__.py")):
        candidates.insert(0, own_directory)  # a script or a notebook: its directory comes first on sys.path
    search = []
    for candidate in candidates:
        resolved = os.path.realpath(candidate)
        # Only directories inside the project are searched (a module found there must also be
        # reached without a symlink: see resolve.py).
        if os.path.isdir(resolved) and is_inside(resolved, root) and resolved not in search:
            search.append(resolved)
    return ImportRoots(root, tuple(search))
