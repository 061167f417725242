"""``torchtype-lint check``: from parsed options to findings reported and an exit code.

The options are declared in ``cli._configure_check``; this module runs them, with ruff's
semantics where ruff has the option. Output goes through one ``Console``: the report to
stdout or ``--output-file``, summaries and warnings to stderr; ``--quiet`` keeps only the
report, ``--silent`` nothing (the exit code still tells), ``--verbose`` adds what was read and
how long it took.
"""
from __future__ import annotations

import argparse
import sys
import time
from collections import Counter
from typing import Dict, List, Optional

from .main import EXIT_CLEAN, EXIT_FINDINGS, FINDING_HOOKS, UsageError, csv_values
from ..edit.policy import FixPolicy, FixPostprocess
from .show import NO_FILES_WARNING
from ..report.color import green, paint_findings, wants_color
from ..report.printable import printable



class Console:
    """Where each kind of output goes for one run."""

    def __init__(self, args: argparse.Namespace):
        self.quiet, self.silent, self.verbose = args.quiet or args.silent, args.silent, args.verbose
        self.output_file: Optional[str] = args.output_file
        self.color = wants_color(args.color, None if self.output_file else sys.stdout)
        self.stderr_color = wants_color(args.color, sys.stderr)

    def report(self, text: str) -> None:
        """Findings, diffs, fixed source: stdout, or the --output-file (no colour there)."""
        if self.silent:
            return
        if self.output_file is not None:
            with self._open_output("w") as handle:
                handle.write(text)
            return
        sys.stdout.write(paint_findings(text) if self.color else text)
        sys.stdout.flush()

    def check_output_file(self) -> None:
        """Fail now, before any file is checked, when the --output-file cannot be written."""
        if self.output_file is not None:
            self._open_output("a").close()  # "a": a report already there stays until the new one is written

    def _open_output(self, mode: str):  # noqa: ANN202 - a text file
        try:
            return open(self.output_file, mode, encoding="utf-8")  # type: ignore[arg-type]
        except OSError as exc:  # a missing directory, a directory, no permission: the user's to fix
            raise UsageError(f"--output-file: cannot write {self.output_file}: {exc.strerror or exc}") from None

    def summary(self, text: str, success: bool = False) -> None:
        if not self.quiet:
            print(green(text) if success and self.stderr_color else text, file=sys.stderr)

    def warn(self, text: str) -> None:
        if not self.quiet:
            # One line, whatever a file name or an error in it holds (printable.py).
            print(f"torchtype-lint: warning: {printable(text)}", file=sys.stderr)

    def debug(self, text: str) -> None:
        if self.verbose and not self.silent:
            print(f"torchtype-lint: verbose: {printable(text)}", file=sys.stderr)


def run_check(args: argparse.Namespace) -> int:
    from ..run.config import ConfigError
    from ..model.selection import SelectionError

    try:
        args.fixable_policy = _fix_policy(args)
        plan = _plan(args)
        _output_format(args)  # reject a bad --output-format before doing the work
        _reject_conflicts(args)
        console = Console(args)
        console.check_output_file()
        if args.show_settings or args.show_files:
            from .show import show_files, show_settings

            console.report((show_settings if args.show_settings else show_files)(plan, args))
            return EXIT_CLEAN
        if args.watch:
            from .watch import WatchUnavailable, watch

            try:
                return watch(args.paths, lambda: _check_once(args, plan, console), console.summary)
            except WatchUnavailable as exc:
                raise UsageError(str(exc)) from None
        return _check_once(args, plan, console)
    except (SelectionError, ConfigError) as exc:
        raise UsageError(str(exc)) from None


def _reading_stdin(args: argparse.Namespace) -> bool:
    return bool(args.stdin_filename) or args.paths == ["-"]


def _reject_conflicts(args: argparse.Namespace) -> None:
    if args.fix_only:
        args.fix = True  # like ruff: --fix-only implies --fix
    if _reading_stdin(args) and (args.watch or args.add_noqa):
        raise UsageError(f"{'--watch' if args.watch else '--add-noqa'} needs files, not stdin")
    if args.add_noqa and (args.fix or args.diff):
        raise UsageError("--add-noqa cannot be combined with --fix or --diff")


def _check_once(args: argparse.Namespace, plan, console: Console) -> int:  # noqa: ANN001 - config.RunPlan
    started = time.monotonic()
    results = []
    if _reading_stdin(args):
        from ..source.reading import read_stream
        from ..run.runner import check_bytes_bounded, read_error_result

        name = args.stdin_filename or "-"
        try:
            data = read_stream(sys.stdin.buffer)  # at most the file cap, the rest left unread
        except OSError as exc:
            if args.fix or args.diff:
                # Echoing the input unchanged (as for an unfixable file) would mean buffering all of it.
                raise UsageError(f"{name}: not fixed: {exc.strerror or exc}; nothing was written to stdout") from None
            results.append(read_error_result(name, exc, plan.settings_for(name)))
        else:
            if args.fix or args.diff:
                from .stdin_fix import fix_stdin

                return fix_stdin(args, plan, data, name, console)
            results.append(check_bytes_bounded(data, name, plan.settings_for(name)))
    else:
        results = _run_files(args, plan, console)
        if not results:
            console.warn(NO_FILES_WARNING)
            return EXIT_CLEAN
    findings = sorted((f for r in results for f in r.findings), key=lambda f: f.sort_key())
    findings = args.fixable_policy(plan.apply_per_file_ignores(findings))
    for hook in FINDING_HOOKS:
        hook(findings, args)
    console.debug(f"checked {len(results)} file{'s' if len(results) != 1 else ''} "
                  f"in {time.monotonic() - started:.2f}s")
    if args.add_noqa:
        return _add_noqa(findings, console)
    if args.fix or args.diff:
        return _run_fixes(args, plan, results, findings, console)
    return _report(args, findings, {r.path: r.source for r in results if r.source is not None}, console)


def _run_files(args: argparse.Namespace, plan, console: Console) -> list:  # noqa: ANN001
    from ..report.progress import Progress
    from ..run.runner import make_cache, run_files

    groups = plan.groups(args.paths)
    total = sum(len(files) for _, files in groups)
    progress = Progress(total, enabled=not console.quiet)
    results = []
    warned = set()

    def warn_once(text: str) -> None:  # each settings group makes a cache: one warning is enough
        if text not in warned:
            warned.add(text)
            console.warn(text)

    try:
        for settings, files in groups:
            config = plan.config_for(files[0])
            console.debug(f"{len(files)} file{'s' if len(files) != 1 else ''} configured by "
                          f"{config.path if config is not None and config.path else 'no configuration file'}")
            cache = make_cache(settings, args.cache_dir, enabled=not args.no_cache, warn=warn_once)
            results.extend(run_files(files, settings, jobs=args.jobs, cache=cache,
                                     on_result=lambda r: progress.advance(len(r.findings))))
    finally:
        progress.close()
    return results


def _plan(args: argparse.Namespace):  # noqa: ANN202 - config.RunPlan, imported lazily
    from ..run.config import RunPlan

    return RunPlan.from_args(
        select=csv_values(args.select) if args.select else None,
        extend_select=csv_values(args.extend_select),
        ignore=csv_values(args.ignore),
        exclude=csv_values(args.exclude) + csv_values(args.extend_exclude),
        config_path=args.config,
        isolated=args.isolated,
        force_exclude=args.force_exclude,
        respect_gitignore=args.respect_gitignore,
        time_budget=args.time_budget,
        per_file_ignores=args.per_file_ignores,
    )


def _output_format(args: argparse.Namespace) -> str:
    from ..report.reporting import FORMATTERS

    name = (args.output_format or "concise").lower()
    if name not in FORMATTERS:
        raise UsageError(f"--output-format: unknown format {args.output_format!r} "
                         f"(choose from {', '.join(FORMATTERS)})")
    return name


# --------------------------------------------------------------------------- fixable codes


def _fix_policy(args: argparse.Namespace) -> FixPolicy:
    from ..model.selection import validate_prefixes

    fixable = validate_prefixes(csv_values(args.fixable), "--fixable") if args.fixable else ["TTL"]
    return FixPolicy(tuple(fixable), tuple(validate_prefixes(csv_values(args.unfixable), "--unfixable")))


# --------------------------------------------------------------------------- report


def _report(args: argparse.Namespace, findings: list, sources: Dict[str, str], console: Console,
            fixed: int = 0, fixed_by_path: Optional[Dict[str, Counter]] = None) -> int:
    from ..report.reporting import render
    from ..report.summary import fix_counts, fixed_line, found_lines

    hidden = fix_counts(findings, args.unsafe_fixes).hidden  # the unsafe fixes left, for --fix-only
    if args.fix_only:
        findings = []  # like ruff: --fix-only reports what it fixed, not what is left
    if args.statistics:
        from ..report.statistics import count_codes, render_statistics

        console.report(render_statistics(count_codes(findings, args.unsafe_fixes), _output_format(args)))
    else:
        console.report(render(_output_format(args), findings, sources))
    n = len(findings)
    # ruff's summary: the findings counted once, then what --fix (and --unsafe-fixes) would do.
    for line in found_lines(findings, args.unsafe_fixes, fixing=args.fix):
        console.summary(line)
    done = fixed_line(fixed, hidden if args.fix_only else 0, applied=True)
    if done:
        console.summary(done[:-1] + ":" if args.show_fixes and fixed else done)
        if args.show_fixes and fixed_by_path:
            console.summary(_fixed_enumeration(fixed_by_path))
    elif not n and not args.fix_only:  # --fix-only with nothing fixed says nothing, like ruff
        console.summary("All checks passed!", success=True)
    if args.exit_zero:
        return EXIT_CLEAN
    if n or (fixed and args.exit_non_zero_on_fix):
        return EXIT_FINDINGS
    return EXIT_CLEAN


def _fixed_enumeration(fixed_by_path: Dict[str, Counter]) -> str:
    """ruff's --show-fixes layout: each file, then `count × CODE (name)` per fixed code."""
    from ..report.reporting import rule_name

    lines = []
    for path in sorted(fixed_by_path):
        lines.append(f"- {printable(path)}:")  # the summary is several lines: each name kept to one
        for code, count in sorted(fixed_by_path[path].items()):
            lines.append(f"    {count} × {code} ({rule_name(code)})")
    return "\n".join(lines)


def _run_fixes(args: argparse.Namespace, plan, results: list, findings: list,  # noqa: ANN001
               console: Console) -> int:
    from ..edit.fix import fix_file_bounded

    sources = {r.path: r.source for r in results if r.source is not None}
    fixable_paths = sorted({f.path for f in findings if f.fix is not None})
    remaining = [f for f in findings if f.path not in fixable_paths]
    fixed = 0
    fixed_by_path: Dict[str, Counter] = {}
    diffs: List[str] = []
    postprocess = FixPostprocess(plan, args.fixable_policy)
    for path in fixable_paths:
        outcome = fix_file_bounded(path, plan.settings_for(path), unsafe=args.unsafe_fixes,
                                   write=not args.diff, postprocess=postprocess)
        fixed += outcome.fixed
        remaining.extend(outcome.remaining)
        if outcome.fixed:
            # What went away, by code: the fixed findings (fix.py counts fixes, not codes).
            before = Counter(f.code for f in findings if f.path == path)
            gone = before - Counter(f.code for f in outcome.remaining)
            fixed_by_path[path] = gone or Counter()
        if outcome.error and not any(f.code == "TTL001" and f.path == path for f in outcome.remaining):
            # TTL001 deselected: like ruff with E902 off, say it on stderr rather than nowhere.
            console.warn(f"{path}: {outcome.error}")
        if outcome.new_source is not None:
            sources[path] = outcome.new_source
        if args.diff and outcome.diff:
            diffs.append(outcome.diff)
    if args.diff:
        console.report("".join(diffs))
        from ..report.summary import fix_counts, fixed_line

        # Like ruff: what would be fixed, and how many fixes --unsafe-fixes would add (said even
        # when there is no diff, so a run whose fixes are all unsafe is not silent).
        would = fixed_line(fixed, fix_counts(remaining, args.unsafe_fixes).hidden, applied=False)
        if would:
            console.summary(would)
        # Like ruff: with --diff, exit 1 when there is something to change.
        return EXIT_FINDINGS if fixed and not args.exit_zero else EXIT_CLEAN
    remaining.sort(key=lambda f: f.sort_key())
    return _report(args, remaining, sources, console, fixed, fixed_by_path)


# --------------------------------------------------------------------------- add-noqa


def _add_noqa(findings: list, console: Console) -> int:
    from ..edit.noqa_edit import add_noqa

    by_path: Dict[str, list] = {}
    for finding in findings:
        by_path.setdefault(finding.path, []).append(finding)
    added = skipped = 0
    for path, found in sorted(by_path.items()):
        if path.endswith(".ipynb"):
            console.warn(f"{path}: --add-noqa leaves notebooks as they are")
            continue
        for finding in found:
            if finding.code == "TTL001":  # unreadable (a link leaving the project...): said, like an unwritable file
                console.warn(f"{path}: {finding.message}")
        edit = add_noqa(path, found)
        added += edit.added
        skipped += edit.skipped
        if edit.error:
            console.warn(f"{path}: {edit.error}")
    console.summary(f"Added {added} noqa directive{'s' if added != 1 else ''}.")
    if skipped:
        console.warn(f"{skipped} finding{'s are' if skipped != 1 else ' is'} on lines that end inside a string or "
                     "with a backslash continuation, where a comment cannot go; left as they are")
    return EXIT_CLEAN
