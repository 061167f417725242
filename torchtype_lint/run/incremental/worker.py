"""The language server's analyses, in the resident child that keeps each document's last one.

Incremental analysis keeps the last analysis of each document (``session.py``), so it cannot
run in a fresh child per edit as ``bounded.call_bounded`` does, and running it in the server's
own process would let one document hang or exhaust the editor's server. It runs in the
process's resident child (``resident.py``, the one the flake8 plugin uses): the child's
``IncrementalChecker`` lives on between requests, and the child keeps the bounds (a deadline per
request after which it is killed and the next request starts a fresh one with empty state, a
capped address space, a deep stack). Where ``fork`` does not exist it runs in-process.
"""
from __future__ import annotations

from typing import Any, Dict, List, Mapping, Optional, Tuple

from ..bounded import BoundExceeded, hard_deadline
from ..cache import finding_from_dict, finding_to_dict
from ..resident import call_resident, start_resident
from ...model.settings import FileResult, Settings
from .session import IncrementalChecker, LastRun

#: The checker of the process this runs in (the resident child): its documents' last analyses.
_checker: Optional[IncrementalChecker] = None


def check_document(source: str, path: str, settings: Settings,
                   overlay: Optional[Mapping[str, str]] = None) -> Tuple[FileResult, Optional[LastRun]]:
    """The findings of ``check_source(source, path, settings, overlay=overlay)``, and how the
    analysis went (None when it did not finish); a run past the deadline, or that kills the
    child, is one TTL000 finding. Never raises."""
    from ...checker.check import _tool_finding, warm_up

    try:
        # A new child inherits the loaded rules and tables (one started by ``start`` loads its own).
        dicts, dependencies, last_run = call_resident(_check_in_child, source, path, settings, dict(overlay or {}),
                                                      seconds=hard_deadline(settings.time_budget),
                                                      before_start=warm_up)
    except BoundExceeded as exc:
        why = f"internal error while analysing this file: {exc}" if exc.raised else f"not analysed: {exc}"
        return FileResult(path, [_tool_finding("TTL000", path, why)], source), None
    return FileResult(path, [finding_from_dict(d, path) for d in dicts], source, dependencies=dependencies), last_run


def start() -> None:
    """Start the resident child now, before the first document arrives (the language server,
    from its main thread before any other thread exists: ``resident.start_resident``); ``warm``
    then gets it ready while this process goes on starting."""
    start_resident()


def warm() -> None:
    """In the resident child: load the rules and tables and run a small program through an
    incremental checker of its own (kept nowhere), so that the first document's analysis costs
    only its own. Waits for it: for a thread of its own (the language server's queue), while
    the process goes on starting (pygls' imports, on another core). Never raises."""
    try:
        call_resident(_warm_child, seconds=hard_deadline(Settings().time_budget))
    except Exception:  # noqa: BLE001 - a failed warm-up only leaves the first analysis slower
        pass


def _warm_child() -> None:
    from ...checker.check import _WARM_UP_PROGRAM, warm_up
    from ...model.selection import Selection

    warm_up()
    IncrementalChecker().check(_WARM_UP_PROGRAM, "<warm-up>",
                               Settings(selection=Selection(select=["TTL"], extend_select=["TTL9"])))


def _check_in_child(source: str, path: str, settings: Settings, overlay: Dict[str, str]
                    ) -> Tuple[List[Dict[str, Any]], Dict[str, Optional[str]], Optional[LastRun]]:
    global _checker
    if _checker is None:
        _checker = IncrementalChecker()
    try:
        result = _checker.check(source, path, settings, overlay)
    except BaseException:
        _checker = None  # a MemoryError mid-update: what it held may be half updated
        raise
    return [finding_to_dict(f) for f in result.findings], result.dependencies, _checker.last_run
