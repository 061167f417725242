"""Text for people: what a file name or quoted source holds can never forge a line of output.

Human-readable output (the ``concise`` and ``full`` formats, ``--show-files``, ``--show-fixes``,
warnings and errors on stderr, ``explain``) quotes text the analysed project controls: file
names and source. Printed raw, a name like ``"x\\n::warning file=README.md::INJECTED\\n.py"``
or a string literal holding a newline makes a GitHub Actions workflow command of our output, an
escape sequence rewrites the terminal, a bidi override reorders what is shown. So every such text
goes through ``printable`` (a path at the start of a line through ``printable_path``): C0 and C1
control characters, DEL, the Unicode line and paragraph separators and the bidi embedding,
override and isolate characters are written as Python escapes (``\\n``, ``\\x1b``, ``\\u2028``).
Machine formats (json, json-lines, sarif, github) keep their own escaping and are not passed here.
"""
from __future__ import annotations

import re

#: C0 (tab and newline included: a separator we did not write is forged), DEL, C1, U+2028/9,
#: and the bidi embeddings/overrides (U+202A-E) and isolates (U+2066-9).
_UNSAFE = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")
#: Short escapes where Python has them; the others as \xNN or \uNNNN.
_SHORT = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}
#: A line a CI runner reads as a command (blanks before it trimmed): GitHub Actions' ``::name``,
#: its older ``##[name]`` and Azure Pipelines' ``##vso[``.
_COMMAND_START = re.compile(r"\s*(?:::|##)")


def _escape(match: "re.Match[str]") -> str:
    char = match.group()
    if char in _SHORT:
        return _SHORT[char]
    return f"\\x{ord(char):02x}" if ord(char) < 0x100 else f"\\u{ord(char):04x}"


def printable(text: str) -> str:
    """``text`` with every control, line-separator and bidi-override character escaped."""
    return _UNSAFE.sub(_escape, text)


def printable_path(text: str) -> str:
    """``printable(text)`` for a file name that starts a line of output (the line itself may
    follow: ``path:4:1: ...``), with ``./`` put before a (relative) name that would start a CI
    command: the same file, and the runner sees a path."""
    text = printable(text)
    return f"./{text}" if _COMMAND_START.match(text) else text
