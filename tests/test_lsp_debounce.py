"""The language server's debounce has a leading edge: the first change after a pause is analysed
at once; changes that follow each other within the debounce wait for the quiet and coalesce.

The server runs with a long debounce (3 s) so that "at once" and "after the quiet" are far apart
whatever the machine's load: an analysis of these few lines takes milliseconds.
"""
from __future__ import annotations

import asyncio
import sys
import textwrap

import pytest

pytest_lsp = pytest.importorskip("pytest_lsp")
from lsprotocol import types as T  # noqa: E402 - pytest-lsp brings lsprotocol
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities  # noqa: E402

pytestmark = pytest.mark.asyncio(loop_scope="module")

DEBOUNCE = 3.0
SERVE = ("from torchtype_lint.frontends.lsp import create_server; "
         f"create_server(debounce={DEBOUNCE}, warm=True).start_io()")

BAD = textwrap.dedent("""\
    import torch

    labels = torch.tensor([0, 1, 1, 0])
    labels.float()
    """)
GOOD = BAD.replace("labels.float()", "labels = labels.float()")


@pytest_lsp.fixture(scope="module", config=ClientServerConfig(server_command=[sys.executable, "-c", SERVE]))
async def client(lsp_client: LanguageClient):
    await lsp_client.initialize_session(T.InitializeParams(
        capabilities=client_capabilities("visual-studio-code"), process_id=None))
    yield
    await lsp_client.shutdown_session()


async def _published(client: LanguageClient, uri: str, codes: list, timeout: float = 30.0) -> float:
    """Wait for diagnostics of ``uri`` with exactly ``codes`` (each version below has its own);
    the loop's time they arrived."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while uri not in client.diagnostics or [d.code for d in client.diagnostics[uri]] != codes:
        if loop.time() > deadline:
            raise AssertionError(f"no diagnostics {codes} for {uri}: {client.diagnostics.get(uri)!r}")
        await asyncio.sleep(0.01)
    return loop.time()


def _change(client: LanguageClient, uri: str, text: str, version: int) -> float:
    client.text_document_did_change(T.DidChangeTextDocumentParams(
        text_document=T.VersionedTextDocumentIdentifier(uri=uri, version=version),
        content_changes=[T.TextDocumentContentChangeWholeDocument(text=text)]))
    return asyncio.get_running_loop().time()


async def test_a_change_after_a_pause_is_analysed_at_once_and_a_burst_waits_for_quiet(
        client: LanguageClient, tmp_path):
    uri = (tmp_path / "train.py").as_uri()
    client.text_document_did_open(T.DidOpenTextDocumentParams(
        text_document=T.TextDocumentItem(uri=uri, language_id="python", version=1, text=BAD)))
    await _published(client, uri, ["TTL101"])

    # One change, nothing before it: no debounce.
    sent = _change(client, uri, GOOD, 2)
    assert await _published(client, uri, []) - sent < DEBOUNCE

    # Two more at once: they follow a change within the debounce, so the last one waits for the quiet
    # and the one before it is never analysed on its own.
    _change(client, uri, BAD, 3)
    sent = _change(client, uri, BAD + "labels.double()\n", 4)
    arrived = await _published(client, uri, ["TTL101", "TTL101"])
    assert arrived - sent >= DEBOUNCE - 0.05  # a little slack: the server's clock is not the test's
