"""Running ``check`` over many files: the one place that decides order, parallelism and caching.

* With a cache, every file's bytes are hashed here first; a hit costs nothing more (a fully
  warm run never imports the parser, the engine or the rules).
* The misses are analysed by a small pool of worker processes, even for one file or
  ``jobs == 1``: a worker's address space is capped and the parent kills it at a hard
  wall-clock deadline, so a file that makes libcst's native parser run away or exhaust memory
  costs one TTL000 finding, never the run. The pool is ours rather than ``concurrent.futures``'
  so that one stuck worker can be stopped and replaced.
* Analysis runs on a deep stack (``bounded.call_deep``), so deeply nested expressions are
  analysed instead of overflowing the C stack.
* Results come back in discovery order whatever the scheduling.
"""
from __future__ import annotations

import os
import time
from collections import deque
from typing import TYPE_CHECKING, Any, Callable, Deque, Dict, Iterable, Iterator, List, Optional, Sequence, Tuple, Union

from . import bounded
from .cache import DEFAULT_CACHE_DIR, Cache, finding_from_dict, finding_to_dict
from .gc_tuning import tune_collector
from ..source.files import discover
from ..model.findings import Finding, Location
from .resident import call_resident
from ..source.reading import MAX_READ_BYTES, read_source  # noqa: F401 - re-exported (explain reads files through runner)

from ..model.settings import DEFAULT_TIME_BUDGET, FileResult

if TYPE_CHECKING:  # the engine is imported only once some file really needs analysing
    from ..model.settings import Settings


def default_jobs() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def hard_deadline(settings: "Settings") -> float:
    """Wall seconds after which a worker's file is abandoned (see ``bounded.hard_deadline``)."""
    return bounded.hard_deadline(getattr(settings, "time_budget", DEFAULT_TIME_BUDGET))


def run_paths(paths: Sequence[str], settings: "Settings", excludes: Sequence[str] = (),
              jobs: Optional[int] = 1, cache: Optional[Cache] = None) -> List["FileResult"]:
    """Check every file under ``paths``; results in discovery order."""
    return run_files(discover(paths, excludes), settings, jobs=jobs, cache=cache)


def run_files(files: Iterable[str], settings: "Settings", jobs: Optional[int] = 1,
              cache: Optional[Cache] = None,
              on_result: Optional[Callable[["FileResult"], None]] = None) -> List["FileResult"]:
    """Check ``files``; ``jobs=None`` means one worker per available core.

    Results carry locations and fix text, not libcst nodes (they come from the cache or from a
    worker process); ``fix.py`` re-analyses the files it fixes. Where no worker process can be
    started (a daemonic process may not have children), files are analysed in this process
    on a deep stack, bounded only by the screen and the engine's time budget. ``on_result``
    is called with each file's result as it completes (progress), in completion order.
    """
    def done(index: int, result: "FileResult") -> None:
        results[index] = result
        if on_result is not None:
            on_result(result)

    paths = list(files)
    results: List[Any] = [None] * len(paths)
    todo: List[Tuple[int, str]] = []
    for index, path in enumerate(paths):
        if cache is not None:
            try:
                data = read_source(path)
            except OSError as exc:  # vanished, unreadable, a directory, a pipe...
                done(index, _file_result(path, [_read_error(path, exc)], settings))
                continue
            cached = cache.get(cache.key(data, path), path)
            if cached is not None:
                done(index, _file_result(path, cached, None))
                continue
        todo.append((index, path))

    workers = min(default_jobs() if jobs is None else max(1, jobs), len(todo))
    if not workers:
        return results
    if not _may_start_workers():
        for index, path in todo:
            done(index, check_file(path, settings, cache))
        return results
    for index, path, dicts in _run_pool(todo, settings, workers, cache):
        done(index, _file_result(path, [finding_from_dict(d, path) for d in dicts], None))
    return results


def _may_start_workers() -> bool:
    import multiprocessing

    # multiprocessing refuses children to daemonic processes (a worker of another tool's pool).
    return not multiprocessing.current_process().daemon


def check_file(path: str, settings: "Settings", cache: Optional[Cache] = None) -> "FileResult":
    """Read, analyse (on a deep stack) and cache one file. Never raises."""
    try:
        data = read_source(path)
    except OSError as exc:
        return _file_result(path, [_read_error(path, exc)], settings)
    result = check_bytes_deep(data, path, settings)
    if cache is not None:
        cache.put(cache.key(data, path), result.findings, result.dependencies)
    return result


def check_bytes_deep(data: bytes, path: str, settings: "Settings") -> "FileResult":
    """``check.check_bytes`` on a deep stack (``bounded.call_deep``). Never raises."""
    from ..checker.check import check_bytes

    try:
        return bounded.call_deep(check_bytes, data, path, settings)
    except BaseException as exc:  # noqa: BLE001 - MemoryError and the like: one file's loss
        message = f"internal error while analysing this file: {type(exc).__name__}: {exc}"
        return _file_result(path, [_tool_finding("TTL000", path, " ".join(message.split()))], settings)


def check_bytes_bounded(data: Union[bytes, str], path: str, settings: "Settings",
                        tree: Any = None, overlay: Optional[Dict[str, str]] = None,
                        resident: bool = False) -> "FileResult":
    """``check.check_bytes`` (``check_source`` for a text, with CPython's ``tree`` of it when
    the caller has one) in a killable child process (``bounded.call_bounded``): for the front
    ends that analyse one text at a time (stdin, the flake8 plugin, the language server). The
    result has the source text and the project files read (``overlay``: path -> text of those
    an editor has open), but no libcst nodes. Never raises.

    ``resident``: in this process's resident child (``resident.py``), which keeps what it
    loaded (imported project modules, parsed and run, kept by content hash) for the next file:
    for a front end that is handed one file after another (flake8)."""
    from ..checker.check import warm_up

    warm_up()
    deadline = hard_deadline(settings)
    started = time.monotonic()
    try:
        call = call_resident if resident else bounded.call_bounded
        dicts, source, dependencies = call(
            _check_for_transport, data, path, settings, tree, overlay, seconds=deadline)
    except bounded.BoundExceeded as exc:
        if exc.raised:
            why = f"internal error while analysing this file: {exc}"
        elif time.monotonic() - started >= deadline:  # stopped at the deadline, not dead before it
            why = f"not analysed: {_deadline_message(settings, deadline)}"
        else:
            why = f"not analysed: {exc}"
        return _file_result(path, [_tool_finding("TTL000", path, why)], settings)
    return FileResult(path, [finding_from_dict(d, path) for d in dicts], source, dependencies=dependencies)


def _check_for_transport(data: Union[bytes, str], path: str, settings: "Settings", tree: Any,
                         overlay: Optional[Dict[str, str]] = None
                         ) -> Tuple[List[Dict[str, Any]], Optional[str], Dict[str, Optional[str]]]:
    from ..checker.check import check_bytes, check_source

    result = check_source(data, path, settings, tree=tree, overlay=overlay) if isinstance(data, str) \
        else check_bytes(data, path, settings)
    return [finding_to_dict(f) for f in result.findings], result.source, result.dependencies


# ---------------------------------------------------------------------- worker pool


def _worker_main(conn: Any, settings: "Settings", cache: Optional[Cache]) -> None:
    """A pool worker: receive a path, send back ``(findings as dicts, retire)``; ``None`` ends it.

    Its address space is capped once at start: a file that needs more memory fails here
    (MemoryError, or a native abort the parent reports), not on the machine."""
    tune_collector()  # inherited when forked; a spawned worker starts at Python's defaults
    started_size = bounded.address_space()
    bounded.limit_memory(bounded.MEMORY_LIMIT_BYTES + bounded.ANALYSIS_STACK_BYTES)
    while True:
        try:
            message = conn.recv()
        except (EOFError, OSError):
            return
        if message is None:
            return
        result = check_file(message, settings, cache)
        # A worker whose heap grew by half its allowance makes way for a fresh one, so one big
        # file's leftovers never make the next file fail for want of memory.
        retire = bool(started_size) and \
            bounded.address_space() - started_size > bounded.MEMORY_LIMIT_BYTES // 2
        conn.send(([finding_to_dict(f) for f in result.findings], retire))
        if retire:
            return


class _Worker:
    def __init__(self, context: Any, settings: "Settings", cache: Optional[Cache]):
        self.conn, child_conn = context.Pipe(duplex=True)
        self.process = context.Process(target=_worker_main, args=(child_conn, settings, cache),
                                       daemon=True, name="torchtype-lint-worker")
        self.process.start()
        child_conn.close()
        self.task: Optional[Tuple[int, str]] = None
        self.started = 0.0

    def give(self, task: Tuple[int, str]) -> None:
        self.task = task
        self.started = time.monotonic()
        self.conn.send(task[1])

    def stop(self, kill: bool = False) -> None:
        if kill:
            self.process.kill()
        else:
            try:
                self.conn.send(None)
            except OSError:
                pass
        self.process.join(timeout=5)
        if self.process.is_alive():
            self.process.kill()
            self.process.join(timeout=5)
        self.conn.close()


def _pool_context() -> Any:
    import multiprocessing

    # fork shares the already imported engine and rules with the workers; elsewhere, spawn.
    if "fork" in multiprocessing.get_all_start_methods():
        return multiprocessing.get_context("fork")
    return multiprocessing.get_context("spawn")


def _run_pool(todo: Sequence[Tuple[int, str]], settings: "Settings", workers: int,
              cache: Optional[Cache]) -> Iterator[Tuple[int, str, List[Dict[str, Any]]]]:
    from multiprocessing.connection import wait

    from ..checker.check import warm_up

    warm_up()  # load the rules and knowledge tables once, before forking
    context = _pool_context()
    deadline = hard_deadline(settings)
    pending: Deque[Tuple[int, str]] = deque(todo)
    pool: List[_Worker] = []
    try:
        pool = [_Worker(context, settings, cache) for _ in range(workers)]
        while True:
            for worker in pool:
                if worker.task is None and pending:
                    worker.give(pending.popleft())
            busy = [w for w in pool if w.task is not None]
            if not busy:
                return
            now = time.monotonic()
            timeout = max(0.0, min(w.started + deadline for w in busy) - now)
            ready = wait([w.conn for w in busy], timeout=timeout)
            for slot, worker in enumerate(pool):
                if worker.task is None:
                    continue
                index, path = worker.task
                if worker.conn in ready:
                    try:
                        dicts, retire = worker.conn.recv()
                    except (EOFError, OSError):
                        worker.process.join(timeout=5)  # reap it, so its exit code is known
                        code = worker.process.exitcode
                        worker.stop(kill=True)
                        pool[slot] = _Worker(context, settings, cache)
                        yield index, path, _tool_dicts(path, settings, (
                            "internal error: the worker process analysing this file died"
                            f" ({_exit_reason(code)}); the file was skipped"))
                        continue
                    worker.task = None
                    if retire:
                        worker.stop()
                        pool[slot] = _Worker(context, settings, cache)
                    yield index, path, dicts
                elif time.monotonic() - worker.started > deadline:
                    worker.stop(kill=True)
                    pool[slot] = _Worker(context, settings, cache)
                    yield index, path, _tool_dicts(path, settings, _deadline_message(settings, deadline))
    finally:
        for worker in pool:
            worker.stop(kill=worker.task is not None)


def _deadline_message(settings: "Settings", deadline: float) -> str:
    """Why a file was stopped at the hard deadline, naming the budget it was given: the engine
    stops itself at the budget, except inside work it cannot interrupt (libcst's native parser
    of a very long file), which only the kill at the later hard deadline ends."""
    budget = getattr(settings, "time_budget", DEFAULT_TIME_BUDGET)
    if deadline <= budget:  # a deadline set apart from the budget (tests): nothing more to explain
        return f"analysis did not finish within {deadline:g}s of wall time (parsing included); the file was skipped"
    return (f"analysis did not finish within its time budget of {budget:g}s (--time-budget; wall time, "
            "parsing included) and could not stop itself there, inside work that cannot be interrupted "
            f"(libcst's parser): it was stopped at {deadline:g}s, the hard deadline, which leaves the engine "
            f"{deadline - budget:g}s to stop itself; the file was skipped")


def _exit_reason(code: Optional[int]) -> str:
    if code is not None and code < 0:
        # Killed by a signal: SIGKILL from the OS, or an abort when the memory cap was hit.
        return f"killed by signal {-code}, most likely out of memory (limit " \
               f"{bounded.MEMORY_LIMIT_BYTES >> 30} GiB) or a crash in the parser"
    return f"exit code {code}"


# ---------------------------------------------------------------------- tool findings


def read_error_result(path: str, exc: OSError, settings: "Settings") -> "FileResult":
    """The result of a file (or stdin) that could not be read: its TTL001, when selected."""
    return _file_result(path, [_read_error(path, exc)], settings)


def _read_error(path: str, exc: OSError) -> Finding:
    return _tool_finding("TTL001", path, f"could not read file: {exc.strerror or exc}")


def _tool_finding(code: str, path: str, message: str) -> Finding:
    return Finding(code, message, "error", path, Location(1, 0, 1, 0))


def _tool_dicts(path: str, settings: "Settings", message: str) -> List[Dict[str, Any]]:
    finding = _tool_finding("TTL000", path, message)
    if not settings.selection.is_enabled(finding.code, True):
        return []
    return [finding_to_dict(finding)]


def _file_result(path: str, findings: List[Finding], settings: Optional["Settings"]) -> "FileResult":
    if settings is not None:
        findings = [f for f in findings if settings.selection.is_enabled(f.code, True)]
    return FileResult(path, findings)


def make_cache(settings: "Settings", cache_dir: Optional[str] = None, enabled: bool = True,
               warn: Optional[Callable[[str], None]] = None) -> Optional[Cache]:
    """The cache a command-line run uses: ``cache_dir``, else ``$TORCHTYPE_LINT_CACHE_DIR``, else
    ``.torchtype_lint_cache`` in the working directory; ``None`` when disabled, or when refused
    (a symbolic link inside the project on its path: ``cache_location.py``), said to ``warn``."""
    if not enabled:
        return None
    directory = cache_dir or os.environ.get("TORCHTYPE_LINT_CACHE_DIR") or DEFAULT_CACHE_DIR
    cache = Cache(directory, settings)
    if cache.refusal is not None:
        if warn is not None:
            warn(cache.refusal)
        return None
    return cache
