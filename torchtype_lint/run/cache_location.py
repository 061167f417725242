"""Where the findings cache may live: its directory, walked one component at a time as the OS
would, is refused when the way there goes through a symbolic link inside the project.

The working directory is a checked-out pull request (docs/security.md): a committed
``.torchtype_lint_cache -> /somewhere`` (or ``build -> /somewhere`` under ``--cache-dir
build/cache``) would make pruning delete, and writing create, files where the link points. The
user's own configuration is trusted where it lies outside the project: ``~/.cache`` may well be a
link to another disk. So links are followed only outside the project, the closest directory at
or above the working directory holding a project marker (else the working directory itself);
one inside turns the cache off for the run, with a warning. Links inside the cache itself are
never followed (``nofollow.py``).
"""
from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from typing import List, Optional

from ..source.project.roots import is_inside, project_root

#: Symbolic links followed on the way at most (the kernel's own limit before ELOOP).
MAX_LINKS = 40


@dataclass(frozen=True)
class CacheLocation:
    #: The cache directory, with no symbolic link on its path (it may not exist yet); None when refused.
    path: Optional[str]
    #: Why there is no cache for this run, as the warning says it; None when there is one.
    refusal: Optional[str] = None


def project_boundary() -> str:
    """The directory inside which no link on the cache's path is followed."""
    cwd = os.getcwd()  # physical: the kernel keeps no symbolic link in the working directory
    # project_root looks from the directory of the path it is given: that is the working directory.
    return project_root(os.path.join(cwd, "-")) or cwd


def locate(directory: str, entries: str) -> CacheLocation:
    """Where the cache ``directory`` (as configured) really is, or why it may not be used;
    ``entries``: the name of its entries directory, which must not be a link either."""
    try:
        return _walk(directory, entries)
    except OSError as exc:  # the working directory was removed, a link unreadable...
        return _refused(directory, f"it cannot be reached ({exc.strerror or exc})")


def _walk(directory: str, entries: str) -> CacheLocation:
    boundary = project_boundary()
    if os.path.isabs(directory):
        drive, rest = os.path.splitdrive(directory)
        current, pending = drive + os.sep, _components(rest)
    else:
        current, pending = os.getcwd(), _components(directory)
    links = 0
    while pending:
        part = pending.pop(0)
        if part in ("", os.curdir):
            continue
        if part == os.pardir:
            current = os.path.dirname(current)  # ``current`` has no link in it: its parent is real
            continue
        candidate = os.path.join(current, part)
        try:
            info = os.lstat(candidate)
        except FileNotFoundError:
            if os.pardir in pending:
                return _refused(directory, f"climbs out of {candidate}, which does not exist")
            # Not made yet: the rest is made by the first write, below a directory checked here.
            return CacheLocation(os.path.join(candidate, *[p for p in pending if p not in ("", os.curdir)]))
        except OSError as exc:
            return _refused(directory, f"{candidate} cannot be reached ({exc.strerror or exc})")
        if stat.S_ISLNK(info.st_mode):
            if is_inside(candidate, boundary):
                return _refused(directory, f"{candidate} is a symbolic link inside the project, and the cache "
                                           "writes and deletes files; use --cache-dir for another directory")
            links += 1
            if links > MAX_LINKS:
                return _refused(directory, "too many symbolic links on the way")
            target = os.readlink(candidate)
            if os.path.isabs(target):
                drive, target = os.path.splitdrive(target)
                current = drive + os.sep
            pending[:0] = _components(target)  # walked like the rest: a link in it is checked too
            continue
        if not stat.S_ISDIR(info.st_mode):
            return _refused(directory, f"{candidate} is not a directory")
        current = candidate
    try:
        inner = os.lstat(os.path.join(current, entries)).st_mode
    except OSError:
        return CacheLocation(current)  # no entries yet: the first write makes a real directory
    if not stat.S_ISDIR(inner):  # a link (or a file) where the entries go redirects every entry
        return _refused(directory, f"{os.path.join(current, entries)} is a symbolic link or not a directory")
    return CacheLocation(current)


def _components(path: str) -> List[str]:
    if os.altsep:
        path = path.replace(os.altsep, os.sep)
    return path.split(os.sep)


def _refused(directory: str, reason: str) -> CacheLocation:
    return CacheLocation(None, f"not using the cache directory {directory}: {reason}")
