"""``check --statistics``: one line per rule code with its count, most frequent first (ruff's
layout: count, code, ``[*]`` when every one of them has a fix ``--fix`` would apply, the
rule's name), or the same as JSON with ``--output-format json``."""
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
    fixable: bool


def count_codes(findings: Sequence[Finding], unsafe: bool = False) -> List[CodeCount]:
    from .reporting import rule_name

    counts = Counter(f.code for f in findings)
    fixable = Counter(f.code for f in findings if f.fix is not None and (f.fix.safe or unsafe))
    # Most frequent first, then by code (ruff's order), so the noisiest rule heads the list.
    order = sorted(counts, key=lambda code: (-counts[code], code))
    return [CodeCount(code, rule_name(code), counts[code], fixable[code] == counts[code]) for code in order]


def render_statistics(rows: Sequence[CodeCount], output_format: str) -> str:
    if output_format in ("json", "json-lines"):
        return json.dumps([{"code": r.code, "name": r.name, "count": r.count, "fixable": r.fixable}
                           for r in rows], indent=2) + "\n"
    if not rows:
        return ""
    width = max(len(str(r.count)) for r in rows)
    return "".join(f"{r.count:>{width}}\t{r.code}\t{'[*]' if r.fixable else '[ ]'} {r.name}\n" for r in rows)
