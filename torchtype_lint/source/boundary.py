"""The project boundary: no symlink leads the linter to read or write a file outside the project.

A checkout is attacker-controlled, and git commits symlinks: ``link.py -> /home/ci/.ssh/x.py``
would otherwise be analysed (its lines quoted by ``--output-format full``, its imports followed
in its own project) and rewritten by ``--fix`` or ``--add-noqa``.

*The project* of a file is the one ``project/roots.py`` computes for imports, found from where
the file is named (the symlink's own directory, never where it leads): the closest directory at
or above it holding ``pyproject.toml``, ``setup.cfg``, ``setup.py`` or ``.git``, else the
directory above its outermost package (its own directory outside any package), resolved. A
path that resolves, through symlinks anywhere on it, to a place outside that directory is
refused: named on the command line it is a ``TTL001`` for that file, found while walking a
directory it is skipped (``files.discover``). A path with no symlink on it is always inside
its own project: files named outside every checkout (``check /tmp/x.py``) are read as before,
and so are links that stay inside the project.
"""
from __future__ import annotations

import errno
import os

from .project.roots import file_project, is_inside


class OutsideProject(OSError):
    """A path resolves outside its project. An ``OSError``: every reader and writer of user
    files already turns those into the file's ``TTL001``."""


def resolve_inside(path: str) -> str:
    """``path`` with every symlink resolved; raises ``OutsideProject`` when that leaves the
    project of the file named ``path``. Open the returned path (with ``O_NOFOLLOW``): it is
    the one that was checked."""
    absolute = os.path.abspath(path)
    resolved = os.path.realpath(absolute)
    if resolved == absolute:
        return resolved  # no symlink on the way: the file is below its own project's root
    project = file_project(absolute)
    if not is_inside(resolved, project):
        raise OutsideProject(errno.EPERM, f"it is a symlink that leads outside the project ({project}); "
                                          "not followed", path)
    return resolved


def leaves_project(path: str) -> bool:
    """Whether ``path`` resolves outside its project (see ``resolve_inside``)."""
    try:
        resolve_inside(path)
    except OutsideProject:
        return True
    return False
