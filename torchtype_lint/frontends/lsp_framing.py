"""Reading the language server's messages off stdin: bounded, and tolerant of broken framing.

LSP frames each JSON-RPC message with headers (``Content-Length: N``, then an empty line) and
N bytes of body. pygls 2's reader (``pygls.io_.run_async``) trusts the frame: it reads N bytes
in one allocation (``Content-Length: 99999999999`` ended the server with MemoryError), knows
the header only spelled exactly so (after a misspelled one it read bodies as headers and never
answered again), and skips a body of length 0 without a word. This reader is used instead:

* a body over ``MAX_MESSAGE_BYTES`` is never read into memory: it is answered with an error and
  skipped like a frame without a length (below);
* header names are case-insensitive, unknown headers are ignored, a line may end in ``\\n``, and
  a header line is read at most ``MAX_LINE_BYTES`` at a time;
* a header block without a usable ``Content-Length`` is answered with an error, and the bytes
  after it are skipped up to the next ``Content-Length`` header, even one glued to the end of
  the skipped body (a body never ends in a newline). That header cannot be part of a valid
  JSON body: JSON allows a raw line break only between tokens, where ``Content-Length`` is none;
* a body that is not JSON (empty, truncated, trailing garbage, ``NaN``, an integer past
  Python's digit limit, bad UTF-8) is answered with ``-32700 Parse error`` and a null id.

Imported only when the server starts (pygls is optional).
"""
from __future__ import annotations

import asyncio
import json
import logging
import re
import threading
from concurrent.futures import Executor
from dataclasses import dataclass
from typing import Any, BinaryIO, Callable, Optional

from pygls.exceptions import JsonRpcException, JsonRpcInvalidRequest, JsonRpcParseError

#: The largest message body read: a 10 MiB document (the screen's cap) escaped as JSON is far below.
MAX_MESSAGE_BYTES = 64 * 1024 * 1024
#: The most bytes of one header line read at once; a longer line is read in pieces.
MAX_LINE_BYTES = 64 * 1024
#: Bytes of a line piece kept to match a header split across two pieces (a header is < 64).
_CARRY_BYTES = 64
#: ``Content-Length`` ending a line; after a skipped body, glued to its end (not to a longer name).
_CONTENT_LENGTH = re.compile(rb"(?<![\w-])content-length[ \t]*:[ \t]*(\d{1,30})[ \t]*\r?\n\Z", re.IGNORECASE)
#: What ``json.loads`` raises on a body that is not JSON (UnicodeDecodeError and JSONDecodeError
#: are ValueErrors, as is the error for an integer past the digit limit; RecursionError: nested too deep).
_NOT_JSON = (ValueError, RecursionError)

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class Frame:
    """One framed message: its body, or why there is none (the frame was skipped)."""

    body: Optional[bytes] = None
    problem: Optional[str] = None


class FrameReader:
    """Frames from a blocking binary stream (stdin), one ``next`` call each."""

    def __init__(self, stream: BinaryIO):
        self.stream = stream
        #: Set after a broken frame: until a Content-Length header, blank lines end nothing.
        self.skipping = False

    def next(self) -> Optional[Frame]:
        """The next frame; None at the end of the input (or of a body cut short)."""
        length: Optional[int] = None
        headers = False  # whether this header block has had any line yet
        carry = b""
        while True:
            piece = self.stream.readline(MAX_LINE_BYTES)
            if not piece:
                return None
            line = carry + piece
            if not piece.endswith(b"\n"):
                carry = line[-_CARRY_BYTES:]  # a piece of a long line: only its end can hold a header
                headers = True
                continue
            carry = b""
            match = _CONTENT_LENGTH.search(line)
            if match is not None:
                length, headers, self.skipping = int(match.group(1)), True, False
            elif line.strip():
                headers = True  # another header (Content-Type...), or the rest of a skipped body
            elif length is not None:
                break  # the empty line after the headers
            elif headers and not self.skipping:
                self.skipping = True
                return Frame(problem="Invalid request: a message without a Content-Length header was skipped")
        if length > MAX_MESSAGE_BYTES:
            self.skipping = True  # its body follows and is skipped like junk, a line piece at a time
            return Frame(problem=f"Invalid request: a message of {length} bytes is over the "
                                 f"{MAX_MESSAGE_BYTES // (1024 * 1024)} MiB limit and was skipped")
        body = self.stream.read(length) if length else b""
        if len(body) < length:
            return None  # the input ended inside the body
        return Frame(body=body)


def _no_constants(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")  # Python's json reads NaN and Infinity; JSON-RPC peers do not


def decode(body: bytes, object_hook: Callable[[Any], Any]) -> Any:
    """The message in ``body``, its objects structured by ``object_hook``. Raises
    ``JsonRpcParseError`` when the body is not JSON, and what ``object_hook`` raises otherwise."""
    try:
        return json.loads(body, object_hook=object_hook, parse_constant=_no_constants)
    except _NOT_JSON as exc:
        raise _parse_error(exc) from exc
    except JsonRpcException:
        # The hook runs as each object closes, so it may refuse one before the parser reaches
        # garbage further on: such a body is a parse error first.
        try:
            json.loads(body, parse_constant=_no_constants)
        except _NOT_JSON as exc:
            raise _parse_error(exc) from exc
        raise


def _parse_error(exc: BaseException) -> JsonRpcParseError:
    return JsonRpcParseError(f"Parse error: {type(exc).__name__}: {str(exc)[:200]}")


async def serve(stop: threading.Event, frames: FrameReader, protocol: Any, executor: Executor,
                error_handler: Callable[[Exception, type], Any]) -> None:
    """pygls' message loop (``pygls.io_.run_async``) on ``frames``: each message to
    ``protocol.handle_message``; each skipped frame or unparsable body answered with an error
    (``protocol.reply_error``, id null: it could not be read)."""
    loop = asyncio.get_running_loop()
    while not stop.is_set():
        # A whole frame per call, read off the event loop; the next read starts after this
        # message is handled (so `exit` ends the server with no read left blocking).
        frame = await loop.run_in_executor(executor, frames.next)
        if frame is None:
            break
        if frame.problem is not None:
            logger.warning("%s", frame.problem)
            protocol.reply_error(None, JsonRpcInvalidRequest(frame.problem))
            continue
        try:
            message = decode(frame.body, protocol.structure_message)
        except JsonRpcParseError as error:
            protocol.reply_error(None, error)
            continue
        except Exception as exc:  # noqa: BLE001 - as pygls: reported, and the loop goes on
            logger.exception("Unable to handle message")
            error_handler(exc, JsonRpcException)
            continue
        try:
            protocol.handle_message(message)
        except Exception as exc:  # noqa: BLE001 - as pygls: reported, and the loop goes on
            logger.exception("Unable to handle message")
            error_handler(exc, JsonRpcException)
