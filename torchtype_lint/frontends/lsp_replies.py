"""Every JSON-RPC request gets a reply: the protocol layer under the language server.

pygls 2 turns each message into its lsprotocol type inside ``json.loads``'s ``object_hook``
(``JsonRPCProtocol.structure_message``). When that fails (a hover without a position, a range
that is not a range, a line that is a string) it raises ``JsonRpcInvalidParams`` out of
``json.loads``; the read loop in ``pygls.io_`` only logs it and shows "Error in server" to the
user, and the request's id is lost, so the client waits forever (pygls issue #326). The same
happens to a message without ``"jsonrpc": "2.0"``, to requests after ``shutdown`` and to a body
that is not JSON at all.

Here a failed request becomes a ``RejectedRequest`` that still carries its id, and
``handle_message`` answers it with the JSON-RPC error (InvalidParams -32602 naming the bad
field, InvalidRequest -32600, ParseError -32700 with a null id, as JSON-RPC 2.0 says), once,
for every handler, so no handler has to validate its own params. Messages are read off stdin by
``lsp_framing`` (bounded, tolerant of broken framing) instead of pygls' reader. Imported only
when the server starts (pygls is optional).
"""
from __future__ import annotations

import asyncio
import json
import logging
import re
import sys
import threading
from dataclasses import dataclass
from typing import Any, List, Optional, Tuple, Union

import cattrs
from pygls.exceptions import (
    JsonRpcException,
    JsonRpcInvalidParams,
    JsonRpcInvalidRequest,
    JsonRpcParseError,
)
from pygls.io_ import StdoutWriter
from pygls.lsp.server import LanguageServer
from pygls.protocol import LanguageServerProtocol
from pygls.protocol.json_rpc import RPCError, RPCNotification, RPCRequest, RPCResponse

from .lsp_framing import FrameReader, serve

#: What ``json.loads`` raises on a body that is not JSON (RecursionError: nested too deep).
_UNPARSABLE = (json.JSONDecodeError, UnicodeDecodeError, RecursionError)

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class RejectedRequest:
    """A request that could not be structured into its params type, kept for its reply."""

    id: Union[int, str, None]
    method: str
    error: JsonRpcException


def reply_id(raw: Any) -> Union[int, str, None]:
    """The id to answer with: JSON-RPC ids are numbers or strings; anything else is null."""
    # bool is an int subclass but `true` is not a valid id.
    return raw if isinstance(raw, (int, str)) and not isinstance(raw, bool) else None


def _json_name(path: str) -> str:
    """``$.params.text_document`` -> ``$.params.textDocument`` (the field as the client sent it)."""
    return re.sub(r"_([a-z])", lambda m: m.group(1).upper(), path)


def invalid_params(method: str, exc: BaseException) -> JsonRpcInvalidParams:
    """InvalidParams whose message says which fields are wrong and why."""
    cause = exc.__cause__ if exc.__cause__ is not None else exc
    problems: List[str]
    try:
        problems = cattrs.transform_error(cause, path="$")
    except Exception:  # noqa: BLE001 - a message must never stop the reply
        problems = [str(cause)]
    details = "; ".join(_json_name(problem) for problem in problems)
    return JsonRpcInvalidParams(f"Invalid params for {method}: {details}")


class RepliesToEveryRequest(LanguageServerProtocol):
    """pygls' LSP protocol, except that no request goes unanswered."""

    def structure_message(self, data: Any) -> Any:
        try:
            return super().structure_message(data)
        except JsonRpcException as exc:
            if not (isinstance(data, dict) and "id" in data and "method" in data):
                raise  # a notification or a response: nothing to answer
            method = str(data["method"])
            error = invalid_params(method, exc) if isinstance(exc, JsonRpcInvalidParams) else exc
            return RejectedRequest(reply_id(data["id"]), method, error)

    def reply_error(self, msg_id: Union[int, str, None], error: JsonRpcException) -> None:
        """Send an error response; written as a plain dict because pygls' converter would drop
        a null id, and JSON-RPC requires ``"id": null`` when the id could not be read."""
        body = {"code": error.code, "message": error.message}
        if error.data is not None:
            body["data"] = error.data
        self._send_data({"jsonrpc": "2.0", "id": msg_id, "error": body})

    def handle_message(self, message: Any) -> None:
        refusal = self.refusal(message)
        if refusal is not None:
            self.reply_error(*refusal)
            return
        if isinstance(message, dict):
            return  # a notification without "jsonrpc": nothing may be answered
        super().handle_message(message)

    def refusal(self, message: Any) -> Optional[Tuple[Union[int, str, None], JsonRpcException]]:
        """(id, error) for a request pygls would drop without a reply; None for the rest."""
        if isinstance(message, RejectedRequest):
            return message.id, message.error
        if isinstance(message, dict):
            # structure_message passes through anything without a "jsonrpc" member.
            if "id" not in message:
                return None
            return reply_id(message["id"]), JsonRpcInvalidRequest(
                'Invalid request: not a JSON-RPC 2.0 message ("jsonrpc": "2.0" is missing)')
        if not isinstance(message, (RPCNotification, RPCRequest, RPCResponse, RPCError)):
            # JSON, but not an object (an array, a number, a string): no id to answer with.
            return None, JsonRpcInvalidRequest(
                f"Invalid request: a message must be a JSON object, not {type(message).__name__}")
        if not isinstance(message, RPCRequest):
            return None
        if message.jsonrpc != self.VERSION:
            return message.id, JsonRpcInvalidRequest(f"Invalid request: jsonrpc {message.jsonrpc!r}, expected '2.0'")
        if self._shutdown and message.method != "exit":
            # LSP: a request after shutdown is answered with InvalidRequest (pygls drops it).
            return message.id, JsonRpcInvalidRequest(f"Invalid request: {message.method} after shutdown")
        return None


class ReplyingLanguageServer(LanguageServer):
    """A LanguageServer on ``RepliesToEveryRequest`` that also answers unparsable bodies."""

    def __init__(self, *args: Any, **kwargs: Any):
        kwargs.setdefault("protocol_cls", RepliesToEveryRequest)
        super().__init__(*args, **kwargs)

    def start_io(self, stdin: Any = None, stdout: Any = None) -> None:
        """pygls' stdio server (``LanguageServer._start_io_async``), reading through
        ``lsp_framing.FrameReader`` instead of pygls' unbounded reader."""
        self._stop_event = threading.Event()
        self.protocol.set_writer(StdoutWriter(stdout or sys.stdout.buffer))
        try:
            asyncio.run(serve(self._stop_event, FrameReader(stdin or sys.stdin.buffer), self.protocol,
                              self.thread_pool, self.report_server_error))
        except BrokenPipeError:
            logger.error("Connection to the client is lost! Shutting down the server.")
        except (KeyboardInterrupt, SystemExit):
            pass  # `exit` raises SystemExit; pygls ends the same way
        finally:
            self.shutdown()

    def report_server_error(self, error: Exception, source: Any) -> None:
        # The read loop hands over what json.loads raised: the id is unknowable, so it is null.
        if isinstance(error, _UNPARSABLE):
            self.protocol.reply_error(None, JsonRpcParseError(f"Parse error: {type(error).__name__}: {str(error)[:200]}"))
            return
        super().report_server_error(error, source)

