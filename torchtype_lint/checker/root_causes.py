"""One root cause, one report: the checker's policy between use-site errors and cause warnings.

A rule that reports a failing use of a value (a float64 tensor in a float32 layer) says which
root cause its report explains (``Report.explains``: the ``torch.from_numpy`` call that made
the value float64). A rule that warns about a root cause itself (TTL301 at the conversion)
marks its report ``cause_warning``. Then, in evaluation order:

- a root cause is reported at its first failing use only: torch stops at the first failure,
  and fixing the cause fixes every later use (other rules reporting that same use stay);
- a warning about a root cause goes when an error explains it, or when a rule found the code
  settled it (a later explicit ``.float()``: the dtype is the user's choice);
- an opt-in (TTL9xx) warning about a root cause goes when a default rule's warning about the
  same cause stays (TTL903 flags every float64 conversion, TTL301 the harmful ones: one is enough);
- a report goes when a rule it defers to (``Rule.defers_to``) reports the same node: one failure,
  told by the rule that names its cause (TTL523's torch.cat rather than TTL510's row counts).

The policy runs before ``# noqa`` is applied: a suppressed error still explains its cause.
"""
from __future__ import annotations

from typing import Any, Collection, Dict, List, Sequence

from ..rules.base import Report


def one_report_per_root_cause(reports: Sequence[Report], settled: Collection[Any]) -> List[Report]:
    """``reports`` (in the order they were made) less those the policy drops."""
    first_use: Dict[Any, Any] = {}  # root cause -> node of the first use that explained it
    kept: List[Report] = []
    by_node = {(report.code, id(report.node)) for report in reports}
    reports = [r for r in reports if not any((code, id(r.node)) in by_node for code in r.defers_to)]
    for report in reports:
        if report.explains is not None and not report.cause_warning:
            if first_use.setdefault(report.explains, report.node) is not report.node:
                continue  # this cause already has its one report, at its first failing use
        kept.append(report)
    kept = [r for r in kept
            if not (r.cause_warning and (r.explains in first_use or r.explains in settled))]
    # Causes a default rule's warning already names: an opt-in warning about them adds nothing.
    warned = {r.explains for r in kept if r.cause_warning and not _opt_in(r.code)}
    return [r for r in kept if not (r.cause_warning and _opt_in(r.code) and r.explains in warned)]


def _opt_in(code: str) -> bool:
    """TTL9xx rules are off unless selected (tests/test_docs.py holds every rule to it)."""
    return code.startswith("TTL9")
