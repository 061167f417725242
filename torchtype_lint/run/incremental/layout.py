"""The units the planner sees: each top-level piece, except that the call of the file's entry
function (``entry.py``) becomes its parts: the call itself, then each statement of the body."""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Dict, FrozenSet, List, Optional, Sequence, Tuple

from ...engine.units import BEFORE_BODY
from .chunks import ParsedChunk
from .entry import Entry
from .names import StatementNames
from .plan import PieceFacts, piece_facts

#: ``Layout.units`` sub of a piece that is one unit.
WHOLE = -2


@dataclass(frozen=True)
class Layout:
    #: (piece, WHOLE | BEFORE_BODY | body statement number) of each unit, in the order they run.
    units: Tuple[Tuple[int, int], ...]
    facts: Tuple[PieceFacts, ...]
    #: Piece -> its units.
    of_piece: Tuple[Tuple[int, ...], ...]
    entry: Optional[Entry]

    def companions(self) -> Dict[int, FrozenSet[int]]:
        """Unit -> the units that must run with it: a body statement runs inside the call of the
        entry function, which needs the function defined."""
        if self.entry is None:
            return {}
        call, definition = self.of_piece[self.entry.call], self.of_piece[self.entry.definition]
        with_it = frozenset({call[0], *definition})
        return {unit: with_it for unit in call[1:]}


def layout(pieces: Sequence[ParsedChunk], names: Sequence[StatementNames], entry: Optional[Entry]) -> Layout:
    units: List[Tuple[int, int]] = []
    unit_names: List[StatementNames] = []
    statements: List[Sequence[object]] = []
    of_piece: List[Tuple[int, ...]] = []
    for index, piece in enumerate(pieces):
        start = len(units)
        if entry is not None and index == entry.call:
            called = entry.function.name.value
            # The call itself: what the function reads is read by the body's statements, not here.
            units.append((index, BEFORE_BODY))
            unit_names.append(replace(names[index], reads=names[index].reads - {called}))
            statements.append(piece.statements)
            for number, (statement, body_names) in enumerate(zip(entry.function.body.body, entry.body_names)):
                units.append((index, number))
                unit_names.append(body_names)
                statements.append([statement])
        else:
            units.append((index, WHOLE))
            unit_names.append(names[index])
            statements.append(piece.statements)
        of_piece.append(tuple(range(start, len(units))))
    facts = piece_facts(unit_names, statements)
    if entry is not None:
        # Its analysis on its own runs inside the call (no argument is known there), so it is
        # the body's units; the definition's own standalone unit has nothing to do.
        definition = of_piece[entry.definition][0]
        facts[definition] = replace(facts[definition], standalone_reads=frozenset(), standalone_writes=frozenset())
    return Layout(tuple(units), tuple(facts), tuple(of_piece), entry)
