"""``torchtype-lint lsp`` answers every request, over the real stdio protocol.

A raw JSON-RPC client (Content-Length framing over the server's pipes) so that it can send
what a typed client cannot: params that are missing or of the wrong type, bodies that are not
JSON, messages without ``"jsonrpc"``. Each request must get exactly one reply (its result or a
JSON-RPC error with its id), notifications none, and the server must keep serving.
"""
from __future__ import annotations

import json
import queue
import subprocess
import sys
import threading
import time
from typing import Any, Dict, List

import pytest

pytest.importorskip("pygls")

INVALID_PARAMS, INVALID_REQUEST, METHOD_NOT_FOUND, PARSE_ERROR = -32602, -32600, -32601, -32700
BAD = "import torch\n\nlabels = torch.tensor([0, 1, 1, 0])\nlabels.float()\n"
#: Seconds to wait for one message; generous for a loaded 2-core machine.
WAIT = 30.0


class RawClient:
    """Speaks LSP's base protocol to a server process; a thread collects what it writes."""

    def __init__(self) -> None:
        self.process = subprocess.Popen([sys.executable, "-m", "torchtype_lint", "lsp"],
                                        stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        stderr=subprocess.DEVNULL)
        self.inbox: "queue.Queue[Dict[str, Any]]" = queue.Queue()
        self.seen: List[Dict[str, Any]] = []
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        stream = self.process.stdout
        while True:
            length = None
            while True:  # headers up to the empty line
                line = stream.readline()
                if not line:
                    return
                if not line.strip():
                    break
                name, _, value = line.decode("ascii").partition(":")
                if name.strip().lower() == "content-length":
                    length = int(value)
            self.inbox.put(json.loads(stream.read(length)))

    def send_body(self, body: bytes) -> None:
        self.process.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.process.stdin.flush()

    def send(self, message: Dict[str, Any]) -> None:
        self.send_body(json.dumps(message).encode())

    def request(self, msg_id: Any, method: str, params: Any = None, **extra: Any) -> None:
        self.send({"jsonrpc": "2.0", "id": msg_id, "method": method, "params": params, **extra})

    def notify(self, method: str, params: Any) -> None:
        self.send({"jsonrpc": "2.0", "method": method, "params": params})

    def next_message(self, timeout: float = WAIT) -> Dict[str, Any]:
        message = self.inbox.get(timeout=timeout)
        self.seen.append(message)
        return message

    def reply(self, timeout: float = WAIT) -> Dict[str, Any]:
        """The next response (skipping notifications such as published diagnostics)."""
        deadline = time.monotonic() + timeout
        while True:
            message = self.next_message(max(deadline - time.monotonic(), 0.01))
            if "method" not in message:
                return message

    def diagnostics(self, uri: str, timeout: float = WAIT) -> List[Dict[str, Any]]:
        deadline = time.monotonic() + timeout
        while True:
            message = self.next_message(max(deadline - time.monotonic(), 0.01))
            if message.get("method") == "textDocument/publishDiagnostics" and message["params"]["uri"] == uri:
                return message["params"]["diagnostics"]

    def close(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait(timeout=WAIT)
        self.process.stdin.close()
        self.process.stdout.close()


@pytest.fixture(scope="module")
def server():
    client = RawClient()
    client.request(1, "initialize", {"processId": None, "capabilities": {}})
    assert "capabilities" in client.reply()["result"]
    client.notify("initialized", {})
    yield client
    client.close()


def _error(reply: Dict[str, Any], msg_id: Any, code: int) -> str:
    assert reply.get("id", "missing") == msg_id, reply
    assert "result" not in reply, reply
    assert reply["error"]["code"] == code, reply
    return reply["error"]["message"]


DOC = {"uri": "file:///nowhere/unknown.py"}

# (params, what the error message must name)
BAD_PARAMS = {
    "hover without a position": (
        "textDocument/hover", {"textDocument": DOC}, "required field missing @ $.params.position"),
    "hover with a string line": (
        "textDocument/hover", {"textDocument": DOC, "position": {"line": "x", "character": 0}},
        "$.params.position.line"),
    "hover with a negative line": (
        "textDocument/hover", {"textDocument": DOC, "position": {"line": -1, "character": 0}},
        "$.params.position"),
    "hover with null params": ("textDocument/hover", None, "$.params"),
    "hover with an array for params": ("textDocument/hover", [1, 2], "$.params.textDocument"),
    "hover with a number for the document": (
        "textDocument/hover", {"textDocument": 7, "position": {"line": 0, "character": 0}},
        "$.params.textDocument"),
    "code action with a malformed range": (
        "textDocument/codeAction", {"textDocument": DOC, "range": {"start": 1}, "context": {"diagnostics": []}},
        "$.params.range"),
    "code action without a context": (
        "textDocument/codeAction",
        {"textDocument": DOC, "range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 0}}},
        "required field missing @ $.params.context"),
}


@pytest.mark.parametrize("case", list(BAD_PARAMS))
def test_request_with_invalid_params_gets_invalid_params_error(server: RawClient, case: str):
    method, params, names = BAD_PARAMS[case]
    msg_id = f"bad-{case}"
    before = len(server.seen)
    server.request(msg_id, method, params)
    message = _error(server.reply(), msg_id, INVALID_PARAMS)
    assert message.startswith(f"Invalid params for {method}: ")
    assert names in message
    # Answered in the reply, not also shown to the user as an "Error in server" pop-up.
    assert not [m for m in server.seen[before:] if m.get("method") == "window/showMessage"]


def test_requests_about_an_unknown_document_get_empty_results(server: RawClient):
    server.request(20, "textDocument/hover", {"textDocument": DOC, "position": {"line": 0, "character": 0}})
    assert server.reply() == {"jsonrpc": "2.0", "id": 20, "result": None}
    zero = {"line": 0, "character": 0}
    server.request(21, "textDocument/codeAction", {"textDocument": DOC, "range": {"start": zero, "end": zero},
                                                   "context": {"diagnostics": []}})
    assert server.reply() == {"jsonrpc": "2.0", "id": 21, "result": []}


def test_bodies_that_are_not_requests_get_json_rpc_errors_with_a_null_id(server: RawClient):
    server.send_body(b"{not json")
    assert "JSONDecodeError" in _error(server.reply(), None, PARSE_ERROR)
    # Nested far past Python's recursion limit: json.loads raises RecursionError.
    server.send_body(b"[" * 100_000 + b"]" * 100_000)
    assert "RecursionError" in _error(server.reply(), None, PARSE_ERROR)
    server.send_body(b"[1, 2]")
    assert "must be a JSON object" in _error(server.reply(), None, INVALID_REQUEST)
    server.send({"id": 30, "method": "textDocument/hover", "params": {}})
    assert '"jsonrpc": "2.0" is missing' in _error(server.reply(), 30, INVALID_REQUEST)
    server.request(31, "textDocument/hover", {"textDocument": DOC, "position": {"line": 0, "character": 0}},
                   jsonrpc="1.0")
    assert "'1.0'" in _error(server.reply(), 31, INVALID_REQUEST)
    # An id that is neither a number nor a string cannot be echoed: null.
    server.request({"not": "an id"}, "textDocument/hover", {"textDocument": DOC})
    _error(server.reply(), None, INVALID_PARAMS)
    server.request(32, "torchtype/noSuchMethod", {})
    _error(server.reply(), 32, METHOD_NOT_FOUND)


def test_server_keeps_serving_after_bad_requests_and_notifications(server: RawClient):
    # A notification with bad params must not be answered (JSON-RPC), and must not stop the server.
    server.notify("textDocument/didOpen", {"textDocument": {"uri": 5}})
    server.request(40, "textDocument/hover", {"textDocument": DOC})
    _error(server.reply(), 40, INVALID_PARAMS)  # the next reply is this request's, not the notification's
    uri = "file:///nowhere/served.py"
    server.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "python", "version": 1,
                                                            "text": BAD}})
    [diagnostic] = server.diagnostics(uri)
    assert diagnostic["code"] == "TTL101"
    server.request(41, "textDocument/hover", {"textDocument": {"uri": uri}, "position": {"line": 3, "character": 1}})
    reply = server.reply()
    assert reply["id"] == 41 and "int64" in reply["result"]["contents"]["value"]


def test_requests_after_shutdown_get_invalid_request_and_exit_still_exits():
    client = RawClient()
    try:
        client.request(1, "initialize", {"processId": None, "capabilities": {}})
        client.reply()
        client.notify("initialized", {})
        client.request(2, "shutdown")
        assert client.reply() == {"jsonrpc": "2.0", "id": 2, "result": None}
        client.request(3, "textDocument/hover", {"textDocument": DOC, "position": {"line": 0, "character": 0}})
        assert "after shutdown" in _error(client.reply(), 3, INVALID_REQUEST)
        client.notify("exit", None)
        assert client.process.wait(timeout=WAIT) == 0
    finally:
        client.close()
