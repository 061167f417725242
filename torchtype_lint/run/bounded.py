"""Running one analysis under hard bounds: a deep stack, a wall-clock deadline, a memory cap.

Every front end analyses user files through here (the CLI's worker pool in ``runner``, stdin,
``explain``, ``--fix``, the flake8 plugin, the language server), because no check inside the
analysis can stop libcst's native parser or a runaway allocation:

* ``call_deep`` runs a function in a thread with a 512 MB stack and a raised recursion limit,
  so deeply nested (but screened) expressions are analysed instead of overflowing the C stack;
* ``call_bounded`` runs it in a forked child process that is killed at its deadline and whose
  address space is capped, so a file costs at most a diagnostic, never the process that asked;
* ``die_with_parent`` makes every such child (and the resident one, ``resident.py``) end when
  the process that forked it ends, even by SIGKILL: no analysis outlives its front end.

Where ``fork`` does not exist (Windows) ``call_bounded`` runs the function in-process on the
deep stack: the screen and the engine's time budget still apply, the hard kill does not.
"""
from __future__ import annotations

import gc
import os
import pickle
import select
import signal
import sys
import threading
import time
import warnings
from typing import Any, Callable, Dict, TypeVar

T = TypeVar("T")

#: Stack of the analysis thread; only the pages really touched are committed.
ANALYSIS_STACK_BYTES = 512 * 1024 * 1024
#: Recursion limit while analysing: deep enough for 2,500-deep nesting, far below the stack.
ANALYSIS_RECURSION_LIMIT = 50_000
#: Address space one analysis may add to its process: libcst needs about 1 GB for the largest
#: file the screen lets through, and a runaway beyond this is stopped, not swapped.
MEMORY_LIMIT_BYTES = 4 * 1024 * 1024 * 1024

_recursion_lock = threading.Lock()
_recursion_users = 0
_saved_recursion_limit = 0


class BoundExceeded(Exception):
    """The analysis was stopped (deadline), died (memory, a crash) or raised in the child
    (``raised``: the message is then the exception's type and text)."""

    def __init__(self, message: str, raised: bool = False):
        super().__init__(message)
        self.raised = raised


def hard_deadline(time_budget: float) -> float:
    """Wall seconds after which an analysis is killed. The engine stops itself at the budget
    (parsing included) and reports TTL000; the grace covers what it cannot interrupt."""
    budget = float(time_budget or 0.0)
    return budget + max(5.0, budget / 2)


# ---------------------------------------------------------------------- deep stack


def call_deep(function: Callable[..., T], *args: Any) -> T:
    """``function(*args)`` in a thread with a big stack and a raised recursion limit."""
    box: Dict[str, Any] = {}

    def target() -> None:
        try:
            box["value"] = function(*args)
        except BaseException as exc:  # noqa: BLE001 - re-raised in the caller's thread
            box["error"] = exc

    _raise_recursion_limit()
    try:
        thread = _start_deep_thread(target)
        thread.join()
    finally:
        _restore_recursion_limit()
    if "error" in box:
        raise box["error"]
    if "value" not in box:
        raise RuntimeError("the analysis thread ended without a result")
    return box["value"]


def _start_deep_thread(target: Any) -> threading.Thread:
    with _recursion_lock:  # stack_size is process-wide: set it only around this start
        previous = threading.stack_size()
        try:
            threading.stack_size(ANALYSIS_STACK_BYTES)
        except (ValueError, RuntimeError):  # platforms with a lower ceiling keep their default
            pass
        try:
            thread = threading.Thread(target=target, name="torchtype-lint-analysis", daemon=True)
            thread.start()
        finally:
            threading.stack_size(previous)
    return thread


def _raise_recursion_limit() -> None:
    global _recursion_users, _saved_recursion_limit
    with _recursion_lock:
        if _recursion_users == 0:
            _saved_recursion_limit = sys.getrecursionlimit()
            sys.setrecursionlimit(max(_saved_recursion_limit, ANALYSIS_RECURSION_LIMIT))
        _recursion_users += 1


def _restore_recursion_limit() -> None:
    global _recursion_users
    with _recursion_lock:
        _recursion_users -= 1
        if _recursion_users == 0:
            sys.setrecursionlimit(_saved_recursion_limit)


# ---------------------------------------------------------------------- memory


def address_space() -> int:
    """This process's current virtual size in bytes (0 where /proc is missing)."""
    try:
        with open("/proc/self/statm", encoding="ascii") as handle:
            return int(handle.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return 0


def limit_memory(extra: int) -> bool:
    """Cap this process's address space at its current size plus ``extra`` bytes (Linux).
    False where that cannot be done; the deadline still bounds the run."""
    try:
        import resource
    except ImportError:
        return False
    current = address_space()
    if not current:
        return False
    try:
        _, hard = resource.getrlimit(resource.RLIMIT_AS)
        limit = current + extra
        if hard != resource.RLIM_INFINITY:
            limit = min(limit, hard)
        resource.setrlimit(resource.RLIMIT_AS, (limit, hard))
    except (OSError, ValueError):
        return False
    return True


# ---------------------------------------------------------------------- killable child


def can_fork() -> bool:
    return hasattr(os, "fork")


# ---------------------------------------------------------------------- dying with the parent

#: prctl(2) option: the signal the kernel sends this process when its parent dies (Linux).
_PR_SET_PDEATHSIG = 1
#: Seconds between two looks at the parent, where no parent-death signal can be armed.
WATCHDOG_SECONDS = 0.2
#: libc's ``prctl``, looked up before forking (a child should not load libraries); False until then.
_prctl: Any = False


def prepare_parent_death() -> None:
    """Look up ``prctl`` in this process, once, so that a child forked later need not."""
    global _prctl
    if _prctl is not False:
        return
    _prctl = None
    if not sys.platform.startswith("linux"):
        return
    try:
        import ctypes

        _prctl = ctypes.CDLL(None, use_errno=True).prctl
    except (ImportError, OSError, AttributeError):  # no ctypes or a libc without prctl: the watchdog does it
        _prctl = None


def die_with_parent(parent: int) -> None:
    """In a child just forked from ``parent``: end when the parent ends. Linux: the kernel
    sends SIGKILL when the forking thread exits (its callers keep that thread until the child
    is done); the parent may already be gone when the signal is armed, hence the getppid check.
    Elsewhere a watchdog thread looks at the parent every ``WATCHDOG_SECONDS``."""
    armed = _set_parent_death_signal()
    if os.getppid() != parent:
        os._exit(70)  # orphaned before the signal was armed: it would never come
    if not armed:
        threading.Thread(target=_watch_parent, args=(parent,), name="torchtype-lint-watchdog",
                         daemon=True).start()


def _set_parent_death_signal() -> bool:
    """Ask the kernel for SIGKILL when the parent dies; False where that cannot be done."""
    prepare_parent_death()  # normally done before the fork; a no-op then
    if not _prctl:
        return False
    try:
        return _prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0) == 0
    except Exception:  # noqa: BLE001 - a foreign call that failed: the watchdog takes over
        return False


def _watch_parent(parent: int) -> None:
    # An orphan is adopted by init (or a subreaper): its parent id changes.
    while os.getppid() == parent:
        time.sleep(WATCHDOG_SECONDS)
    os._exit(70)  # from any thread: ends the whole child, mid-analysis too


def call_bounded(function: Callable[..., T], *args: Any, seconds: float,
                 memory: int = MEMORY_LIMIT_BYTES) -> T:
    """``function(*args)`` in a forked child on a deep stack, killed after ``seconds`` of wall
    time, its address space capped at ``memory`` more than the parent's. The result comes back
    pickled, so it must not hold libcst nodes. Raises ``BoundExceeded`` when the child is
    stopped, dies, or raises."""
    if not can_fork():
        return call_deep(function, *args)
    prepare_parent_death()
    parent = os.getpid()
    read_end, write_end = os.pipe()
    with warnings.catch_warnings():
        # Python 3.12+ warns about forking a threaded process (the language server is one);
        # the child runs only this analysis and leaves with os._exit, never touching locks
        # another thread might hold.
        warnings.simplefilter("ignore", DeprecationWarning)
        # Frozen objects are never traversed by the child's garbage collector, so it does not
        # copy every page of the parent's heap (copy-on-write) the first time it collects.
        gc.freeze()
        try:
            pid = os.fork()
        except BaseException:
            gc.unfreeze()
            raise
        if pid != 0:
            gc.unfreeze()
    if pid == 0:  # the child
        os.close(read_end)
        _child(function, args, write_end, memory + ANALYSIS_STACK_BYTES, parent)
    os.close(write_end)
    try:
        data = _read_until(read_end, time.monotonic() + seconds)
    finally:
        os.close(read_end)
    if data is None:
        _kill(pid)
        raise BoundExceeded(f"did not finish within {seconds:g}s of wall time (parsing included); "
                            "it was stopped")
    status = _reap(pid)
    if not data:
        raise BoundExceeded(f"the analysis process {_death(status)}")
    kind, value = pickle.loads(data)
    if kind == "error":
        raise BoundExceeded(value, raised=True)
    return value


def _child(function: Callable[..., Any], args: Any, write_end: int, memory: int, parent: int) -> None:
    """Body of the forked child: compute, send, and leave without running the parent's exit
    handlers (flake8's, pytest's, the language server's)."""
    code = 0
    try:
        die_with_parent(parent)
        import faulthandler

        faulthandler.disable()  # a crash here is the parent's to report, as one line
        signal.signal(signal.SIGINT, signal.SIG_DFL)  # Ctrl-C ends the child with its parent
        limit_memory(memory)
        try:
            payload = pickle.dumps(("ok", call_deep(function, *args)), protocol=pickle.HIGHEST_PROTOCOL)
        except BaseException as exc:  # noqa: BLE001 - MemoryError and the like: reported, not raised
            payload = pickle.dumps(("error", f"{type(exc).__name__}: {' '.join(str(exc).split())}"))
        view = memoryview(payload)
        while view:
            written = os.write(write_end, view)
            view = view[written:]
    except BaseException:  # noqa: BLE001 - nothing may escape into the parent's code
        code = 70
    finally:
        os._exit(code)


def _read_until(fd: int, deadline: float) -> Any:
    """Everything written to ``fd`` until EOF; None when the deadline passes first."""
    chunks = []
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            return None
        ready, _, _ = select.select([fd], [], [], left)
        if not ready:
            return None
        chunk = os.read(fd, 1 << 20)
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)


def _kill(pid: int) -> None:
    try:
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    _reap(pid)


def _reap(pid: int) -> int:
    while True:
        try:
            return os.waitpid(pid, 0)[1]
        except InterruptedError:
            continue
        except ChildProcessError:
            return 0


def _death(status: int) -> str:
    if os.WIFSIGNALED(status):
        number = os.WTERMSIG(status)
        name = signal.Signals(number).name if number in signal.Signals._value2member_map_ else str(number)
        hint = " (out of memory or a crash in the parser)" if name in ("SIGKILL", "SIGSEGV", "SIGABRT", "SIGBUS") else ""
        return f"was killed by {name}{hint}"
    return f"exited with status {os.WEXITSTATUS(status)} without a result"
