"""Language server front end: ``torchtype-lint lsp`` (pygls 2, stdio). Thin: it calls ``check_source``.

What an editor gets:

* diagnostics on open, on change (at once after a pause; a burst of changes once, after the quiet) and on
  save; cleared on close. Each carries its code, a link to the rule's
  docs, severity, ``source = "torchtype-lint"`` and the provenance chain as related information;
* code actions: the rule's fix, "ignore for this line" (``# noqa: CODE``) and
  ``source.fixAll.torchtype-lint`` (safe fixes only, like ``check --fix``);
* hover on a tensor or ndarray variable: the inferred dtype, shape and device, and the chain
  of statements they came from; hover on a code in a ``# noqa:`` comment: the rule's docs;
* notebooks synced as notebook documents: the Python code cells are analysed as one program
  (as ``check`` does for ``.ipynb`` files, through notebook.py), everything above per cell.

Every analysis, hovers' included, runs in the bounded resident child (``incremental/worker.py``,
``lsp_hover.py``), queued in one worker thread (``lsp_queue.py``) so that the event loop never
waits on it: the server keeps only plain results (findings, lines, hover text), and a request
about a document is answered from that document's last results, whatever else is analysed.

The engine reports 1-based lines and code-point columns; LSP wants 0-based lines and columns
in the negotiated encoding (UTF-16 unless the client offers another), converted here against
the exact text that was analysed. pygls is an optional dependency (``torchtype-lint[lsp]``):
it is imported only when the server starts.
"""
from __future__ import annotations

import argparse
import asyncio
import os
import re
import sys
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, FrozenSet, List, Optional, Sequence, Tuple

from .. import __version__
from ..checker.check import Settings
from ..model.findings import Finding, Location, rule_url
from ..run.incremental.worker import check_document, start as start_worker, warm as warm_worker
from ..source.lines import LINE_BREAK
from .lsp_hover import (  # noqa: F401 - hover_markdown & co. were defined here; kept importable
    FEATURE_KEYS,
    HoverRequest,
    Hovers,
    HoverSpan,
    hover_markdown,
    module_hover_markdown,
)

SOURCE = "torchtype-lint"
FIX_ALL_KIND = "source.fixAll.torchtype-lint"
#: Seconds of quiet after the last keystroke before a document is analysed again: short, as an
#: edit is re-analysed by what it touches (an edit inside one class of a 1,000-line file:
#: ~20 ms); a burst of keystrokes still coalesces into one analysis. Only a change that follows
#: another within this time waits: the first change after a pause is analysed at once (the
#: leading edge), so a single edit costs no debounce.
DEBOUNCE_SECONDS = 0.05

_NOQA_CODES = re.compile(r"#\s*noqa:\s?[A-Z]+[0-9]+(?:[,\s]+[A-Z]+[0-9]+)*", re.IGNORECASE)
_NOQA_BLANKET = re.compile(r"#\s*noqa(?!:)", re.IGNORECASE)


def split_lines(source: str) -> List[str]:
    """The document's lines without their line breaks, split the way LSP counts lines: at the
    tokenizer's breaks only (lines.py), and a text ending in one has an empty last line."""
    return LINE_BREAK.split(source)


# --------------------------------------------------------------------------- analysis (in the child)


@dataclass
class Analysis:
    """One analysis of one version of a document (or notebook cell), with what the handlers
    need from it: plain values only (the analysis itself stays in the child). ``line_offset``:
    lines of the analysed text before this document's first line (non-zero for notebook cells
    after the first)."""

    version: Optional[int]
    lines: List[str]
    findings: List[Finding]
    config_error: Optional[str] = None
    #: None when the text was not analysed to the end (no hovers for it).
    hovers: Optional[Hovers] = field(default=None, repr=False)
    line_offset: int = 0
    #: Notebook cells: cell number -> (cell URI, its lines), where provenance steps point.
    cells: Dict[int, Tuple[str, List[str]]] = field(default_factory=dict, repr=False)
    #: The project files this analysis read or looked for (an edit to one re-analyses it).
    dependencies: FrozenSet[str] = frozenset()

    def hover_at(self, line: int, column: int) -> Optional[HoverSpan]:
        """The hover under the position (in this document's coordinates, as is the span), once
        the child has worked out the hovers; None before."""
        table = self.hovers.table if self.hovers is not None else None
        span = table.at(line + self.line_offset, column) if table is not None else None
        if span is None:
            return None
        return HoverSpan((span.start[0] - self.line_offset, span.start[1]),
                         (span.end[0] - self.line_offset, span.end[1]), span.markdown)


def _settings_for(path: str) -> Tuple[Settings, Callable[[List[Finding]], List[Finding]], Optional[str]]:
    """The configuration the CLI would use for ``path``, read afresh so edits to it apply."""
    from ..run.config import ConfigError, RunPlan

    try:
        plan = RunPlan.from_args(select=None)
        return plan.settings_for(path), plan.apply_per_file_ignores, None
    except ConfigError as exc:
        return Settings(), lambda findings: findings, f"torchtype-lint: configuration error: {exc}"


def _run_engine(source: str, path: str, overlay: Optional[Dict[str, str]] = None
                ) -> Tuple[List[Finding], Optional[str], Optional[Settings], FrozenSet[str]]:
    """(findings, configuration error, settings for hovers, project files read) for one text.
    The analysis runs in the resident killable child, which keeps each document's last analysis
    and re-runs only what an edit can change (``incremental/worker.py``): no document can hang
    or kill the server, and an edit costs what it touches. No hovers (settings None) for a text that was
    not analysed to the end. ``overlay``: the unsaved texts of the other open documents, which
    imports read instead of the files on disk."""
    settings, postprocess, config_error = _settings_for(path)
    result, _ = check_document(source, path, settings, overlay)
    complete = not any(f.code in ("TTL000", "TTL001") for f in result.findings)
    return (postprocess(result.findings), config_error, settings if complete else None,
            frozenset(result.dependencies))


def _internal_error(path: str, exc: Exception) -> Finding:
    text = " ".join(str(exc).split())
    return Finding("TTL000", f"internal error in the language server: {type(exc).__name__}: {text}", "error", path)


def analyse(source: str, path: str, version: Optional[int],
            overlay: Optional[Dict[str, str]] = None) -> Analysis:
    """Run the engine on one document's text. Never raises: an editor session must survive
    anything, so a failure outside ``check_source`` (which never raises) becomes TTL000."""
    try:
        findings, config_error, settings, dependencies = _run_engine(source, path, overlay)
    except Exception as exc:  # noqa: BLE001
        return Analysis(version, split_lines(source), [_internal_error(path, exc)])
    hovers = Hovers(HoverRequest(source, path, settings)) if settings is not None else None
    return Analysis(version, split_lines(source), findings, config_error, hovers, dependencies=dependencies)


def analyse_notebook(cells: Sequence[Tuple[int, str, str, Optional[int]]], path: str,
                     overlay: Optional[Dict[str, str]] = None) -> Dict[str, Analysis]:
    """Analyse a notebook's code cells, given as (cell number, cell URI, text, version), as one
    program (like ``check`` does for ``.ipynb`` files); one Analysis per cell URI. ``overlay``:
    the unsaved texts of the open documents, which the cells' imports read."""
    from ..checker.notebooks import to_cell_findings
    from ..source.notebook import Notebook, code_cells

    by_number = {number: (uri, text, version) for number, uri, text, version in cells}
    notebook = Notebook({}, code_cells((number, text) for number, _, text, _ in cells), None, False)
    out: Dict[str, Analysis] = {uri: Analysis(version, split_lines(text), [])
                                for _, uri, text, version in cells}  # cell magics and empty cells: clean
    if not notebook.cells:
        return out
    text = notebook.joined()
    try:
        findings, config_error, settings, dependencies = _run_engine(text, path, overlay)
        findings = to_cell_findings(notebook, findings)
    except Exception as exc:  # noqa: BLE001
        first = notebook.cells[0].number
        out[by_number[first][0]].findings.append(_internal_error(path, exc))
        return out

    # One table for all cells: the notebook's lines are shown as cell and line (notebook.locate).
    hovers = Hovers(HoverRequest(text, path, settings, notebook)) if settings is not None else None
    cell_map = {number: (uri, split_lines(text)) for number, (uri, text, _) in by_number.items()}
    for cell in notebook.cells:
        uri, text, version = by_number[cell.number]
        mine = [f for f in findings if getattr(f, "cell", None) == cell.number]
        out[uri] = Analysis(version, split_lines(text), mine, config_error, hovers, cell.first_line - 1, cell_map,
                            dependencies=dependencies)
    return out


# --------------------------------------------------------------------------- LSP conversions


def noqa_insertion(line_text: str, code: str) -> Optional[Tuple[int, str]]:
    """(code-point column, text to insert) that silences ``code`` on this line, or None."""
    if _NOQA_BLANKET.search(line_text):
        return None  # a blanket noqa already silences everything
    existing = _NOQA_CODES.search(line_text)
    if existing is not None:
        return existing.end(), f", {code}"
    content = line_text.rstrip()
    if content.endswith("\\"):
        return None  # a comment after a line continuation would be a syntax error
    return len(content), f"  # noqa: {code}"


def noqa_code_at(line_text: str, column: int) -> Optional[Tuple[str, int, int]]:
    """The rule code under ``column`` in the line's ``# noqa: ...`` list: (code, start, end)."""
    match = _NOQA_CODES.search(line_text)
    if match is None:
        return None
    for code in re.finditer(r"[A-Z]+[0-9]+", match.group(0), re.IGNORECASE):
        start, end = match.start() + code.start(), match.start() + code.end()
        if start <= column <= end:
            return code.group(0).upper(), start, end
    return None


def rule_hover_markdown(code: str) -> Optional[str]:
    from ..rules.base import get_rule

    rule = get_rule(code)
    return None if rule is None else f"{rule.documentation()}\n[{code} documentation]({rule_url(code)})"


def non_overlapping(edits: Sequence[Tuple[Location, str]]) -> List[Tuple[Location, str]]:
    """Edits sorted by position, dropping any that overlaps one already kept (first wins)."""
    kept: List[Tuple[Location, str]] = []
    for loc, text in sorted(edits, key=lambda e: (e[0].line, e[0].column, e[0].end_line, e[0].end_column)):
        if kept and (loc.line, loc.column) < (kept[-1][0].end_line, kept[-1][0].end_column):
            continue
        kept.append((loc, text))
    return kept


def create_server(debounce: float = DEBOUNCE_SECONDS, warm: bool = False):  # noqa: C901 - the handlers belong together
    """The pygls server with every handler registered (imported here: pygls is optional).
    ``warm``: start the analysis child at once and get it ready before the first document
    arrives (``incremental/worker.py``), as ``torchtype-lint lsp`` does (from the main thread)."""
    from importlib.util import find_spec

    from .lsp_queue import ChildQueue

    #: The analyses waiting for, or running in, the resident child: one at a time.
    queue = ChildQueue()
    if warm and find_spec("pygls") is not None:
        start_worker()  # forked from this thread, before any other thread exists
        queue.submit(warm_worker)  # first in the queue: the child loads the rules while we import pygls
    from lsprotocol import types as T
    from pygls.uris import from_fs_path, to_fs_path

    from .lsp_replies import ReplyingLanguageServer

    # Notebooks: every cell is synced (markdown too) so that cell numbers match the file's.
    notebook_sync = T.NotebookDocumentSyncOptions(
        notebook_selector=[T.NotebookDocumentFilterWithNotebook(notebook="*")], save=True)
    # Every request gets a reply, even one whose params pygls cannot read (see lsp_replies).
    server = ReplyingLanguageServer(SOURCE, __version__, text_document_sync_kind=T.TextDocumentSyncKind.Incremental,
                            notebook_document_sync=notebook_sync)
    #: By document URI; a notebook's analyses are stored under its cells' URIs.
    analyses: Dict[str, Analysis] = {}
    pending: Dict[str, "asyncio.Task[None]"] = {}
    open_uris: set = set()
    open_notebooks: set = set()
    #: notebook URI -> the cell URIs diagnostics were last published for.
    notebook_cells: Dict[str, List[str]] = {}
    reported_config_errors: set = set()
    #: URI -> the event loop's time of the document's last change (the debounce's leading edge).
    last_change: Dict[str, float] = {}

    def change_delay(uri: str) -> float:
        """No wait for the first change after a pause; a change in a burst waits for the quiet."""
        now = asyncio.get_running_loop().time()
        previous = last_change.get(uri)
        last_change[uri] = now
        return debounce if previous is not None and now - previous < debounce else 0.0

    def codec() -> Any:
        return server.workspace.position_codec

    def client_position(lines: Sequence[str], line: int, column: int) -> "T.Position":
        """0-based line and code-point column -> LSP position in the negotiated encoding."""
        if line >= len(lines):
            last = lines[-1] if lines else ""
            return T.Position(line=max(len(lines) - 1, 0), character=codec().client_num_units(last))
        return T.Position(line=line, character=codec().client_num_units(lines[line][:column]))

    def client_range(lines: Sequence[str], loc: Location) -> "T.Range":
        return T.Range(start=client_position(lines, loc.line - 1, loc.column),
                       end=client_position(lines, loc.end_line - 1, loc.end_column))

    def server_position(lines: Sequence[str], position: "T.Position") -> Tuple[int, int]:
        """LSP position -> 0-based line and code-point column."""
        if position.line >= len(lines):
            return position.line, 0
        text, units, column = lines[position.line], 0, 0
        for char in text:
            if units >= position.character:
                break
            units += codec().client_num_units(char)
            column += 1
        return position.line, column

    def diagnostic(uri: str, analysis: Analysis, finding: Finding) -> "T.Diagnostic":
        lines = analysis.lines
        related = []
        for step in finding.provenance:
            # In a notebook a step may be in another cell.
            step_uri, step_lines = analysis.cells.get(getattr(step, "cell", None), (uri, lines))
            if step.path:  # in an imported module of the project, named relative to the notebook for a cell
                step_uri, step_lines = project_file(notebook_of(uri), step.path)
            # The value's whole expression, so that an editor has something to show and click.
            end_line, end_column = step.end
            if step_lines:
                at = T.Range(start=client_position(step_lines, step.line - 1, step.column),
                             end=client_position(step_lines, end_line - 1, end_column))
            else:
                at = T.Range(start=T.Position(line=step.line - 1, character=step.column),
                             end=T.Position(line=end_line - 1, character=end_column))
            related.append(T.DiagnosticRelatedInformation(
                location=T.Location(uri=step_uri, range=at), message=step.render()))
        return T.Diagnostic(
            range=client_range(lines, finding.location),
            message=finding.message,
            severity=T.DiagnosticSeverity.Error if finding.severity == "error" else T.DiagnosticSeverity.Warning,
            code=finding.code,
            code_description=T.CodeDescription(href=rule_url(finding.code)),
            source=SOURCE,
            related_information=related or None,
        )

    def path_of(uri: str) -> str:
        return to_fs_path(uri) or uri

    def project_file(uri: str, relative: str) -> Tuple[str, List[str]]:
        """The URI of a file named relative to the document ``uri``, and its lines when it is
        open (for UTF-16 columns; a file that is not open gets code-point columns)."""
        target = os.path.normpath(os.path.join(os.path.dirname(path_of(uri)), relative))
        step_uri = from_fs_path(target) or uri
        if step_uri in open_uris:
            return step_uri, split_lines(server.workspace.get_text_document(step_uri).source)
        return step_uri, []

    def open_texts(besides: str) -> Dict[str, str]:
        """Resolved path -> unsaved text of every open document but ``besides``: what imports
        of the project read instead of the files on disk."""
        texts = {}
        for other in open_uris:
            if other != besides and other not in open_notebooks:
                path = path_of(other)
                if os.path.isabs(path):
                    texts[os.path.realpath(path)] = server.workspace.get_text_document(other).source
        return texts

    def notebook_of(uri: str) -> str:
        """The notebook a cell URI belongs to (``uri`` itself for any other document)."""
        return next((notebook for notebook, cells in notebook_cells.items() if uri in cells), uri)

    def dependents(uri: str) -> List[str]:
        """Open documents and notebooks whose last analysis read (or looked for) the file of ``uri``."""
        path = os.path.realpath(path_of(uri))
        documents = [other for other in open_uris if other != uri and other in analyses
                     and path in analyses[other].dependencies]
        notebooks = [notebook for notebook in open_notebooks
                     if any(cell in analyses and path in analyses[cell].dependencies
                            for cell in notebook_cells.get(notebook, ()))]
        return sorted(documents + notebooks)

    def store(uri: str, analysis: Optional[Analysis]) -> None:
        """Keep ``analysis`` as the document's last (None: forget it); the hovers of the one it
        replaces will not be asked for, so a job for them that has not started never does."""
        old = analyses.pop(uri, None)
        if old is not None and old.hovers is not None and (analysis is None or analysis.hovers is not old.hovers):
            old.hovers.drop()
        if analysis is not None:
            analyses[uri] = analysis

    def publish(uri: str, analysis: Optional[Analysis]) -> None:
        diagnostics = [] if analysis is None else [diagnostic(uri, analysis, f) for f in analysis.findings]
        server.text_document_publish_diagnostics(T.PublishDiagnosticsParams(
            uri=uri, diagnostics=diagnostics, version=analysis.version if analysis else None))

    def report_config_error(analysis: Analysis) -> None:
        if analysis.config_error and analysis.config_error not in reported_config_errors:
            reported_config_errors.add(analysis.config_error)
            server.window_show_message(T.ShowMessageParams(type=T.MessageType.Error, message=analysis.config_error))

    async def lint_after(uri: str, delay: float, text_changed: bool = True) -> None:
        if delay:
            await asyncio.sleep(delay)
        if uri in open_notebooks:
            await lint_notebook(uri)
            return
        doc = server.workspace.get_text_document(uri)
        source, version = doc.source, doc.version
        analysis = await queue.run(analyse, source, path_of(uri), version, open_texts(uri))
        if uri not in open_uris or server.workspace.get_text_document(uri).version != version:
            return  # closed or edited meanwhile: the newer edit has its own run scheduled
        store(uri, analysis)
        report_config_error(analysis)
        publish(uri, analysis)
        if text_changed:
            # Open documents importing this one see its new text (only on an edit of its own:
            # re-analysing a dependent never re-analyses its dependencies, so cycles end).
            for other in dependents(uri):
                if other not in pending:
                    schedule(other, 0, text_changed=False)

    def notebook_version(uri: str) -> Optional[int]:
        notebook = server.workspace.get_notebook_document(notebook_uri=uri)
        return None if notebook is None else notebook.version

    async def lint_notebook(uri: str) -> None:
        """All Python code cells of an open notebook as one program; diagnostics per cell."""
        notebook = server.workspace.get_notebook_document(notebook_uri=uri)
        if notebook is None:
            return
        version = notebook.version
        cells = []
        for number, cell in enumerate(notebook.cells, start=1):
            if cell.kind != T.NotebookCellKind.Code:
                continue
            doc = server.workspace.get_text_document(cell.document)
            if (doc.language_id or "python") == "python":
                cells.append((number, cell.document, doc.source, doc.version))
        results = await queue.run(analyse_notebook, cells, path_of(uri), open_texts(uri))
        if uri not in open_notebooks or notebook_version(uri) != version:
            return
        gone = set(notebook_cells.get(uri, ())) - set(results)
        # Before publishing: a step in an imported module is named relative to the notebook (notebook_of).
        notebook_cells[uri] = list(results)
        for cell_uri in gone:
            store(cell_uri, None)
            publish(cell_uri, None)
        for cell_uri, analysis in results.items():
            store(cell_uri, analysis)
            report_config_error(analysis)
            publish(cell_uri, analysis)

    def schedule(uri: str, delay: float, text_changed: bool = True) -> None:
        previous = pending.pop(uri, None)
        if previous is not None:
            previous.cancel()
        task = asyncio.ensure_future(lint_after(uri, delay, text_changed))
        pending[uri] = task
        task.add_done_callback(lambda done: pending.pop(uri, None) if pending.get(uri) is done else None)

    def cancel_pending(uri: str) -> None:
        """Drop a debounced analysis that has not run yet (the document was closed)."""
        task = pending.pop(uri, None)
        if task is not None:
            task.cancel()

    @server.feature(T.TEXT_DOCUMENT_DID_OPEN)
    def did_open(params: T.DidOpenTextDocumentParams) -> None:
        open_uris.add(params.text_document.uri)
        schedule(params.text_document.uri, 0)

    @server.feature(T.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(params: T.DidChangeTextDocumentParams) -> None:
        schedule(params.text_document.uri, change_delay(params.text_document.uri))

    @server.feature(T.TEXT_DOCUMENT_DID_SAVE)
    def did_save(params: T.DidSaveTextDocumentParams) -> None:
        schedule(params.text_document.uri, 0)

    @server.feature(T.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(params: T.DidCloseTextDocumentParams) -> None:
        uri = params.text_document.uri
        open_uris.discard(uri)
        last_change.pop(uri, None)
        cancel_pending(uri)
        store(uri, None)
        publish(uri, None)
        for other in dependents(uri):
            schedule(other, 0, text_changed=False)  # they read the file on disk again

    @server.feature(T.NOTEBOOK_DOCUMENT_DID_OPEN)
    def notebook_did_open(params: T.DidOpenNotebookDocumentParams) -> None:
        open_notebooks.add(params.notebook_document.uri)
        schedule(params.notebook_document.uri, 0)

    @server.feature(T.NOTEBOOK_DOCUMENT_DID_CHANGE)
    def notebook_did_change(params: T.DidChangeNotebookDocumentParams) -> None:
        schedule(params.notebook_document.uri, change_delay(params.notebook_document.uri))

    @server.feature(T.NOTEBOOK_DOCUMENT_DID_SAVE)
    def notebook_did_save(params: T.DidSaveNotebookDocumentParams) -> None:
        schedule(params.notebook_document.uri, 0)

    @server.feature(T.NOTEBOOK_DOCUMENT_DID_CLOSE)
    def notebook_did_close(params: T.DidCloseNotebookDocumentParams) -> None:
        uri = params.notebook_document.uri
        open_notebooks.discard(uri)
        last_change.pop(uri, None)
        cancel_pending(uri)
        for cell_uri in notebook_cells.pop(uri, []):
            store(cell_uri, None)
            publish(cell_uri, None)

    @server.feature(T.INITIALIZED)
    def initialized(params: T.InitializedParams) -> None:
        # Ask the client to report changes on disk to Python files (an imported module edited
        # outside the editor, a git checkout) and to pyproject.toml, where it lets servers ask.
        capabilities = server.client_capabilities.workspace
        watched = capabilities.did_change_watched_files if capabilities is not None else None
        if watched is None or not watched.dynamic_registration:
            return
        options = T.DidChangeWatchedFilesRegistrationOptions(watchers=[
            T.FileSystemWatcher(glob_pattern="**/*.py"), T.FileSystemWatcher(glob_pattern="**/pyproject.toml")])
        server.register_capability(T.RegistrationParams(registrations=[T.Registration(
            id="torchtype-lint-watched-files", method=T.WORKSPACE_DID_CHANGE_WATCHED_FILES,
            register_options=options)]))

    @server.feature(T.WORKSPACE_DID_CHANGE_WATCHED_FILES)
    def did_change_watched_files(params: T.DidChangeWatchedFilesParams) -> None:
        # A pyproject.toml changed: the configuration may have, so re-check what is open.
        if any(change.uri.endswith("pyproject.toml") for change in params.changes):
            reported_config_errors.clear()
            for uri in sorted(open_uris | open_notebooks):
                schedule(uri, 0)
            return
        # A module changed on disk (not through the editor: an open document's own text wins):
        # the open documents and notebooks that read it are analysed again.
        for change in params.changes:
            if change.uri not in open_uris:
                for other in dependents(change.uri):
                    if other not in pending:
                        schedule(other, 0, text_changed=False)

    def current(uri: str) -> Optional[Analysis]:
        """The analysis of exactly the text the editor has now, if there is one."""
        analysis = analyses.get(uri)
        if analysis is None:
            return None
        if uri not in open_uris and not any(uri in cells for cells in notebook_cells.values()):
            return None
        return analysis if server.workspace.get_text_document(uri).version == analysis.version else None

    @server.feature(T.TEXT_DOCUMENT_CODE_ACTION,
                    T.CodeActionOptions(code_action_kinds=[T.CodeActionKind.QuickFix, FIX_ALL_KIND]))
    def code_action(params: T.CodeActionParams) -> List[T.CodeAction]:
        uri = params.text_document.uri
        analysis = current(uri)
        if analysis is None:
            return []
        only = params.context.only or []

        def wanted(kind: str) -> bool:
            return not only or any(kind == o or kind.startswith(f"{o}.") for o in only)

        lines = analysis.lines
        actions: List[T.CodeAction] = []
        if wanted(T.CodeActionKind.QuickFix):
            start = server_position(lines, params.range.start)
            end = server_position(lines, params.range.end)
            for finding in analysis.findings:
                loc = finding.location
                if (loc.end_line - 1, loc.end_column) < start or (loc.line - 1, loc.column) > end:
                    continue
                diag = diagnostic(uri, analysis, finding)
                fix = finding.fix
                if fix is not None and fix.location is not None and fix.new_text is not None:
                    actions.append(T.CodeAction(
                        title=f"torchtype-lint ({finding.code}): {fix.description}"
                              + ("" if fix.safe else " (unsafe fix)"),
                        kind=T.CodeActionKind.QuickFix, diagnostics=[diag], is_preferred=fix.safe,
                        edit=T.WorkspaceEdit(changes={uri: [T.TextEdit(range=client_range(lines, fix.location),
                                                                       new_text=fix.new_text)]})))
                insertion = noqa_insertion(lines[loc.line - 1], finding.code) if loc.line - 1 < len(lines) else None
                if insertion is not None:
                    column, text = insertion
                    at = client_position(lines, loc.line - 1, column)
                    actions.append(T.CodeAction(
                        title=f"torchtype-lint ({finding.code}): ignore for this line",
                        kind=T.CodeActionKind.QuickFix, diagnostics=[diag],
                        edit=T.WorkspaceEdit(changes={uri: [T.TextEdit(range=T.Range(start=at, end=at),
                                                                       new_text=text)]})))
        if wanted(FIX_ALL_KIND):
            safe = [(f.fix.location, f.fix.new_text) for f in analysis.findings
                    if f.fix is not None and f.fix.safe and f.fix.location is not None and f.fix.new_text is not None]
            if safe:
                edits = [T.TextEdit(range=client_range(lines, loc), new_text=text)
                         for loc, text in non_overlapping(safe)]
                actions.append(T.CodeAction(title="torchtype-lint: fix all safely fixable problems",
                                            kind=FIX_ALL_KIND, edit=T.WorkspaceEdit(changes={uri: edits})))
        return actions

    async def hovers_worked_out(hovers: Hovers, uri: str) -> None:
        """Wait for the child to work out ``hovers``, but only while it works on them: when it
        is busy with another document, their job is queued and this returns at once (the hover
        is then null; the next one finds them). The child's deadline bounds the wait."""
        if hovers.job is None:
            free = queue.idle()  # nothing ahead of the job about to be queued
            hovers.job = queue.submit(hovers.work_out, open_texts(notebook_of(uri)))
            if not free:
                return
        elif not hovers.job.running() and not hovers.job.done():
            return  # queued behind another document's analysis
        # asyncio.wait, not await: a cancelled hover request must not cancel the shared job.
        await asyncio.wait([asyncio.wrap_future(hovers.job)])

    @server.feature(T.TEXT_DOCUMENT_HOVER)
    async def hover(params: T.HoverParams) -> Optional[T.Hover]:
        uri = params.text_document.uri
        analysis = current(uri)
        if analysis is None:
            return None
        if analysis.hovers is not None and analysis.hovers.table is None:
            await hovers_worked_out(analysis.hovers, uri)
            if current(uri) is not analysis:
                return None  # edited meanwhile: the position is in a text not analysed yet
        line, column = server_position(analysis.lines, params.position)
        span = analysis.hover_at(line, column)
        if span is None:
            # On a code in a `# noqa:` comment: that rule's documentation.
            noqa = noqa_code_at(analysis.lines[line], column) if line < len(analysis.lines) else None
            markdown = rule_hover_markdown(noqa[0]) if noqa is not None else None
            if noqa is None or markdown is None:
                return None
            return T.Hover(contents=T.MarkupContent(kind=T.MarkupKind.Markdown, value=markdown),
                           range=T.Range(start=client_position(analysis.lines, line, noqa[1]),
                                         end=client_position(analysis.lines, line, noqa[2])))
        return T.Hover(
            contents=T.MarkupContent(kind=T.MarkupKind.Markdown, value=span.markdown),
            range=T.Range(start=client_position(analysis.lines, *span.start),
                          end=client_position(analysis.lines, *span.end)))

    @server.feature(T.SHUTDOWN)
    def shutdown(params: Any) -> None:
        for task in pending.values():
            task.cancel()
        queue.shutdown()

    return server


def main(args: Optional[argparse.Namespace] = None) -> int:
    """``torchtype-lint lsp``: serve on stdin/stdout until the client says exit."""
    try:
        server = create_server(warm=True)
    except ImportError as exc:
        print(f"torchtype-lint: error: the language server needs pygls 2 ({exc}); "
              "install it with `pip install 'torchtype-lint[lsp]'`", file=sys.stderr)
        return 2
    server.start_io()
    return 0
