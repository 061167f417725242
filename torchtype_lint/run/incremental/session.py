"""Re-analysing a document after an edit: only the units the edit can change.

``IncrementalChecker.check`` gives the findings ``check.check_source`` would give for the same
text (the differential test, tests/test_incremental.py, holds it to that), but after the first
analysis of a document it re-parses only the edited top-level statements (``chunks.py``) and
re-runs only the units of the analysis the edit can change (``plan.py``); the reports of the
other units, and their nodes, are reused from the previous analysis.

Whenever reuse cannot be shown sound it analyses the whole file: the first time, after a
change of settings or of an imported project module, when a statement reaches names
dynamically (``exec``, ``globals()``, ``import *``) or stops the program, when the file cannot
be cut into statements, and when a re-run statement changes the global switches (default
dtype, device) differently than before.
"""
from __future__ import annotations

import time
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any, Dict, FrozenSet, List, Mapping, Optional, Sequence, Tuple

from ...checker.check import PREFILTER_MARKERS, UnitsRun, _select, check_source, findings_from_reports, run_units
from ...engine.units import AFTER_BODY, BEFORE_BODY, STANDALONE, STATEMENT, GlobalState, Unit, UnitSelection
from ...source.project.imports import project_imports
from ...source.project.sources import content_hash, dependency_hash
from ...rules.base import Report
from ...source.screen import MAX_SOURCE_CHARS
from ...model.settings import FileResult, Settings
from .chunks import ParsedChunk, SplitModule, assemble, split_module
from .names import StatementNames, statement_names
from .entry import find_entry
from .function_body import SplitFunction
from .layout import Layout, layout
from .plan import plan

#: Documents whose last analysis is kept (an editor session has a few open).
MAX_DOCUMENTS = 16


@dataclass
class _Record:
    """The last full or partial analysis of one document, complete as a full one would be."""

    source: str
    split: SplitModule
    layout: Layout
    #: For each piece, the index of its first statement in the module.
    offsets: List[int]
    settings: Settings
    reports: List[Tuple[Unit, Report]]
    settled: List[Tuple[Unit, Any]]
    states_before: Dict[int, GlobalState]
    final_state: GlobalState
    #: The entry function's body statement -> the state before it (layout.entry only).
    entry_states: Dict[int, GlobalState]
    dependencies: Dict[str, Optional[str]]
    homes: List[Any]
    findings: List[Any]


@dataclass(frozen=True)
class LastRun:
    """How the last ``check`` went, for benchmarks and tests."""

    incremental: bool
    pieces: int
    statements_run: int
    standalone_run: int
    #: Statements of the entry function's body that ran (None: all, or no entry function).
    entry_statements_run: Optional[int] = None


class IncrementalChecker:
    def __init__(self) -> None:
        self._records: "OrderedDict[str, _Record]" = OrderedDict()
        self.last_run: Optional[LastRun] = None

    def check(self, source: str, path: str, settings: Optional[Settings] = None,
              overlay: Optional[Mapping[str, str]] = None) -> FileResult:
        """The findings of ``check_source(source, path, settings, overlay=overlay)``. Never raises."""
        settings = settings or Settings()
        record = self._records.pop(path, None)
        try:
            result, new_record = self._check(source, path, settings, overlay, record)
        except Exception:  # noqa: BLE001 - whatever went wrong here, the plain analysis decides
            result, new_record = check_source(source, path, settings, overlay=overlay), None
            self.last_run = LastRun(False, 0, 0, 0)
        if new_record is not None:
            self._records[path] = new_record
            while len(self._records) > MAX_DOCUMENTS:
                self._records.popitem(last=False)
        return result

    def forget(self, path: str) -> None:
        self._records.pop(path, None)

    def _check(self, source: str, path: str, settings: Settings, overlay: Optional[Mapping[str, str]],
               record: Optional[_Record]) -> Tuple[FileResult, Optional[_Record]]:
        self.last_run = LastRun(False, 0, 0, 0)
        if not any(marker in source for marker in PREFILTER_MARKERS) or len(source) > MAX_SOURCE_CHARS:
            return check_source(source, path, settings, overlay=overlay), None
        deadline = time.monotonic() + settings.time_budget
        split = split_module(source)
        names = _names(split) if split is not None else None
        if split is None or names is None or any(n.dynamic for n in names):
            return check_source(source, path, settings, overlay=overlay), None
        offsets = _offsets(split.pieces)
        entry = find_entry(split.pieces, names)
        if entry is not None and entry.piece is not split.pieces[entry.definition]:
            # The entry function rebuilt from its separately parsed statements (function_body.py).
            pieces = list(split.pieces)
            pieces[entry.definition] = entry.piece
            split = assemble(pieces, split.first_lines)
        plan_layout = layout(split.pieces, names, entry)
        if record is not None and not _reusable(record, settings, overlay):
            record = None
        if record is not None and record.source == source:
            return FileResult(path, list(record.findings), source, dependencies=dict(record.dependencies)), record
        project = project_imports(path, getattr(settings, "source_roots", ()), overlay)
        entry_function = plan_layout.entry.function if plan_layout.entry is not None else None
        selection, reused, reused_settled = None, [], []
        if record is not None:
            selection, reused, reused_settled = _partial(record, split, plan_layout, offsets, _diff(record, split))
        run = run_units(split.module, settings, deadline, project, selection, source, entry_function)
        if selection is not None and not _states_replayed(run, selection, len(split.module.body)):
            selection, reused, reused_settled = None, [], []
            project = project_imports(path, getattr(settings, "source_roots", ()), overlay)
            run = run_units(split.module, settings, deadline, project, None, source, entry_function)
        interp = run.interpreter
        if interp.terminated_at is not None:
            return check_source(source, path, settings, overlay=overlay), None
        reports = sorted(reused + run.reports, key=lambda made: made[0])
        settled = reused_settled + run.settled
        homes = [h for h in interp.loaded.values() if h is not None]
        if selection is not None:
            homes += [h for h in record.homes if h.path not in {k.path for k in homes}]
        findings = _select(findings_from_reports(reports, settled, split.module, source, path, settings,
                                                 interp, deadline, split.positions(), homes), settings)
        dependencies = dict(record.dependencies) if selection is not None else {}
        dependencies.update(project.dependencies if project is not None else {})
        states_before = dict(interp.states_before)
        entry_states = dict(interp.entry_states_before)
        if selection is not None:
            states_before = {**selection.states_before, **states_before}
            entry_states = {**selection.entry_states, **entry_states}
        if plan_layout.entry is not None and not _entry_replayable(interp, plan_layout, offsets):
            # Its body did not run as units of one call (it stopped halfway, or it was analysed
            # again on its own after the module): re-analyse the file whole next time.
            return FileResult(path, findings, source, dependencies=dict(dependencies)), None
        new_record = _Record(source, split, plan_layout, offsets, settings, reports, settled, states_before,
                             interp.final_state, entry_states, dependencies, homes, findings)
        ran = selection.statements if selection is not None else range(len(split.module.body))
        self.last_run = LastRun(selection is not None, len(split.pieces), len(ran),
                                len(selection.standalone) if selection is not None else len(split.pieces),
                                len(selection.entry_statements) if selection is not None
                                and selection.entry_statements is not None else None)
        return FileResult(path, findings, source, dependencies=dict(dependencies)), new_record


def _names(split: SplitModule) -> Optional[List[StatementNames]]:
    out = []
    for piece in split.pieces:
        if "names" not in piece.derived:
            piece.derived["names"] = statement_names(piece.text, piece.statements)
        if piece.derived["names"] is None:
            return None
        out.append(piece.derived["names"])
    return out


def _offsets(pieces: Sequence[ParsedChunk]) -> List[int]:
    offsets, total = [], 0
    for piece in pieces:
        offsets.append(total)
        total += len(piece.statements)
    return offsets


def _reusable(record: _Record, settings: Settings, overlay: Optional[Mapping[str, str]]) -> bool:
    """The previous analysis holds for this one but for the text: same settings, and every
    project file it read (or looked for) unchanged."""
    if record.settings != settings:
        return False
    overlay = overlay or {}
    for path, digest in record.dependencies.items():
        now = content_hash(overlay[path].encode("utf-8", "surrogatepass")) if path in overlay \
            else dependency_hash(path)
        if now != digest:
            return False
    return True


def _diff(record: _Record, split: SplitModule) -> Tuple[int, int, int]:
    """The pieces that changed (``_changed_middle``): parsed pieces are cached by text, so an
    unchanged piece is the same object."""
    return _changed_middle(record.split.pieces, split.pieces)


def _changed_middle(old: Sequence[Any], new: Sequence[Any]) -> Tuple[int, int, int]:
    """(items kept before the edit, old items replaced, new items inserted), by identity."""
    prefix = 0
    while prefix < min(len(old), len(new)) and old[prefix] is new[prefix]:
        prefix += 1
    suffix = 0
    while suffix < min(len(old), len(new)) - prefix and old[-1 - suffix] is new[-1 - suffix]:
        suffix += 1
    return prefix, len(old) - prefix - suffix, len(new) - prefix - suffix


def _partial(record: _Record, split: SplitModule, plan_layout: Layout, offsets: List[int],
             diff: Tuple[int, int, int]) -> Tuple[Optional[UnitSelection], List[Tuple[Unit, Report]], List[Tuple[Unit, Any]]]:
    """The selection of units to run and the previous reports that stay; (None, [], []) when
    the whole file must be analysed."""
    prefix, removed, inserted = diff
    old_layout = record.layout
    old_pieces, new_count = len(record.split.pieces), len(split.pieces)
    old_statement_count = sum(len(p.statements) for p in record.split.pieces)

    def new_piece(old: int) -> Optional[int]:
        if old < prefix:
            return old
        return old - removed + inserted if old >= prefix + removed else None

    old_entry, entry = old_layout.entry, plan_layout.entry
    if (old_entry is None) != (entry is None):
        return None, [], []  # the file gained or lost its entry function
    # The call edited around it only (a comment after `main()`): its body's units stay.
    call_retouched = entry is not None and new_piece(old_entry.call) is None \
        and prefix <= old_entry.call < prefix + removed and prefix <= entry.call < prefix + inserted \
        and old_entry.call - prefix == entry.call - prefix \
        and record.split.pieces[old_entry.call].statements[0].deep_equals(split.pieces[entry.call].statements[0])
    if entry is not None and new_piece(old_entry.call) != entry.call and not call_retouched:
        return None, [], []  # the call moved, or is another one
    # An edited entry function: every statement of its body counts as changed, unless both
    # versions were rebuilt from parts with the same `def` line: then only the new parts do.
    entry_changed = entry is not None and old_entry.function is not entry.function
    body = _body_diff(record, old_entry, entry) if entry_changed else None
    if body is not None:
        entry_changed = False

    def new_body(old: int) -> Optional[int]:
        if body is None:
            return old
        kept_before, replaced, inserted_body, _ = body
        if old < kept_before:
            return old
        return old - replaced + inserted_body if old >= kept_before + replaced else None

    def old_start(piece: int) -> Optional[GlobalState]:
        # The global state before an old piece's first statement (after the last: the final).
        if piece >= old_pieces:
            return record.final_state
        return record.states_before.get(record.offsets[piece])

    before_region, after_region = old_start(prefix), old_start(prefix + removed)
    if before_region is None or after_region is None or before_region != after_region:
        return None, [], []  # the replaced statements changed a global switch, or never ran
    old_units = {u for piece in range(prefix, prefix + removed) for u in old_layout.of_piece[piece]}
    changed = {u for piece in range(prefix, prefix + inserted) for u in plan_layout.of_piece[piece]}
    if call_retouched and not entry_changed:
        old_units -= set(old_layout.of_piece[old_entry.call][1:])
        changed -= set(plan_layout.of_piece[entry.call][1:])
    if entry_changed:
        old_units.update(old_layout.of_piece[old_entry.call])
        changed.update(plan_layout.of_piece[entry.call])
    if body is not None:
        kept_before, replaced, inserted_body, _ = body
        old_units.update(old_layout.of_piece[old_entry.call][1 + kept_before:1 + kept_before + replaced])
        changed.update(plan_layout.of_piece[entry.call][1 + kept_before:1 + kept_before + inserted_body])
    removed_writes = frozenset().union(*(old_layout.facts[u].writes | old_layout.facts[u].standalone_writes
                                         for u in old_units))
    start = plan_layout.of_piece[prefix][0] if prefix < new_count else len(plan_layout.units)
    chosen = plan(plan_layout.facts, start, frozenset(changed), removed_writes, plan_layout.companions())

    new_statement_count = sum(len(p.statements) for p in split.pieces)
    old_region = (record.offsets[prefix] if prefix < old_pieces else old_statement_count,
                  record.offsets[prefix + removed] if prefix + removed < old_pieces else old_statement_count)
    new_region = (offsets[prefix] if prefix < new_count else new_statement_count,
                  offsets[prefix + inserted] if prefix + inserted < new_count else new_statement_count)

    old_call = record.offsets[old_entry.call] if call_retouched else None

    def new_statement(old: int) -> Optional[int]:
        # Statements before the edit keep their index, those after it shift with it.
        if old == old_call:
            return offsets[entry.call]  # the entry's call, retouched: its body's units carry over
        if old < old_region[0]:
            return old
        if old >= old_region[1]:
            return old - old_region[1] + new_region[1]
        return None

    states: Dict[int, GlobalState] = {}
    for old, state in record.states_before.items():
        new = new_statement(old)
        if new is not None:
            states[new] = state
    if inserted:
        states[offsets[prefix]] = before_region  # the first new statement starts where the old ones did

    def statements_of(units: FrozenSet[int]) -> FrozenSet[int]:
        pieces = {plan_layout.units[u][0] for u in units}
        return frozenset(s for piece in pieces for s in range(offsets[piece], offsets[piece] + len(split.pieces[piece].statements)))

    run, standalone = statements_of(chosen.run), statements_of(chosen.standalone)
    if any(s not in states and not new_region[0] <= s < new_region[1] for s in run):
        return None, [], []  # a statement that did not run last time (after one that stopped it)
    entry_statements: Optional[FrozenSet[int]] = None
    entry_states: Dict[int, GlobalState] = {}
    call_statement = offsets[entry.call] if entry is not None else None
    if entry is not None and not entry_changed:
        entry_statements = frozenset(plan_layout.units[u][1] for u in plan_layout.of_piece[entry.call][1:]
                                     if u in chosen.run)
        entry_states = {new_body(j): state for j, state in record.entry_states.items() if new_body(j) is not None}
        if body is not None and body[2]:
            entry_states[body[0]] = body[3]  # the first new body statement starts where the old ones did
    selection = UnitSelection(run, standalone, states, record.final_state, entry_statements, entry_states)

    def kept(unit: Unit) -> Optional[Unit]:
        if unit.kind not in (STATEMENT, STANDALONE):
            return None  # the end of the file is re-run every time
        new = new_statement(unit.index)
        if new is None:
            return None
        if unit.kind == STANDALONE:
            return None if new in standalone else Unit(unit.kind, new)
        sub = unit.sub
        if new == call_statement and sub not in (BEFORE_BODY, AFTER_BODY):
            sub = new_body(sub)  # a statement of the entry function's body
            if sub is None:
                return None
        if new not in run:
            return Unit(unit.kind, new, sub)
        # The statement runs again; of the entry call, only the body statements chosen do.
        if new == call_statement and entry_statements is not None and sub not in (BEFORE_BODY, AFTER_BODY) \
                and sub not in entry_statements:
            return Unit(unit.kind, new, sub)
        return None

    reused = [(unit, report) for unit, report in ((kept(u), r) for u, r in record.reports) if unit is not None]
    reused_settled = [(unit, cause) for unit, cause in ((kept(u), c) for u, c in record.settled) if unit is not None]
    return selection, reused, reused_settled


def _body_diff(record: _Record, old_entry: Any, entry: Any) -> Optional[Tuple[int, int, int, GlobalState]]:
    """(body statements kept before the edit, old ones replaced, new ones inserted, the global
    state the first of them starts from) when an edit inside the entry function left its `def`
    line and the rest of its body as they were (function_body.py); None otherwise."""
    old_piece, new_piece = old_entry.piece, entry.piece
    if not (isinstance(old_piece, SplitFunction) and isinstance(new_piece, SplitFunction)) \
            or old_piece.header is not new_piece.header:
        return None
    before, replaced, inserted = _changed_middle(old_entry.function.body.body, entry.function.body.body)
    start, end = record.entry_states.get(before), record.entry_states.get(before + replaced)
    if start is None or end is None or start != end:
        return None  # the replaced statements changed a global switch, never ran, or were the last
    return before, replaced, inserted, start


def _entry_replayable(interp: Any, plan_layout: Layout, offsets: List[int]) -> bool:
    """Whether the entry function's body ran once, statement by statement, inside its call (its
    analysis on its own included): only then are its statements units a later run can pick."""
    entry = plan_layout.entry
    call = offsets[entry.call]
    ran_in = interp.standalone_units.get(entry.function)
    return not interp.entry_stopped and (ran_in is None or (ran_in.kind == STATEMENT and ran_in.index == call))


def _states_replayed(run: UnitsRun, selection: UnitSelection, statement_count: int) -> bool:
    """Whether every statement that ran left the global switches as the next statement found
    them last time (then the statements that did not run ran under the same switches too)."""
    interp = run.interpreter
    for index, after in interp.states_after.items():
        following = index + 1
        if following >= statement_count:
            expected = selection.final_state
        elif following in selection.states_before:
            expected = selection.states_before[following]
        else:
            continue  # the next statement is new and runs on from here
        if after != expected:
            return False
    for number, after in interp.entry_states_after.items():
        expected = selection.entry_states.get(number + 1)
        if expected is not None and after != expected:
            return False  # the next body statement, if it did not run, found another state last time
    return True
