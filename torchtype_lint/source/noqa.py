"""``# noqa`` comments: which lines suppress which codes. One reading for every front end.

The keyword is case-insensitive (``# NOQA``, ``#noqa``), the codes are not: ``# noqa: ttl101``
names no code flake8 or ruff would recognise, so, like them, it suppresses nothing (it is not a
blanket ``# noqa`` either). The CLI, the language server and the flake8 plugin all apply this
reading, so a comment never means one thing under flake8 and another in the CLI.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Dict, Optional, Sequence, Tuple

#: ``# noqa`` and, after a colon, what stands where the codes go (checked token by token).
NOQA = re.compile(r"#\s*(?i:noqa)(?::\s?(?P<codes>[A-Za-z]+[0-9]+(?:[,\s]+[A-Za-z]+[0-9]+)*))?")
#: A code as flake8 and ruff read it in a noqa comment: upper-case letters, then digits.
CODE = re.compile(r"[A-Z]+[0-9]+\Z")


@dataclass(frozen=True)
class NoqaComment:
    """One ``# noqa`` comment: ``codes`` is None for a blanket one."""

    codes: Optional[Tuple[str, ...]]
    #: Column span of the comment's ``# noqa...`` text on its line, for editing it.
    start: int
    end: int

    def suppresses(self, code: str) -> bool:
        return self.codes is None or any(code.startswith(c) for c in self.codes)


def parse_line(line: str) -> Optional[NoqaComment]:
    """The noqa comment on one physical line, if any."""
    if "noqa" not in line.lower():  # cheap: almost no line has one
        return None
    match = NOQA.search(line)
    if match is None:
        return None
    text = match.group("codes")
    if text is None:
        return NoqaComment(None, match.start(), match.end())
    # Lower-case tokens are kept out: a code-specific comment that names none of ours.
    codes = tuple(c for c in re.split(r"[,\s]+", text) if CODE.match(c))
    return NoqaComment(codes, match.start(), match.end())


def noqa_map(lines: Sequence[str]) -> Dict[int, NoqaComment]:
    """1-based line number -> its noqa comment."""
    out: Dict[int, NoqaComment] = {}
    for number, line in enumerate(lines, start=1):
        comment = parse_line(line)
        if comment is not None:
            out[number] = comment
    return out


def is_suppressed(code: str, line: int, comments: Dict[int, NoqaComment]) -> bool:
    comment = comments.get(line)
    return comment is not None and comment.suppresses(code)
