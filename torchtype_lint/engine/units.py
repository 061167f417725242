"""The units an analysis is made of, so that a re-analysis can run only some of them.

A file's analysis is a sequence of units: each top-level statement in order, then the
standalone analysis of the functions each statement defined, then the end of the file. Every
report is made while exactly one unit runs (``Interpreter.unit``). The language server's
incremental re-analysis (``torchtype_lint/run/incremental``) runs the units an edit can change,
with the global state each had before (``GlobalState``), and keeps the other units' reports.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import FrozenSet, Mapping, Optional

#: Unit kinds, in the order they run.
STATEMENT, STANDALONE, END = 0, 1, 2


#: ``Unit.sub`` of the parts of a statement around the body of its entry function (below):
#: evaluating the call before the body runs, and after it returned.
BEFORE_BODY, AFTER_BODY = -1, 1 << 30


@dataclass(frozen=True, order=True)
class Unit:
    kind: int
    #: The top-level statement (for STANDALONE: the one that defined the functions).
    index: int
    #: For the statement that calls the file's *entry function* (``main()``, called once from
    #: module level): the statement of its body that runs (BEFORE_BODY / AFTER_BODY around it).
    #: A script whose work all happens in ``main()`` is then re-analysed by the statements of
    #: ``main``'s body an edit can change, as a module-level script is by its own statements.
    sub: int = BEFORE_BODY


@dataclass(frozen=True)
class GlobalState:
    """What a statement can change for every later one, outside the values of names."""

    default_float: str
    uncertain_defaults: Optional[FrozenSet[str]]
    default_device_unknown: bool
    moves_to_cuda: bool
    training_unknown: bool = False


@dataclass(frozen=True)
class UnitSelection:
    """The units a partial run executes, and the global state each starts from."""

    statements: FrozenSet[int]
    #: Top-level statements whose functions get their standalone analysis.
    standalone: FrozenSet[int]
    states_before: Mapping[int, GlobalState]
    #: The state after the last statement (standalone analyses start from it).
    final_state: GlobalState
    #: Statements of the entry function's body to run (None: all of them), and the state each
    #: starts from.
    entry_statements: Optional[FrozenSet[int]] = None
    entry_states: Mapping[int, GlobalState] = field(default_factory=dict)
