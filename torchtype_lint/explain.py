"""``torchtype-lint explain FILE``: every assignment with its inferred value and provenance."""
from __future__ import annotations

from typing import List

from libcst.metadata import MetadataWrapper, PositionProvider

from .check import Settings, check_path
from .selection import Selection


def explain_path(path: str) -> str:
    result = check_path(path, Settings(selection=Selection(select=[])), display_path=path)
    return explain_result(result)


def explain_result(result) -> str:  # noqa: ANN001 - FileResult
    from .check import check_source

    if result.source is None:
        return "".join(f.concise() + "\n" for f in result.findings)
    full = check_source(result.source, result.path, Settings(selection=Selection(select=[])),
                        keep_analysis=True)
    if full.interpreter is None or full.module is None:
        return "".join(f.concise() + "\n" for f in full.findings) or "(nothing to explain)\n"
    positions = MetadataWrapper(full.module, unsafe_skip_copy=True).resolve(PositionProvider)
    lines: List[str] = []
    seen = set()
    for assignment in full.interpreter.assignments:
        pos = positions.get(assignment.node)
        if pos is None:
            continue
        key = (pos.start.line, assignment.name, assignment.value.describe())
        if key in seen:
            continue
        seen.add(key)
        text = f"{pos.start.line}: {assignment.name}: {assignment.value.describe()}"
        origin = getattr(assignment.value, "origin", None)
        if origin is not None and getattr(origin, "node", None) in positions:
            root = origin.chain()[-1]
            if root.node in positions:
                snippet = " ".join(full.module.code_for_node(root.node).split())
                if len(snippet) > 50:
                    snippet = snippet[:47] + "..."
                note = f" ({root.note})" if root.note else ""
                text += f" <- line {positions[root.node].start.line}: {snippet}{note}"
        lines.append(text)
    lines.sort(key=lambda s: int(s.split(":", 1)[0]))
    return "\n".join(lines) + ("\n" if lines else "(no assignments)\n")
