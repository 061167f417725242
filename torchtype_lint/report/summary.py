"""The summary lines ``check`` prints on stderr after its report, in ruff's words.

A finding is counted once, whatever its fix: ``Found 1 finding.`` Then what fixing would do,
on its own line: ``[*] N fixable with the `--fix` option.``, with ``(M hidden fixes can be
enabled with the `--unsafe-fixes` option)`` when some fixes are unsafe, or ``No fixes available
(...)`` when every fix is. ``--diff`` and ``--fix-only`` do not list findings: they say what
would be, or was, fixed and how many fixes ``--unsafe-fixes`` would add. A "hidden" fix is an
unsafe fix of a finding left, when ``--unsafe-fixes`` is off.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, List

UNSAFE_OPTION = "`--unsafe-fixes`"


@dataclass(frozen=True)
class FixCounts:
    """Of some findings: how many have a fix this run would apply, how many an unsafe one it would not."""

    applicable: int
    hidden: int


def fix_counts(findings: Iterable, unsafe_fixes: bool) -> FixCounts:
    applicable = hidden = 0
    for finding in findings:
        if finding.fix is None:
            continue
        if finding.fix.safe or unsafe_fixes:
            applicable += 1
        else:
            hidden += 1
    return FixCounts(applicable, hidden)


def _plural(n: int, word: str, suffix: str = "s") -> str:
    return f"{n} {word}{'' if n == 1 else suffix}"


def found_lines(findings: list, unsafe_fixes: bool, fixing: bool) -> List[str]:
    """``Found N findings.`` and the fix hint after it (none when nothing is found). With
    ``fixing`` (``--fix`` ran) the fixes it could apply are not offered again."""
    if not findings:
        return []
    counts = fix_counts(findings, unsafe_fixes)
    applicable = 0 if fixing else counts.applicable
    lines = [f"Found {_plural(len(findings), 'finding')}."]
    hidden = f"{_plural(counts.hidden, 'hidden fix', 'es')} can be enabled with the {UNSAFE_OPTION} option"
    if applicable and counts.hidden:
        lines.append(f"[*] {applicable} fixable with the `--fix` option ({hidden}).")
    elif applicable:
        lines.append(f"[*] {applicable} fixable with the `--fix` option.")
    elif counts.hidden:
        lines.append(f"No fixes available ({hidden}).")
    return lines


def fixed_line(fixed: int, hidden: int, applied: bool) -> str:
    """What ``--fix-only`` (``applied``) or ``--diff`` did; empty when there is nothing to say."""
    verb = "Fixed" if applied else "Would fix"
    if not hidden:
        return f"{verb} {_plural(fixed, 'finding')}." if fixed else ""
    fix_word = "fix" if hidden == 1 else "fixes"
    if fixed:
        return f"{verb} {_plural(fixed, 'finding')} ({hidden} additional {fix_word} available with {UNSAFE_OPTION})."
    nothing = "No findings fixed" if applied else "No findings would be fixed"
    return f"{nothing} ({hidden} {fix_word} available with {UNSAFE_OPTION})."
