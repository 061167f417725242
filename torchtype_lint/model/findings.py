"""What analysis produces: findings with locations, provenance and optional fixes."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, List, Optional, Tuple

#: Where each rule's documentation page lives (``docs/rules/<CODE>.md``, generated from the rule).
RULE_DOCS_BASE = "https://github.com/torchtype-lint/torchtype-lint/blob/main/docs/rules/"


def rule_url(code: str) -> str:
    return f"{RULE_DOCS_BASE}{code}.md"


@dataclass(frozen=True)
class Location:
    """1-based line, 0-based column (code points), like libcst."""

    line: int
    column: int
    end_line: int
    end_column: int


@dataclass(frozen=True)
class ProvenanceStep:
    """One resolved link of a provenance chain, ready to print."""

    line: int
    column: int
    snippet: str
    note: str
    #: The file of this step when it is not the finding's own (an imported project module),
    #: relative to the finding's file's directory: ``data.py``, ``../common/data.py``.
    path: Optional[str] = None
    #: Where the value's expression ends (1-based line, 0-based column past its last code
    #: point), like ``Location``'s end; None for a step made without it (an older cache entry):
    #: then only its start is known.
    end_line: Optional[int] = None
    end_column: Optional[int] = None

    @property
    def where(self) -> str:
        """``line 6``, or ``data.py:6`` in another file."""
        return f"{self.path}:{self.line}" if self.path else f"line {self.line}"

    def render(self) -> str:
        text = f"{self.where}: `{self.snippet}`"
        return f"{text} ({self.note})" if self.note else text

    @property
    def end(self) -> Tuple[int, int]:
        """(line, column) where the step's expression ends; its start when that is not known."""
        if self.end_line is None or self.end_column is None:
            return self.line, self.column
        return self.end_line, self.end_column


def step_path(finding_path: str, step: ProvenanceStep) -> str:
    """The file of a provenance step, spelled like the finding's path (``src/train.py`` and a step
    in ``data.py`` -> ``src/data.py``)."""
    import os.path

    if not step.path:
        return finding_path
    return os.path.normpath(os.path.join(os.path.dirname(finding_path), step.path)).replace("\\", "/")


@dataclass
class Fix:
    """Replace ``old`` (a libcst node) by ``new``; ``safe`` fixes apply with --fix alone."""

    old: Any
    new: Any
    description: str
    safe: bool = True
    # Filled in by the checker: the replaced span and the new text, for reporters and editors.
    location: Optional[Location] = None
    new_text: Optional[str] = None


@dataclass
class Finding:
    code: str
    message: str
    severity: str  # "error" | "warning"
    path: str = "<stdin>"
    location: Location = Location(1, 0, 1, 0)
    provenance: Tuple[ProvenanceStep, ...] = ()
    fix: Optional[Fix] = None
    node: Any = field(default=None, repr=False, compare=False)
    origin: Any = field(default=None, repr=False, compare=False)
    #: Filled by ``check --confirm``: what torch printed when the op was reproduced.
    confirmations: List[str] = field(default_factory=list)

    @property
    def line(self) -> int:
        return self.location.line

    @property
    def column(self) -> int:
        return self.location.column

    def sort_key(self) -> Tuple[str, int, int, str]:
        return (self.path, self.location.line, self.location.column, self.code)

    def position(self) -> str:
        """``path:line:col`` with a 1-based column (ruff and flake8 style)."""
        return f"{self.path}:{self.location.line}:{self.location.column + 1}"

    @property
    def headline(self) -> str:
        """The message cut to one scannable line (headline.py); ``message`` has it all."""
        from .headline import headline  # headline.py imports this module

        return headline(self.message, self.provenance)

    def concise(self) -> str:
        """``path:line:col: CODE headline``: the concise format's line, and flake8's."""
        return f"{self.position()}: {self.code} {self.headline}"

    def full_line(self) -> str:
        """``path:line:col: CODE message`` with the whole message (the ``full`` format)."""
        return f"{self.position()}: {self.code} {self.message}"
