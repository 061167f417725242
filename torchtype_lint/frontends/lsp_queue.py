"""The language server's work for its analysis child, run one job at a time off the event loop.

Every analysis (a document's diagnostics, a text's hovers) goes to the one resident child
(``resident.py``), which answers one request at a time. The jobs wait here, in one worker
thread, so that the event loop never waits on the child: a request about a document whose
results are in answers at once, whatever the child is busy with. ``idle`` says whether a job
submitted now would start at once (nothing else waiting or running): the hover handler waits
only for its own document's work, never for another's.
"""
from __future__ import annotations

import asyncio
import threading
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any, Callable, Optional


class ChildQueue:
    def __init__(self) -> None:
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="torchtype-lint")
        self._lock = threading.Lock()  # the count changes on the loop's thread and the worker's
        self._unfinished = 0

    def submit(self, function: Callable[..., Any], *args: Any) -> "Future[Any]":
        """Queue ``function(*args)``; its future (``running()`` once the worker has started it)."""
        with self._lock:
            self._unfinished += 1
        try:
            future = self._executor.submit(function, *args)
        except BaseException:
            self._finished(None)  # refused (the server is shutting down): nothing was queued
            raise
        # Called when it ends, and also when it is cancelled before it ran.
        future.add_done_callback(self._finished)
        return future

    def run(self, function: Callable[..., Any], *args: Any) -> "asyncio.Future[Any]":
        """``submit``, as an awaitable (cancelling it drops the job if it has not started)."""
        return asyncio.wrap_future(self.submit(function, *args))

    def idle(self) -> bool:
        """Nothing waiting or running: a job submitted now starts at once."""
        with self._lock:
            return self._unfinished == 0

    def shutdown(self) -> None:
        self._executor.shutdown(wait=False, cancel_futures=True)

    def _finished(self, _: "Optional[Future[Any]]") -> None:
        with self._lock:
            self._unfinished -= 1
