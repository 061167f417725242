"""Which rule codes are on: --select / --extend-select / --ignore by code prefix (ruff semantics).

The most specific matching prefix wins: ``--select TTL --ignore TTL1 --extend-select TTL101``
enables TTL101 but no other TTL1xx rule. Opt-in rules (TTL9xx) need an explicit prefix at
least as long as ``TTL9``.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import List, Sequence

from .rule_codes import is_known_prefix

CODE_PREFIX = re.compile(r"^(ALL|TTL[0-9]{0,3})$")


class SelectionError(ValueError):
    pass


def validate_prefixes(prefixes: Sequence[str], option: str) -> List[str]:
    out = []
    for prefix in prefixes:
        p = prefix.strip().upper()
        if not p:
            continue
        if not CODE_PREFIX.match(p):
            raise SelectionError(f"{option}: {prefix!r} is not a rule code or prefix (expected e.g. TTL, TTL1, TTL101)")
        p = "TTL" if p == "ALL" else p
        if not is_known_prefix(p):
            # Like ruff: a code no rule has is a mistake to report, not a selection of nothing.
            raise SelectionError(f"{option}: unknown rule code or prefix {prefix!r}: no rule starts with it "
                                 "(see `torchtype-lint rule --all`)")
        out.append(p)
    return out


@dataclass
class Selection:
    select: List[str] = field(default_factory=lambda: ["TTL"])
    extend_select: List[str] = field(default_factory=list)
    ignore: List[str] = field(default_factory=list)

    def is_enabled(self, code: str, default_enabled: bool = True) -> bool:
        best_on = _longest(code, self.select + self.extend_select)
        best_off = _longest(code, self.ignore)
        if best_on < 0 or best_off >= best_on and best_off >= 0:
            return False
        if not default_enabled and best_on < 4:
            return False  # TTL9xx only when selected as TTL9, TTL90, ... explicitly
        return True


def _longest(code: str, prefixes: Sequence[str]) -> int:
    best = -1
    for p in prefixes:
        if code.startswith(p) and len(p) > best:
            best = len(p)
    return best
