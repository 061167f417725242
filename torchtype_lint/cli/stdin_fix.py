"""``check --fix -`` and ``check --diff -``: fixing source read from stdin.

Like ruff: ``--fix`` prints the fixed source on stdout (the findings left go to stderr as a
count), ``--diff`` prints a unified diff and exits 1 when there is something to fix. The
fixing runs in a killable child, like every analysis.
"""
from __future__ import annotations

import argparse
from typing import Any, Callable, List, Tuple

from .main import EXIT_CLEAN, EXIT_FINDINGS


def fix_stdin(args: argparse.Namespace, plan: Any, data: bytes, name: str, console: Any) -> int:
    from ..run.bounded import BoundExceeded, call_bounded
    from ..run.cache import finding_from_dict
    from ..checker.check import warm_up
    from ..edit.fix import MAX_ROUNDS
    from ..edit.policy import FixPostprocess
    from ..report.summary import fix_counts, fixed_line, found_lines
    from ..run.runner import hard_deadline

    settings = plan.settings_for(name)
    warm_up()
    try:
        source, new_source, fixed, dicts = call_bounded(
            _fix_text, data, name, settings, args.unsafe_fixes, FixPostprocess(plan, args.fixable_policy),
            seconds=hard_deadline(settings) * MAX_ROUNDS)
    except BoundExceeded as exc:
        console.warn(f"{name}: not fixed: {exc}")
        if not args.diff:
            console.report(data.decode("utf-8", errors="replace"))  # the input, unchanged, as ruff does
        return EXIT_FINDINGS
    remaining = [finding_from_dict(d, name) for d in dicts]
    if args.diff:
        from ..edit.fix import unified_diff

        if source is not None and new_source != source:
            console.report(unified_diff(source, new_source, name))
        would = fixed_line(fixed, fix_counts(remaining, args.unsafe_fixes).hidden, applied=False)
        if would:
            console.summary(would)
        return EXIT_FINDINGS if fixed and not args.exit_zero else EXIT_CLEAN
    # The fixed source is the output (a formatter pipe: `... | torchtype-lint check --fix - > f.py`).
    console.report(new_source if new_source is not None else data.decode("utf-8", errors="replace"))
    left = [] if args.fix_only else remaining
    if left:
        console.summary(f"Found {len(left)} finding{'s' if len(left) != 1 else ''} left after fixing "
                        f"(run without --fix to see them).")
        for hint in found_lines(left, args.unsafe_fixes, fixing=True)[1:]:  # the fixes --unsafe-fixes adds
            console.summary(hint)
    done = fixed_line(fixed, fix_counts(remaining, args.unsafe_fixes).hidden if args.fix_only else 0, applied=True)
    if done:
        console.summary(done)
    if args.exit_zero:
        return EXIT_CLEAN
    return EXIT_FINDINGS if left or (fixed and args.exit_non_zero_on_fix) else EXIT_CLEAN


def _fix_text(data: bytes, name: str, settings: Any, unsafe: bool,
              postprocess: Callable[[list], list]) -> Tuple[Any, Any, int, List[dict]]:
    """(source, fixed source, fixes applied, remaining findings as dicts); the sources are None
    when the input cannot be decoded (its TTL001 is among the findings)."""
    from ..run.cache import finding_to_dict
    from ..checker.check import DecodeError, check_bytes, decode_source
    from ..edit.fix import fix_source

    try:
        source = decode_source(data)
    except DecodeError:
        return None, None, 0, [finding_to_dict(f) for f in postprocess(check_bytes(data, name, settings).findings)]
    new_source, fixed, remaining = fix_source(source, name, settings, unsafe, postprocess)
    return source, new_source, fixed, [finding_to_dict(f) for f in remaining]
