"""Applying fixes: ``check --fix``, ``--unsafe-fixes`` and ``--diff``.

A rule's ``Fix`` names a libcst node of the analysed module (``old``) and what replaces it
(``new``). We replace by node identity with a transformer, so the rest of the file (formatting,
comments, line endings) is untouched, then re-parse the result to make sure it is valid Python,
and check again: a fix can reveal or settle other findings, so we repeat until nothing changes
(at most ``MAX_ROUNDS``, like ruff). Overlapping fixes are applied one per round.

Writing back is careful with the user's file: the fixed bytes go to a temporary file in the same
directory that is renamed over the original (``os.replace``), so an interrupted run leaves the
old file or the new one, never half of each. Just before the rename the file is read again; if
its bytes are no longer those we analysed (an editor saved it meanwhile), nothing is written. A
file that cannot be written, or that changed, becomes a ``TTL001`` finding for that file only
(like ruff's ``E902``); the other files are still fixed and every finding is still reported.

A notebook's code cells are fixed as one program (``fix_notebook``); ``notebook.py`` joins them
and cuts the fixed text back into cells.
"""
from __future__ import annotations

import ast
import codecs
import difflib
import errno
import io
import os
import stat
import tempfile
import tokenize
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

import libcst as cst

from ..source.boundary import resolve_inside
from ..checker.check import DecodeError, Settings, check_path, check_source, decode_source, warm_up
from ..checker.notebooks import to_cell_findings
from ..model.findings import Finding, Location
from ..source.notebook import (
    NotebookError, dump_notebook, is_python_notebook, parse_notebook, set_cell_source, split_fixed,
)
from ..source.reading import read_source

MAX_ROUNDS = 10


@dataclass
class FixOutcome:
    path: str
    #: How many fixes were applied (or would be, with ``write=False``).
    fixed: int = 0
    #: Findings left after fixing, in the fixed file's coordinates.
    remaining: List[Finding] = field(default_factory=list)
    #: The fixed text (None when the file could not be read or decoded).
    new_source: Optional[str] = None
    diff: str = ""
    #: Why the fixes were not written (unwritable file, changed meanwhile); None when they were.
    error: Optional[str] = None


class FileChangedError(OSError):
    """The file on disk is no longer the text the fixes were computed from."""


class _ReplaceByIdentity(cst.CSTTransformer):
    """Replace exactly the given node objects of the original tree. A replacement may be a node,
    a list of nodes (statements) or None (remove the node)."""

    def __init__(self, replacements: Dict[int, Tuple[Any, Any]]):
        super().__init__()
        # id -> (old node, new node); keeping ``old`` alive keeps its id unique.
        self.replacements = replacements

    def on_leave(self, original_node: cst.CSTNode, updated_node: cst.CSTNode) -> Any:
        entry = self.replacements.get(id(original_node))
        if entry is None or entry[0] is not original_node:
            return updated_node
        new = entry[1]
        if new is None:
            return cst.RemovalSentinel.REMOVE
        if isinstance(new, (list, tuple)):  # one statement becomes several
            return cst.FlattenSentinel(new)
        return new


def applicable(findings: Sequence[Finding], unsafe: bool) -> List[Finding]:
    return [f for f in findings
            if f.fix is not None and f.fix.location is not None and (f.fix.safe or unsafe)]


def _non_overlapping(findings: Sequence[Finding]) -> List[Finding]:
    chosen: List[Finding] = []
    last_end = (0, -1)
    for f in sorted(findings, key=lambda f: (f.fix.location.line, f.fix.location.column)):
        loc = f.fix.location
        if (loc.line, loc.column) < last_end:
            continue  # overlaps the previous fix; the next round sees it again
        if any(c.fix.old is f.fix.old for c in chosen):
            continue
        chosen.append(f)
        last_end = (loc.end_line, loc.end_column)
    return chosen


def fix_source(source: str, path: str, settings: Optional[Settings] = None, unsafe: bool = False,
               postprocess: Optional[Callable[[List[Finding]], List[Finding]]] = None,
               ) -> Tuple[str, int, List[Finding]]:
    """Apply fixes until none is left. Returns (new source, fixes applied, remaining findings)."""
    settings = settings or Settings()
    post = postprocess or (lambda findings: findings)
    fixed = 0
    for _ in range(MAX_ROUNDS):
        result = check_source(source, path, settings, keep_analysis=True)
        todo = _non_overlapping(applicable(post(result.findings), unsafe))
        if not todo or result.module is None:
            return source, fixed, post(result.findings)
        replacements = {id(f.fix.old): (f.fix.old, f.fix.new) for f in todo}
        try:
            new_source = result.module.visit(_ReplaceByIdentity(replacements)).code
        except Exception:  # noqa: BLE001 - a fix that cannot be applied is dropped
            return source, fixed, post(result.findings)
        new_source += _lost_by_libcst(result.module, source)
        if not is_valid_python(new_source):
            return source, fixed, post(result.findings)  # never write a broken file
        if new_source == source:
            return source, fixed, post(result.findings)
        source = new_source
        fixed += len(todo)
    return source, fixed, post(check_source(source, path, settings).findings)


def _lost_by_libcst(module: cst.Module, source: str) -> str:
    """What libcst's code generation drops from the end of ``source``: the last ``\r`` of a
    file with CR-only line endings (``parse_module("a\\r").code == "a"``); else nothing."""
    if not source.endswith("\r"):
        return ""  # only a final lone CR is lost (CRLF and LF files round-trip exactly)
    code = module.code
    return source[len(code):] if source.startswith(code) else ""


def is_valid_python(source: str) -> bool:
    """Both parsers must accept a fixed file: libcst (we analyse it again) and Python's."""
    try:
        cst.parse_module(source)
        compile(source, "<fixed>", "exec", flags=ast.PyCF_ONLY_AST, dont_inherit=True)
    except Exception:  # noqa: BLE001 - any parser failure means "not valid"
        return False
    return True


def unified_diff(old: str, new: str, path: str) -> str:
    from ..source.lines import source_lines
    from ..report.printable import printable

    shown = printable(path)  # a newline in a file name would forge lines of the diff (and of a CI log)
    # Hunks on the lines findings are numbered by: a form feed cuts no line (lines.py).
    lines = difflib.unified_diff(source_lines(old, keepends=True), source_lines(new, keepends=True),
                                 fromfile=f"a/{shown}", tofile=f"b/{shown}")
    out = []
    for line in lines:
        out.append(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n")
    return "".join(out)


def _encoding(data: bytes) -> Tuple[str, bool]:
    """The file's encoding (as Python reads it) and whether it starts with a UTF-8 BOM."""
    bom = data.startswith(codecs.BOM_UTF8)
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    except SyntaxError:
        encoding = "utf-8"
    if encoding == "utf-8-sig":
        encoding = "utf-8"
    return encoding, bom


def fix_file(path: str, settings: Optional[Settings] = None, unsafe: bool = False, write: bool = True,
             postprocess: Optional[Callable[[List[Finding]], List[Finding]]] = None) -> FixOutcome:
    """Fix one file in place (``write``) or only compute the diff. Keeps encoding, BOM and
    line endings. Never raises for a file it cannot write: see ``FixOutcome.error``."""
    post = postprocess or (lambda findings: findings)
    if path.endswith(".ipynb"):
        try:
            return fix_notebook(path, settings, unsafe, write, postprocess)  # rewrites only the code cells
        except OSError as exc:  # a changed or unwritable notebook: this file's TTL001, not the run's
            outcome = FixOutcome(path, error=_write_error(exc))
            outcome.remaining = post(check_path(path, settings).findings)
            outcome.remaining += _error_finding(path, outcome.error, settings, post)
            return outcome
    outcome = FixOutcome(path)
    try:
        data = read_source(path)  # regular files inside the project only, like the run that found the fixes
        source = decode_source(data)
    except (OSError, DecodeError):
        outcome.remaining = check_path(path, settings).findings
        return outcome
    new_source, outcome.fixed, outcome.remaining = fix_source(source, path, settings, unsafe, postprocess)
    outcome.new_source = new_source
    if new_source != source:
        outcome.diff = unified_diff(source, new_source, path)
        if write:
            encoding, bom = _encoding(data)
            try:
                write_if_unchanged(path, data, (codecs.BOM_UTF8 if bom else b"") + new_source.encode(encoding))
            except OSError as exc:
                # Report the file as it was read, unfixed, plus why nothing was written.
                outcome.error = _write_error(exc)
                outcome.fixed, outcome.new_source, outcome.diff = 0, source, ""
                outcome.remaining = post(check_source(source, path, settings).findings)
                outcome.remaining += _error_finding(path, outcome.error, settings, post)
    return outcome


def fix_notebook(path: str, settings: Optional[Settings] = None, unsafe: bool = False, write: bool = True,
                 postprocess: Optional[Callable[[List[Finding]], List[Finding]]] = None) -> FixOutcome:
    """``fix_file`` for notebooks: the code cells are fixed as one program (``fix_source`` on
    the joined text), and only the changed cells' sources are written back. Raises ``OSError``
    (``FileChangedError`` included) when the fixes cannot be written."""
    post = postprocess or (lambda findings: findings)
    outcome = FixOutcome(path)
    try:
        original = read_source(path)  # regular files inside the project only
        notebook = parse_notebook(original.decode("utf-8-sig"))
    except (OSError, UnicodeDecodeError, NotebookError):
        # Checking it says what is wrong.
        outcome.remaining = post(check_path(path, settings).findings)
        return outcome
    if not notebook.cells or not is_python_notebook(notebook.data):
        return outcome
    joined = notebook.joined()
    fixed, count, remaining = fix_source(joined, path, settings, unsafe, postprocess)
    new_sources = split_fixed(notebook, fixed) if count else None
    if new_sources is None:
        if count:  # the fixes disturbed the cells: write nothing, report the file as it is
            remaining = post(check_source(joined, path, settings).findings)
        outcome.remaining = to_cell_findings(notebook, remaining)
        return outcome
    diffs = []
    for cell, new in zip(notebook.cells, new_sources):
        if new != cell.source:
            diffs.append(unified_diff(cell.source, new, f"{path}:cell {cell.number}"))
            set_cell_source(notebook, cell, new)
    outcome.fixed = count
    # Re-read what is written so the remaining findings carry the fixed cells' text and lines.
    fixed_notebook = parse_notebook(dump_notebook(notebook))
    fixed_notebook.joined()
    outcome.remaining = to_cell_findings(fixed_notebook, remaining)
    outcome.diff = "".join(diffs)
    if write and diffs:
        # Like a .py file: atomically, and only if nobody saved the notebook meanwhile
        # (fix_file turns the FileChangedError or a write error into this file's TTL001).
        write_if_unchanged(path, original, dump_notebook(notebook).encode("utf-8"))
    return outcome


def fix_file_bounded(path: str, settings: Optional[Settings] = None, unsafe: bool = False,
                     write: bool = True,
                     postprocess: Optional[Callable[[List[Finding]], List[Finding]]] = None) -> FixOutcome:
    """``fix_file`` in a killable child process with a capped address space, like every
    analysis (``bounded.call_bounded``): fixing re-analyses the file up to ``MAX_ROUNDS``
    times, in-process it would be the one unbounded mode. The write itself is atomic, so a
    child stopped at its deadline leaves the file as it was."""
    from ..run.bounded import BoundExceeded, call_bounded
    from ..run.cache import finding_from_dict
    from ..run.runner import hard_deadline

    settings = settings or Settings()
    warm_up()
    try:
        outcome, dicts = call_bounded(_fix_for_transport, path, settings, unsafe, write, postprocess,
                                      seconds=hard_deadline(settings) * MAX_ROUNDS)
    except BoundExceeded as exc:
        why = f"internal error while fixing this file: {exc}" if exc.raised else f"not fixed: {exc}"
        finding = Finding("TTL000", why, "error", path, Location(1, 0, 1, 0))
        return FixOutcome(path, remaining=[finding] if settings.selection.is_enabled("TTL000", True) else [])
    outcome.remaining = [finding_from_dict(d, path) for d in dicts]
    return outcome


def _fix_for_transport(path: str, settings: Settings, unsafe: bool, write: bool,
                       postprocess: Optional[Callable[[List[Finding]], List[Finding]]]) -> Tuple[FixOutcome, List[Any]]:
    """The outcome without libcst nodes (the findings as dicts), to cross the process boundary."""
    from ..run.cache import finding_to_dict

    outcome = fix_file(path, settings, unsafe, write, postprocess)
    dicts = [finding_to_dict(f) for f in outcome.remaining]
    outcome.remaining = []
    return outcome, dicts


def write_if_unchanged(path: str, expected: bytes, new: bytes) -> None:
    """Replace ``path``'s content with ``new``, atomically, if it still is ``expected``.

    Raises ``FileChangedError`` when the file changed since it was read, and ``OSError`` when it
    cannot be written. A symlink is followed (the link stays, its target is fixed) only when its
    target is inside the project (``boundary.OutsideProject`` otherwise); the permission bits
    (and, where allowed, the owner) are kept. A hard-linked file gets its own copy, as with
    ``sed -i``.
    """
    target = resolve_inside(path)  # never written through a link that leaves the project
    info = os.stat(target)
    if not os.access(target, os.W_OK):
        # The rename below only needs the directory to be writable: honour a read-only file.
        raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), path)
    directory, name = os.path.split(target)
    fd, tmp = tempfile.mkstemp(prefix=f".{name}.", suffix=".torchtype-lint.tmp", dir=directory)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(new)
        os.chmod(tmp, stat.S_IMODE(info.st_mode))
        if hasattr(os, "geteuid") and (info.st_uid, info.st_gid) != (os.geteuid(), os.getegid()):
            try:
                os.chown(tmp, info.st_uid, info.st_gid)
            except OSError:
                pass  # only root may give a file away; the content matters more than the owner
        with open(target, "rb") as handle:  # as late as possible: the window left is the rename
            current = handle.read()
        if current != expected:
            raise FileChangedError(errno.EAGAIN, "the file changed on disk while it was being fixed", path)
        os.replace(tmp, target)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def _write_error(exc: OSError) -> str:
    if isinstance(exc, FileChangedError):
        return ("the file changed on disk while it was being fixed; no fix was written "
                "(run again to fix the new version)")
    return f"could not write the fixes, the file is unchanged: {exc.strerror or exc}"


def _error_finding(path: str, message: str, settings: Optional[Settings],
                   post: Callable[[List[Finding]], List[Finding]]) -> List[Finding]:
    """The TTL001 finding for a file whose fixes were not written, unless it is deselected."""
    finding = Finding("TTL001", message, "error", path, Location(1, 0, 1, 0))
    if settings is not None and not settings.selection.is_enabled(finding.code, True):
        return []
    return post([finding])
