"""Reading the project's modules an analysed file imports: from disk, or from the editor's
unsaved text (``overlay``), bounded, never through a symlink or outside the project root, and
parsed at most once per content in a process.

Every file looked for is recorded in ``dependencies`` (its SHA-256, or None when it does not
exist): a cached result is valid only while each of them is unchanged (``cache.py``).
"""
from __future__ import annotations

import hashlib
import os
import stat
from collections import OrderedDict
from typing import Any, Dict, Mapping, Optional, Tuple

from .roots import ImportRoots, is_inside

#: A module longer than this (characters) is not read: its names stay unknown.
MAX_MODULE_CHARS = 500_000
#: Parsed modules kept per process (a worker checks many files importing the same modules).
PARSE_CACHE_SIZE = 64
#: (path, sha256) -> the parsed module, or None when it could not be parsed.
_parsed: "OrderedDict[Tuple[str, str], Any]" = OrderedDict()


def content_hash(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


class ProjectSources:
    def __init__(self, roots: ImportRoots, overlay: Optional[Mapping[str, str]] = None):
        self.roots = roots
        #: Absolute path -> text of a file open in an editor (wins over the file on disk).
        self.overlay = dict(overlay or {})
        #: Every file looked for -> SHA-256 of its bytes, None where there is none.
        self.dependencies: Dict[str, Optional[str]] = {}
        self._data: Dict[str, bytes] = {}

    def exists(self, path: str) -> bool:
        """Whether ``path`` is a module file we may read: a regular file inside the project,
        reached without a symlink (a symlink, even to a file inside, is never followed)."""
        if path in self.dependencies:
            return self.dependencies[path] is not None
        data = self._read(path)
        self.dependencies[path] = content_hash(data) if data is not None else None
        if data is not None:
            self._data[path] = data
        return data is not None

    def parse(self, path: str) -> Any:
        """The libcst module of ``path`` (which ``exists``), or None: unreadable, too long,
        refused by the screen or not valid Python."""
        if not self.exists(path):
            return None
        data = self._data[path]
        key = (path, self.dependencies[path] or "")
        if key in _parsed:
            _parsed.move_to_end(key)
            return _parsed[key]
        module = _parse(data)
        remember_parse(key, module)
        return module

    def _read(self, path: str) -> Optional[bytes]:
        if not is_inside(path, self.roots.project):
            return None
        if path in self.overlay:
            return self.overlay[path].encode("utf-8", "surrogatepass")
        return read_module_bytes(path)


def remember_parse(key: Tuple[str, str], module: Any) -> None:
    """Keep ``module`` (or None: not readable) as the parse of ``key`` (path, SHA-256)."""
    _parsed[key] = module
    while len(_parsed) > PARSE_CACHE_SIZE:
        _parsed.popitem(last=False)


def dependency_hash(path: str) -> Optional[str]:
    """What ``ProjectSources.dependencies`` records for ``path`` now (the cache compares)."""
    data = read_module_bytes(path)
    return content_hash(data) if data is not None else None


def read_module_bytes(path: str) -> Optional[bytes]:
    """The bytes of a regular file reached without a symlink, or None."""
    if os.path.realpath(path) != path:
        return None  # a symlink on the way, even to a file inside the project, is not followed
    try:
        info = os.lstat(path)
        if not stat.S_ISREG(info.st_mode) or info.st_size > 4 * MAX_MODULE_CHARS:
            return None  # a directory, a pipe, a device, or far too long to analyse
        # O_NOFOLLOW: a symlink swapped in since the check is not followed either.
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0))
        with os.fdopen(fd, "rb") as handle:
            if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode):
                return None
            return handle.read(4 * MAX_MODULE_CHARS + 1)
    except OSError:
        return None


def _parse(data: bytes) -> Any:
    """Decode like Python, screen, parse; None for anything that is not a readable module."""
    from ..cst_parse import parse_module
    from ..decoding import DecodeError, decode_source
    from ..screen import screen_for_parse

    try:
        text = decode_source(data)
    except DecodeError:
        return None
    if len(text) > MAX_MODULE_CHARS:
        return None
    try:
        rejected, python_accepts = screen_for_parse(text)
        if rejected is not None:
            return None  # what would make the parser hang or exhaust memory
        return parse_module(text, python_accepts)
    except Exception:  # noqa: BLE001 - a module we cannot read (RecursionError too) is unknown
        return None
