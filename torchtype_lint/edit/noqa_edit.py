"""``check --add-noqa``: a ``# noqa: CODE`` comment on each finding's line, so a re-run is clean.

The comment goes on the physical line the finding is reported at (the line noqa.py reads for
it), merged into a code-specific ``# noqa: ...`` already there, else appended after two spaces.
A line that ends inside a string (a triple-quoted string going on) or with a backslash
continuation cannot take a comment without changing the program: it is left alone and
counted as skipped. The edited file must still parse, else nothing is written. Encoding, BOM
and line endings are kept; the write goes through ``fix.write_if_unchanged`` (a temporary
file renamed over it, only if the file still has the bytes that were analysed).
"""
from __future__ import annotations

import ast
import io
import tokenize
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Dict, List, Sequence, Set

from ..model.findings import Finding
from ..source.lines import readline, source_lines
from ..source.noqa import parse_line

#: Tool findings (unreadable file, internal error) are not silenced by a comment.
NOT_SUPPRESSIBLE = ("TTL000", "TTL001")


@dataclass
class NoqaEdit:
    path: str
    #: Lines that got (or had merged into) a noqa comment.
    added: int = 0
    #: Findings whose line cannot take a comment (inside a string, after a backslash).
    skipped: int = 0
    error: str = ""
    lines: List[int] = field(default_factory=list)


def add_noqa(path: str, findings: Sequence[Finding]) -> NoqaEdit:
    """Add the comments for ``findings`` (all in ``path``) to the file. Never raises."""
    from .fix import write_if_unchanged

    edit = NoqaEdit(path)
    wanted: Dict[int, Set[str]] = defaultdict(set)
    for finding in findings:
        if finding.code not in NOT_SUPPRESSIBLE:
            wanted[finding.line].add(finding.code)
    if not wanted:
        return edit
    from ..source.reading import read_source  # the one reader of user files: capped, regular, inside the project

    try:
        data = read_source(path)
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
        text = data.decode(encoding)
    except (OSError, SyntaxError, UnicodeDecodeError, LookupError) as exc:
        edit.error = f"could not read: {getattr(exc, 'strerror', None) or exc}"
        return edit
    lines = source_lines(text, keepends=True)  # line N is the finding's line N (lines.py)
    blocked = _lines_that_cannot_take_a_comment(text)
    for number, codes in sorted(wanted.items()):
        if number in blocked or not 1 <= number <= len(lines):
            edit.skipped += len(codes)
            continue
        edited = _with_noqa(lines[number - 1], codes)
        if edited != lines[number - 1]:
            lines[number - 1] = edited
            edit.added += 1  # one directive a line, however many codes it names (as ruff counts)
            edit.lines.append(number)
    new_text = "".join(lines)
    if new_text == text:
        return edit
    try:
        ast.parse(new_text)
    except (SyntaxError, ValueError):
        edit.error, edit.added = "the file would no longer parse; left unchanged", 0
        return edit
    try:
        write_if_unchanged(path, data, new_text.encode(encoding))
    except OSError as exc:
        edit.error, edit.added = f"could not write: {exc.strerror or exc}", 0
    return edit


def _with_noqa(line: str, codes: Set[str]) -> str:
    body = line.rstrip("\r\n")
    ending = line[len(body):]
    comment = parse_line(body)
    if comment is not None and comment.codes is not None:
        # Merge into the comment there: its own text kept, our codes appended in order.
        present = body[comment.start:comment.end]
        missing = sorted(c for c in codes if not comment.suppresses(c))
        merged = present + (", " if present.rstrip().endswith(tuple("0123456789")) else " ") + ", ".join(missing)
        return body[:comment.start] + merged + body[comment.end:] + ending
    if comment is not None:
        return line  # a blanket noqa already covers every code
    return f"{body.rstrip()}  # noqa: {', '.join(sorted(codes))}{ending}"


def _lines_that_cannot_take_a_comment(text: str) -> Set[int]:
    """Lines whose end is inside a string token, or that end in a backslash continuation."""
    blocked: Set[int] = set()
    for number, line in enumerate(source_lines(text), start=1):
        if line.endswith("\\"):
            blocked.add(number)
    fstring_starts: List[int] = []  # Python 3.12+ tokenizes f-strings in parts
    try:
        for token in tokenize.generate_tokens(readline(text)):  # a \r file is not one line
            if token.type == tokenize.STRING:
                blocked.update(range(token.start[0], token.end[0]))  # its last line may take one
            elif token.type == getattr(tokenize, "FSTRING_START", -1):
                fstring_starts.append(token.start[0])
            elif token.type == getattr(tokenize, "FSTRING_END", -1) and fstring_starts:
                blocked.update(range(fstring_starts.pop(), token.end[0]))
    except (tokenize.TokenError, SyntaxError, IndentationError):
        pass
    return blocked
