"""``check --statistics``: one line per rule code with its count, most frequent first (ruff's
layout: count, code, a marker, the rule's name), or the same as JSON with ``--output-format json``.

The marker says what ``--fix`` would do for the rule's findings: ``[*]`` every one has a fix it
applies, ``[~]`` some do (ruff's markers), ``[-]`` none does but some have an unsafe fix that
``--unsafe-fixes`` would apply, ``[ ]`` none has a fix. With ``--unsafe-fixes`` unsafe fixes count
as fixes. The summary after it (``[*] N fixable with the `--fix` option ...``) gives the totals."""
from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass
from typing import List, Sequence

from ..model.findings import Finding


@dataclass(frozen=True)
class CodeCount:
    code: str
    name: str
    count: int
    fixable_count: int  # findings with a fix this run's --fix would apply
    hidden_fix_count: int = 0  # findings with an unsafe fix only --unsafe-fixes would apply

    @property
    def fixable(self) -> bool:
        return self.fixable_count == self.count

    @property
    def marker(self) -> str:
        if self.fixable:
            return "[*]"
        if self.fixable_count:
            return "[~]"
        return "[-]" if self.hidden_fix_count else "[ ]"


def count_codes(findings: Sequence[Finding], unsafe: bool = False) -> List[CodeCount]:
    from .reporting import rule_name

    counts = Counter(f.code for f in findings)
    fixable = Counter(f.code for f in findings if f.fix is not None and (f.fix.safe or unsafe))
    hidden = Counter(f.code for f in findings if f.fix is not None and not (f.fix.safe or unsafe))
    # Most frequent first, then by code (ruff's order), so the noisiest rule heads the list.
    order = sorted(counts, key=lambda code: (-counts[code], code))
    return [CodeCount(code, rule_name(code), counts[code], fixable[code], hidden[code]) for code in order]


def render_statistics(rows: Sequence[CodeCount], output_format: str) -> str:
    if output_format in ("json", "json-lines"):
        return json.dumps([{"code": r.code, "name": r.name, "count": r.count, "fixable": r.fixable,
                            "fixable_count": r.fixable_count, "hidden_fix_count": r.hidden_fix_count}
                           for r in rows], indent=2) + "\n"
    if not rows:
        return ""
    width = max(len(str(r.count)) for r in rows)
    return "".join(f"{r.count:>{width}}\t{r.code}\t{r.marker} {r.name}\n" for r in rows)
