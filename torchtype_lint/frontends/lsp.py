"""Language server front end: ``torchtype-lint lsp`` (pygls 2, stdio). Thin: it calls ``check_source``.

What an editor gets:

* diagnostics on open, on change (debounced, analysed in a worker thread so the event loop
  keeps answering) and on save; cleared on close. Each carries its code, a link to the rule's
  docs, severity, ``source = "torchtype-lint"`` and the provenance chain as related information;
* code actions: the rule's fix, "ignore for this line" (``# noqa: CODE``) and
  ``source.fixAll.torchtype-lint`` (safe fixes only, like ``check --fix``);
* hover on a tensor or ndarray variable: the inferred dtype, shape and device, and the chain
  of statements they came from; hover on a code in a ``# noqa:`` comment: the rule's docs.

The engine reports 1-based lines and code-point columns; LSP wants 0-based lines and columns
in the negotiated encoding (UTF-16 unless the client offers another), converted here against
the exact text that was analysed. pygls is an optional dependency (``torchtype-lint[lsp]``):
it is imported only when the server starts.
"""
from __future__ import annotations

import argparse
import asyncio
import re
import sys
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

import libcst as cst

from .. import __version__
from ..check import Settings, check_source
from ..findings import Finding, Location, rule_url
from ..values import ArrayValue, TensorValue, describe_dtypes, describe_shape

SOURCE = "torchtype-lint"
FIX_ALL_KIND = "source.fixAll.torchtype-lint"
#: Seconds of quiet after the last keystroke before a document is analysed again.
DEBOUNCE_SECONDS = 0.3

# LSP lines end at \n, \r\n or \r only (str.splitlines also splits at \x0c, \u2028, ...).
_LINE_BREAK = re.compile(r"\r\n|\r|\n")
_NOQA_CODES = re.compile(r"#\s*noqa:\s?[A-Z]+[0-9]+(?:[,\s]+[A-Z]+[0-9]+)*", re.IGNORECASE)
_NOQA_BLANKET = re.compile(r"#\s*noqa(?!:)", re.IGNORECASE)


def split_lines(source: str) -> List[str]:
    """The document's lines without their line breaks, split the way LSP counts lines."""
    return _LINE_BREAK.split(source)


# --------------------------------------------------------------------------- analysis (worker thread)


@dataclass(frozen=True)
class HoverSpan:
    """A tensor-valued name in the analysed text (0-based line, code-point columns)."""

    start: Tuple[int, int]
    end: Tuple[int, int]
    node: Any = field(repr=False, compare=False)
    value: Any = field(repr=False, compare=False)

    def contains(self, line: int, column: int) -> bool:
        return self.start <= (line, column) <= self.end

    def size(self) -> Tuple[int, int]:
        return (self.end[0] - self.start[0], self.end[1] - self.start[1])


@dataclass
class Analysis:
    """One analysis of one version of a document, with what the handlers need from it.

    Hover data is prepared on the first hover, not with the diagnostics: resolving every
    node's position roughly doubles the time to the first diagnostics on a large file.
    """

    version: Optional[int]
    lines: List[str]
    findings: List[Finding]
    config_error: Optional[str] = None
    module: Optional[cst.Module] = field(default=None, repr=False)
    #: (node, value) of every name or attribute the engine found to hold a tensor or ndarray.
    tensor_nodes: List[Tuple[Any, Any]] = field(default_factory=list, repr=False)
    _positions: Any = field(default=None, repr=False)
    _spans: Optional[List[HoverSpan]] = field(default=None, repr=False)

    def hover_ready(self) -> bool:
        return self._spans is not None

    def prepare_hover(self) -> None:
        """Resolve positions (slow on big files: run it off the event loop)."""
        if self._spans is not None:
            return
        spans: List[HoverSpan] = []
        if self.module is not None and self.tensor_nodes:
            from libcst.metadata import MetadataWrapper, PositionProvider

            self._positions = MetadataWrapper(self.module, unsafe_skip_copy=True).resolve(PositionProvider)
            for node, value in self.tensor_nodes:
                where = self._positions.get(node)
                if where is not None:
                    spans.append(HoverSpan((where.start.line - 1, where.start.column),
                                           (where.end.line - 1, where.end.column), node, value))
        self._spans = spans

    def hover_at(self, line: int, column: int) -> Optional[Tuple[HoverSpan, str]]:
        """The span under the position and its markdown; call ``prepare_hover`` first."""
        self.prepare_hover()
        # The innermost span wins: on `self.x` that is the attribute, on `x` the name.
        hits = [span for span in self._spans or () if span.contains(line, column)]
        if not hits:
            return None
        span = min(hits, key=HoverSpan.size)
        return span, hover_markdown(_snippet(self.module, span.node), span.value, self.module, self._positions)


def _settings_for(path: str) -> Tuple[Settings, Callable[[List[Finding]], List[Finding]], Optional[str]]:
    """The configuration the CLI would use for ``path``, read afresh so edits to it apply."""
    from ..config import ConfigError, RunPlan

    try:
        plan = RunPlan.from_args(select=None)
        return plan.settings_for(path), plan.apply_per_file_ignores, None
    except ConfigError as exc:
        return Settings(), lambda findings: findings, f"torchtype-lint: configuration error: {exc}"


def analyse(source: str, path: str, version: Optional[int]) -> Analysis:
    """Run the engine on one document's text. Never raises: an editor session must survive
    anything, so a failure outside ``check_source`` (which never raises) becomes TTL000."""
    try:
        settings, postprocess, config_error = _settings_for(path)
        result = check_source(source, path, settings, keep_analysis=True)
        findings = postprocess(result.findings)
    except Exception as exc:  # noqa: BLE001
        message = f"internal error in the language server: {type(exc).__name__}: {' '.join(str(exc).split())}"
        return Analysis(version, split_lines(source), [Finding("TTL000", message, "error", path)])
    tensor_nodes: List[Tuple[Any, Any]] = []
    if result.module is not None and result.interpreter is not None:
        tensor_nodes = [(node, value) for node, value in result.interpreter.values.items()
                        if isinstance(node, (cst.Name, cst.Attribute)) and isinstance(value, (TensorValue, ArrayValue))]
    return Analysis(version, split_lines(source), findings, config_error,
                    result.module if tensor_nodes else None, tensor_nodes)


def hover_markdown(name: str, value: Any, module: cst.Module, positions: Any) -> str:
    """What a hover shows: the value, then where its dtype and shape came from."""
    kind = "Tensor" if isinstance(value, TensorValue) else "ndarray"
    dtype = describe_dtypes(value.dtypes)
    shape = describe_shape(value.shape)
    facts = [f"dtype `{dtype}`" + (" (unknown)" if value.dtypes is None else
                                   " (one of these)" if dtype.startswith("{") else ""),
             f"shape `{shape}`" + (" (unknown rank)" if value.shape is None else "")]
    if isinstance(value, TensorValue):
        if value.device:
            facts.append(f"device `{value.device}`")
        if value.requires_grad is not None:
            facts.append(f"requires_grad `{value.requires_grad}`")
    text = [f"**`{name}`**: {kind}[{dtype}, {shape}] (torchtype-lint)", "", " · ".join(facts)]
    origin = value.origin
    if origin is not None:
        steps = []
        for link in origin.chain():
            where = positions.get(link.node) if link.node is not None else None
            if where is None:
                continue
            step = f"- line {where.start.line}: `{_snippet(module, link.node)}`"
            steps.append(step + (f" — {link.note}" if link.note else ""))
        if steps:
            text += ["", "Where it came from (newest first):", *steps]
    return "\n".join(text)


def _snippet(module: cst.Module, node: Any, limit: int = 60) -> str:
    try:
        text = " ".join(module.code_for_node(node).split())
    except Exception:  # noqa: BLE001 - a hover must never fail on rendering
        return "?"
    return text if len(text) <= limit else text[: limit - 3] + "..."


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


def create_server(debounce: float = DEBOUNCE_SECONDS):  # noqa: C901 - the handlers belong together
    """The pygls server with every handler registered (imported here: pygls is optional)."""
    from lsprotocol import types as T
    from pygls.lsp.server import LanguageServer
    from pygls.uris import to_fs_path

    server = LanguageServer(SOURCE, __version__, text_document_sync_kind=T.TextDocumentSyncKind.Incremental)
    executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="torchtype-lint")
    analyses: Dict[str, Analysis] = {}
    pending: Dict[str, "asyncio.Task[None]"] = {}
    open_uris: set = set()
    reported_config_errors: set = set()

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

    def diagnostic(uri: str, lines: Sequence[str], finding: Finding) -> "T.Diagnostic":
        related = [
            T.DiagnosticRelatedInformation(
                location=T.Location(uri=uri, range=T.Range(start=client_position(lines, step.line - 1, step.column),
                                                           end=client_position(lines, step.line - 1, step.column))),
                message=step.render())
            for step in finding.provenance
        ]
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

    def publish(uri: str, analysis: Optional[Analysis]) -> None:
        diagnostics = [] if analysis is None else [diagnostic(uri, analysis.lines, f) for f in analysis.findings]
        server.text_document_publish_diagnostics(T.PublishDiagnosticsParams(
            uri=uri, diagnostics=diagnostics, version=analysis.version if analysis else None))

    async def lint_after(uri: str, delay: float) -> None:
        if delay:
            await asyncio.sleep(delay)
        doc = server.workspace.get_text_document(uri)
        source, version = doc.source, doc.version
        analysis = await asyncio.get_running_loop().run_in_executor(executor, analyse, source, path_of(uri), version)
        if uri not in open_uris or server.workspace.get_text_document(uri).version != version:
            return  # closed or edited meanwhile: the newer edit has its own run scheduled
        analyses[uri] = analysis
        if analysis.config_error and analysis.config_error not in reported_config_errors:
            reported_config_errors.add(analysis.config_error)
            server.window_show_message(T.ShowMessageParams(type=T.MessageType.Error, message=analysis.config_error))
        publish(uri, analysis)

    def schedule(uri: str, delay: float) -> None:
        previous = pending.pop(uri, None)
        if previous is not None:
            previous.cancel()
        task = asyncio.ensure_future(lint_after(uri, delay))
        pending[uri] = task
        task.add_done_callback(lambda done: pending.pop(uri, None) if pending.get(uri) is done else None)

    @server.feature(T.TEXT_DOCUMENT_DID_OPEN)
    def did_open(params: T.DidOpenTextDocumentParams) -> None:
        open_uris.add(params.text_document.uri)
        schedule(params.text_document.uri, 0)

    @server.feature(T.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(params: T.DidChangeTextDocumentParams) -> None:
        schedule(params.text_document.uri, debounce)

    @server.feature(T.TEXT_DOCUMENT_DID_SAVE)
    def did_save(params: T.DidSaveTextDocumentParams) -> None:
        schedule(params.text_document.uri, 0)

    @server.feature(T.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(params: T.DidCloseTextDocumentParams) -> None:
        uri = params.text_document.uri
        open_uris.discard(uri)
        task = pending.pop(uri, None)
        if task is not None:
            task.cancel()
        analyses.pop(uri, None)
        publish(uri, None)

    @server.feature(T.WORKSPACE_DID_CHANGE_WATCHED_FILES)
    def did_change_watched_files(params: T.DidChangeWatchedFilesParams) -> None:
        # A pyproject.toml changed: the configuration may have, so re-check what is open.
        if any(change.uri.endswith("pyproject.toml") for change in params.changes):
            reported_config_errors.clear()
            for uri in sorted(open_uris):
                schedule(uri, 0)

    def current(uri: str) -> Optional[Analysis]:
        """The analysis of exactly the text the editor has now, if there is one."""
        analysis = analyses.get(uri)
        if analysis is None or uri not in open_uris:
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
                diag = diagnostic(uri, lines, finding)
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

    @server.feature(T.TEXT_DOCUMENT_HOVER)
    async def hover(params: T.HoverParams) -> Optional[T.Hover]:
        analysis = current(params.text_document.uri)
        if analysis is None:
            return None
        if not analysis.hover_ready():
            await asyncio.get_running_loop().run_in_executor(executor, analysis.prepare_hover)
        line, column = server_position(analysis.lines, params.position)
        found = analysis.hover_at(line, column)
        if found is None:
            # On a code in a `# noqa:` comment: that rule's documentation.
            noqa = noqa_code_at(analysis.lines[line], column) if line < len(analysis.lines) else None
            markdown = rule_hover_markdown(noqa[0]) if noqa is not None else None
            if noqa is None or markdown is None:
                return None
            return T.Hover(contents=T.MarkupContent(kind=T.MarkupKind.Markdown, value=markdown),
                           range=T.Range(start=client_position(analysis.lines, line, noqa[1]),
                                         end=client_position(analysis.lines, line, noqa[2])))
        span, markdown = found
        return T.Hover(
            contents=T.MarkupContent(kind=T.MarkupKind.Markdown, value=markdown),
            range=T.Range(start=client_position(analysis.lines, *span.start),
                          end=client_position(analysis.lines, *span.end)))

    @server.feature(T.SHUTDOWN)
    def shutdown(params: Any) -> None:
        for task in pending.values():
            task.cancel()
        executor.shutdown(wait=False, cancel_futures=True)

    return server


def main(args: Optional[argparse.Namespace] = None) -> int:
    """``torchtype-lint lsp``: serve on stdin/stdout until the client says exit."""
    try:
        server = create_server()
    except ImportError as exc:
        print(f"torchtype-lint: error: the language server needs pygls 2 ({exc}); "
              "install it with `pip install 'torchtype-lint[lsp]'`", file=sys.stderr)
        return 2
    server.start_io()
    return 0
