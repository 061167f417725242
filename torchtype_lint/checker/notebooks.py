"""A notebook's findings, mapped back to its cells (a notebook is a kind of source: ``source/notebook.py``).

The checker analyses the code cells joined into one program; this module turns each finding on
the joined text into a finding in a cell (location, fix, provenance and message), keeps out the
findings a notebook does not have (a cell's displayed last expression is not thrown away), and
gives the cache and the worker processes a notebook finding's extra fields as plain data.
"""
from __future__ import annotations

import ast
import dataclasses
import re
from dataclasses import dataclass, field
from typing import Any, Dict, List, Sequence, Set, Tuple

from ..model.findings import Finding, Location, ProvenanceStep
from ..source.notebook import CodeCell, Notebook


@dataclass(frozen=True)
class CellProvenanceStep(ProvenanceStep):
    """A provenance step inside a notebook: ``line`` counts within cell ``cell``."""

    cell: int = 0

    def render(self) -> str:
        text = f"cell {self.cell}, line {self.line}: `{self.snippet}`"
        return f"{text} ({self.note})" if self.note else text


@dataclass
class NotebookFinding(Finding):
    """A finding in a notebook: ``location`` (and the fix's) counts lines within cell ``cell``."""

    cell: int = 0
    #: The cell's source as the user wrote it, for reporters that show the offending line.
    cell_source: str = field(default="", repr=False, compare=False)

    def sort_key(self) -> Tuple[Any, ...]:
        return (self.path, self.cell, self.location.line, self.location.column, self.code)

    def position(self) -> str:
        return f"{self.path}:cell {self.cell}:{self.location.line}:{self.location.column + 1}"


def on_cells(notebook: Notebook, findings: Sequence[Finding]) -> List[Finding]:
    """The findings on the joined cells as a notebook has them: per cell, and without TTL101 on a
    cell's displayed last expression."""
    if any(f.code in DISCARDED_RESULT_CODES for f in findings):  # parse cells again only then
        shown = displayed_lines(notebook)
        findings = [f for f in findings if not (f.code in DISCARDED_RESULT_CODES and f.location.line in shown)]
    return to_cell_findings(notebook, findings)


#: Codes that say a value is computed and thrown away: in a notebook, a cell's last bare
#: expression is not thrown away, IPython displays it (``m.to(device)``, ``y.cpu()``).
DISCARDED_RESULT_CODES = ("TTL101",)


def displayed_lines(notebook: Notebook) -> Set[int]:
    """Joined-text lines of each cell's displayed expression: its last top-level statement
    when that is a bare expression not silenced by a trailing ``;``."""
    notebook.joined()  # sets each cell's first_line
    lines: Set[int] = set()
    for cell in notebook.cells:
        try:
            body = ast.parse(cell.text).body
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            continue  # the analysis reports what does not parse
        last = body[-1] if body else None
        if not isinstance(last, ast.Expr) or cell.text.rstrip().endswith(";"):
            continue
        end = last.end_lineno or last.lineno
        lines.update(range(cell.first_line + last.lineno - 1, cell.first_line + end))
    return lines


def notebook_fields(finding: Finding) -> Dict[str, Any]:
    """A notebook finding's extra fields as JSON-able data (for the cache and worker processes);
    empty for findings in ``.py`` files."""
    if not isinstance(finding, NotebookFinding):
        return {}
    return {"cell": finding.cell, "cell_source": finding.cell_source,
            "provenance_cells": [getattr(step, "cell", 0) for step in finding.provenance]}


def with_notebook_fields(finding: Finding, data: Dict[str, Any]) -> Finding:
    """Rebuild the notebook finding that ``notebook_fields`` described (else ``finding`` as is)."""
    if not data.get("cell"):
        return finding
    cells = list(data.get("provenance_cells") or []) + [0] * len(finding.provenance)
    # A step in an imported module (``data.py``) has no cell: it stays as it was.
    steps = tuple(s if s.path else CellProvenanceStep(s.line, s.column, s.snippet, s.note, None,
                                                      s.end_line, s.end_column, cell=c)
                  for s, c in zip(finding.provenance, cells))
    return NotebookFinding(finding.code, finding.message, finding.severity, finding.path, finding.location,
                           steps, finding.fix, node=finding.node, origin=finding.origin,
                           confirmations=list(finding.confirmations), cell=int(data["cell"]),
                           cell_source=str(data.get("cell_source", "")))


def to_cell_findings(notebook: Notebook, findings: Sequence[Finding]) -> List[Finding]:
    """Map findings on the joined text to cells (location, fix, provenance and message)."""
    out: List[Finding] = []
    for finding in findings:
        cell, line = notebook.locate(finding.location.line)
        steps = []
        message = finding.message
        for step in finding.provenance:
            if step.path:
                steps.append(step)  # in an imported module (``data.py:6``): its lines are that file's
                continue
            step_cell, step_line = notebook.locate(step.line)
            # An expression lies in one cell: its end moves with its start.
            end_line = None if step.end_line is None else step.end_line - (step.line - step_line)
            mapped = CellProvenanceStep(step_line, step.column, step.snippet, step.note, None,
                                        end_line, step.end_column, cell=step_cell.number)
            # The engine wrote joined-text lines into the message ("since line 12: `a`").
            message = re.sub(rf"(?<!, )(?<!\w)line {step.line}: `{re.escape(step.snippet)}`",
                             lambda _: f"cell {step_cell.number}, line {step_line}: `{step.snippet}`", message)
            steps.append(mapped)
        fix = finding.fix
        if fix is not None and fix.location is not None:
            fix = dataclasses.replace(fix, location=_shift(fix.location, cell))
        out.append(NotebookFinding(
            finding.code, message, finding.severity, finding.path, _shift(finding.location, cell),
            tuple(steps), fix, node=finding.node, origin=finding.origin,
            confirmations=list(finding.confirmations), cell=cell.number, cell_source=cell.source))
    out.sort(key=lambda f: f.sort_key())
    return out


def _shift(loc: Location, cell: CodeCell) -> Location:
    offset = cell.first_line - 1
    return Location(max(loc.line - offset, 1), loc.column, max(loc.end_line - offset, 1), loc.end_column)


