"""A function whose body statements are parsed alone and cached, like the file's own pieces.

The entry function (``entry.py``) is often most of a script. Parsed as one piece, an edit inside
it gives every statement of its body a new node, so none of their reports could be kept. Here
its text is cut into the ``def`` line(s) and each statement of its body, each dedented and parsed
alone (cached by its text), and the function is put back together from them: an unchanged body
statement stays the same node, and only the edited ones count as changed (``session.py``).

Positions come from the parts: a body statement's, shifted down to its line and right by the
indentation that was taken off. A body whose lines do not all start with its indentation (a
string spanning lines at column 0, a comment further left) is not cut.
"""
from __future__ import annotations

import tokenize
from dataclasses import dataclass
from typing import Any, Dict, Iterator, Mapping, Optional, Tuple

import libcst as cst
from libcst.metadata import CodePosition, CodeRange

from ...source.lines import readline, source_lines
from .chunks import ParsedChunk, parse_piece, starts_of_statements


@dataclass(eq=False)
class SplitFunction(ParsedChunk):
    """The piece of a ``def``, rebuilt from its header and its body's pieces."""

    header: Optional[ParsedChunk] = None
    body_pieces: Tuple[ParsedChunk, ...] = ()
    #: (line shift, column shift) of each body piece inside this piece's text.
    shifts: Tuple[Tuple[int, int], ...] = ()

    def positions(self) -> Mapping[Any, CodeRange]:
        if self._positions is None:
            self._positions = _Positions(self)
        return self._positions


def split_function(piece: ParsedChunk) -> Optional[SplitFunction]:
    """``piece`` (one plain ``def`` with an indented body) rebuilt from separately parsed parts,
    cached with the piece; None when its text cannot be cut."""
    if "split" not in piece.derived:
        piece.derived["split"] = _split(piece) or False
    return piece.derived["split"] or None


def _split(piece: ParsedChunk) -> Optional[SplitFunction]:
    function = piece.statements[0]
    if not isinstance(function, cst.FunctionDef) or not isinstance(function.body, cst.IndentedBlock):
        return None
    indent = function.body.indent if function.body.indent is not None else piece.module.default_indent
    lines = source_lines(piece.text, keepends=True)  # the lines the whole parse numbers
    header_lines = _header_line_count(piece.text)
    if header_lines is None or header_lines >= len(lines):
        return None
    body = lines[header_lines:]
    if any(line.strip() and not line.startswith(indent) for line in body):
        return None  # a line left of the body's indentation: not cut (see the module doc)
    dedented = [line[len(indent):] if line.strip() else line.lstrip(" \t") for line in body]
    header = parse_piece("".join(lines[:header_lines]) + indent + "pass\n", ("header", 0))
    if header is None or not isinstance(header.statements[0], cst.FunctionDef):
        return None
    parts, shifts = [], []
    seen: Dict[str, int] = {}
    starts = starts_of_statements(dedented)
    for number, start in enumerate(starts):
        end = starts[number + 1] if number + 1 < len(starts) else len(dedented)
        text = "".join(dedented[start:end])
        occurrence = seen[text] = seen.get(text, -1) + 1
        part = parse_piece(text, ("body", occurrence))
        if part is None:
            return None
        parts.append(part)
        shifts.append((header_lines + start, len(indent)))
    statements = [statement for part in parts for statement in part.statements]
    if not statements:
        return None
    head = header.statements[0]
    rebuilt = head.with_changes(body=head.body.with_changes(body=statements))
    module = cst.Module(body=[rebuilt], default_indent=piece.module.default_indent,
                        default_newline=piece.module.default_newline)
    return SplitFunction(piece.text, module, header=header, body_pieces=tuple(parts), shifts=tuple(shifts))


def _header_line_count(text: str) -> Optional[int]:
    """Lines of the ``def ...:`` line(s): up to the end of its logical line."""
    try:
        for token in tokenize.generate_tokens(readline(text)):  # lines as lines.py cuts them
            if token.type == tokenize.NEWLINE:
                return token.end[0]
    except (tokenize.TokenError, SyntaxError, IndentationError):
        return None
    return None


class _Positions(Mapping):
    """Node -> range in the piece, from the header's parse and each body piece's, shifted."""

    def __init__(self, split: SplitFunction):
        self._split = split
        header = split.header.positions()  # type: ignore[union-attr]
        self._header = header
        head = split.header.statements[0]  # type: ignore[union-attr]
        self._rebuilt = split.module.body[0]
        last_piece = len(split.body_pieces) - 1
        last_end = self._shifted(last_piece, split.body_pieces[last_piece].positions()[
            split.body_pieces[last_piece].statements[-1]]).end
        # The rebuilt function and block are new nodes: they span the header's start to the end
        # of the last body statement.
        self._own = {self._rebuilt: CodeRange(header[head].start, last_end),
                     self._rebuilt.body: CodeRange(header[head.body].start, last_end)}

    def _shifted(self, index: int, local: CodeRange) -> CodeRange:
        lines, columns = self._split.shifts[index]
        return CodeRange(CodePosition(local.start.line + lines, local.start.column + columns),
                         CodePosition(local.end.line + lines, local.end.column + columns))

    def _find(self, node: Any) -> Optional[CodeRange]:
        if node in self._own:
            return self._own[node]
        if node in self._header:
            return self._header[node]
        for index, part in enumerate(self._split.body_pieces):
            positions = part.positions()
            if node in positions:
                return self._shifted(index, positions[node])
        return None

    def __getitem__(self, node: Any) -> CodeRange:
        found = self._find(node)
        if found is None:
            raise KeyError(node)
        return found

    def __contains__(self, node: Any) -> bool:
        return self._find(node) is not None

    def __iter__(self) -> Iterator[Any]:
        yield from self._own
        yield from self._header
        for part in self._split.body_pieces:
            yield from part.positions()

    def __len__(self) -> int:
        return len(self._own) + len(self._header) + sum(len(p.positions()) for p in self._split.body_pieces)
