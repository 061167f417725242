"""The file's entry function: ``def main(): ...`` called once from module level.

Scripts often do all their work in ``main()``, called from ``if __name__ == "__main__":``. Then
every top-level statement is a definition but the one call, and an edit anywhere changes what
that call does: re-running whole statements would re-analyse the whole script. So the body of
such a function is split into units of its own (``engine/units.py``, ``Unit.sub``), planned like
top-level statements (``plan.py``).

Only a plain function qualifies: defined once at module level, no decorators, no parameter
defaults (a default is evaluated where the ``def`` runs), a body of statements, its name read by
exactly one other top-level statement, which is just the call (``main()`` or
``main(parse_args())``) or ``if __name__ == "__main__":`` around it.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Dict, List, Optional, Sequence

import libcst as cst

from .chunks import ParsedChunk
from .function_body import SplitFunction, split_function
from .names import StatementNames, statement_names


@dataclass(frozen=True)
class Entry:
    #: Piece defining the function, piece calling it.
    definition: int
    call: int
    function: cst.FunctionDef
    #: The names of each statement of its body.
    body_names: Sequence[StatementNames]
    #: The piece that defines it as the analysis uses it: rebuilt from its parts
    #: (function_body.py), or the piece as parsed when it cannot be cut.
    piece: ParsedChunk


def find_entry(pieces: Sequence[ParsedChunk], names: Sequence[StatementNames]) -> Optional[Entry]:
    binders: Dict[str, List[int]] = {}
    readers_of: Dict[str, List[int]] = {}
    for index, piece_names in enumerate(names):
        for name in piece_names.binds:
            binders.setdefault(name, []).append(index)
        for name in piece_names.reads:
            readers_of.setdefault(name, []).append(index)
    for index, piece in enumerate(pieces):
        function = _plain_function(piece)
        if function is None:
            continue
        name = function.name.value
        if binders.get(name) != [index]:
            continue  # bound again elsewhere
        readers = [other for other in readers_of.get(name, ()) if other != index]
        if len(readers) != 1 or readers[0] < index or not _is_call_of(pieces[readers[0]], name):
            continue
        rebuilt = split_function(piece)
        if rebuilt is not None:
            piece, function = rebuilt, rebuilt.statements[0]
        body = _body_names(piece, function)
        if body is None or any(name in n.reads or name in n.binds for n in body):
            continue  # recursive, or it rebinds its own name
        return Entry(index, readers[0], function, body, piece)
    return None


def _plain_function(piece: ParsedChunk) -> Optional[cst.FunctionDef]:
    if len(piece.statements) != 1 or not isinstance(piece.statements[0], cst.FunctionDef):
        return None
    function = piece.statements[0]
    params = function.params
    if function.decorators or function.asynchronous is not None or not isinstance(function.body, cst.IndentedBlock):
        return None
    if any(p.default is not None for p in (*params.posonly_params, *params.params, *params.kwonly_params)):
        return None
    return function


def _is_call_of(piece: ParsedChunk, name: str) -> bool:
    if len(piece.statements) != 1:
        return False
    statement = piece.statements[0]
    if isinstance(statement, cst.If) and statement.orelse is None and isinstance(statement.body, cst.IndentedBlock) \
            and _is_main_guard(statement.test) and len(statement.body.body) == 1:
        statement = statement.body.body[0]
    if not isinstance(statement, cst.SimpleStatementLine) or len(statement.body) != 1:
        return False
    expr = statement.body[0]
    return isinstance(expr, cst.Expr) and isinstance(expr.value, cst.Call) \
        and isinstance(expr.value.func, cst.Name) and expr.value.func.value == name


def _is_main_guard(test: cst.BaseExpression) -> bool:
    return isinstance(test, cst.Comparison) and isinstance(test.left, cst.Name) and test.left.value == "__name__" \
        and len(test.comparisons) == 1 and isinstance(test.comparisons[0].operator, cst.Equal) \
        and isinstance(test.comparisons[0].comparator, cst.SimpleString) \
        and test.comparisons[0].comparator.value[1:-1] == "__main__"


def _body_names(piece: ParsedChunk, function: cst.FunctionDef) -> Optional[List[StatementNames]]:
    if isinstance(piece, SplitFunction):
        found = []
        for part in piece.body_pieces:  # each body statement's names, kept with its own piece
            if len(part.statements) != 1:
                return None  # two statements in one part: a body unit is one statement
            if "names" not in part.derived:
                part.derived["names"] = statement_names(part.text, part.statements)
            names = part.derived["names"]
            if names is None or names.dynamic:
                return None
            found.append(names)
        return found
    cached = piece.derived.get("entry_body_names")
    if cached is None:
        found: List[StatementNames] = []
        for statement in function.body.body:  # type: ignore[union-attr]
            names = statement_names(piece.module.code_for_node(statement), [statement])
            if names is None or names.dynamic:
                found = []
                break
            found.append(names)
        cached = piece.derived["entry_body_names"] = found or False
    return cached or None
