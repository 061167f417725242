"""End to end: ``torchtype-lint lsp`` driven over stdio by a real LSP client (pytest-lsp).

One server process serves the whole module (start-up imports libcst and pygls); every test
opens its own document URI so the tests do not see each other's diagnostics.
"""
from __future__ import annotations

import asyncio
import shutil
import sys
import textwrap
from pathlib import Path
from typing import Callable, List, Sequence, Tuple

import pytest

pytest_lsp = pytest.importorskip("pytest_lsp")
from lsprotocol import types as T  # noqa: E402 - pytest-lsp brings lsprotocol
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities  # noqa: E402

pytestmark = pytest.mark.asyncio(loop_scope="module")

BAD = textwrap.dedent("""\
    import torch

    labels = torch.tensor([0, 1, 1, 0])
    labels.float()
    """)

HOVER = textwrap.dedent("""\
    import numpy as np
    import torch

    a = np.random.rand(4, 3)
    x = torch.from_numpy(a)
    y = x.sum()
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


def _uri(tmp_path, name: str) -> str:
    return (tmp_path / name).as_uri()


async def _published(client: LanguageClient, uri: str,
                     until: Callable[[Sequence[T.Diagnostic]], bool] = lambda d: True,
                     timeout: float = 20.0) -> List[T.Diagnostic]:
    """Wait until diagnostics for ``uri`` have been published and satisfy ``until``."""
    deadline = asyncio.get_running_loop().time() + timeout
    while True:
        diagnostics = client.diagnostics.get(uri)
        if diagnostics is not None and until(diagnostics):
            return list(diagnostics)
        if asyncio.get_running_loop().time() > deadline:
            raise AssertionError(f"no matching diagnostics for {uri}; last: {diagnostics!r}")
        await asyncio.sleep(0.02)


def _open(client: LanguageClient, uri: str, text: str, version: int = 1) -> None:
    client.diagnostics.pop(uri, None)
    client.text_document_did_open(T.DidOpenTextDocumentParams(
        text_document=T.TextDocumentItem(uri=uri, language_id="python", version=version, text=text)))


def _replace_all(client: LanguageClient, uri: str, text: str, version: int) -> None:
    client.diagnostics.pop(uri, None)
    client.text_document_did_change(T.DidChangeTextDocumentParams(
        text_document=T.VersionedTextDocumentIdentifier(uri=uri, version=version),
        content_changes=[T.TextDocumentContentChangeWholeDocument(text=text)]))


def _apply(text: str, edits: Sequence[T.TextEdit]) -> str:
    """Apply LSP edits (UTF-16 positions, all relative to ``text``) the way an editor does."""
    lines = text.splitlines(keepends=True)

    def offset(pos: T.Position) -> int:
        before = sum(len(line) for line in lines[: pos.line])
        line = lines[pos.line] if pos.line < len(lines) else ""
        units = chars = 0
        for ch in line:
            if units >= pos.character:
                break
            units += 2 if ord(ch) > 0xFFFF else 1
            chars += 1
        return before + chars

    for edit in sorted(edits, key=lambda e: (e.range.start.line, e.range.start.character), reverse=True):
        text = text[: offset(edit.range.start)] + edit.new_text + text[offset(edit.range.end):]
    return text


async def test_diagnostic_carries_code_link_severity_source_and_provenance(client: LanguageClient, tmp_path):
    uri = _uri(tmp_path, "bad.py")
    _open(client, uri, BAD)
    [diag] = await _published(client, uri)
    assert diag.code == "TTL101"
    assert diag.source == "torchtype-lint"
    assert diag.severity == T.DiagnosticSeverity.Warning
    assert diag.code_description.href.endswith("TTL101.md")
    assert diag.range == T.Range(start=T.Position(line=3, character=0), end=T.Position(line=3, character=14))
    assert "labels.float()" in diag.message and "int64" in diag.message
    [origin] = diag.related_information
    assert origin.location.uri == uri
    assert origin.location.range.start == T.Position(line=2, character=9)
    assert "line 3: `torch.tensor([0, 1, 1, 0])`" in origin.message


async def test_columns_are_utf16_after_non_bmp_characters(client: LanguageClient, tmp_path):
    uri = _uri(tmp_path, "emoji.py")
    # Two astral-plane characters before the finding: 2 code points, 4 UTF-16 units.
    _open(client, uri, 'import torch\nlabels = torch.tensor([0, 1])\ns = "😀🔥"; labels.float()\n')
    [diag] = await _published(client, uri)
    # Code points: `labels` starts at column 10; in UTF-16 it is 12.
    assert diag.range.start == T.Position(line=2, character=12)
    assert diag.range.end == T.Position(line=2, character=26)


async def test_code_actions_fix_noqa_and_fix_all(client: LanguageClient, tmp_path):
    uri = _uri(tmp_path, "actions.py")
    text = BAD.replace("labels.float()", 'labels.float(); s = "😀"\nlabels.float()')
    _open(client, uri, text)
    diagnostics = await _published(client, uri, lambda d: len(d) == 2)
    first = diagnostics[0]

    actions = await client.text_document_code_action_async(T.CodeActionParams(
        text_document=T.TextDocumentIdentifier(uri=uri), range=first.range,
        context=T.CodeActionContext(diagnostics=[first])))
    titles = [a.title for a in actions]
    assert titles == ["torchtype-lint (TTL101): Assign the result: `labels = labels.float()`",
                      "torchtype-lint (TTL101): ignore for this line",
                      "torchtype-lint: fix all safely fixable problems"]
    fix, noqa, fix_all = actions
    assert fix.kind == T.CodeActionKind.QuickFix and fix.is_preferred
    assert _apply(text, fix.edit.changes[uri]).splitlines()[3] == 'labels = labels.float(); s = "😀"'
    # The noqa comment goes after the emoji: its UTF-16 column counts the surrogate pair.
    [noqa_edit] = noqa.edit.changes[uri]
    assert noqa_edit.range.start == T.Position(line=3, character=len('labels.float(); s = "😀"') + 1)
    assert _apply(text, noqa.edit.changes[uri]).splitlines()[3] == 'labels.float(); s = "😀"  # noqa: TTL101'
    assert fix_all.kind == "source.fixAll.torchtype-lint"
    fixed = _apply(text, fix_all.edit.changes[uri])
    assert fixed.splitlines()[3:5] == ['labels = labels.float(); s = "😀"', "labels = labels.float()"]

    # Only the fix-all kind when the editor asks for it (e.g. on save).
    only = await client.text_document_code_action_async(T.CodeActionParams(
        text_document=T.TextDocumentIdentifier(uri=uri), range=first.range,
        context=T.CodeActionContext(diagnostics=[], only=["source.fixAll"])))
    assert [a.kind for a in only] == ["source.fixAll.torchtype-lint"]

    # The fixed text, sent as an edit, has no findings left.
    _replace_all(client, uri, fixed, version=2)
    assert await _published(client, uri) == []


async def test_changes_are_debounced_and_the_last_version_wins(client: LanguageClient, tmp_path):
    uri = _uri(tmp_path, "typing.py")
    _open(client, uri, BAD)
    await _published(client, uri, lambda d: len(d) == 1)
    good = BAD.replace("labels.float()", "labels = labels.float()")
    for version, text in enumerate([good, BAD, good, BAD + "labels.double()\n"], start=2):
        _replace_all(client, uri, text, version)
    diagnostics = await _published(client, uri, lambda d: len(d) == 2)
    assert [(d.code, d.range.start.line) for d in diagnostics] == [("TTL101", 3), ("TTL101", 4)]
    # No analysis of an older version arrives after the newest one.
    await asyncio.sleep(1.0)
    assert list(client.diagnostics[uri]) == diagnostics


async def test_save_rechecks_and_close_clears(client: LanguageClient, tmp_path):
    uri = _uri(tmp_path, "closing.py")
    _open(client, uri, BAD)
    assert len(await _published(client, uri)) == 1
    client.diagnostics.pop(uri)
    client.text_document_did_save(T.DidSaveTextDocumentParams(text_document=T.TextDocumentIdentifier(uri=uri)))
    assert len(await _published(client, uri)) == 1
    client.text_document_did_close(T.DidCloseTextDocumentParams(text_document=T.TextDocumentIdentifier(uri=uri)))
    assert await _published(client, uri, lambda d: len(d) == 0) == []


async def test_hover_shows_dtype_shape_and_origin(client: LanguageClient, tmp_path):
    uri = _uri(tmp_path, "hover.py")
    _open(client, uri, HOVER)
    await _published(client, uri)

    # On the use of `x` in `y = x.sum()` (line 6).
    hover = await client.text_document_hover_async(T.HoverParams(
        text_document=T.TextDocumentIdentifier(uri=uri), position=T.Position(line=5, character=4)))
    assert hover is not None
    text = hover.contents.value
    assert hover.contents.kind == T.MarkupKind.Markdown
    assert "Tensor[float64, (4, 3)]" in text
    assert "dtype `float64`" in text and "shape `(4, 3)`" in text
    assert "line 4: `np.random.rand(4, 3)`" in text  # where the float64 came from
    assert hover.range == T.Range(start=T.Position(line=5, character=4), end=T.Position(line=5, character=5))

    # Not a tensor: no hover.
    nothing = await client.text_document_hover_async(T.HoverParams(
        text_document=T.TextDocumentIdentifier(uri=uri), position=T.Position(line=5, character=7)))
    assert nothing is None


MODULE_HOVER = """\
import torch
from torch import nn

layer = nn.Linear(64, 10)
layer.double()
out = layer(torch.randn(2, 64, dtype=torch.float64))
"""


async def test_hover_on_a_module_shows_its_parameter_dtype_and_features(client: LanguageClient, tmp_path):
    uri = _uri(tmp_path, "module_hover.py")
    _open(client, uri, MODULE_HOVER)
    await _published(client, uri)
    # On `layer` in `out = layer(...)` (line 6): cast to float64 on line 5.
    hover = await client.text_document_hover_async(T.HoverParams(
        text_document=T.TextDocumentIdentifier(uri=uri), position=T.Position(line=5, character=7)))
    assert hover is not None
    text = hover.contents.value
    assert text.startswith("**`layer`**: nn.Linear")
    assert "parameters `float64`" in text
    assert "in_features `64`" in text and "out_features `10`" in text
    assert "line 5: `layer.double()`" in text  # where the parameter dtype was set


async def test_configuration_changes_recheck_open_documents(client: LanguageClient, tmp_path):
    uri = _uri(tmp_path, "configured.py")
    _open(client, uri, BAD)
    assert len(await _published(client, uri)) == 1

    # The editor reports a changed pyproject.toml: open documents are checked again with it.
    pyproject = tmp_path / "pyproject.toml"
    pyproject.write_text('[tool.torchtype-lint]\nignore = ["TTL101"]\n')
    client.diagnostics.pop(uri)
    client.workspace_did_change_watched_files(T.DidChangeWatchedFilesParams(changes=[
        T.FileEvent(uri=pyproject.as_uri(), type=T.FileChangeType.Changed)]))
    assert await _published(client, uri) == []

    # A broken configuration is shown to the user, and the defaults are used meanwhile.
    pyproject.write_text('[tool.torchtype-lint]\nselekt = ["TTL1"]\n')
    client.diagnostics.pop(uri)
    client.workspace_did_change_watched_files(T.DidChangeWatchedFilesParams(changes=[
        T.FileEvent(uri=pyproject.as_uri(), type=T.FileChangeType.Changed)]))
    assert len(await _published(client, uri)) == 1
    assert any("selekt" in m.message and m.type == T.MessageType.Error for m in client.messages)


async def test_hover_on_a_noqa_code_shows_the_rule_documentation(client: LanguageClient, tmp_path):
    uri = _uri(tmp_path, "noqa.py")
    text = BAD.replace("labels.float()", "labels.float()  # noqa: E501, TTL101")
    _open(client, uri, text)
    assert await _published(client, uri) == []  # the noqa works in the editor too
    column = text.splitlines()[3].index("TTL101") + 2
    hover = await client.text_document_hover_async(T.HoverParams(
        text_document=T.TextDocumentIdentifier(uri=uri), position=T.Position(line=3, character=column)))
    assert hover.contents.value.startswith("# TTL101: discarded-cast")
    assert "## Why is this bad?" in hover.contents.value
    assert hover.range.start.character == column - 2
    # A code that is not ours: nothing.
    other = await client.text_document_hover_async(T.HoverParams(
        text_document=T.TextDocumentIdentifier(uri=uri), position=T.Position(line=3, character=column - 6)))
    assert other is None


async def test_notebook_cells_are_one_program_with_diagnostics_per_cell(client: LanguageClient, tmp_path):
    notebook_uri = _uri(tmp_path, "train.ipynb")
    cell_uris = [f"vscode-notebook-cell:{tmp_path.as_posix()}/train.ipynb#cell{i}" for i in range(4)]
    texts = ["%matplotlib inline\nimport numpy as np\nimport torch\nlabels = torch.tensor([0, 1])\n",
             "# Training\n",
             "a = np.random.rand(4, 3)\n",
             "x = torch.from_numpy(a) * torch.ones(4, 3)\nlabels.float()\n"]
    kinds = [T.NotebookCellKind.Code, T.NotebookCellKind.Markup, T.NotebookCellKind.Code, T.NotebookCellKind.Code]
    for uri in cell_uris:
        client.diagnostics.pop(uri, None)
    client.notebook_document_did_open(T.DidOpenNotebookDocumentParams(
        notebook_document=T.NotebookDocument(uri=notebook_uri, notebook_type="jupyter-notebook", version=1, cells=[
            T.NotebookCell(kind=kind, document=uri) for kind, uri in zip(kinds, cell_uris)]),
        cell_text_documents=[T.TextDocumentItem(uri=uri, language_id="python" if kind == T.NotebookCellKind.Code
                                                else "markdown", version=1, text=text)
                             for uri, kind, text in zip(cell_uris, kinds, texts)]))

    # Both findings are in cell 4; TTL101's provenance points into cell 1.
    diagnostics = await _published(client, cell_uris[3])
    assert sorted(d.code for d in diagnostics) == ["TTL101", "TTL301"]
    [diag] = [d for d in diagnostics if d.code == "TTL101"]
    assert diag.range.start == T.Position(line=1, character=0)
    assert "since cell 1, line 4: `torch.tensor([0, 1])`" in diag.message
    [origin] = diag.related_information
    assert origin.location.uri == cell_uris[0]
    assert origin.location.range.start == T.Position(line=3, character=9)
    assert await _published(client, cell_uris[0]) == []

    # Hover in cell 4 on `x`: the dtype came from cell 3.
    hover = await client.text_document_hover_async(T.HoverParams(
        text_document=T.TextDocumentIdentifier(uri=cell_uris[3]), position=T.Position(line=0, character=0)))
    assert "Tensor[float64, (4, 3)]" in hover.contents.value
    assert "cell 3, line 1: `np.random.rand(4, 3)`" in hover.contents.value
    assert hover.range == T.Range(start=T.Position(line=0, character=0), end=T.Position(line=0, character=1))

    # The fix edits the cell's own text.
    actions = await client.text_document_code_action_async(T.CodeActionParams(
        text_document=T.TextDocumentIdentifier(uri=cell_uris[3]), range=diag.range,
        context=T.CodeActionContext(diagnostics=[diag])))
    [edit] = actions[0].edit.changes[cell_uris[3]]
    assert (edit.range.start.line, edit.new_text) == (1, "labels = labels.float()")

    # Editing cell 4 re-checks the notebook; closing it clears every cell.
    client.diagnostics.pop(cell_uris[3])
    client.notebook_document_did_change(T.DidChangeNotebookDocumentParams(
        notebook_document=T.VersionedNotebookDocumentIdentifier(uri=notebook_uri, version=2),
        change=T.NotebookDocumentChangeEvent(cells=T.NotebookDocumentCellChanges(text_content=[
            T.NotebookDocumentCellContentChanges(
                document=T.VersionedTextDocumentIdentifier(uri=cell_uris[3], version=2),
                changes=[T.TextDocumentContentChangeWholeDocument(text="x = torch.from_numpy(a).float()\n")])]))))
    assert await _published(client, cell_uris[3]) == []
    client.diagnostics[cell_uris[3]] = ["stale"]
    client.notebook_document_did_close(T.DidCloseNotebookDocumentParams(
        notebook_document=T.NotebookDocumentIdentifier(uri=notebook_uri),
        cell_text_documents=[T.TextDocumentIdentifier(uri=uri) for uri in cell_uris]))
    assert await _published(client, cell_uris[3], lambda d: len(d) == 0) == []


# ---------------------------------------------------------------- project-wide analysis (issue 15)

PROJECTS = Path(__file__).resolve().parent.parent / "fixtures" / "projects"


def _expected_lines(path: Path) -> List[Tuple[int, str]]:
    """(0-based line, code) of each ``# expect: CODE`` marker in a fixture file."""
    return [(number, line.split("# expect: ")[1].split()[0])
            for number, line in enumerate(path.read_text().splitlines()) if "# expect: " in line]


@pytest.mark.parametrize("name", sorted(p.name for p in PROJECTS.iterdir() if p.is_dir() and p.name != "notebook"))
async def test_project_fixtures_through_the_server(client: LanguageClient, tmp_path, name):
    for variant in ("bug", "fixed"):
        root = tmp_path / variant
        shutil.copytree(PROJECTS / name / variant, root)
        # The importers: the files with markers in the bug twin, the same files in the fixed one.
        importers = [p.relative_to(tmp_path / "bug") for p in sorted((tmp_path / "bug").rglob("*.py"))
                     if _expected_lines(p)] if variant == "fixed" else \
            [p.relative_to(root) for p in sorted(root.rglob("*.py")) if _expected_lines(p)]
        for relative in importers:
            path = root / relative
            uri = path.as_uri()
            _open(client, uri, path.read_text())
            diagnostics = await _published(client, uri)
            found = [(d.range.start.line, d.code) for d in diagnostics]
            assert found == _expected_lines(path), (name, variant, relative, found)
            for diagnostic in diagnostics:  # the root cause is in another file of the project
                assert any(r.location.uri != uri for r in diagnostic.related_information)
            client.text_document_did_close(T.DidCloseTextDocumentParams(
                text_document=T.TextDocumentIdentifier(uri=uri)))


async def test_unsaved_dependency_text_is_used_and_dependents_are_republished(client: LanguageClient, tmp_path):
    shutil.copytree(PROJECTS / "absolute" / "fixed", tmp_path / "proj")
    train, data = tmp_path / "proj" / "train.py", tmp_path / "proj" / "data.py"
    train_uri, data_uri = train.as_uri(), data.as_uri()
    _open(client, data_uri, data.read_text())
    _open(client, train_uri, train.read_text())
    assert await _published(client, train_uri) == []
    # An unsaved edit to data.py makes the batch int64: train.py, open beside it, is re-checked.
    client.diagnostics.pop(train_uri, None)
    _replace_all(client, data_uri, data.read_text().replace(".float()", ""), version=2)
    [diag] = await _published(client, train_uri, lambda d: len(d) == 1)
    assert diag.code == "TTL202" and "since data.py:6" in diag.message
    [origin] = diag.related_information
    assert origin.location.uri == data_uri
    assert origin.location.range.start == T.Position(line=5, character=11)
    # Undoing the edit clears it again.
    client.diagnostics.pop(train_uri, None)
    _replace_all(client, data_uri, data.read_text(), version=3)
    assert await _published(client, train_uri, lambda d: len(d) == 0) == []
    # The file on disk gets the bug while the editor still shows the fixed text: closing data.py
    # without saving makes train.py read the file on disk.
    data.write_text(data.read_text().replace(".float()", ""))
    client.diagnostics.pop(train_uri, None)
    client.text_document_did_close(T.DidCloseTextDocumentParams(text_document=T.TextDocumentIdentifier(uri=data_uri)))
    assert len(await _published(client, train_uri, lambda d: len(d) == 1)) == 1


async def test_a_dependency_changed_on_disk_rechecks_its_open_importers(client: LanguageClient, tmp_path):
    shutil.copytree(PROJECTS / "absolute" / "fixed", tmp_path / "proj")
    train, data = tmp_path / "proj" / "train.py", tmp_path / "proj" / "data.py"
    train_uri = train.as_uri()
    _open(client, train_uri, train.read_text())
    assert await _published(client, train_uri) == []
    # data.py is not open: a checkout (or another tool) writes the bug into it on disk.
    data.write_text(data.read_text().replace(".float()", ""))
    client.diagnostics.pop(train_uri, None)
    client.workspace_did_change_watched_files(T.DidChangeWatchedFilesParams(changes=[
        T.FileEvent(uri=data.as_uri(), type=T.FileChangeType.Changed)]))
    [diag] = await _published(client, train_uri, lambda d: len(d) == 1)
    assert diag.code == "TTL202" and "since data.py:6" in diag.message
    client.text_document_did_close(T.DidCloseTextDocumentParams(text_document=T.TextDocumentIdentifier(uri=train_uri)))


async def test_edits_are_reanalysed_incrementally_with_the_same_diagnostics(client: LanguageClient, tmp_path):
    uri = _uri(tmp_path, "inc.py")
    head = "import numpy as np\nimport torch\nimport torch.nn as nn\n\nlayer = nn.Linear(3, 2)\n"
    _open(client, uri, head + "out = layer(torch.from_numpy(np.zeros((4, 3))))\n")
    [diag] = await _published(client, uri, lambda d: len(d) == 1)
    assert diag.code == "TTL401" and diag.range.start.line == 5
    # Lines inserted above move the diagnostic; fixing the cause in its statement clears it.
    _replace_all(client, uri, "\n\n" + head + "out = layer(torch.from_numpy(np.zeros((4, 3))))\n", version=2)
    [diag] = await _published(client, uri, lambda d: len(d) == 1 and d[0].range.start.line == 7)
    _replace_all(client, uri, "\n\n" + head + "out = layer(torch.from_numpy(np.zeros((4, 3))).float())\n", version=3)
    assert await _published(client, uri, lambda d: len(d) == 0) == []
    client.text_document_did_close(T.DidCloseTextDocumentParams(text_document=T.TextDocumentIdentifier(uri=uri)))


async def test_a_notebook_follows_imports_and_is_republished_when_data_py_changes(client: LanguageClient, tmp_path):
    import json

    root = tmp_path / "proj"
    shutil.copytree(PROJECTS / "notebook" / "bug", root)
    cells = json.loads((root / "analysis.ipynb").read_text())["cells"]
    notebook_uri = (root / "analysis.ipynb").as_uri()
    cell_uris = [f"vscode-notebook-cell:{root.as_posix()}/analysis.ipynb#cell{i}" for i in range(len(cells))]
    kinds = [T.NotebookCellKind.Code if c["cell_type"] == "code" else T.NotebookCellKind.Markup for c in cells]
    client.notebook_document_did_open(T.DidOpenNotebookDocumentParams(
        notebook_document=T.NotebookDocument(uri=notebook_uri, notebook_type="jupyter-notebook", version=1, cells=[
            T.NotebookCell(kind=kind, document=uri) for kind, uri in zip(kinds, cell_uris)]),
        cell_text_documents=[T.TextDocumentItem(uri=uri, language_id="python" if kind == T.NotebookCellKind.Code
                                                else "markdown", version=1, text="".join(cell["source"]))
                             for uri, kind, cell in zip(cell_uris, kinds, cells)]))
    # Cell 5 feeds the int64 batch of data.py to the Linear layer; the root cause is in data.py.
    [diag] = await _published(client, cell_uris[4])
    assert diag.code == "TTL202" and "since data.py:6" in diag.message
    [origin] = diag.related_information
    assert origin.location.uri == (root / "data.py").as_uri()
    assert origin.location.range.start.line == 5
    # An unsaved edit to data.py (open beside it) that makes the batch float re-checks the notebook.
    data_uri = (root / "data.py").as_uri()
    _open(client, data_uri, (root / "data.py").read_text())
    client.diagnostics.pop(cell_uris[4], None)
    _replace_all(client, data_uri, (root / "data.py").read_text().replace("(n, 8))", "(n, 8)).float()"), version=2)
    assert await _published(client, cell_uris[4]) == []
    client.notebook_document_did_close(T.DidCloseNotebookDocumentParams(
        notebook_document=T.NotebookDocumentIdentifier(uri=notebook_uri),
        cell_text_documents=[T.TextDocumentIdentifier(uri=uri) for uri in cell_uris]))
    client.text_document_did_close(T.DidCloseTextDocumentParams(text_document=T.TextDocumentIdentifier(uri=data_uri)))
