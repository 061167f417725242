"""The language server stays bounded against what an editor or an attacker sends it (issue 23).

* hovers are worked out in the bounded analysis child, never in the server's own process, and
  a hover whose analysis never ends is answered (null) at the child's deadline;
* a hover or code action on one document is answered while another document is being analysed;
* malformed framing (a huge ``Content-Length``, a misspelled or missing header, a body that is
  not JSON) is answered or skipped, and the server keeps serving;
* the analysis children die with the process that started them, even one killed with SIGKILL.

The server runs as a real process over stdio, started by a short script that instruments the
analysis entry points first (the resident child is forked from it, so it inherits them): it logs
any analysis made in the server's own process, makes a hover on ``hang.py`` never end, and holds
the analysis of ``slow.py`` until the test opens a gate.
"""
from __future__ import annotations

import json
import os
import queue
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any, Dict, Iterator, List, Optional

import pytest

from torchtype_lint.run import bounded

pytest.importorskip("pygls")

PARSE_ERROR, INVALID_REQUEST = -32700, -32600
#: Seconds to wait for a message that should come; generous for a loaded 2-core machine.
WAIT = 30.0
#: The hard deadline the instrumented server gives every analysis (the default is 30 s).
DEADLINE = 5.0
#: How long a hover or code action may take while another document is being analysed.
PROMPT = 2.0

BAD = "import torch\n\nlabels = torch.tensor([0, 1, 1, 0])\nlabels.float()\n"

SERVER = r"""
import os, sys, time

from torchtype_lint.run import bounded
import torchtype_lint.checker.check as check
from torchtype_lint.run.incremental import session

SERVER, LOG, GATE = os.getpid(), os.environ["TTL_TEST_LOG"], os.environ["TTL_TEST_GATE"]
analyse_whole, check_incrementally = check.check_source, session.IncrementalChecker.check


def check_source(source, path="<stdin>", settings=None, keep_analysis=False, *args, **kwargs):
    # What must never happen: a document analysed in the server's own process (the warm-up is
    # the linter's own program, run once so that the child inherits the loaded rules).
    if os.getpid() == SERVER and path != "<warm-up>":
        with open(LOG, "a") as log:
            log.write(f"analysed in the server: {path}\n")
    if keep_analysis and path.endswith("hang.py"):
        time.sleep(3600)  # a hover's analysis that never ends
    return analyse_whole(source, path, settings, keep_analysis, *args, **kwargs)


def check_gated(self, source, path, *args, **kwargs):
    if path.endswith("slow.py"):  # held until the test opens the gate
        open(GATE + ".started", "w").close()
        until = time.monotonic() + 60
        while not os.path.exists(GATE) and time.monotonic() < until:
            time.sleep(0.02)
    return check_incrementally(self, source, path, *args, **kwargs)


check.check_source = check_source
session.IncrementalChecker.check = check_gated
bounded.hard_deadline = lambda budget: float(os.environ["TTL_TEST_DEADLINE"])
from torchtype_lint.frontends import lsp  # after the patches: it binds what it imports

sys.exit(lsp.main())
"""


class Server:
    """A language server process spoken to in raw bytes; a thread collects what it writes."""

    def __init__(self, directory: Path):
        self.log, self.gate = directory / "server.log", directory / "gate"
        env = dict(os.environ, TTL_TEST_LOG=str(self.log), TTL_TEST_GATE=str(self.gate),
                   TTL_TEST_DEADLINE=str(DEADLINE))
        self.process = subprocess.Popen([sys.executable, "-c", SERVER], stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env,
                                        cwd=directory)
        self.inbox: "queue.Queue[Dict[str, Any]]" = queue.Queue()
        self.diagnostics: Dict[str, List[Dict[str, Any]]] = {}
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        stream = self.process.stdout
        while True:
            length = None
            while True:
                line = stream.readline()
                if not line:
                    return
                if not line.strip():
                    break
                name, _, value = line.decode("ascii").partition(":")
                if name.strip().lower() == "content-length":
                    length = int(value)
            self.inbox.put(json.loads(stream.read(length)))

    def raw(self, data: bytes) -> None:
        self.process.stdin.write(data)
        self.process.stdin.flush()

    def send_body(self, body: bytes) -> None:
        self.raw(b"Content-Length: %d\r\n\r\n" % len(body) + body)

    def send(self, message: Dict[str, Any]) -> None:
        self.send_body(json.dumps({"jsonrpc": "2.0", **message}).encode())

    def message(self, timeout: float) -> Dict[str, Any]:
        """The next message; diagnostics are recorded on the way."""
        message = self.inbox.get(timeout=max(timeout, 0.01))
        if message.get("method") == "textDocument/publishDiagnostics":
            self.diagnostics[message["params"]["uri"]] = message["params"]["diagnostics"]
        return message

    def reply(self, timeout: float = WAIT) -> Dict[str, Any]:
        """The next response, skipping notifications."""
        deadline = time.monotonic() + timeout
        while True:
            message = self.message(deadline - time.monotonic())
            if "method" not in message:
                return message

    def request(self, msg_id: Any, method: str, params: Any, timeout: float = WAIT) -> Dict[str, Any]:
        self.send({"id": msg_id, "method": method, "params": params})
        reply = self.reply(timeout)
        assert reply.get("id") == msg_id, reply
        return reply

    def open(self, uri: str, text: str) -> None:
        self.diagnostics.pop(uri, None)
        self.send({"method": "textDocument/didOpen",
                   "params": {"textDocument": {"uri": uri, "languageId": "python", "version": 1, "text": text}}})

    def published(self, uri: str, timeout: float = WAIT) -> List[Dict[str, Any]]:
        deadline = time.monotonic() + timeout
        while uri not in self.diagnostics:
            self.message(deadline - time.monotonic())
        return self.diagnostics[uri]

    def hover(self, msg_id: Any, uri: str, line: int, character: int, timeout: float = WAIT) -> Optional[str]:
        reply = self.request(msg_id, "textDocument/hover",
                             {"textDocument": {"uri": uri}, "position": {"line": line, "character": character}},
                             timeout)
        return None if reply["result"] is None else reply["result"]["contents"]["value"]

    def close(self) -> None:
        self.gate.touch()  # a gated analysis must not outlive the test
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait(timeout=WAIT)
        self.process.stdin.close()
        self.process.stdout.close()


@pytest.fixture(scope="module")
def server(tmp_path_factory) -> Iterator[Server]:
    client = Server(tmp_path_factory.mktemp("lsp-hardening"))
    try:
        result = client.request(1, "initialize", {"processId": None, "capabilities": {}})["result"]
        assert "hoverProvider" in result["capabilities"]
        client.send({"method": "initialized", "params": {}})
        yield client
    finally:
        client.close()


def _uri(server: Server, name: str) -> str:
    return (server.log.parent / name).as_uri()


def _error(reply: Dict[str, Any], code: int) -> str:
    assert reply.get("id", "missing") is None and "result" not in reply, reply
    assert reply["error"]["code"] == code, reply
    return reply["error"]["message"]


# --------------------------------------------------------------------------- item 2: hover is bounded


@pytest.mark.skipif(not bounded.can_fork(), reason="the analysis child is forked")
def test_a_hover_is_worked_out_in_the_child_not_in_the_server(server: Server):
    uri = _uri(server, "hovered.py")
    server.open(uri, BAD)
    [diagnostic] = server.published(uri)
    assert diagnostic["code"] == "TTL101"
    markdown = server.hover("h1", uri, 2, 1)
    assert markdown is not None and markdown.startswith("**`labels`**: Tensor[int64") and "line 3:" in markdown
    assert server.hover("h2", uri, 1, 0) is None  # a blank line: nothing under the cursor
    assert not server.log.exists(), server.log.read_text()


@pytest.mark.skipif(not bounded.can_fork(), reason="the analysis child is forked")
def test_a_hover_whose_analysis_never_ends_is_answered_at_the_deadline(server: Server):
    uri = _uri(server, "hang.py")
    server.open(uri, BAD)
    server.published(uri)
    started = time.monotonic()
    assert server.hover("hang", uri, 2, 1, timeout=DEADLINE + WAIT) is None
    assert time.monotonic() - started < DEADLINE + WAIT
    # The child was killed at its deadline; the next request gets a fresh one.
    other = _uri(server, "recovered.py")
    server.open(other, BAD)
    assert server.published(other)[0]["code"] == "TTL101"
    assert "int64" in server.hover("recovered", other, 2, 1)
    assert not server.log.exists(), server.log.read_text()


# --------------------------------------------------------------------------- item 11: no waiting on another document


@pytest.mark.skipif(not bounded.can_fork(), reason="the analysis child is forked")
def test_requests_on_one_document_are_answered_while_another_is_analysed(server: Server):
    first, second, slow = _uri(server, "first.py"), _uri(server, "second.py"), _uri(server, "slow.py")
    for uri in (first, second):
        server.open(uri, BAD)
        server.published(uri)
    assert "int64" in server.hover("warm", first, 2, 1)  # its hovers are worked out
    started = Path(f"{server.gate}.started")
    server.open(slow, BAD)
    deadline = time.monotonic() + WAIT
    while not started.exists():  # the child is now busy with slow.py, held at the gate
        assert time.monotonic() < deadline, "slow.py was never analysed"
        time.sleep(0.02)
    try:
        began = time.monotonic()
        # From first.py's last result, at once.
        assert "int64" in server.hover("during", first, 3, 1, timeout=PROMPT)
        actions = server.request("actions", "textDocument/codeAction", {
            "textDocument": {"uri": first},
            "range": {"start": {"line": 3, "character": 0}, "end": {"line": 3, "character": 0}},
            "context": {"diagnostics": []}}, timeout=PROMPT)["result"]
        assert any("ignore for this line" in action["title"] for action in actions)
        # second.py's hovers were never worked out: answered now (null), not after slow.py.
        server.hover("not-yet", second, 2, 1, timeout=PROMPT)
        assert time.monotonic() - began < PROMPT
    finally:
        server.gate.touch()
    server.published(slow)
    deadline = time.monotonic() + WAIT
    while True:  # worked out once the child is free
        markdown = server.hover(f"later-{time.monotonic()}", second, 2, 1)
        if markdown is not None:
            break
        assert time.monotonic() < deadline, "second.py's hovers were never worked out"
        time.sleep(0.05)
    assert "int64" in markdown


# --------------------------------------------------------------------------- item 12: framing


def test_a_message_over_the_size_cap_is_refused_and_the_server_serves_on(server: Server):
    # Declares 93 GB (the server died of MemoryError), sends a few bytes, then a request.
    server.raw(b"Content-Length: 99999999999\r\n\r\n{}")
    assert "limit" in _error(server.reply(), INVALID_REQUEST)
    assert server.hover("after-huge", "file:///nowhere/x.py", 0, 0) is None
    assert server.process.poll() is None


def test_misspelled_and_missing_headers_do_not_make_the_server_deaf(server: Server):
    hover = json.dumps({"jsonrpc": "2.0", "id": "lost", "method": "textDocument/hover", "params": {
        "textDocument": {"uri": "file:///nowhere/x.py"}, "position": {"line": 0, "character": 0}}}).encode()
    server.raw(b"Content-Lenght: %d\r\n\r\n" % len(hover) + hover)
    assert "Content-Length" in _error(server.reply(), INVALID_REQUEST)  # skipped, said so
    assert server.hover("after-misspelled", "file:///nowhere/x.py", 0, 0) is None
    # Header names are case-insensitive, unknown headers are ignored, a bare \n ends a line.
    body = json.dumps({"jsonrpc": "2.0", "id": "lower", "method": "textDocument/hover", "params": {
        "textDocument": {"uri": "file:///nowhere/x.py"}, "position": {"line": 0, "character": 0}}}).encode()
    server.raw(b"X-Whatever: 1\ncontent-length:%d\r\nContent-Type: application/vscode-jsonrpc; charset=utf-8\r\n\r\n"
               % len(body) + body)
    assert server.reply() == {"jsonrpc": "2.0", "id": "lower", "result": None}


@pytest.mark.parametrize("body", [
    b"",  # Content-Length: 0
    b'{"jsonrpc": "2.0", "id": 7, "method": "x", "params": ' + b"1" * 5000 + b"}",  # int past Python's digit limit
    b'{"jsonrpc": "2.0"} trailing',  # garbage after a valid object
    b'{"jsonrpc": "2.0", "id": 8, "method": "x", "params": NaN}',  # not JSON, though Python reads it
], ids=["empty", "huge-integer", "trailing-garbage", "nan"])
def test_every_body_that_is_not_json_gets_a_parse_error_with_a_null_id(server: Server, body: bytes):
    server.send_body(body)
    _error(server.reply(), PARSE_ERROR)
    assert server.hover("after-parse-error", "file:///nowhere/x.py", 0, 0) is None


# --------------------------------------------------------------------------- item 7: children die with their parent

PARENT = r"""
import os, sys, time
from torchtype_lint.run import bounded, resident

if sys.argv[2] == "watchdog-only":
    bounded._set_parent_death_signal = lambda: False  # as where prctl does not exist


def work():
    print(os.getpid(), flush=True)
    time.sleep(600)


if sys.argv[1] == "resident":
    resident.call_resident(work, seconds=900)
else:
    bounded.call_bounded(work, seconds=900)
"""


def _gone(pid: int) -> bool:
    """Ended: no such process, or a zombie nobody has reaped yet (it runs nothing)."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] == "Z"
    except FileNotFoundError:
        return True


@pytest.mark.skipif(not (bounded.can_fork() and os.path.isdir("/proc/self")), reason="needs fork and /proc")
@pytest.mark.parametrize("how", ["resident", "per-call"])
@pytest.mark.parametrize("guard", ["default", "watchdog-only"])
def test_an_analysis_child_dies_with_its_killed_parent(how: str, guard: str):
    parent = subprocess.Popen([sys.executable, "-c", PARENT, how, guard], stdout=subprocess.PIPE)
    child = 0
    try:
        child = int(parent.stdout.readline())  # printed by the child, mid-analysis
        parent.kill()  # SIGKILL: no handler of the parent's runs
        parent.wait(timeout=WAIT)
        deadline = time.monotonic() + 5
        while not _gone(child) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert _gone(child), f"the {how} child {child} outlived its parent"
    finally:
        if parent.poll() is None:
            parent.kill()
            parent.wait(timeout=WAIT)
        parent.stdout.close()
        if child and not _gone(child):
            os.kill(child, signal.SIGKILL)  # never leave one behind, whatever happened
