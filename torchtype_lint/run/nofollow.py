"""A directory opened without following a symbolic link, and every name in it reached the same way.

The findings cache lives in a directory a pull request may have planted links in (docs/security.md,
Promise 3). Every operation here acts on one name inside an open directory, through its
descriptor (``openat``, ``unlinkat``, ``renameat``...), so no link is followed, at that name or
above it, even one swapped in while the run goes on. Where the OS has no such calls (Windows),
each name is checked with ``lstat`` before use instead.
"""
from __future__ import annotations

import os
import stat
from typing import List, Optional, Tuple

_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_NONBLOCK = getattr(os, "O_NONBLOCK", 0)
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_DIRECTORY = getattr(os, "O_DIRECTORY", 0)
_BINARY = getattr(os, "O_BINARY", 0)  # Windows: no newline translation
#: Whether every operation can be made relative to a directory descriptor (POSIX).
AT_CALLS = (bool(_NOFOLLOW and _DIRECTORY) and os.scandir in os.supports_fd
            and {os.open, os.stat, os.unlink, os.rmdir, os.mkdir, os.rename, os.utime} <= os.supports_dir_fd
            and os.utime in os.supports_follow_symlinks)


class Directory:
    """An open directory. Close it (or use ``with``) when done: it may hold a descriptor."""

    def __init__(self, path: str, fd: Optional[int]):
        #: Where it was opened (for messages and the path fallback), not used to reach it.
        self.path = path
        #: The descriptor every name is reached through; None on a platform without ``*at`` calls.
        self.fd = fd

    @classmethod
    def open(cls, path: str) -> "Directory":
        """``path``, refused (OSError) when it is a symbolic link or not a directory."""
        if AT_CALLS:
            return cls(path, os.open(path, os.O_RDONLY | _DIRECTORY | _NOFOLLOW | _CLOEXEC))
        if not stat.S_ISDIR(os.lstat(path).st_mode):  # a link is not a directory to lstat
            raise NotADirectoryError(path)
        return cls(path, None)

    def child(self, name: str, create: bool = False) -> "Directory":
        """The directory ``name`` in this one (made first when ``create``); never a link."""
        if create:
            try:
                os.mkdir(self._at(name), 0o777, dir_fd=self.fd)
            except FileExistsError:
                pass  # made before, or by a concurrent run: opening it below checks what it is
        if self.fd is None:
            return Directory.open(self._at(name))
        fd = os.open(name, os.O_RDONLY | _DIRECTORY | _NOFOLLOW | _CLOEXEC, dir_fd=self.fd)
        return Directory(os.path.join(self.path, name), fd)

    def read(self, name: str, limit: int) -> Tuple[bytes, os.stat_result]:
        """The bytes of the regular file ``name`` and its status; OSError when it is a link, a
        pipe, a device or a directory, or longer than ``limit`` bytes. Never blocks."""
        if self.fd is None and not stat.S_ISREG(self.lstat(name).st_mode):
            raise OSError(f"not a regular file: {name}")  # no O_NOFOLLOW here: check first
        # O_NONBLOCK: opening a FIFO with no writer returns at once instead of waiting forever.
        fd = os.open(self._at(name), os.O_RDONLY | _NOFOLLOW | _NONBLOCK | _CLOEXEC | _BINARY, dir_fd=self.fd)
        try:
            info = os.fstat(fd)
            if not stat.S_ISREG(info.st_mode) or info.st_size > limit:
                raise OSError(f"not a regular file of at most {limit} bytes: {name}")
            chunks: List[bytes] = []
            size = 0
            while size <= limit:  # at most limit + 1 bytes, even if the file grows meanwhile
                chunk = os.read(fd, min(limit + 1 - size, 1 << 20))
                if not chunk:
                    break
                chunks.append(chunk)
                size += len(chunk)
            if size > limit:
                raise OSError(f"longer than {limit} bytes: {name}")
            return b"".join(chunks), info
        finally:
            os.close(fd)

    def create(self, name: str, mode: int = 0o600) -> int:
        """A descriptor for writing the new file ``name``; FileExistsError when anything (a
        link too) is there already."""
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW | _CLOEXEC | _BINARY
        return os.open(self._at(name), flags, mode, dir_fd=self.fd)

    def touch(self, name: str) -> None:
        """Set ``name``'s times to now, made empty if absent; OSError when it is a link or a pipe."""
        if self.fd is None and os.path.lexists(self._at(name)) and not stat.S_ISREG(self.lstat(name).st_mode):
            raise OSError(f"not a regular file: {name}")
        # O_NONBLOCK: a FIFO planted under this name fails (ENXIO) instead of blocking.
        fd = os.open(self._at(name), os.O_WRONLY | os.O_CREAT | _NOFOLLOW | _NONBLOCK | _CLOEXEC, 0o600,
                     dir_fd=self.fd)
        try:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                raise OSError(f"not a regular file: {name}")
        finally:
            os.close(fd)
        self.refresh(name)

    def refresh(self, name: str) -> None:
        """Set the time of ``name`` (never of what a link names) to now."""
        if self.fd is None:
            if not stat.S_ISREG(self.lstat(name).st_mode):
                raise OSError(f"not a regular file: {name}")
            os.utime(self._at(name))
        else:
            os.utime(name, dir_fd=self.fd, follow_symlinks=False)

    def lstat(self, name: str) -> os.stat_result:
        return os.stat(self._at(name), dir_fd=self.fd, follow_symlinks=False)

    def replace(self, source: str, target: str) -> None:
        """Rename ``source`` over ``target`` in this directory (a link at ``target`` is replaced,
        its target untouched)."""
        if self.fd is None:
            os.replace(self._at(source), self._at(target))
        else:
            os.replace(source, target, src_dir_fd=self.fd, dst_dir_fd=self.fd)

    def unlink(self, name: str) -> None:
        os.unlink(self._at(name), dir_fd=self.fd)

    def rmdir(self, name: str) -> None:
        os.rmdir(self._at(name), dir_fd=self.fd)

    def entries(self) -> List[Tuple[str, os.stat_result]]:
        """Every name here with its own status (a link's, not its target's); [] when unreadable."""
        try:
            if self.fd is None:
                with os.scandir(self.path) as listing:
                    return [(e.name, e.stat(follow_symlinks=False)) for e in listing]
            # A descriptor of its own: a listing moves its descriptor's offset, and a forked
            # worker shares this one's.
            fd = os.open(".", os.O_RDONLY | _DIRECTORY | _CLOEXEC, dir_fd=self.fd)
            try:
                with os.scandir(fd) as listing:
                    return [(e.name, e.stat(follow_symlinks=False)) for e in listing]
            finally:
                os.close(fd)
        except OSError:
            return []

    def close(self) -> None:
        if self.fd is not None and self.fd >= 0:
            os.close(self.fd)
            self.fd = -1  # not None: a closed directory must fail (EBADF), not fall back to paths

    def __enter__(self) -> "Directory":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _at(self, name: str) -> str:
        # With a descriptor, names are relative to it; without, joined to the checked path.
        return name if self.fd is not None else os.path.join(self.path, name)
