"""Command line front end: ``torchtype-lint check|rule|explain``. Thin: it calls ``check``.

Exit codes follow ruff: 0 no findings, 1 findings, 2 usage or internal error.
"""
from __future__ import annotations

import argparse
import sys
from typing import List, Optional, Sequence

from . import __version__
from .check import Settings, check_bytes
from .runner import run_paths
from .selection import Selection, SelectionError, validate_prefixes

EXIT_CLEAN, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2


def _csv(values: Optional[List[str]]) -> List[str]:
    out: List[str] = []
    for v in values or []:
        out.extend(p for p in v.split(",") if p.strip())
    return out


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="torchtype-lint",
        description="Static analyzer for PyTorch dtype and shape bugs.",
    )
    parser.add_argument("--version", action="version", version=f"torchtype-lint {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    check = sub.add_parser("check", help="lint files and directories")
    check.add_argument("paths", nargs="*", default=["."], help="files or directories (default: .)")
    check.add_argument("--select", action="append", help="rule codes or prefixes to enable (default: TTL)")
    check.add_argument("--extend-select", action="append", help="codes or prefixes to enable in addition")
    check.add_argument("--ignore", action="append", help="codes or prefixes to disable")
    check.add_argument("--exclude", action="append", help="extra glob patterns of paths to skip")
    check.add_argument("--exit-zero", action="store_true", help="exit 0 even when there are findings")
    check.add_argument("--stdin-filename", help="read the source from stdin, report it under this name")
    check.add_argument("--time-budget", type=float, default=10.0, help="seconds per file before TTL000")

    rule = sub.add_parser("rule", help="show the documentation of a rule")
    rule.add_argument("code", nargs="?", help="rule code, e.g. TTL101")
    rule.add_argument("--all", action="store_true", help="list every rule")

    explain = sub.add_parser("explain", help="show the inferred value of every assignment")
    explain.add_argument("path")
    return parser


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:
        return EXIT_ERROR if exc.code not in (0, None) else EXIT_CLEAN
    try:
        if args.command == "check":
            return run_check(args)
        if args.command == "rule":
            return run_rule(args)
        if args.command == "explain":
            from .explain import explain_path

            print(explain_path(args.path), end="")
            return EXIT_CLEAN
        parser.print_help()
        return EXIT_ERROR
    except (SelectionError, ValueError) as exc:
        print(f"torchtype-lint: error: {exc}", file=sys.stderr)
        return EXIT_ERROR
    except BrokenPipeError:
        return EXIT_CLEAN


def settings_from_args(args: argparse.Namespace) -> Settings:
    select = validate_prefixes(_csv(args.select), "--select") if args.select else ["TTL"]
    selection = Selection(
        select=select,
        extend_select=validate_prefixes(_csv(args.extend_select), "--extend-select"),
        ignore=validate_prefixes(_csv(args.ignore), "--ignore"),
    )
    return Settings(selection=selection, time_budget=args.time_budget)


def run_check(args: argparse.Namespace) -> int:
    settings = settings_from_args(args)
    results = []
    if args.stdin_filename:
        results.append(check_bytes(sys.stdin.buffer.read(), args.stdin_filename, settings))
    else:
        results.extend(run_paths(args.paths, settings, _csv(args.exclude)))
    findings = sorted((f for r in results for f in r.findings), key=lambda f: f.sort_key())
    out = sys.stdout
    for f in findings:
        out.write(f.concise() + "\n")
    if findings:
        n = len(findings)
        print(f"Found {n} finding{'s' if n != 1 else ''}.", file=sys.stderr)
    if args.exit_zero:
        return EXIT_CLEAN
    return EXIT_FINDINGS if findings else EXIT_CLEAN


def run_rule(args: argparse.Namespace) -> int:
    from .rules.base import all_rules, get_rule

    if args.all or not args.code:
        for r in all_rules():
            flag = "" if r.default_enabled else " (opt-in)"
            print(f"{r.code}  {r.name:<28} {r.summary}{flag}")
        return EXIT_CLEAN
    rule = get_rule(args.code)
    if rule is None:
        print(f"torchtype-lint: error: unknown rule {args.code!r} (see `torchtype-lint rule --all`)",
              file=sys.stderr)
        return EXIT_ERROR
    print(rule.documentation(), end="")
    return EXIT_CLEAN


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
