"""Command line front end: ``torchtype-lint check|rule|explain|...``. Thin: it calls ``check``.

Exit codes follow ruff: 0 no findings, 1 findings, 2 usage, configuration or internal error.

Subcommands live in one table, ``COMMANDS``: a name, a help line, a function adding the
command's arguments, and the function running it (``"module:function"``, imported only when
that command runs, so ``check`` never pays for the language server or the torch harness).
To add a subcommand, add a row. To add an option to ``check``, add it in
``_configure_check`` and read it in ``run_check``; findings can be post-processed before they
are reported by appending to ``FINDING_HOOKS``.
"""
from __future__ import annotations

import argparse
import importlib
import importlib.util
import os
import sys
from dataclasses import dataclass
from typing import Callable, Dict, List, Optional, Sequence

from . import __version__
from .settings import DEFAULT_TIME_BUDGET

EXIT_CLEAN, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2


class UsageError(Exception):
    """A problem with the command line or the configuration: printed, exit code 2."""


def _csv(values: Optional[List[str]]) -> List[str]:
    out: List[str] = []
    for v in values or []:
        out.extend(p.strip() for p in v.split(",") if p.strip())
    return out


# --------------------------------------------------------------------------- the command table


@dataclass(frozen=True)
class Command:
    help: str
    configure: Callable[[argparse.ArgumentParser], None]
    #: ``"module:function"``; the function takes the parsed arguments and returns the exit code.
    run: str
    #: Hide the command when this module is not installed (optional front ends).
    requires_module: Optional[str] = None

    def available(self) -> bool:
        return self.requires_module is None or importlib.util.find_spec(self.requires_module) is not None


def _configure_check(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("paths", nargs="*", default=["."], help="files or directories (default: .); - reads stdin")
    sel = parser.add_argument_group("rule selection (codes or prefixes, comma separated)")
    sel.add_argument("--select", action="append", help="rules to enable, replacing the configured set (default: TTL)")
    sel.add_argument("--extend-select", action="append", help="rules to enable in addition")
    sel.add_argument("--ignore", action="append", help="rules to disable")
    files = parser.add_argument_group("files")
    files.add_argument("--exclude", action="append", help="extra glob patterns of paths to skip")
    files.add_argument("--stdin-filename", help="read the source from stdin, report it under this name")
    files.add_argument("--force-exclude", action="store_true",
                       help="apply excludes to files named on the command line too (for pre-commit)")
    files.add_argument("--no-respect-gitignore", dest="respect_gitignore", action="store_false",
                       help="also check files that .gitignore ignores")
    files.add_argument("--config", help="read this pyproject.toml instead of the closest one")
    files.add_argument("--isolated", action="store_true", help="ignore all configuration files")
    out = parser.add_argument_group("output")
    out.add_argument("--output-format", default=None,
                     help="concise (default), full, json, json-lines, github or sarif")
    out.add_argument("--exit-zero", action="store_true", help="exit 0 even when there are findings")
    from .harness.commands import add_check_options  # adds --confirm; torch is imported only when used

    add_check_options(out)
    fix = parser.add_argument_group("fixes")
    fix.add_argument("--fix", action="store_true", help="apply safe fixes in place")
    fix.add_argument("--unsafe-fixes", action="store_true", help="also apply (with --fix/--diff) fixes marked unsafe")
    fix.add_argument("--diff", action="store_true", help="print the fixes as a unified diff, change nothing")
    fix.add_argument("--exit-non-zero-on-fix", action="store_true",
                     help="exit 1 when fixes were applied, even if nothing is left")
    parser.add_argument("--time-budget", type=float, default=DEFAULT_TIME_BUDGET,
                        help="wall seconds per file, parsing included, before TTL000 "
                             f"(default {DEFAULT_TIME_BUDGET:g}; the file's worker is killed "
                             "if it has not stopped soon after)")
    perf = parser.add_argument_group("performance")
    perf.add_argument("-j", "--jobs", type=int, default=None,
                      help="worker processes (default: one per core; 1 analyses in this process)")
    perf.add_argument("--no-cache", action="store_true", help="neither read nor write the findings cache")
    perf.add_argument("--cache-dir", default=None,
                      help="findings cache directory (default: $TORCHTYPE_LINT_CACHE_DIR or .torchtype_lint_cache)")


def _configure_rule(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("code", nargs="?", help="rule code, e.g. TTL101, or a prefix (TTL5) to list a family")
    parser.add_argument("--all", action="store_true", help="list every rule")


def _configure_explain(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("path")


def _configure_nothing(parser: argparse.ArgumentParser) -> None:
    pass


def _configure_confirm(parser: argparse.ArgumentParser) -> None:
    from .harness.commands import configure_confirm

    configure_confirm(parser)


COMMANDS: Dict[str, Command] = {
    "check": Command("lint files and directories", _configure_check, "torchtype_lint.cli:run_check"),
    "rule": Command("show the documentation of a rule", _configure_rule, "torchtype_lint.cli:run_rule"),
    "explain": Command("show the inferred value of every assignment", _configure_explain,
                       "torchtype_lint.cli:run_explain"),
    # Language server on stdio (frontends/lsp.py provides ``main(args) -> int``).
    "lsp": Command("run the language server on stdio", _configure_nothing,
                   "torchtype_lint.frontends.lsp:main", requires_module="torchtype_lint.frontends.lsp"),
    # Runtime harness: runs the rule fixtures with the installed torch (harness/commands.py).
    "confirm": Command("check every rule's runtime claim against the installed torch",
                       _configure_confirm, "torchtype_lint.harness.commands:run_confirm"),
}


def _confirm_hook(findings: list, args: argparse.Namespace) -> None:
    if getattr(args, "confirm", False):
        from .harness.commands import confirm_hook

        confirm_hook(findings, args)


#: Called as ``hook(findings, args)`` after checking and before reporting (e.g. ``--confirm``).
FINDING_HOOKS: List[Callable[[list, argparse.Namespace], None]] = [_confirm_hook]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="torchtype-lint",
        description="Static analyzer for PyTorch dtype and shape bugs.",
    )
    parser.add_argument("--version", action="version", version=f"torchtype-lint {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, command in COMMANDS.items():
        if command.available():
            command.configure(sub.add_parser(name, help=command.help, description=command.help))
    return parser


def _resolve(target: str) -> Callable[[argparse.Namespace], int]:
    module_name, _, function = target.partition(":")
    return getattr(importlib.import_module(module_name), function)


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # argparse already printed the problem
        return EXIT_CLEAN if exc.code in (0, None) else EXIT_ERROR
    if not args.command:
        parser.print_help(sys.stderr)
        return EXIT_ERROR
    try:
        return _resolve(COMMANDS[args.command].run)(args)
    except UsageError as exc:
        print(f"torchtype-lint: error: {exc}", file=sys.stderr)
        return EXIT_ERROR
    except BrokenPipeError:
        return EXIT_CLEAN
    except KeyboardInterrupt:
        return EXIT_ERROR
    except Exception as exc:  # noqa: BLE001 - a crash of the tool is exit 2, never "findings" (1)
        if os.environ.get("TORCHTYPE_LINT_DEBUG"):
            import traceback

            traceback.print_exc()
        message = " ".join(str(exc).split())
        print(f"torchtype-lint: internal error: {type(exc).__name__}: {message} "
              "(set TORCHTYPE_LINT_DEBUG=1 for the traceback, and please report it)", file=sys.stderr)
        return EXIT_ERROR


# --------------------------------------------------------------------------- check


def run_check(args: argparse.Namespace) -> int:
    from .config import ConfigError
    from .selection import SelectionError

    try:
        return _check(args)
    except (SelectionError, ConfigError) as exc:
        raise UsageError(str(exc)) from None


def _check(args: argparse.Namespace) -> int:
    plan = _plan(args)
    _output_format(args)  # reject a bad --output-format before doing the work
    results = []
    if args.stdin_filename or args.paths == ["-"]:
        from .runner import check_bytes_bounded

        name = args.stdin_filename or "-"
        settings = plan.settings_for(name)
        results.append(check_bytes_bounded(sys.stdin.buffer.read(), name, settings))
    else:
        from .runner import make_cache, run_files

        for settings, files in plan.groups(args.paths):
            cache = make_cache(settings, args.cache_dir, enabled=not args.no_cache)
            results.extend(run_files(files, settings, jobs=args.jobs, cache=cache))
    findings = sorted((f for r in results for f in r.findings), key=lambda f: f.sort_key())
    findings = plan.apply_per_file_ignores(findings)
    for hook in FINDING_HOOKS:
        hook(findings, args)
    if args.fix or args.diff:
        return _run_fixes(args, plan, results, findings)
    return _report(args, findings, {r.path: r.source for r in results if r.source is not None}, fixed=0)


def _plan(args: argparse.Namespace):  # noqa: ANN202 - config.RunPlan, imported lazily
    from .config import RunPlan

    return RunPlan.from_args(
        select=_csv(args.select) if args.select else None,
        extend_select=_csv(args.extend_select),
        ignore=_csv(args.ignore),
        exclude=_csv(args.exclude),
        config_path=args.config,
        isolated=args.isolated,
        force_exclude=args.force_exclude,
        respect_gitignore=args.respect_gitignore,
        time_budget=args.time_budget,
    )


def _output_format(args: argparse.Namespace) -> str:
    from .reporting import FORMATTERS

    name = (args.output_format or "concise").lower()
    if name not in FORMATTERS:
        raise UsageError(f"--output-format: unknown format {args.output_format!r} "
                         f"(choose from {', '.join(FORMATTERS)})")
    return name


def _report(args: argparse.Namespace, findings: list, sources: Dict[str, str], fixed: int) -> int:
    from .reporting import render

    text = render(_output_format(args), findings, sources)
    sys.stdout.write(text)
    sys.stdout.flush()
    n = len(findings)
    if n:
        safe = sum(1 for f in findings if f.fix is not None and f.fix.safe)
        unsafe = sum(1 for f in findings if f.fix is not None and not f.fix.safe)
        hints = []
        if safe and not args.fix:
            hints.append(f"{safe} fixable with --fix")
        if unsafe and not args.unsafe_fixes:
            hints.append(f"{unsafe} more with --unsafe-fixes")
        extra = f" ({', '.join(hints)})" if hints else ""
        print(f"Found {n} finding{'s' if n != 1 else ''}{extra}.", file=sys.stderr)
    if fixed:
        print(f"Fixed {fixed} finding{'s' if fixed != 1 else ''}.", file=sys.stderr)
    if args.exit_zero:
        return EXIT_CLEAN
    if n or (fixed and args.exit_non_zero_on_fix):
        return EXIT_FINDINGS
    return EXIT_CLEAN


def _run_fixes(args: argparse.Namespace, plan, results: list, findings: list) -> int:  # noqa: ANN001
    from .fix import fix_file_bounded

    sources = {r.path: r.source for r in results if r.source is not None}
    fixable_paths = sorted({f.path for f in findings if f.fix is not None})
    if args.stdin_filename or args.paths == ["-"]:
        fixable_paths = []  # stdin has no file to write back
    remaining = [f for f in findings if f.path not in fixable_paths]
    fixed = 0
    diffs: List[str] = []
    for path in fixable_paths:
        outcome = fix_file_bounded(path, plan.settings_for(path), unsafe=args.unsafe_fixes,
                           write=not args.diff, postprocess=plan.apply_per_file_ignores)
        fixed += outcome.fixed
        remaining.extend(outcome.remaining)
        if outcome.error and not any(f.code == "TTL001" and f.path == path for f in outcome.remaining):
            # TTL001 deselected: like ruff with E902 off, say it on stderr rather than nowhere.
            print(f"torchtype-lint: warning: {path}: {outcome.error}", file=sys.stderr)
        if outcome.new_source is not None:
            sources[path] = outcome.new_source
        if args.diff and outcome.diff:
            diffs.append(outcome.diff)
    if args.diff:
        sys.stdout.write("".join(diffs))
        if fixed:
            print(f"Would fix {fixed} finding{'s' if fixed != 1 else ''}.", file=sys.stderr)
        # Like ruff: with --diff, exit 1 when there is something to change.
        return EXIT_FINDINGS if fixed and not args.exit_zero else EXIT_CLEAN
    remaining.sort(key=lambda f: f.sort_key())
    return _report(args, remaining, sources, fixed)


# --------------------------------------------------------------------------- rule, explain


def run_rule(args: argparse.Namespace) -> int:
    from .rules.base import all_rules, get_rule

    code = (args.code or "").upper()
    rule = get_rule(code) if code and not args.all else None
    if rule is not None:
        print(rule.documentation(), end="")
        return EXIT_CLEAN
    # No code: every rule; a family prefix (`rule TTL5`): its rules, one line each.
    rules = [r for r in all_rules() if args.all or r.code.startswith(code)]
    if not rules:
        raise UsageError(f"unknown rule {args.code!r} (see `torchtype-lint rule --all`)")
    width = max(len(r.name) for r in rules)
    for r in rules:
        flag = "" if r.default_enabled or "opt-in" in r.summary else " (opt-in)"
        print(f"{r.code}  {r.name:<{width}}  {r.summary}{flag}")
    return EXIT_CLEAN


def run_explain(args: argparse.Namespace) -> int:
    from .explain import ExplainError, explain_path

    try:
        text = explain_path(args.path)
    except ExplainError as exc:  # a missing or unreadable file, a FIFO: an error (2), not "explained" (0)
        raise UsageError(str(exc)) from None
    print(text, end="")
    return EXIT_CLEAN


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
