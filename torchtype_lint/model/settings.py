"""The plain data every front end passes around: analysis settings and one file's result.

Kept apart from ``check.py`` and free of libcst so that reading configuration and serving a
fully warm cache never imports the parser or the engine (about a third of a second).
``check`` re-exports both names.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Dict, List, Optional, Tuple

from .findings import Finding
from .selection import Selection

if TYPE_CHECKING:
    import libcst as cst


#: Wall seconds one file may take, parsing included, before it becomes TTL000.
DEFAULT_TIME_BUDGET = 20.0
#: The largest budget accepted: a day. Far beyond any real file, and a deadline this far away
#: still fits the OS's timers (``1e308`` overflowed them: an internal error, not a usage error).
MAX_TIME_BUDGET = 86_400.0


@dataclass
class Settings:
    selection: Selection = field(default_factory=Selection)
    time_budget: float = DEFAULT_TIME_BUDGET
    respect_noqa: bool = True
    #: Absolute directories absolute imports are looked up in (``src = [...]``); empty: the
    #: project root and its ``src/`` (project/roots.py).
    source_roots: Tuple[str, ...] = ()


@dataclass
class FileResult:
    path: str
    findings: List[Finding]
    source: Optional[str] = None
    module: Optional["cst.Module"] = None
    #: The engine's ``Interpreter`` when asked to keep the analysis (explain, editors).
    interpreter: Optional[Any] = None
    #: The project files the analysis looked for -> SHA-256 of their bytes (None: absent);
    #: the result holds only while they are unchanged (cache.py).
    dependencies: Dict[str, Optional[str]] = field(default_factory=dict)
