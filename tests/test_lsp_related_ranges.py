"""The language server's related locations (a diagnostic's provenance steps) span the value's
expression, so an editor has something to show and click (issue 27: they were zero-width).

Driven over stdio by a real LSP client (pytest-lsp), like ``test_lsp.py``; also the same spans
in the JSON output and through the cache.
"""
from __future__ import annotations

import asyncio
import json
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Callable, List, Sequence

import pytest

pytest_lsp = pytest.importorskip("pytest_lsp")
from lsprotocol import types as T  # noqa: E402 - pytest-lsp brings lsprotocol
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities  # noqa: E402

pytestmark = pytest.mark.asyncio(loop_scope="module")

REPO = Path(__file__).resolve().parent.parent
PROJECTS = REPO / "fixtures" / "projects"

# The cause spans two lines, after two astral-plane characters (2 code points, 4 UTF-16 units).
MULTILINE = textwrap.dedent("""\
    import torch

    s = "😀🔥"; labels = torch.tensor(
        [0, 1, 1, 0])
    labels.float()
    """)


@pytest_lsp.fixture(
    scope="module",
    config=ClientServerConfig(server_command=[sys.executable, "-m", "torchtype_lint", "lsp"]),
)
async def client(lsp_client: LanguageClient):
    await lsp_client.initialize_session(T.InitializeParams(
        capabilities=client_capabilities("visual-studio-code"), process_id=None))
    yield
    await lsp_client.shutdown_session()


async def _published(client: LanguageClient, uri: str,
                     until: Callable[[Sequence[T.Diagnostic]], bool] = lambda d: True,
                     timeout: float = 20.0) -> List[T.Diagnostic]:
    deadline = asyncio.get_running_loop().time() + timeout
    while True:
        diagnostics = client.diagnostics.get(uri)
        if diagnostics is not None and until(diagnostics):
            return list(diagnostics)
        if asyncio.get_running_loop().time() > deadline:
            raise AssertionError(f"no matching diagnostics for {uri}; last: {diagnostics!r}")
        await asyncio.sleep(0.02)


def _open(client: LanguageClient, uri: str, text: str) -> None:
    client.diagnostics.pop(uri, None)
    client.text_document_did_open(T.DidOpenTextDocumentParams(
        text_document=T.TextDocumentItem(uri=uri, language_id="python", version=1, text=text)))


def _close(client: LanguageClient, uri: str) -> None:
    client.text_document_did_close(T.DidCloseTextDocumentParams(text_document=T.TextDocumentIdentifier(uri=uri)))


def _position(line: int, character: int) -> T.Position:
    return T.Position(line=line, character=character)


async def test_related_location_spans_the_cause_expression_in_utf16(client: LanguageClient, tmp_path):
    uri = (tmp_path / "multi.py").as_uri()
    _open(client, uri, MULTILINE)
    [diag] = await _published(client, uri)
    assert diag.code == "TTL101"
    [origin] = diag.related_information
    assert origin.location.uri == uri
    # `torch.tensor(` starts at code point 19 of line 3 (UTF-16: 21) and ends after `])` on line 4.
    assert origin.location.range == T.Range(start=_position(2, 21), end=_position(3, 17))
    _close(client, uri)


async def test_one_line_cause_is_the_whole_expression(client: LanguageClient, tmp_path):
    uri = (tmp_path / "one.py").as_uri()
    text = "import torch\n\nlabels = torch.tensor([0, 1, 1, 0])\nlabels.float()\n"
    _open(client, uri, text)
    [diag] = await _published(client, uri)
    [origin] = diag.related_information
    start, end = origin.location.range.start, origin.location.range.end
    assert (start, end) == (_position(2, 9), _position(2, 35))
    assert text.splitlines()[2][start.character:end.character] == "torch.tensor([0, 1, 1, 0])"
    _close(client, uri)


async def test_related_location_in_another_cell_spans_the_expression(client: LanguageClient, tmp_path):
    notebook_uri = (tmp_path / "nb.ipynb").as_uri()
    cell_uris = [f"vscode-notebook-cell:{tmp_path.as_posix()}/nb.ipynb#cell{i}" for i in range(3)]
    texts = ["import torch\nlabels = torch.tensor([0, 1])\n", "# notes\n", "x = 1\nlabels.float()\n"]
    kinds = [T.NotebookCellKind.Code, T.NotebookCellKind.Markup, T.NotebookCellKind.Code]
    for uri in cell_uris:
        client.diagnostics.pop(uri, None)
    client.notebook_document_did_open(T.DidOpenNotebookDocumentParams(
        notebook_document=T.NotebookDocument(uri=notebook_uri, notebook_type="jupyter-notebook", version=1, cells=[
            T.NotebookCell(kind=kind, document=uri) for kind, uri in zip(kinds, cell_uris)]),
        cell_text_documents=[T.TextDocumentItem(uri=uri, language_id="python" if kind == T.NotebookCellKind.Code
                                                else "markdown", version=1, text=text)
                             for uri, kind, text in zip(cell_uris, kinds, texts)]))
    [diag] = await _published(client, cell_uris[2])
    [origin] = diag.related_information
    assert origin.location.uri == cell_uris[0]
    assert origin.location.range == T.Range(start=_position(1, 9), end=_position(1, 29))
    client.notebook_document_did_close(T.DidCloseNotebookDocumentParams(
        notebook_document=T.NotebookDocumentIdentifier(uri=notebook_uri),
        cell_text_documents=[T.TextDocumentIdentifier(uri=uri) for uri in cell_uris]))


async def test_related_location_in_an_imported_module_spans_the_expression(client: LanguageClient, tmp_path):
    root = tmp_path / "proj"
    shutil.copytree(PROJECTS / "absolute" / "bug", root)
    uri = (root / "train.py").as_uri()
    _open(client, uri, (root / "train.py").read_text())
    [diag] = await _published(client, uri)
    [origin] = diag.related_information
    assert origin.location.uri == (root / "data.py").as_uri()
    # data.py line 6: `    return torch.randint(0, 10, (n, 8))`
    assert origin.location.range == T.Range(start=_position(5, 11), end=_position(5, 39))
    _close(client, uri)


def test_json_output_gives_each_step_an_end_location(tmp_path):
    (tmp_path / "multi.py").write_text(MULTILINE, encoding="utf-8")
    for cached in (False, True):  # the second run is answered from the cache
        proc = subprocess.run([sys.executable, "-m", "torchtype_lint", "check", "--isolated",
                               "--cache-dir", str(tmp_path / "cache"), "--output-format", "json", "multi.py"],
                              cwd=tmp_path, capture_output=True, text=True, timeout=120)
        assert proc.returncode == 1, proc.stderr
        [finding] = json.loads(proc.stdout)
        [step] = finding["provenance"]
        # Rows and columns as the finding's own (1-based, code points), the end exclusive.
        assert (step["row"], step["column"]) == (3, 20), cached
        assert step["end_location"] == {"row": 4, "column": 18}, cached
