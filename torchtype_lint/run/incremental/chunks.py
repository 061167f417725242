"""A file as a list of top-level statements, each parsed on its own and cached by its text.

An edit in an editor changes one statement or a few; re-parsing the whole file costs more than
the language server's latency budget (libcst reads about 6,000 lines a second). So the text is
cut where a top-level statement starts, each piece is parsed alone and cached by its text, and
the statements are put back together into one ``cst.Module``: an unchanged statement is the
very same node object as in the previous analysis, which is what lets that analysis's reports
be reused (``incremental/session.py``).

The cut is a cheap line scan, and it is only a guess: a piece that does not parse alone (a
line inside a triple-quoted string that looks like a statement, a continuation) makes the
whole split fail, and the caller parses the file as a whole instead. A piece that does parse
alone ends outside any bracket, string or continuation, so it is exactly the statement the
whole file's parse would give.
"""
from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any, Dict, Iterator, List, Mapping, Optional, Sequence, Tuple

import libcst as cst
from libcst.metadata import CodePosition, CodeRange, MetadataWrapper, PositionProvider

from ...source.lines import source_lines
from ...source.cst_parse import parse_module
from ...source.screen import screen_for_parse

#: Parsed statements kept across analyses (a 5,000-line file has about 500).
CACHE_SIZE = 4096
#: Keywords that continue the statement above them (they never start one).
_CONTINUATIONS = ("else", "elif", "except", "finally")


@dataclass(eq=False)
class ParsedChunk:
    """One piece of the file parsed alone: its module (for positions) and its statements."""

    text: str
    module: cst.Module
    #: node -> its range inside this piece (line 1 = the piece's first line), on first need.
    _positions: Optional[Mapping[Any, CodeRange]] = field(default=None, repr=False)
    #: Facts derived from the text alone (its names: incremental/names.py), kept with it.
    derived: Dict[str, Any] = field(default_factory=dict, repr=False)

    @property
    def statements(self) -> Sequence[Any]:
        return self.module.body

    def positions(self) -> Mapping[Any, CodeRange]:
        if self._positions is None:
            self._positions = MetadataWrapper(self.module, unsafe_skip_copy=True).resolve(PositionProvider)
        return self._positions


#: (text, how many pieces above it in its file have the same text) -> the piece parsed alone:
#: two equal statements of one file must still be two distinct nodes.
_cache: "OrderedDict[Tuple[str, Any], Optional[ParsedChunk]]" = OrderedDict()


def split_lines_at_statements(source: str) -> List[Tuple[int, str]]:
    """(first line, text) of each piece that starts with a top-level statement; the first
    piece also holds the comments and blank lines above the first statement."""
    # Cut where the whole parse's lines are cut: a form feed in a comment starts no statement.
    lines = source_lines(source, keepends=True)
    starts = starts_of_statements(lines)
    pieces = []
    for index, start in enumerate(starts):
        end = starts[index + 1] if index + 1 < len(starts) else len(lines)
        if start < end:
            pieces.append((start + 1, "".join(lines[start:end])))
    return pieces


def starts_of_statements(lines: Sequence[str]) -> List[int]:
    """Indices of the lines where a statement at column 0 starts (0 always: comments above the
    first statement belong to it)."""
    starts = [0]
    in_decorator = started = False
    open_string: Optional[str] = None
    for number, line in enumerate(lines):
        inside, open_string = open_string is not None, _open_string_after(line, open_string)
        if inside:
            continue  # a line of a triple-quoted string (a docstring's column-0 lines)
        if not line or line[0] in " \t\r\n\f#)]}":
            continue  # indented, blank, a comment, or a closing bracket: inside a statement
        word = line.split(None, 1)[0].rstrip(":")
        if word in _CONTINUATIONS:
            continue
        if started and not in_decorator:
            starts.append(number)
        started = True  # the comments above the first statement belong to its piece
        # A decorator and its function are one statement: no cut until the def or class.
        in_decorator = line.startswith("@") or (in_decorator and not line.startswith(("def ", "async ", "class ")))
    return starts


def _open_string_after(line: str, open_string: Optional[str]) -> Optional[str]:
    """The triple quote still open at the end of ``line`` (None: none), given the one open at
    its start. A guess is safe either way: a cut inside a string makes a piece that does not
    parse (the file is then parsed whole), a cut missed makes a piece of two statements."""
    if open_string is None and '"' not in line and "'" not in line:
        return None  # the common line: no quote at all
    at, end = 0, len(line)
    while at < end:
        if open_string is not None:
            close = line.find(open_string, at)
            if close < 0:
                return open_string
            at, open_string = close + 3, None
            continue
        char = line[at]
        if char == "#":
            return None
        if char in "\"'":
            if line.startswith(char * 3, at):
                open_string, at = char * 3, at + 3
                continue
            at += 1
            while at < end and line[at] != char:  # a one-line string: skip to its end
                at += 2 if line[at] == "\\" else 1
        at += 1
    return open_string


def parse_piece(text: str, occurrence: Any = 0) -> Optional[ParsedChunk]:
    """The piece parsed alone (cached by its text and ``occurrence``), or None when it does not
    parse by itself or the screen refuses it."""
    key = (text, occurrence)
    if key in _cache:
        _cache.move_to_end(key)
        return _cache[key]
    parsed: Optional[ParsedChunk] = None
    rejected, python_accepts = screen_for_parse(text)
    if rejected is None:
        try:
            # Unvalidated when CPython accepted the piece, as a whole file's parse (a third faster).
            module = parse_module(text, python_accepts)
        except Exception:  # noqa: BLE001 - not a statement by itself: the caller parses the file whole
            module = None
        if module is not None and module.body:
            parsed = ParsedChunk(text, module)
    _cache[key] = parsed
    while len(_cache) > CACHE_SIZE:
        _cache.popitem(last=False)
    return parsed


@dataclass(frozen=True)
class SplitModule:
    """The file as pieces and the module made of their statements."""

    pieces: Tuple[ParsedChunk, ...]
    #: First line (1-based, in the file) of each piece.
    first_lines: Tuple[int, ...]
    module: cst.Module

    def statement_pieces(self) -> List[int]:
        """For each top-level statement of ``module``, the index of its piece."""
        return [index for index, piece in enumerate(self.pieces) for _ in piece.statements]

    def positions(self) -> "PiecePositions":
        return PiecePositions(self)


def split_module(source: str) -> Optional[SplitModule]:
    """``source`` as separately parsed pieces, or None when it cannot be cut (the caller
    parses it whole)."""
    pieces, first_lines = [], []
    seen: Dict[str, int] = {}
    for first_line, text in split_lines_at_statements(source):
        occurrence = seen[text] = seen.get(text, -1) + 1
        parsed = parse_piece(text, occurrence)
        if parsed is None:
            return None
        pieces.append(parsed)
        first_lines.append(first_line)
    if not pieces:
        return None
    return assemble(pieces, first_lines)


def assemble(pieces: Sequence[ParsedChunk], first_lines: Sequence[int]) -> SplitModule:
    """The module made of the pieces' statements."""
    head = pieces[0].module
    body = [statement for piece in pieces for statement in piece.statements]
    # The pieces' own headers and footers are comments and blank lines: the analysis never
    # reads them, and positions come from each piece (PiecePositions), not from this module.
    module = cst.Module(body=body, header=head.header, encoding=head.encoding,
                        default_indent=_indent(pieces), default_newline=head.default_newline,
                        has_trailing_newline=pieces[-1].module.has_trailing_newline)
    return SplitModule(tuple(pieces), tuple(first_lines), module)


def _indent(pieces: Sequence[ParsedChunk]) -> str:
    # libcst guesses the indentation from a module's first indented block; so do we, per piece.
    for piece in pieces:
        if any(isinstance(s, cst.BaseCompoundStatement) for s in piece.statements):
            return piece.module.default_indent
    return pieces[0].module.default_indent


class PiecePositions(Mapping):
    """node -> its range in the file, from the piece that holds it (pieces resolve their
    positions once, then keep them while their text is unchanged: only an edited piece costs)."""

    def __init__(self, split: SplitModule):
        self._split = split
        self._owner: Dict[int, int] = {}  # id(node) -> piece index, filled as pieces are searched
        self._searched = 0

    def _piece_of(self, node: Any) -> Optional[int]:
        found = self._owner.get(id(node))
        if found is not None:
            return found
        pieces = self._split.pieces
        for index in range(len(pieces)):
            if node in pieces[index].positions():
                self._owner[id(node)] = index
                return index
        return None

    def __getitem__(self, node: Any) -> CodeRange:
        index = self._piece_of(node)
        if index is None:
            raise KeyError(node)
        local = self._split.pieces[index].positions()[node]
        shift = self._split.first_lines[index] - 1
        return CodeRange(CodePosition(local.start.line + shift, local.start.column),
                         CodePosition(local.end.line + shift, local.end.column))

    def __contains__(self, node: Any) -> bool:
        return self._piece_of(node) is not None

    def __iter__(self) -> Iterator[Any]:
        for piece in self._split.pieces:
            yield from piece.positions()

    def __len__(self) -> int:
        return sum(len(piece.positions()) for piece in self._split.pieces)
