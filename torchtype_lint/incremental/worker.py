"""A long-lived child process that analyses documents incrementally for the language server.

Incremental analysis keeps the last analysis of each document (``session.py``), so it cannot
run in a fresh child per edit as ``bounded.call_bounded`` does; running it in the server's
own process would let one document hang or exhaust the editor's server. So one forked child
keeps the state and answers request after request, under the same bounds: a wall-clock
deadline per request (past it the child is killed, the request reported as not analysed, and
the next request gets a fresh child with empty state), a capped address space, a deep stack.
Where ``fork`` does not exist the checker runs in-process on the deep stack.
"""
from __future__ import annotations

import gc
import os
import pickle
import select
import signal
import struct
import threading
import time
import warnings
from typing import Any, Dict, List, Mapping, Optional, Tuple

from .. import bounded
from ..cache import finding_from_dict, finding_to_dict
from ..settings import FileResult, Settings

Reply = Tuple[str, Any]
BoundExceeded = bounded.BoundExceeded


def _serve(requests: int, replies: int, memory: int) -> None:
    """The forked child: analyse each request with one IncrementalChecker until the parent
    closes the request pipe; leave with os._exit (never the parent's exit handlers)."""
    code = 0
    try:
        import faulthandler

        from .session import IncrementalChecker

        faulthandler.disable()  # a crash is the parent's to report, as one line
        signal.signal(signal.SIGINT, signal.SIG_DFL)  # Ctrl-C ends the child with its parent
        bounded.limit_memory(memory)
        checker = IncrementalChecker()
        while True:
            request = _receive(requests, None)
            if request is None:
                break
            source, path, settings, overlay = request
            try:
                result = bounded.call_deep(checker.check, source, path, settings, overlay)
                reply: Reply = ("ok", ([finding_to_dict(f) for f in result.findings], result.dependencies,
                                       checker.last_run))
            except BaseException as exc:  # noqa: BLE001 - MemoryError and the like: reported, not raised
                checker = IncrementalChecker()  # whatever it held may be half updated
                reply = ("error", f"{type(exc).__name__}: {' '.join(str(exc).split())}")
            _send(replies, reply)
    except BaseException:  # noqa: BLE001 - nothing may escape into the parent's code
        code = 70
    finally:
        os._exit(code)


def _send(fd: int, value: Any) -> None:
    payload = pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
    view = memoryview(struct.pack("<Q", len(payload)) + payload)
    while view:
        view = view[os.write(fd, view):]


def _receive(fd: int, deadline: Optional[float]) -> Any:
    """The next value sent on ``fd``; None at EOF; raises TimeoutError past ``deadline``."""
    header = _read_exactly(fd, 8, deadline)
    if header is None:
        return None
    body = _read_exactly(fd, struct.unpack("<Q", header)[0], deadline)
    if body is None:
        return None
    return pickle.loads(body)


def _read_exactly(fd: int, size: int, deadline: Optional[float]) -> Optional[bytes]:
    chunks, left = [], size
    while left:
        if deadline is not None:
            wait = deadline - time.monotonic()
            if wait <= 0 or not select.select([fd], [], [], wait)[0]:
                raise TimeoutError
        chunk = os.read(fd, min(left, 1 << 20))
        if not chunk:
            return None
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)


class DocumentWorker:
    """Analyses texts in one persistent child; thread-safe (one request at a time)."""

    def __init__(self, memory: int = bounded.MEMORY_LIMIT_BYTES):
        self._memory = memory + bounded.ANALYSIS_STACK_BYTES
        self._lock = threading.Lock()
        self._pid: Optional[int] = None
        self._requests: Any = None  # our end of the request pipe (we write)
        self._replies: Any = None  # our end of the reply pipe (we read)
        self._in_process: Any = None  # an IncrementalChecker where fork does not exist
        #: How the last request went in the child (``session.LastRun``), for the benchmark.
        self.last_run: Any = None

    def check(self, source: str, path: str, settings: Settings,
              overlay: Optional[Mapping[str, str]] = None) -> FileResult:
        """The findings of ``check_source(source, path, settings, overlay=overlay)``; a run past
        the deadline, or that kills the child, is one TTL000 finding. Never raises."""
        from ..check import _tool_finding, warm_up

        with self._lock:
            if not bounded.can_fork():
                return self._check_here(source, path, settings, overlay)
            warm_up()  # the children inherit the loaded rules and tables
            try:
                dicts, dependencies, self.last_run = self._ask((source, path, settings, dict(overlay or {})),
                                                               bounded.hard_deadline(settings.time_budget))
            except bounded.BoundExceeded as exc:
                why = f"internal error while analysing this file: {exc}" if exc.raised else f"not analysed: {exc}"
                return FileResult(path, [_tool_finding("TTL000", path, why)], source)
            return FileResult(path, [finding_from_dict(d, path) for d in dicts], source, dependencies=dependencies)

    def close(self) -> None:
        with self._lock:
            self._stop()

    def _check_here(self, source: str, path: str, settings: Settings,
                    overlay: Optional[Mapping[str, str]]) -> FileResult:
        from .session import IncrementalChecker

        if self._in_process is None:
            self._in_process = IncrementalChecker()
        result = bounded.call_deep(self._in_process.check, source, path, settings, overlay)
        self.last_run = self._in_process.last_run
        return result

    def _ask(self, request: Tuple[Any, ...], seconds: float) -> Tuple[List[Dict[str, Any]], Dict[str, Any], Any]:
        if self._pid is None:
            self._start()
        try:
            _send(self._requests, request)
            reply = _receive(self._replies, time.monotonic() + seconds)
        except TimeoutError:
            self._stop()
            raise BoundExceeded(f"did not finish within {seconds:g}s of wall time (parsing included); "
                                "it was stopped") from None
        except OSError:
            reply = None
        if reply is None:
            self._stop()
            raise BoundExceeded("the analysis process died")
        kind, value = reply
        if kind == "error":
            raise BoundExceeded(value, raised=True)
        return value

    def _start(self) -> None:
        # A raw fork, as bounded.call_bounded does: multiprocessing's child start-up closes
        # and flushes the standard streams, whose locks the server's reader thread may hold.
        request_read, request_write = os.pipe()
        reply_read, reply_write = os.pipe()
        with warnings.catch_warnings():
            # Python 3.12+ warns about forking a threaded process (the language server is one);
            # the child only serves its pipes and leaves with os._exit.
            warnings.simplefilter("ignore", DeprecationWarning)
            gc.freeze()  # the child's collector then never copies the inherited heap's pages
            try:
                pid = os.fork()
            except BaseException:
                gc.unfreeze()
                raise
            if pid != 0:
                gc.unfreeze()
        if pid == 0:
            os.close(request_write)
            os.close(reply_read)
            _serve(request_read, reply_write, self._memory)
        os.close(request_read)
        os.close(reply_write)
        self._pid, self._requests, self._replies = pid, request_write, reply_read

    def _stop(self) -> None:
        if self._pid is not None:
            for fd in (self._requests, self._replies):
                try:
                    os.close(fd)
                except OSError:
                    pass
            try:
                os.kill(self._pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            try:
                os.waitpid(self._pid, 0)
            except ChildProcessError:
                pass
        self._pid = self._requests = self._replies = None
