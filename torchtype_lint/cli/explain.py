"""``torchtype-lint explain FILE``: every assignment with its inferred value and provenance.

One line per binding, in source order::

    12: x: Tensor[float64, (4, 3)] <- line 11: torch.from_numpy(a) (torch.from_numpy keeps the
        ndarray's dtype) <- line 10: np.random.rand(4, 3) (np.random.rand gives float64)

(on one line). A function analysed in several contexts (standalone, and per call site) shows
each distinct value it had; an unknown value is left out when the same binding also had a known
one. Function parameters are listed as ``name (parameter)``. Quoted code and file names are
escaped as in ``check``'s human formats (printable.py): one line each, no control character.
"""
from __future__ import annotations

from typing import Any, Dict, List, Tuple

from libcst.metadata import MetadataWrapper, PositionProvider

from ..checker.check import Settings, check_bytes
from ..report.printable import printable, printable_path
from ..report.reporting import format_concise
from ..model.selection import Selection

#: How many provenance links a line shows (newest first, the root cause last).
MAX_LINKS = 3
SNIPPET_LIMIT = 50


#: explain runs no rules, but reports the tool's own problems (unreadable file, syntax error).
_TOOL_ONLY = Selection(select=["TTL0"])


class ExplainError(Exception):
    """The file cannot be explained at all: missing, unreadable, or not a regular file."""


def explain_path(path: str) -> str:
    from ..run.runner import read_source  # the one reader of `check`: regular files only, never blocks

    try:
        data = read_source(path)
    except OSError as exc:
        raise ExplainError(f"could not read {path}: {exc.strerror or exc}") from None
    from ..run.bounded import BoundExceeded, call_bounded
    from ..run.runner import hard_deadline

    settings = Settings(selection=_TOOL_ONLY)
    try:
        # In a killable child like every analysis: explain reads untrusted files too.
        return call_bounded(_explain_bytes, data, path, settings, seconds=hard_deadline(settings))
    except BoundExceeded as exc:
        return printable_path(f"{path}:1:1: TTL000 not analysed: {exc}") + "\n"


def _explain_bytes(data: bytes, path: str, settings: Settings) -> str:
    if path.endswith(".ipynb"):
        return _explain_notebook(data, path, settings)
    return explain_result(check_bytes(data, path, settings))


def _explain_notebook(data: bytes, path: str, settings: Settings) -> str:
    """A notebook's code cells are analysed as one program (notebook.py); each line of the
    explanation then says which cell and line it is about: ``cell 3:2: x: ...``."""
    import re

    from ..checker.check import check_source
    from ..source.notebook import NotebookError, is_python_notebook, parse_notebook

    try:
        notebook = parse_notebook(data.decode("utf-8"))
    except (NotebookError, UnicodeDecodeError) as exc:
        return printable_path(f"{path}:1:1: TTL001 {exc}") + "\n"
    if not notebook.cells or not is_python_notebook(notebook.data):
        return "(no Python code cells)\n"
    full = check_source(notebook.joined(), path, settings, keep_analysis=True)
    if full.interpreter is None or full.module is None:
        return format_concise(full.findings, {}) or "(nothing to explain)\n"

    def where(line: int, joiner: str) -> str:
        cell, cell_line = notebook.locate(line)
        return f"cell {cell.number}{joiner}{cell_line}"

    text = explain_interpreter(full.interpreter, full.module)
    text = re.sub(r"^(\d+): ", lambda m: f"{where(int(m.group(1)), ':')}: ", text, flags=re.MULTILINE)
    return re.sub(r"<- line (\d+): ", lambda m: f"<- {where(int(m.group(1)), ', line ')}: ", text)


def explain_result(result) -> str:  # noqa: ANN001 - FileResult
    from ..checker.check import check_source

    if result.source is None:
        return format_concise(result.findings, {})
    full = check_source(result.source, result.path, Settings(selection=_TOOL_ONLY),
                        keep_analysis=True)
    if full.interpreter is None or full.module is None:
        return format_concise(full.findings, {}) or "(nothing to explain)\n"
    return explain_interpreter(full.interpreter, full.module)


def explain_interpreter(interpreter: Any, module: Any) -> str:
    """The explain text for an interpreter that has run over ``module``."""
    positions = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    entries: List[Tuple[int, int, str]] = []
    known_targets: Dict[Tuple[int, str], bool] = {}
    seen = set()
    for order, assignment in enumerate(interpreter.assignments):
        pos = positions.get(assignment.node)
        if pos is None:
            continue
        line = pos.start.line
        label = f"{assignment.name} (parameter)" if assignment.is_parameter else assignment.name
        key = (line, label, assignment.description)
        if key in seen:
            continue
        seen.add(key)
        if assignment.description != "unknown":
            known_targets[(line, label)] = True
        text = f"{line}: {label}: {assignment.description}"
        text += _provenance(getattr(assignment.value, "origin", None), module, positions)
        entries.append((line, order, printable(text)))  # quoted code: one line, no escape sequence
    lines = []
    for line, _, text in sorted(entries):
        label = text.split(": ", 2)[1]
        if text.endswith(": unknown") and known_targets.get((line, label)):
            continue  # the same binding is known in another context
        lines.append(text)
    return "\n".join(lines) + "\n" if lines else "(no assignments)\n"


def _provenance(origin: Any, module: Any, positions: Any) -> str:
    if origin is None:
        return ""
    parts = []
    for link in origin.chain()[:MAX_LINKS]:
        if link.node is None or link.node not in positions:
            continue
        snippet = " ".join(module.code_for_node(link.node).split())
        if len(snippet) > SNIPPET_LIMIT:
            snippet = snippet[:SNIPPET_LIMIT - 3] + "..."
        note = f" ({link.note})" if link.note else ""
        part = f" <- line {positions[link.node].start.line}: {snippet}{note}"
        if part not in parts:
            parts.append(part)
    return "".join(parts)
