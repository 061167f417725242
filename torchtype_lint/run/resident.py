"""A resident analysis process: one killable child that analyses file after file for a front
end that is handed one file at a time (the flake8 plugin, the language server), instead of a
child forked per file.

It is bounded like the CLI's pool workers (``runner``): its address space is capped once when it
starts, each call has a wall-clock deadline after which the child is killed (the next call
starts a fresh one), and a child whose heap grew by half its allowance retires after the call.
Because it lives on, what it loads stays loaded for the next file: the parsed project modules
(``project/sources.py``) and kept module bodies (``engine/module_cache.py``) that files
importing the same modules share, which a child forked per file would load again each time;
and for the language server, each open document's last analysis (``incremental/worker.py``).

Requests and results cross two pipes as length-prefixed pickles; one call at a time (a lock
serialises threads: the language server calls from a worker thread). The child dies with the
process that started it, even one killed by SIGKILL (``bounded.die_with_parent``), and a child
found dead between calls is replaced before the next file is sent. Where ``fork`` does not
exist, ``call_resident`` runs the function in-process on the deep stack, like ``call_bounded``.
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
from typing import Any, Callable, Optional, TypeVar

from . import bounded
from .bounded import BoundExceeded

T = TypeVar("T")

#: The length prefix of a message: 8 bytes, big-endian.
_HEADER = struct.Struct(">Q")


def call_resident(function: Callable[..., T], *args: Any, seconds: float,
                  memory: int = bounded.MEMORY_LIMIT_BYTES,
                  before_start: Optional[Callable[[], None]] = None) -> T:
    """``function(*args)`` (a module-level function: it is pickled) in this process's resident
    child, started on first need; raises ``BoundExceeded`` as ``bounded.call_bounded`` does.
    ``before_start`` runs here just before a new child is forked (what the child should
    inherit loaded: ``check.warm_up``), not when the running child takes the call."""
    global _resident
    if not bounded.can_fork():
        return bounded.call_deep(function, *args)
    with _lock:  # one child, one request in flight: callers from several threads take turns
        _resident = _running(memory, before_start)
        try:
            return _resident.call(function, args, seconds)
        finally:
            if not _resident.alive:
                _resident = None


def start_resident(memory: int = bounded.MEMORY_LIMIT_BYTES) -> None:
    """Fork this process's resident child now, if it has none running, to answer calls later.
    The child dies when the thread calling this ends (``bounded.die_with_parent``): call it from
    a thread that outlives the child's use (the language server's main thread, before any other
    thread exists: a fork while another thread imports could leave the child an import lock
    nobody releases)."""
    global _resident
    if bounded.can_fork():
        with _lock:
            _resident = _running(memory, None)


def _running(memory: int, before_start: Optional[Callable[[], None]]) -> "_Resident":
    """The running child of this process, forked now if there is none (``_lock`` held)."""
    if _resident is not None and _resident.owner == os.getpid() and _resident.exited():
        resident = None  # died while idle (its parent-death signal, a kill): start afresh
    else:
        resident = _resident
    if resident is None or resident.owner != os.getpid():
        # None yet, or one inherited from the process we were forked from: never shared.
        if before_start is not None:
            before_start()
        resident = _Resident(memory)
        _stop_at_exit()
    return resident


class _Resident:
    def __init__(self, memory: int):
        bounded.prepare_parent_death()
        parent = os.getpid()
        request_read, request_write = os.pipe()
        result_read, result_write = os.pipe()
        gc.freeze()  # the child's collector then leaves the parent's pages alone (no copying)
        try:
            pid = os.fork()
        except BaseException:
            gc.unfreeze()
            raise
        if pid == 0:
            os.close(request_write)
            os.close(result_read)
            _serve(request_read, result_write, memory, parent)  # never returns
        gc.unfreeze()
        os.close(request_read)
        os.close(result_write)
        self.pid, self.requests, self.results = pid, request_write, result_read
        self.owner = os.getpid()
        self.alive = True

    def call(self, function: Callable[..., Any], args: Any, seconds: float) -> Any:
        try:
            _write_message(self.requests, pickle.dumps((function, args), protocol=pickle.HIGHEST_PROTOCOL))
        except OSError:
            self.stop(kill=True)
            raise BoundExceeded("the analysis process was gone before the file was sent")
        data = _read_message(self.results, time.monotonic() + seconds)
        if data is None:
            self.stop(kill=True)
            raise BoundExceeded(f"did not finish within {seconds:g}s of wall time (parsing included); "
                                "it was stopped")
        if not data:
            status = self.stop(kill=True)
            raise BoundExceeded(f"the analysis process {bounded._death(status)}")
        kind, value, retire = pickle.loads(data)
        if retire:
            self.stop()
        if kind == "error":
            raise BoundExceeded(value, raised=True)
        return value

    def exited(self) -> bool:
        """Whether the child has ended (it is reaped then, and this object is dead)."""
        try:
            pid, _ = os.waitpid(self.pid, os.WNOHANG)
        except ChildProcessError:
            pid = self.pid  # reaped elsewhere: gone all the same
        if pid == 0:
            return False
        self._close()
        return True

    def _close(self) -> None:
        """Mark the child dead and close both pipes (closing the request pipe ends its loop)."""
        self.alive = False
        for fd in (self.requests, self.results):
            try:
                os.close(fd)
            except OSError:
                pass  # already closed by an earlier stop

    def stop(self, kill: bool = False) -> int:
        """End the child (closing its request pipe ends its loop); its exit status."""
        self._close()
        if kill:
            try:
                os.kill(self.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        return bounded._reap(self.pid)


_resident: Optional[_Resident] = None
#: Held for a whole call: the pipes carry one request and its answer at a time.
_lock = threading.Lock()


def _fresh_lock() -> None:
    global _lock
    _lock = threading.Lock()  # a forked process starts with no call of its own in flight


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_fresh_lock)
#: The process that registered ``stop_resident`` to run at its exit.
_registered_in = 0


def stop_resident() -> None:
    """End this process's resident child, if any, and reap it (its CPU time is then counted
    as this process's children's, as a child forked per file would be)."""
    global _resident
    if _resident is not None and _resident.owner == os.getpid() and _resident.alive:
        _resident.stop(kill=True)  # idle between calls: nothing is lost
    _resident = None


def _stop_at_exit() -> None:
    global _registered_in
    if _registered_in == os.getpid():
        return
    _registered_in = os.getpid()
    import atexit
    from multiprocessing import util

    atexit.register(stop_resident)
    # flake8 -j N runs plugins in multiprocessing workers, which leave without atexit handlers
    # but run the finalizers registered in them.
    util.Finalize(None, stop_resident, exitpriority=0)


def _serve(requests: int, results: int, memory: int, parent: int) -> None:
    """The child: answer requests until the pipe closes, its parent dies or its heap grew too
    much; leave without running the parent's exit handlers."""
    code = 0
    try:
        bounded.die_with_parent(parent)
        import faulthandler

        faulthandler.disable()  # a crash here is the parent's to report, as one line
        signal.signal(signal.SIGINT, signal.SIG_DFL)  # Ctrl-C ends the child with its parent
        started = bounded.address_space()
        bounded.limit_memory(memory + bounded.ANALYSIS_STACK_BYTES)
        while True:
            data = _read_message(requests, None)
            if not data:
                break  # the parent closed the pipe or is gone
            function, args = pickle.loads(data)
            try:
                answer = ("ok", bounded.call_deep(function, *args))
            except BaseException as exc:  # noqa: BLE001 - MemoryError and the like: reported, not raised
                answer = ("error", f"{type(exc).__name__}: {' '.join(str(exc).split())}")
            # Like the pool's workers: a heap grown by half its allowance makes way for a fresh one.
            retire = bool(started) and bounded.address_space() - started > memory // 2
            _write_message(results, pickle.dumps(answer + (retire,), protocol=pickle.HIGHEST_PROTOCOL))
            if retire:
                break
    except BaseException:  # noqa: BLE001 - nothing may escape into the parent's code
        code = 70
    finally:
        os._exit(code)


def _write_message(fd: int, payload: bytes) -> None:
    view = memoryview(_HEADER.pack(len(payload)) + payload)
    while view:
        written = os.write(fd, view)
        view = view[written:]


def _read_message(fd: int, deadline: Optional[float]) -> Optional[bytes]:
    """One message from ``fd``: b"" at end of file, None when ``deadline`` passes first."""
    header = _read_exactly(fd, _HEADER.size, deadline)
    if not header:
        return header
    return _read_exactly(fd, _HEADER.unpack(header)[0], deadline)


def _read_exactly(fd: int, size: int, deadline: Optional[float]) -> Optional[bytes]:
    chunks = []
    left = size
    while left:
        if deadline is not None:
            wait = deadline - time.monotonic()
            if wait <= 0 or not select.select([fd], [], [], wait)[0]:
                return None
        chunk = os.read(fd, min(left, 1 << 20))
        if not chunk:
            return b""
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)
