"""Lines of source text, numbered as Python's tokenizer numbers them.

``str.splitlines`` also ends a line at ``\\f``, ``\\v``, ``\\x1c``-``\\x1e``, ``\\x85``,
``\\u2028`` and ``\\u2029``; Python's tokenizer, ``ast``, libcst, flake8 and the LSP end one only at
``\\n``, ``\\r\\n`` and ``\\r``. A form feed (a page break in many files) then made every line
after it one off: ``# noqa`` read on the wrong line and ``--add-noqa`` writing inside a string.
Every split of source text goes through here, so line N is the line finding positions call N.
"""
from __future__ import annotations

import re
from typing import Callable, List

#: The line breaks of Python source (the order matters: ``\r\n`` is one break, not two).
LINE_BREAK = re.compile(r"\r\n|\r|\n")
#: One line with its break, or the last line without one (never an empty match).
_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+")


def source_lines(text: str, keepends: bool = False) -> List[str]:
    """``text.splitlines(keepends)``, with only ``\\n``, ``\\r\\n`` and ``\\r`` ending a line."""
    lines = _LINE.findall(text)
    # A line's own characters never include \r or \n, so this strips exactly its break.
    return lines if keepends else [line.rstrip("\r\n") for line in lines]


def line_breaks(text: str) -> int:
    """How many line breaks ``text`` holds (``\\r\\n`` counts once)."""
    return text.count("\n") + text.count("\r") - text.count("\r\n")


def readline(text: str) -> Callable[[], str]:
    """A ``readline`` over ``text`` for ``tokenize``, lines cut where the compiler cuts them
    (``io.StringIO(text).readline`` ends lines at ``\\n`` only: a ``\\r`` file is one line).
    A lone ``\\r`` is handed over as ``\\n`` (same length, so the same positions): the pure-Python
    tokenizer takes it for an error token, not for the end of a line."""
    lines = [line[:-1] + "\n" if line.endswith("\r") else line for line in source_lines(text, keepends=True)]
    return iter(lines + [""]).__next__
