"""Every front end reports the same findings for the same files: the CLI, the flake8 plugin
(through flake8), the language server (through an LSP client over stdio) and the pre-commit
hook (through pre-commit). They all call ``check_source``; this test catches a front end
that drops, adds, moves or rewords a finding (columns compared in code points, 1-based).
A notebook is compared too, except under flake8, which does not read notebooks; the language
server gets it as an LSP notebook document, cell by cell."""
from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import List, Set, Tuple

import pytest

pytest_lsp = pytest.importorskip("pytest_lsp")
from lsprotocol import types as T  # noqa: E402
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities  # noqa: E402

from precommit_support import CHECKOUT, make_project, run_hook  # noqa: E402
from torchtype_lint.model.findings import ProvenanceStep  # noqa: E402
from torchtype_lint.model.headline import headline  # noqa: E402

#: path, cell (0 outside notebooks), line, column (1-based code points), code, message
Finding = Tuple[str, int, int, int, str, str]

# Not a fixture: astral-plane and accented characters before a finding, a noqa, two findings.
EDGES = textwrap.dedent("""\
    import torch

    labels = torch.tensor([0, 1, 1, 0])
    s = "😀é"; labels.float()
    labels.double()  # noqa: TTL101
    labels.half()
    """)
# A notebook: a magic, a markdown cell, findings in two cells, one after astral-plane characters.
NOTEBOOK_CELLS = [
    ("code", "%matplotlib inline\nimport numpy as np\nimport torch\nlabels = torch.tensor([0, 1])\n"),
    ("markdown", "# Data\n"),
    ("code", "a = np.random.rand(4, 3)\nx = torch.from_numpy(a) * torch.ones(4, 3)\n"),  # promoted: TTL301
    ("code", 's = "😀🔥"; labels.float(); n = 0\n'),  # not last: not displayed
]
NOTEBOOK = json.dumps({
    "cells": [{"cell_type": kind, "metadata": {}, "source": text.splitlines(keepends=True),
               **({"execution_count": None, "outputs": []} if kind == "code" else {})}
              for kind, text in NOTEBOOK_CELLS],
    "metadata": {"language_info": {"name": "python"}}, "nbformat": 4, "nbformat_minor": 5}, indent=1)
CONCISE = re.compile(r"^(?P<path>[^:\s][^:]*?)(?::cell (?P<cell>\d+))?:(?P<line>\d+):(?P<col>\d+): "
                     r"(?P<code>TTL\d+) (?P<message>.*)$")


@pytest.fixture(scope="module")
def corpus(tmp_path_factory) -> Tuple[Path, List[str]]:
    """Copies of every rule fixture plus EDGES, away from the checkout's configuration."""
    root = tmp_path_factory.mktemp("agree")
    files = {}
    for path in sorted((CHECKOUT / "fixtures").glob("TTL*/*.py")):
        files[f"{path.parent.name}/{path.name}"] = path.read_text(encoding="utf-8")
    files["edges.py"] = EDGES
    files["notebook.ipynb"] = NOTEBOOK
    project = make_project(root / "project", files)
    return project, sorted(files)


def _cli(project: Path, files: List[str], headlines: bool = False) -> Set[Finding]:
    """The CLI's findings with their whole message (what JSON and the language server show), or
    with its headline (what the concise format, hence pre-commit, and flake8 print)."""
    # --no-cache: the findings are computed here, not read back from another front end's run.
    run = subprocess.run([sys.executable, "-m", "torchtype_lint", "check", "--no-cache", "--output-format", "json",
                          *files],
                         cwd=project, capture_output=True, text=True, timeout=300)
    assert run.returncode in (0, 1), run.stderr
    return {(f["filename"], f.get("cell", 0), f["location"]["row"], f["location"]["column"], f["code"],
             _headline(f) if headlines else f["message"])
            for f in json.loads(run.stdout)}


def _headline(finding: dict) -> str:
    steps = [ProvenanceStep(s["row"], s["column"] - 1, s["code"], s["note"]) for s in finding["provenance"]]
    return headline(finding["message"], steps)


def _flake8(project: Path, files: List[str]) -> Set[Finding]:
    fmt = "%(path)s|%(row)d|%(col)d|%(code)s|%(text)s"
    run = subprocess.run([sys.executable, "-m", "flake8", "--isolated", "--select=TTL", f"--format={fmt}", *files],
                         cwd=project, capture_output=True, text=True, timeout=300)
    assert run.returncode in (0, 1), run.stderr
    out = set()
    for line in run.stdout.splitlines():
        path, row, col, code, message = line.split("|", 4)
        out.add((path, 0, int(row), int(col), code, message))
    return out


def _pre_commit(project: Path, files: List[str], cache_dir: Path) -> Set[Finding]:
    run = run_hook(project, "torchtype-lint", files, env={"TORCHTYPE_LINT_CACHE_DIR": str(cache_dir)})
    assert run.returncode in (0, 1), run.stdout + run.stderr
    return {(m["path"], int(m["cell"] or 0), int(m["line"]), int(m["col"]), m["code"], m["message"])
            for m in map(CONCISE.match, run.stdout.splitlines()) if m}


def _code_points(line_text: str, utf16_column: int) -> int:
    units = points = 0
    for char in line_text:
        if units >= utf16_column:
            break
        units += 2 if ord(char) > 0xFFFF else 1
        points += 1
    return points


async def _lsp(client: LanguageClient, project: Path, files: List[str]) -> Set[Finding]:
    import asyncio

    uris = {}  # document or cell URI -> (file name, cell number or 0, text)
    for name in files:
        path = project / name
        if name.endswith(".ipynb"):
            _open_notebook(client, path, uris)
            continue
        uri = path.as_uri()
        uris[uri] = (name, 0, path.read_text(encoding="utf-8"))
        client.text_document_did_open(T.DidOpenTextDocumentParams(text_document=T.TextDocumentItem(
            uri=uri, language_id="python", version=1, text=uris[uri][2])))
    deadline = asyncio.get_running_loop().time() + 120
    while not all(uri in client.diagnostics for uri in uris):
        assert asyncio.get_running_loop().time() < deadline, "the server did not publish for every file"
        await asyncio.sleep(0.05)
    out = set()
    for uri, (name, cell, text) in uris.items():
        lines = text.splitlines()
        for d in client.diagnostics[uri]:
            column = _code_points(lines[d.range.start.line], d.range.start.character)
            out.add((name, cell, d.range.start.line + 1, column + 1, d.code, d.message))
    return out


def _open_notebook(client: LanguageClient, path: Path, uris: dict) -> None:
    """Open ``path`` the way VS Code does: a notebook document whose cells are text documents."""
    notebook = json.loads(path.read_text(encoding="utf-8"))
    cells, items = [], []
    for number, cell in enumerate(notebook["cells"], start=1):
        uri = f"vscode-notebook-cell:{path.as_posix()}#cell{number}"
        text = "".join(cell["source"])
        code = cell["cell_type"] == "code"
        cells.append(T.NotebookCell(kind=T.NotebookCellKind.Code if code else T.NotebookCellKind.Markup,
                                    document=uri))
        items.append(T.TextDocumentItem(uri=uri, language_id="python" if code else "markdown", version=1, text=text))
        if code:
            uris[uri] = (path.name, number, text)
    client.notebook_document_did_open(T.DidOpenNotebookDocumentParams(
        notebook_document=T.NotebookDocument(uri=path.as_uri(), notebook_type="jupyter-notebook", version=1,
                                             cells=cells),
        cell_text_documents=items))


@pytest_lsp.fixture(
    scope="module",
    config=ClientServerConfig(server_command=[sys.executable, "-m", "torchtype_lint", "lsp"]),
)
async def client(lsp_client: LanguageClient):
    await lsp_client.initialize_session(T.InitializeParams(
        capabilities=client_capabilities("visual-studio-code"), process_id=None))
    yield
    await lsp_client.shutdown_session()


@pytest.mark.skipif(shutil.which("git") is None, reason="pre-commit needs git")
@pytest.mark.asyncio(loop_scope="module")
async def test_cli_flake8_lsp_and_pre_commit_report_identical_findings(client: LanguageClient, corpus, tmp_path):
    project, files = corpus
    cli = _cli(project, files)
    # Not vacuous: many files and rules report (that each bad fixture does is test_fixtures'
    # job), the edge file exactly twice, the notebook in cells 3 and 4.
    assert len({f[0] for f in cli}) >= 20 and len({f[4] for f in cli}) >= 10
    assert sorted(f[1:5] for f in cli if f[0] == "edges.py") == [(0, 4, 11, "TTL101"), (0, 6, 1, "TTL101")]
    assert sorted(f[1:5] for f in cli if f[0] == "notebook.ipynb") == [(3, 2, 5, "TTL301"), (4, 1, 11, "TTL101")]

    python_files = [name for name in files if name.endswith(".py")]
    short = _cli(project, files, headlines=True)
    _assert_same("flake8", _flake8(project, python_files), {f for f in short if f[0].endswith(".py")})
    _assert_same("pre-commit", _pre_commit(project, files, tmp_path / "hook-cache"), short)
    _assert_same("the language server", await _lsp(client, project, files), cli)


def _assert_same(front_end: str, found: Set[Finding], cli: Set[Finding]) -> None:
    assert found == cli, (f"{front_end} differs from the CLI; only in {front_end}: {sorted(found - cli)}; "
                          f"only in the CLI: {sorted(cli - found)}")
