"""Reading user input, bounded: every file the linter analyses, quotes or rewrites is read here,
and so is stdin.

* Only regular files: reading a named pipe or a device that happens to be called ``x.py``
  would block the run forever (opened with ``O_NONBLOCK``, then checked).
* Only inside the file's project: a symlink leading out of it is refused (``boundary.py``).
* At most ``MAX_READ_BYTES``: the screen refuses longer sources anyway, and a 50 MB file, or
  a 2 GB pipe on stdin, must not be read (and buffered) only to be refused.

Kept apart from ``runner.py`` so that ``check``, ``notebook`` and ``fix`` can read through it
without an import cycle; ``runner`` re-exports it.
"""
from __future__ import annotations

import errno
import os
import stat
from typing import BinaryIO

from .boundary import resolve_inside
from .screen import MAX_SOURCE_CHARS

#: Bytes read from one file or stdin at most: four bytes a character is UTF-8's widest.
MAX_READ_BYTES = 4 * MAX_SOURCE_CHARS


def read_source(path: str) -> bytes:
    """The file's bytes; ``OSError`` for anything else (``boundary.OutsideProject`` for a
    symlink leading out of the project, ``EINVAL`` for no regular file, ``EFBIG`` too large)."""
    with open(resolve_inside(path), "rb", opener=_open_nonblocking) as handle:
        info = os.fstat(handle.fileno())
        if not stat.S_ISREG(info.st_mode):
            raise OSError(errno.EINVAL, "not a regular file")
        if info.st_size > MAX_READ_BYTES:
            raise OSError(errno.EFBIG, f"file too large to analyse: {info.st_size:,} bytes "
                                       f"(torchtype-lint's limit is {MAX_READ_BYTES:,})")
        return handle.read(MAX_READ_BYTES + 1)


def read_stream(stream: BinaryIO) -> bytes:
    """At most ``MAX_READ_BYTES`` of a binary stream (stdin); beyond that ``OSError(EFBIG)``,
    the rest left unread."""
    data = stream.read(MAX_READ_BYTES + 1)  # one byte more tells "at the cap" from "beyond it"
    if len(data) > MAX_READ_BYTES:
        raise OSError(errno.EFBIG, f"input too large to analyse: more than {MAX_READ_BYTES:,} bytes "
                                   "(torchtype-lint's limit)")
    return data


def _open_nonblocking(path: str, flags: int) -> int:
    # O_NONBLOCK: opening a FIFO with no writer returns at once instead of waiting for one;
    # O_NOFOLLOW: the resolved path was checked, a link swapped in since is not followed.
    return os.open(path, flags | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOFOLLOW", 0))
