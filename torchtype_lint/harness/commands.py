"""Command-line glue for the harness: the ``confirm`` subcommand and ``check --confirm``.

``cli.py`` refers to these by name, so neither torch nor the harness is imported unless one
of them is used.
"""
from __future__ import annotations

import argparse
import sys
from collections import OrderedDict
from typing import Any, Dict, List


def configure_confirm(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--device", choices=("cpu", "cuda", "all"), default="all",
                        help="where to run the fixtures (default: all; absent devices are skipped)")
    parser.add_argument("--rule", action="append", metavar="CODE",
                        help="only these rules (repeatable, or comma-separated)")
    parser.add_argument("--record", action="store_true",
                        help="write torch's messages to torchtype_lint/data/confirmations.json")
    parser.add_argument("--fixtures", help="fixtures directory (default: the repository's fixtures/)")
    parser.add_argument("--no-lint", action="store_true", help="skip the linter-vs-torch comparison")
    parser.add_argument("--json", metavar="PATH",
                        help="also write every fixture's verdict per device (and the GPU) to PATH")


def run_confirm(args: argparse.Namespace) -> int:
    from .confirm import run_command

    return run_command(args)


def add_check_options(parser: Any) -> None:
    parser.add_argument("--confirm", action="store_true",
                        help="reproduce each finding's operation in torch (CPU, and CUDA where "
                             "present) and attach torch's message; needs torch, never runs your code")
    parser.add_argument("--save-reproductions", metavar="DIR", action=_SaveReproductions,
                        help="also write each reproduction to DIR as a script (implies --confirm)")


class _SaveReproductions(argparse.Action):
    """``--save-reproductions DIR`` means confirming too: there is nothing to save otherwise."""

    def __call__(self, parser: Any, namespace: Any, values: Any, option_string: Any = None) -> None:
        setattr(namespace, self.dest, values)
        namespace.confirm = True


def confirm_hook(findings: List[Any], args: argparse.Namespace) -> None:
    """``check --confirm``: attach what torch does to each finding, in place.

    The lint result (which findings, exit code) never changes; without torch the user is told
    so on stderr."""
    if not getattr(args, "confirm", False) or not findings:
        return
    from .pool import TorchMissing, torch_installed

    if not torch_installed():
        print("torchtype-lint: --confirm needs torch, which is not installed in this environment; "
              "findings are reported unconfirmed", file=sys.stderr)
        return
    by_path: Dict[str, List[Any]] = OrderedDict()
    for finding in findings:
        by_path.setdefault(finding.path, []).append(finding)
    files = []
    positions: Dict[int, Any] = {}
    for path, items in by_path.items():
        # Code read from stdin is gone by now, and the file on disk may differ from it.
        source = None if getattr(args, "stdin_filename", None) == path else _read(path)
        if source is not None and path.endswith(".ipynb"):
            source = _notebook_text(source, items, positions)
        if source is None:
            for finding in items:
                finding.confirmations.append("not confirmed: the source is not available to rebuild "
                                             "the operation (stdin or unreadable file)")
            continue
        files.append((source, items))
    from .reproduce import confirm_findings

    try:
        stats = confirm_findings(files, devices=("cpu", "cuda"),
                                 locate=lambda f: positions.get(id(f), (f.line, f.column)),
                                 save_to=getattr(args, "save_reproductions", None))
    except TorchMissing as exc:
        print(f"torchtype-lint: --confirm: {exc}", file=sys.stderr)
        return
    except Exception as exc:  # noqa: BLE001 - confirming is extra; the lint result must stand
        print(f"torchtype-lint: --confirm failed ({type(exc).__name__}: {exc}); "
              "findings are reported unconfirmed", file=sys.stderr)
        return
    where = ", ".join(f"{d}" + ("" if ok else " (absent, skipped)") for d, ok in stats["devices"].items())
    n = stats["reproductions"]
    print(f"Confirmed with torch on {where or 'no device'}: {n} reproduction{'s' if n != 1 else ''} "
          f"in {stats['seconds']:.1f}s.", file=sys.stderr)


def _notebook_text(raw: str, findings: List[Any], positions: Dict[int, Any]) -> Any:
    """The notebook's code cells as the one program the linter analysed; each finding's
    position in that text goes to ``positions`` (findings count lines within their cell)."""
    from ..source.notebook import parse_notebook

    try:
        notebook = parse_notebook(raw)
        text = notebook.joined()
    except Exception:  # noqa: BLE001 - an unreadable notebook just stays unconfirmed
        return None
    first_lines = {cell.number: cell.first_line for cell in notebook.cells}
    for finding in findings:
        first = first_lines.get(getattr(finding, "cell", 0))
        if first is not None:
            positions[id(finding)] = (first + finding.line - 1, finding.column)
    return text


def _read(path: str) -> Any:
    from ..checker.check import DecodeError, decode_source

    try:
        with open(path, "rb") as handle:
            return decode_source(handle.read())
    except (OSError, DecodeError):
        return None
