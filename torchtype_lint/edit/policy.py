"""Which fixes a run applies: ``--fixable``/``--unfixable`` and the per-file ignores, applied to each
round's findings by ``fix.py`` (the CLI builds the policy from its options)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Tuple


@dataclass(frozen=True)
class FixPolicy:
    """--fixable / --unfixable: which codes' fixes may be applied (ruff semantics: a code is
    fixable when the most specific matching prefix is in --fixable, default every code)."""

    fixable: Tuple[str, ...] = ("TTL",)
    unfixable: Tuple[str, ...] = ()

    def allows(self, code: str) -> bool:
        from ..model.selection import Selection

        return Selection(select=list(self.fixable), ignore=list(self.unfixable)).is_enabled(code, True)

    def __call__(self, findings: list) -> list:
        for finding in findings:
            if finding.fix is not None and not self.allows(finding.code):
                finding.fix = None
        return findings


@dataclass(frozen=True)
class FixPostprocess:
    """What fix.py applies to each round's findings: per-file ignores, then the fix policy."""

    plan: object
    policy: FixPolicy

    def __call__(self, findings: list) -> list:
        return self.policy(self.plan.apply_per_file_ignores(findings))  # type: ignore[attr-defined]
