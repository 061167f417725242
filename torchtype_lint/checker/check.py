"""File in, findings out: the one entry point every front end calls.

read and decode -> prefilter -> parse -> interpret (rules listen) -> positions and
provenance for the reported nodes only -> noqa -> selection.
"""
from __future__ import annotations

import ast
import time
import os
from dataclasses import dataclass
from typing import Any, Callable, Dict, Iterable, List, Mapping, Optional, Sequence, Tuple

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

from ..engine.interpreter import AnalysisBudgetExceeded, Interpreter
from ..engine.units import Unit, UnitSelection
from ..model.findings import Finding, Location, ProvenanceStep
from ..source.lines import source_lines
from ..source.noqa import is_suppressed, noqa_map
from .call_sites import at_call_sites
from ..source.project.imports import ProjectImports, project_imports
from .root_causes import one_report_per_root_cause
from ..rules.base import Report, Rule, all_rules, calls_a_module
from ..rules.context import RuleContext
from ..source.notebook import NOTEBOOK_SUFFIX
from ..source.cst_parse import parse_module
from ..source.screen import screen_for_parse
from ..model.selection import Selection

#: Files that mention none of these are not analysed (they cannot hold tensor code we know).
PREFILTER_MARKERS = ("torch", "numpy", "jaxtyping", "torchtyping")

# Defined apart so that configuration and warm-cache runs need not import libcst.
from ..model.settings import FileResult, Settings  # noqa: E402 - re-exported for every front end
from ..source.decoding import DecodeError, decode_source  # noqa: E402,F401 - re-exported (fix, stdin, harness)


def check_path(path: str, settings: Optional[Settings] = None, display_path: Optional[str] = None) -> FileResult:
    from ..source.reading import read_source  # the one reader of user files: capped, regular, inside the project

    shown = display_path or path
    try:
        data = read_source(path)
    except OSError as exc:
        return FileResult(shown, [_tool_finding("TTL001", shown, f"could not read file: {exc.strerror or exc}")])
    return check_bytes(data, shown, settings)


def check_bytes(data: bytes, path: str, settings: Optional[Settings] = None) -> FileResult:
    if path.endswith(NOTEBOOK_SUFFIX):
        return check_notebook_bytes(data, path, settings)
    try:
        source = decode_source(data)
    except DecodeError as exc:
        return FileResult(path, _select([_tool_finding("TTL001", path, f"could not decode file: {exc}",
                                                       line=exc.line, column=exc.column)],
                                        settings or Settings()))
    return check_source(source, path, settings)


def check_notebook_bytes(data: bytes, path: str, settings: Optional[Settings] = None) -> FileResult:
    """A notebook is a kind of source: its code cells, joined into one program with a cell map
    (``source/notebook.py``), are checked like a file, and the findings are mapped back to cells."""
    from ..source.notebook import NotebookError, is_python_notebook, parse_notebook
    from .notebooks import on_cells

    settings = settings or Settings()
    try:
        notebook = parse_notebook(data.decode("utf-8-sig"))  # nbformat files are UTF-8 JSON
    except UnicodeDecodeError as exc:
        return FileResult(path, _select([_tool_finding("TTL001", path, f"could not decode notebook as UTF-8: "
                                                                       f"{exc.reason}")], settings))
    except NotebookError as exc:
        return FileResult(path, _select([_tool_finding("TTL001", path, str(exc))], settings))
    if not notebook.cells or not is_python_notebook(notebook.data):
        return FileResult(path, [])
    result = check_source(notebook.joined(), path, settings)
    # The project modules the cells import: the cache re-checks the notebook when one changes.
    return FileResult(path, on_cells(notebook, result.findings), dependencies=result.dependencies)


def check_source(source: str, path: str = "<stdin>", settings: Optional[Settings] = None,
                 keep_analysis: bool = False, tree: Optional[ast.AST] = None,
                 overlay: Optional[Mapping[str, str]] = None) -> FileResult:
    """Analyse one file's text. Never raises: failures become TTL000/TTL001 findings.

    ``tree``: CPython's ast of ``source`` when the caller has it (it spares the screen a parse).
    The project modules the file imports are read from disk, or from ``overlay`` (absolute
    path -> text: an editor's unsaved documents); the result's ``dependencies`` names them."""
    settings = settings or Settings()
    if not any(marker in source for marker in PREFILTER_MARKERS):
        return FileResult(path, [], source)
    # The budget is wall time for the whole file: what parsing took is not left for analysis.
    deadline = time.monotonic() + settings.time_budget
    module_or_finding = parse(source, path, tree)
    if isinstance(module_or_finding, Finding):
        return FileResult(path, _select([module_or_finding], settings), source)
    module = module_or_finding
    project = project_imports(path, getattr(settings, "source_roots", ()), overlay)
    try:
        findings, interpreter = _analyse(module, source, path, settings, deadline, project)
    except AnalysisBudgetExceeded:
        findings, interpreter = [_tool_finding(
            "TTL000", path, f"analysis stopped after its time budget of {settings.time_budget:g}s "
                            "(parsing included; raise it with --time-budget)")], None
    except RecursionError:
        findings, interpreter = [_tool_finding(
            "TTL000", path, "internal error: expressions nested too deeply to analyse")], None
    except Exception as exc:  # noqa: BLE001 - one file's failure must not stop the run
        findings, interpreter = [_tool_finding(
            "TTL000", path, f"internal error while analysing this file: {type(exc).__name__}: "
                            f"{_one_line(str(exc))}")], None
    result = FileResult(path, _select(findings, settings), source, module if keep_analysis else None,
                        interpreter if keep_analysis else None,
                        dict(project.dependencies) if project is not None else {})
    return result


def parse(source: str, path: str = "<stdin>", tree: Optional[ast.AST] = None) -> Any:
    """The libcst module of ``source``, or the TTL001/TTL000 finding that replaces it.

    Every parse of user code goes through here: ``screen`` first turns inputs that would make
    libcst hang or exhaust memory into a diagnostic (``tree``: a CPython ast the caller has)."""
    rejected, python_accepts = screen_for_parse(source, tree)
    if rejected is not None:
        return _tool_finding(rejected.code, path, rejected.message, line=rejected.line,
                             column=rejected.column)
    try:
        return parse_module(source, python_accepts)  # validated once, by Python's parser
    except cst.ParserSyntaxError as exc:
        python_error = _python_syntax_error(source)
        if python_error is None:
            # Python accepts what libcst refuses (200,000 adjacent string literals): not the
            # user's syntax error, but this file is not analysed.
            return _tool_finding("TTL000", path, "not analysed: libcst's parser cannot read this "
                                 f"file, which Python accepts ({_one_line(exc.message)})",
                                 line=exc.raw_line, column=max(exc.raw_column, 0))
        message, line, column = python_error
        return _tool_finding("TTL001", path, f"syntax error: {message}", line=line, column=column)
    except RecursionError:
        return _tool_finding("TTL001", path, "could not parse file: nesting too deep for the parser")
    except Exception as exc:  # noqa: BLE001 - a parser crash is a diagnostic, not a traceback
        return _tool_finding("TTL000", path, "internal error while parsing: "
                             f"{type(exc).__name__}: {_one_line(str(exc))}")


#: A small program that touches the rules, the engine and the lazily loaded knowledge tables.
_WARM_UP_PROGRAM = """\
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
x = torch.from_numpy(np.zeros((2, 3))).float() @ torch.ones(3, 4, dtype=torch.int64)
y = F.cross_entropy(nn.Linear(4, 2)(x), torch.zeros(2)).sum() + torch.erfinv(torch.ones(2, dtype=torch.int8))
x.double()
"""
_warmed_up = False


def warm_up() -> None:
    """Load the rules and knowledge tables once in this process. Front ends that analyse in a
    forked child per file (``bounded.call_bounded``) call this first: the children inherit what
    is loaded instead of each loading it again (about 100 ms a child)."""
    global _warmed_up
    if not _warmed_up:
        _warmed_up = True
        check_source(_WARM_UP_PROGRAM, "<warm-up>", Settings(selection=Selection(select=["TTL"],
                                                                                  extend_select=["TTL9"])))


def enabled_rules(selection: Selection) -> List[type]:
    return [r for r in all_rules() if r.listens and selection.is_enabled(r.code, r.default_enabled)]


def run_rules(module: cst.Module, rule_classes: Sequence[type], time_budget: float,
              sink: Callable[[Report, RuleContext], None],
              project: Optional[ProjectImports] = None,
              selection: Optional[UnitSelection] = None, source: Optional[str] = None,
              entry_function: Any = None) -> Tuple[Interpreter, RuleContext]:
    """Interpret ``module`` with the rules listening; every report goes to ``sink``.

    The one place rules meet the engine: each rule sees a ``RuleContext`` wrapping the
    interpreter, never the interpreter itself."""
    listeners: Dict[type, list] = {}
    #: op -> the visits of rules that declared it; the op of a node is resolved once for all.
    by_op: Dict[str, list] = {}
    op_node_types = set()

    def dispatch_by_op(node: Any, ctx: RuleContext) -> None:
        call = ctx.op_call(node)
        visits = by_op.get(call.op) if call is not None else None
        if visits:
            for visit in visits:
                visit(node, ctx)

    #: The visits of rules that see only calls of an nn.Module, asked about once per call.
    module_visits: list = []

    def dispatch_module_calls(node: Any, ctx: RuleContext) -> None:
        if calls_a_module(ctx.callee(node)):
            for visit in module_visits:
                visit(node, ctx)

    trackers: list = []
    for rule_cls in rule_classes:
        rule: Rule = rule_cls(lambda report: sink(ctx.with_assumptions(report), ctx))
        trackers.extend(t for t in rule_cls.call_trackers if t not in trackers)
        for node_type in rule_cls.listens:
            if rule_cls.ops and node_type in (cst.Call, cst.BinaryOperation):
                op_node_types.add(node_type)  # only calls of the ops it declared reach it
                for op in rule_cls.ops:
                    by_op.setdefault(op, []).append(rule.visit)
            elif rule_cls.module_calls and node_type is cst.Call:
                module_visits.append(rule.visit)
            else:
                listeners.setdefault(node_type, []).append(rule.visit)  # called with the ctx
    for node_type in op_node_types:
        listeners.setdefault(node_type, []).append(dispatch_by_op)
    if module_visits:
        listeners.setdefault(cst.Call, []).append(dispatch_module_calls)
    if trackers:  # first: the facts they gather are there for every rule's visit of the call
        listeners[cst.Call] = trackers + listeners.get(cst.Call, [])
    interpreter = Interpreter(module, listeners, time_budget, project)
    ctx = RuleContext(interpreter)  # the reports' sink reads it: bound before the run
    interpreter.listener_context = ctx
    interpreter.source_text = source
    interpreter.entry_function = entry_function
    interpreter.run(selection)
    return interpreter, ctx


def _analyse(module: cst.Module, source: str, path: str, settings: Settings,
             deadline: float, project: Optional[ProjectImports] = None) -> Tuple[List[Finding], Interpreter]:
    run = run_units(module, settings, deadline, project, source=source)
    return findings_from_reports(run.reports, run.settled, module, source, path, settings, run.interpreter,
                                 deadline), run.interpreter


@dataclass
class UnitsRun:
    """What one run of the rules over a file made, each report with the unit that made it
    (``engine/units.py``; the language server re-runs only some units and keeps the rest)."""

    interpreter: Interpreter
    reports: List[Tuple[Unit, Report]]
    #: Root causes the code itself settles (``RuleContext.settle_cause``), by unit.
    settled: List[Tuple[Unit, Any]]


def run_units(module: cst.Module, settings: Settings, deadline: float,
              project: Optional[ProjectImports] = None, selection: Optional[UnitSelection] = None,
              source: Optional[str] = None, entry_function: Any = None) -> UnitsRun:
    made: List[Tuple[Unit, Report]] = []

    def sink(report: Report, ctx: RuleContext) -> None:
        report.call_site = ctx.call_site()  # made in another module's code this file's call runs
        made.append((ctx.unit, report))

    interpreter, ctx = run_rules(module, enabled_rules(settings.selection), deadline - time.monotonic(), sink,
                                 project, selection, source, entry_function)
    return UnitsRun(interpreter, made, ctx.settled_by_unit)


def findings_from_reports(reports: Sequence[Tuple[Unit, Report]], settled: Sequence[Tuple[Unit, Any]],
                          module: cst.Module, source: str, path: str, settings: Settings,
                          interpreter: Interpreter, deadline: float, positions: Optional[Mapping[Any, Any]] = None,
                          homes: Sequence[Any] = ()) -> List[Finding]:
    """The findings of ``reports`` (in the order the units ran): one per (rule, node), failures
    in imported code at this file's calls, one per root cause, placed (``positions``: node ->
    range, resolved here when not given; ``homes``: imported modules reused reports may point
    into), less what ``# noqa`` suppresses."""
    made: Dict[Tuple[str, Any], Report] = {}
    for _, report in reports:
        # One report per (rule, node): a function analysed in several contexts reports once.
        made.setdefault((report.code, report.node), report)
    loaded = _Loaded(interpreter, homes)
    # Failures inside imported functions that this file's arguments cause: at this file's calls.
    at_calls = at_call_sites(list(made.values()), loaded, enabled_rules(settings.selection), deadline,
                             run_rules)
    kept = one_report_per_root_cause(at_calls, {cause for _, cause in settled})
    if not kept:
        return []
    if positions is None:
        positions = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    # Numbered as libcst numbers the findings' lines (a form feed ends no line).
    lines = source_lines(source)
    noqa = noqa_map(lines) if settings.respect_noqa else {}
    findings = []
    elsewhere = _ProjectPositions(loaded, path)
    for report in kept:
        if report.node not in positions and loaded.loaded:
            continue  # reported on a node of an imported module: its own analysis reports it
        finding = _to_finding(report, path, module, positions, elsewhere)
        if is_suppressed(finding.code, finding.line, noqa):
            continue
        findings.append(finding)
    findings.sort(key=Finding.sort_key)
    return findings


class _Loaded:
    """The project modules an analysis loaded, with those a reused report may point into (the
    language server's partial runs load only what the units they run use)."""

    def __init__(self, interpreter: Interpreter, homes: Sequence[Any] = ()):
        self.main_home = interpreter.main_home
        self.loaded: Dict[str, Any] = dict(interpreter.loaded)
        for home in homes:
            self.loaded.setdefault(home.path, home)


class _ProjectPositions:
    """Where a node of an imported project module is: its file (relative to the finding's
    file's directory) and position; positions of a module are resolved on first need."""

    def __init__(self, interpreter: Any, path: str):
        self.homes = [h for h in interpreter.loaded.values() if h is not None]
        self.main_path = interpreter.main_home.path
        self.resolved: Dict[str, Any] = {}

    def step(self, node: Any, note: str) -> Optional[ProvenanceStep]:
        for home in self.homes:
            if home.path not in self.resolved:
                try:
                    self.resolved[home.path] = MetadataWrapper(
                        home.module, unsafe_skip_copy=True).resolve(PositionProvider)
                except Exception:  # noqa: BLE001 - a step without a position is left out
                    self.resolved[home.path] = {}
            positions = self.resolved[home.path]
            if node in positions:
                start, end = positions[node].start, positions[node].end
                where = os.path.relpath(home.path, os.path.dirname(self.main_path or home.path))
                return ProvenanceStep(start.line, start.column, _snippet(home.module, node), note,
                                      where.replace(os.sep, "/"), end.line, end.column)
        return None


def _to_finding(report: Report, path: str, module: cst.Module, positions: Any,
                elsewhere: Optional[_ProjectPositions] = None) -> Finding:
    loc = _location(positions, report.node)
    steps: List[ProvenanceStep] = []
    if report.origin is not None:
        for link in report.origin.chain():
            if link.node is None:
                continue
            if link.node not in positions:
                step = elsewhere.step(link.node, link.note) if elsewhere is not None else None
                if step is not None:
                    steps.append(step)  # made in an imported module of the project
                continue
            start, end = positions[link.node].start, positions[link.node].end
            # The whole expression's span: an editor shows it as the related location.
            steps.append(ProvenanceStep(start.line, start.column, _snippet(module, link.node), link.note,
                                        None, end.line, end.column))
    message = report.message
    if "{origin}" in message:
        root = steps[-1] if steps else None
        message = message.replace("{origin}", _render_origin(steps) if root else "origin unknown")
    fix = report.fix
    if fix is not None:
        fix.location = _location(positions, fix.old)
        try:
            fix.new_text = module.code_for_node(fix.new)
        except Exception:  # noqa: BLE001
            fix.new_text = None
    return Finding(report.code, message, report.severity, path, loc, tuple(steps), fix,
                   node=report.node, origin=report.origin)


def _render_origin(steps: Sequence[ProvenanceStep]) -> str:
    # Root cause last in the chain; show it, and the step that carried it here if different.
    root = steps[-1]
    text = f"since {root.where}: `{root.snippet}`" + (f", {root.note}" if root.note else "")
    return text


def _location(positions: Any, node: Any) -> Location:
    rng = positions.get(node) if node is not None else None
    if rng is None:
        return Location(1, 0, 1, 0)
    return Location(rng.start.line, rng.start.column, rng.end.line, rng.end.column)


def _snippet(module: cst.Module, node: Any, limit: int = 60) -> str:
    try:
        text = module.code_for_node(node).strip()
    except Exception:  # noqa: BLE001
        return "?"
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _select(findings: Iterable[Finding], settings: Settings) -> List[Finding]:
    return [f for f in findings if settings.selection.is_enabled(f.code, True)]


def _tool_finding(code: str, path: str, message: str, line: int = 1, column: int = 0) -> Finding:
    return Finding(code, message, "error", path, Location(max(line, 1), column, max(line, 1), column))


def _python_syntax_error(source: str) -> Optional[Tuple[str, int, int]]:
    """Python's own message and position for a syntax error (libcst's point past the error)."""
    try:
        compile(source, "<file>", "exec", flags=ast.PyCF_ONLY_AST, dont_inherit=True)
    except SyntaxError as exc:
        return _one_line(exc.msg), exc.lineno or 1, max((exc.offset or 1) - 1, 0)
    except Exception:  # noqa: BLE001 - e.g. ValueError for null bytes; keep libcst's message
        return None
    return None


def _one_line(text: str) -> str:
    return " ".join(str(text).split())
