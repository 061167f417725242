"""Which units of a file's analysis an edit can change, and which must run to recompute them.

The analysis runs the file's top-level statements in order, then (as "standalone" units) the
functions each statement defined. A statement's analysis depends only on the values of the
module-level names it reads when it runs, directly or in the functions it calls, and on the
global switches (``engine/units.py: GlobalState``, checked separately). So, with names as the
only channel between statements (``names.py``):

- a statement is **affected** when it changed, or reads (transitively through the functions it
  calls) a name that an affected statement before it may have written; a statement *may
  write* every program name it reads, not only those it binds (``model.double()``,
  ``items.append(x)`` change objects in place), except names of library modules;
- a standalone unit is affected when its statement is, or it reads a name any affected unit
  may write (it runs after all statements);
- to re-run the affected units, the units they depend on must run too (their values are not
  kept between analyses): the backward closure over the same relation.

Every other unit would run exactly as before: its reports are reused. This is conservative
by construction (names read are over-approximated, writes are every name read), which the
differential test (tests/test_incremental.py) checks against full analyses of real files.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Dict, FrozenSet, List, Mapping, Optional, Sequence, Set

import libcst as cst

from .names import StatementNames


@dataclass(frozen=True)
class PieceFacts:
    """What the planner needs to know about one top-level piece of the file."""

    names: StatementNames
    #: Module-level names the piece reads when it runs, with those the functions it calls read.
    reads_when_run: FrozenSet[str]
    #: Names whose objects running the piece may change or bind.
    writes: FrozenSet[str]
    #: What its standalone units read and may change (weakly).
    standalone_reads: FrozenSet[str]
    standalone_writes: FrozenSet[str]


def piece_facts(names: Sequence[StatementNames], statements: Sequence[Sequence[cst.CSTNode]]) -> List[PieceFacts]:
    """The facts of every piece of one version of the file (they depend on the whole file:
    which names are the program's, which a call may reach)."""
    program = set().union(*(n.binds for n in names)) if names else set()
    library = set().union(*(n.library for n in names)) if names else set()
    # A name also bound by the program's own code (not an import of a library) is a value.
    library -= set().union(*((n.binds - n.library) for n in names)) if names else set()
    binders: Dict[str, List[int]] = {}
    for index, piece in enumerate(names):
        for name in piece.binds:
            binders.setdefault(name, []).append(index)
    closure_of_name: Dict[str, FrozenSet[str]] = {}

    def closure(name: str) -> FrozenSet[str]:
        # The names read when code reading ``name`` runs: a name bound by a piece may hold a
        # function or class from it (or an object whose methods are), so that piece's reads.
        known = closure_of_name.get(name)
        if known is not None:
            return known
        seen: Set[str] = set()
        todo = [name]
        while todo:
            current = todo.pop()
            if current in seen:
                continue
            seen.add(current)
            done = closure_of_name.get(current)
            if done is not None:
                seen |= done
                continue
            for binder in binders.get(current, ()):
                todo.extend(n for n in names[binder].reads if n in program and n not in seen)
        result = closure_of_name[name] = frozenset(seen)
        return result

    def reached(start: FrozenSet[str]) -> FrozenSet[str]:
        out: Set[str] = set()
        for name in start:
            if name in program:
                out |= closure(name)
        return frozenset(out)

    facts = []
    for index, piece in enumerate(names):
        # Every name read counts for being affected (one a removed statement bound is in no
        # piece's binds any more); only program names lead on to the code that binds them.
        direct = piece.reads
        when_run = reached(direct)
        is_definition = all(isinstance(s, (cst.FunctionDef, cst.ClassDef)) and not getattr(s, "decorators", ())
                            for s in statements[index])
        # Defining a function runs none of its code: it binds the name. Anything else runs code
        # that may change every object it reaches.
        changed = piece.binds if is_definition else piece.binds | (when_run - library)
        standalone_reads = reached(direct | piece.binds)
        facts.append(PieceFacts(piece, when_run | direct, frozenset(changed), standalone_reads | piece.binds,
                                frozenset(standalone_reads - library)))
    return facts


@dataclass(frozen=True)
class Plan:
    """Units (indices into the facts) that run, and whose standalone analyses run: their reports
    come from this run, those of all other units from the previous one."""

    run: FrozenSet[int]
    standalone: FrozenSet[int]


def plan(facts: Sequence[PieceFacts], start: int, changed: FrozenSet[int], removed_writes: FrozenSet[str],
         companions: Optional[Mapping[int, FrozenSet[int]]] = None) -> Plan:
    """``start``: the first unit at or after the edit (where removed units were); ``changed``:
    the units (indices into ``facts``) that differ from the previous version; ``removed_writes``:
    what the units they replaced could write; ``companions``: unit -> the units that must run
    whenever it runs (layout.py)."""
    companions = companions or {}
    count = len(facts)
    start = min([start, *changed])
    affected: Set[int] = set()
    written: Set[str] = set(removed_writes)
    for index in range(start, count):
        if index in changed or facts[index].reads_when_run & written:
            affected.add(index)
            written |= facts[index].writes
    # Standalone units run after every statement: any affected statement's writes reach them.
    affected_standalone: Set[int] = set()
    for index in range(count):
        if index in affected or facts[index].standalone_reads & written:
            affected_standalone.add(index)
            written |= facts[index].standalone_writes
    run, standalone = set(affected), set(affected_standalone)
    todo = [(index, False) for index in affected] + [(index, True) for index in affected_standalone]
    while todo:
        index, is_standalone = todo.pop()
        if is_standalone:
            needs, before = facts[index].standalone_reads, range(count)  # it runs after all statements
            if index not in run:
                run.add(index)  # its functions are defined by running the statement
                todo.append((index, False))
            for other in range(index):
                if other not in standalone and facts[other].standalone_writes & needs:
                    standalone.add(other)
                    todo.append((other, True))
        else:
            needs, before = facts[index].reads_when_run, range(index)
            for other in companions.get(index, ()):
                if other not in run:
                    run.add(other)
                    todo.append((other, False))
        for other in before:
            if other not in run and facts[other].writes & needs:
                run.add(other)
                todo.append((other, False))
    return Plan(frozenset(run), frozenset(standalone))
