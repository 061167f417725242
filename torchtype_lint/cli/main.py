"""Command line front end: ``torchtype-lint check|rule|explain|...``. Thin: it calls ``check``.

Exit codes follow ruff: 0 no findings, 1 findings, 2 usage, configuration or internal error.

Subcommands live in one table, ``COMMANDS``: a name, a help line, a function adding the
command's arguments, and the function running it (``"module:function"``, imported only when
that command runs, so ``check`` never pays for the language server or the torch harness).
To add a subcommand, add a row. To add an option to ``check``, add it in
``_configure_check`` and read it in ``check_command.py``; findings can be post-processed before they
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

from .. import __version__
from ..model.settings import DEFAULT_TIME_BUDGET, MAX_TIME_BUDGET
from ..run.gc_tuning import tune_collector

EXIT_CLEAN, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2


class UsageError(Exception):
    """A problem with the command line or the configuration: printed, exit code 2."""


def csv_values(values: Optional[List[str]]) -> List[str]:
    """Repeated options whose values are comma separated lists, as one list."""
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


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def _time_budget(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of seconds, got {text!r}") from None
    if not value > 0 or value == float("inf"):  # `not >`: NaN too
        raise argparse.ArgumentTypeError(f"must be a positive number of seconds, got {text}")
    if value > MAX_TIME_BUDGET:
        raise argparse.ArgumentTypeError(f"must be at most {MAX_TIME_BUDGET:g} seconds (a day), got {text}")
    return value


def _configure_check(parser: argparse.ArgumentParser) -> None:
    from ..report.color import CHOICES as COLOR_CHOICES

    parser.add_argument("paths", nargs="*", default=["."], help="files or directories (default: .); - reads stdin")
    sel = parser.add_argument_group("rule selection (codes or prefixes, comma separated)")
    sel.add_argument("--select", action="append", help="rules to enable, replacing the configured set (default: TTL)")
    sel.add_argument("--extend-select", action="append", help="rules to enable in addition")
    sel.add_argument("--ignore", action="append", help="rules to disable")
    sel.add_argument("--per-file-ignores", action="append", metavar="PATTERN:CODES",
                     help="rules to disable in files matching a glob, replacing the configured table "
                          "(e.g. 'tests/*:TTL101,TTL102')")
    files = parser.add_argument_group("files")
    files.add_argument("--exclude", action="append", help="extra glob patterns of paths to skip")
    files.add_argument("--extend-exclude", action="append",
                       help="more glob patterns of paths to skip, added to the configured ones")
    files.add_argument("--stdin-filename", help="read the source from stdin, report it under this name")
    files.add_argument("--force-exclude", action="store_true",
                       help="apply excludes to files named on the command line too (for pre-commit)")
    files.add_argument("--no-respect-gitignore", dest="respect_gitignore", action="store_false",
                       help="also check files that .gitignore ignores")
    files.add_argument("--config", help="read this pyproject.toml instead of the closest one")
    files.add_argument("--isolated", action="store_true", help="ignore all configuration files")
    files.add_argument("--show-files", action="store_true", help="list the files that would be checked, and exit")
    files.add_argument("--show-settings", action="store_true",
                       help="show the settings used for the first file that would be checked, and exit")
    files.add_argument("-w", "--watch", action="store_true",
                       help="check again whenever a file changes (needs torchtype-lint[watch])")
    out = parser.add_argument_group("output")
    out.add_argument("--output-format", default=None,
                     help="concise (default), full, json, json-lines, github or sarif")
    out.add_argument("-o", "--output-file", default=None, help="write the report to this file instead of stdout")
    out.add_argument("--statistics", action="store_true", help="count the findings of each rule instead")
    out.add_argument("--exit-zero", action="store_true", help="exit 0 even when there are findings")
    out.add_argument("--color", choices=COLOR_CHOICES, default="auto",
                     help="colour the output: auto (on a terminal, honouring NO_COLOR and FORCE_COLOR), always, never")
    out.add_argument("-q", "--quiet", action="store_true", help="print the findings and nothing else")
    out.add_argument("-s", "--silent", action="store_true",
                     help="print nothing (the exit code still says whether there are findings)")
    out.add_argument("-v", "--verbose", action="store_true",
                     help="also say which configuration applies and how long the run took")
    from ..harness.commands import add_check_options  # adds --confirm; torch is imported only when used

    add_check_options(out)
    fix = parser.add_argument_group("fixes")
    fix.add_argument("--fix", action="store_true", help="apply safe fixes in place")
    fix.add_argument("--unsafe-fixes", action="store_true", help="also apply (with --fix/--diff) fixes marked unsafe")
    fix.add_argument("--diff", action="store_true", help="print the fixes as a unified diff, change nothing")
    fix.add_argument("--fix-only", action="store_true",
                     help="apply fixes but do not report what is left (implies --fix)")
    fix.add_argument("--show-fixes", action="store_true", help="with --fix, list what was fixed, by file and rule")
    fix.add_argument("--fixable", action="append", help="rules whose fixes may be applied (default: all)")
    fix.add_argument("--unfixable", action="append", help="rules whose fixes are never applied")
    fix.add_argument("--exit-non-zero-on-fix", action="store_true",
                     help="exit 1 when fixes were applied, even if nothing is left")
    fix.add_argument("--add-noqa", action="store_true",
                     help="add a '# noqa: CODE' comment to the line of every finding")
    parser.add_argument("--time-budget", type=_time_budget, default=DEFAULT_TIME_BUDGET,
                        help="wall seconds per file, parsing included, before TTL000 "
                             f"(default {DEFAULT_TIME_BUDGET:g}, at most {MAX_TIME_BUDGET:g}; the file's worker "
                             "is killed if it has not stopped soon after)")
    perf = parser.add_argument_group("performance")
    perf.add_argument("-j", "--jobs", type=_positive_int, default=None,
                      help="worker processes, at least 1 (default: one per core; 1 analyses in this process)")
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
    from ..harness.commands import configure_confirm

    configure_confirm(parser)


COMMANDS: Dict[str, Command] = {
    "check": Command("lint files and directories", _configure_check, "torchtype_lint.cli.check_command:run_check"),
    "rule": Command("show the documentation of a rule", _configure_rule, "torchtype_lint.cli.main:run_rule"),
    "explain": Command("show the inferred value of every assignment", _configure_explain,
                       "torchtype_lint.cli.main:run_explain"),
    # Language server on stdio (frontends/lsp.py provides ``main(args) -> int``).
    "lsp": Command("run the language server on stdio", _configure_nothing,
                   "torchtype_lint.frontends.lsp:main", requires_module="torchtype_lint.frontends.lsp"),
    # Runtime harness: runs the rule fixtures with the installed torch (harness/commands.py).
    "confirm": Command("check every rule's runtime claim against the installed torch",
                       _configure_confirm, "torchtype_lint.harness.commands:run_confirm"),
}


def _confirm_hook(findings: list, args: argparse.Namespace) -> None:
    if getattr(args, "confirm", False):
        from ..harness.commands import confirm_hook

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
    #: Each command's own parser, so that a mistake in its options prints its usage.
    parser.command_parsers = {}  # type: ignore[attr-defined]
    for name, command in COMMANDS.items():
        if command.available():
            command_parser = sub.add_parser(name, help=command.help, description=command.help)
            command.configure(command_parser)
            parser.command_parsers[name] = command_parser  # type: ignore[attr-defined]
    return parser


def _resolve(target: str) -> Callable[[argparse.Namespace], int]:
    module_name, _, function = target.partition(":")
    return getattr(importlib.import_module(module_name), function)


def main(argv: Optional[Sequence[str]] = None) -> int:
    tune_collector()  # a process of our own: the workers and the language server's child inherit it
    parser = build_parser()
    try:
        args, unknown = parser.parse_known_args(argv)
        if unknown:
            # Reported by the command's parser (its usage, not the top-level one), as ruff does.
            owner = parser.command_parsers.get(getattr(args, "command", None), parser)  # type: ignore[attr-defined]
            owner.error(f"unrecognized arguments: {' '.join(unknown)}")
    except SystemExit as exc:  # argparse already printed the problem
        return EXIT_CLEAN if exc.code in (0, None) else EXIT_ERROR
    if not args.command:
        parser.print_help(sys.stderr)
        return EXIT_ERROR
    try:
        return _resolve(COMMANDS[args.command].run)(args)
    except UsageError as exc:
        from ..report.printable import printable  # a file name in the message stays on this one line

        print(f"torchtype-lint: error: {printable(str(exc))}", file=sys.stderr)
        return EXIT_ERROR
    except BrokenPipeError:
        return EXIT_CLEAN
    except KeyboardInterrupt:
        return EXIT_ERROR
    except Exception as exc:  # noqa: BLE001 - a crash of the tool is exit 2, never "findings" (1)
        if os.environ.get("TORCHTYPE_LINT_DEBUG"):
            import traceback

            traceback.print_exc()
        from ..report.printable import printable  # the message may quote input: one line, no escape sequence

        message = printable(" ".join(str(exc).split()))
        print(f"torchtype-lint: internal error: {type(exc).__name__}: {message} "
              "(set TORCHTYPE_LINT_DEBUG=1 for the traceback, and please report it)", file=sys.stderr)
        return EXIT_ERROR


# --------------------------------------------------------------------------- rule, explain


def run_rule(args: argparse.Namespace) -> int:
    from ..rules.base import all_rules, get_rule

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
