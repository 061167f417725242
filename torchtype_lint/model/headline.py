"""A finding's headline: its message cut down to one scannable line for the concise format.

Messages carry everything (what fails, torch's own error text, where the value came from, the
fix); at 300-400 characters a line they cannot be scanned. The headline drops torch's quoted error
text, shortens the provenance to ``since line N`` (the snippet and how the value came about are
in the ``full`` and JSON formats), and keeps the clauses (parts between ``;`` outside brackets,
quotes and code) that fit in ``MAX_HEADLINE`` characters, the first one always: what fails
comes first, the suggested fix last. The flake8 plugin prints the headline too, so its lines stay the
CLI's concise lines.
"""
from __future__ import annotations

import re
from typing import List, Optional, Protocol, Sequence, Tuple



class ProvenanceStep(Protocol):
    """What a headline reads of a provenance step (``findings.ProvenanceStep``, which imports this
    module: the protocol keeps the two out of an import circle)."""

    line: int
    snippet: str
    note: str

    @property
    def where(self) -> str: ...

#: Characters a headline aims at (a first clause longer than this is kept whole).
MAX_HEADLINE = 160
#: A bracket around the provenance longer than this collapses to ``(since line N)``.
MAX_GROUP = 48
#: Where a provenance starts: ``line N``, ``cell C, line N``, or ``data.py:N`` in an imported module.
_WHERE = r"(?:(?:cell \d+, )?line \d+|[\w./\\-]+\.py:\d+)"
#: ``since line N: `code```: the provenance as check._render_origin writes it.
_SINCE = re.compile(rf"since ({_WHERE}): `[^`]*`")


def headline(message: str, provenance: Sequence[ProvenanceStep] = ()) -> str:
    text = _drop_quoted_errors(_shorten_origin(message, provenance))
    text = _trim_after_since(" ".join(text.split()))
    kept = ""
    for clause in _clauses(text):
        if kept and len(kept) + 2 + len(clause) > MAX_HEADLINE:
            break
        kept = f"{kept}; {clause}" if kept else clause
    return kept


def _shorten_origin(message: str, provenance: Sequence[ProvenanceStep]) -> str:
    if provenance:
        root = provenance[-1]
        # Notebook steps say which cell (notebook.py rewrites the message the same way).
        line = f"cell {root.cell}, line {root.line}" if getattr(root, "cell", None) else root.where
        # The exact text the checker substituted for {origin}: snippet and note go together.
        rendered = f"since {line}: `{root.snippet}`" + (f", {root.note}" if root.note else "")
        message = message.replace(rendered, f"since {line}")
    return _SINCE.sub(r"since \1", message)


def _spans(text: str) -> List[Tuple[int, int, str]]:
    """(index, bracket depth, character) of every character outside `code` and "quotes"."""
    out: List[Tuple[int, int, str]] = []
    depth, quote = 0, ""
    for i, ch in enumerate(text):
        if quote:
            if ch == quote:
                quote = ""
            continue
        if ch in "`\"":
            quote = ch
        elif ch in "([":
            depth += 1
        elif ch in ")]":
            depth = max(0, depth - 1)
        out.append((i, depth, ch))
    return out


def _clauses(text: str) -> List[str]:
    cuts = [i for i, depth, ch in _spans(text) if depth == 0 and ch == ";"]
    bounds = zip([-1] + cuts, cuts + [len(text)])
    return [text[start + 1:end].strip() for start, end in bounds if text[start + 1:end].strip()]


def _trim_after_since(text: str) -> str:
    """Inside brackets, what follows ``since line N`` is more provenance (``(since line 14;
    converted by `f(x)`, which ...)`` -> ``(since line 14)``), and a long bracket around it
    (a shape computed by earlier layers) collapses to ``(since line N)``."""
    for match in reversed(list(re.finditer(rf"since {_WHERE}", text))):
        group = _enclosing_group(text, match.start())
        if group is None:
            continue
        open_at, close_at = group
        if close_at - open_at > MAX_GROUP:
            text = f"{text[:open_at]}({match.group(0)}){text[close_at + 1:]}"
        elif text[match.end():match.end() + 1] in (";", ","):
            text = text[:match.end()] + text[close_at:]
    return text


def _enclosing_group(text: str, index: int) -> Optional[Tuple[int, int]]:
    """Indices of the ``(`` and ``)`` around ``index`` (outside code and quotes), if any."""
    stack: List[int] = []
    for i, _, ch in _spans(text):
        if ch == "(":
            stack.append(i)
        elif ch == ")" and stack:
            opened = stack.pop()
            if opened < index < i:
                return opened, i
    return None


def _drop_quoted_errors(text: str) -> str:
    """Remove ``("torch's message")`` and ``(torch: "...")`` groups: the full format keeps them."""
    pattern = re.compile(r'\s*\((?:torch: )?"[^"]*"\)')
    return pattern.sub("", text)
