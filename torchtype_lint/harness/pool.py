"""Run jobs on torch workers: per device, a few fresh worker processes side by side.

Every worker is its own fresh interpreter (``process.py``) that imports torch once and runs
one job at a time (``worker.py``); no job ever runs in a process forked from one that imported
torch, initialised CUDA or ran autograd. A worker is replaced after a job that crashed it, hung,
timed out, raised a CUDA error or left process-wide state it cannot reset; the next job runs in
a fresh one. Nothing here imports torch.
"""
from __future__ import annotations

import importlib.util
import os
import sys
import threading
from collections import deque
from dataclasses import dataclass, field
from typing import Any, Deque, Dict, List, Optional, Sequence

from .process import BOOTSTRAP, WorkerGone, WorkerProcess, WorkerSpec, worker_command

__all__ = ["BOOTSTRAP", "DEVICES", "DeviceRun", "TorchMissing", "Workers", "default_parallel",
           "run_jobs", "torch_installed", "worker_command"]

DEVICES = ("cpu", "cuda")

#: ``TTL_HARNESS_CUDA_STANDIN=<directory>``: CUDA workers use the stand-in device of
#: ``cuda_standin.py`` (CI without a GPU), recording into that directory.
STANDIN_VARIABLE = "TTL_HARNESS_CUDA_STANDIN"

#: Jobs that justify one more worker: a worker's start (torch's import, about 2 CPU-seconds)
#: costs as much as running some 40 fixtures in a warm one, so a handful of jobs share one.
JOBS_PER_WORKER = 24


class TorchMissing(RuntimeError):
    """torch is not importable by this interpreter."""


def torch_installed() -> bool:
    """Whether torch can be imported, found without importing it."""
    return importlib.util.find_spec("torch") is not None


@dataclass
class DeviceRun:
    device: str
    available: bool
    torch: str = "?"
    results: Dict[str, Dict[str, Any]] = field(default_factory=dict)
    error: str = ""
    hardware: str = ""                      # the GPU's name and compute capability, on CUDA
    workers: List[Dict[str, Any]] = field(default_factory=list)  # every worker's ready line


def default_parallel() -> int:
    return max(1, min(4, os.cpu_count() or 1))


def _hardware(info: Dict[str, Any]) -> str:
    gpu = info.get("gpu", "")
    return f"{gpu} (compute capability {info['capability']})" if gpu and info.get("capability") else gpu


class DevicePool:
    """Up to ``size`` workers of one device taking jobs from one queue."""

    def __init__(self, spec: WorkerSpec, size: int, run: DeviceRun):
        self.spec = spec
        self.size = size
        self.run = run
        self._lock = threading.Lock()
        self._queue: Deque[Dict[str, Any]] = deque()
        self._broken = ""  # why no replacement worker starts: the remaining jobs fail with it

    def _next(self) -> Optional[Dict[str, Any]]:
        with self._lock:
            return self._queue.popleft() if self._queue else None

    def _record(self, result: Dict[str, Any]) -> None:
        with self._lock:
            self.run.results[result["id"]] = result

    def _start(self) -> Optional[WorkerProcess]:
        if self._broken:
            return None
        worker = WorkerProcess(self.spec)
        try:
            info = worker.ready()
        except WorkerGone as exc:
            with self._lock:
                self._broken = self._broken or str(exc)
                self.run.error = self.run.error or str(exc)
            return None
        with self._lock:
            self.run.workers.append(info)
        return worker

    def _slot(self, worker: Optional[WorkerProcess]) -> None:
        """One worker's loop: take a job, run it, replace the worker when it must go."""
        try:
            while True:
                job = self._next()
                if job is None:
                    return
                if worker is None:
                    worker = self._start()
                if worker is None:
                    self._record({"id": job["id"], "outcome": "crashed", "exception": None, "mro": [],
                                  "message": f"not run: {self._broken}", "line": None,
                                  "in_script": False, "warnings": []})
                    continue
                result = worker.run(job)
                self._record(result)
                if "recycle" in result or result.get("outcome") == "crashed" or not worker.alive:
                    worker.close()  # the worker exits by itself after a "recycle" result
                    worker = None
        finally:
            if worker is not None:
                worker.close()

    def run_all(self, jobs: Sequence[Dict[str, Any]], first: WorkerProcess) -> None:
        """Run ``jobs``; ``first`` is a ready worker, the others start as the queue needs them."""
        self._queue.extend(jobs)
        wanted = min(self.size, max(1, -(-len(jobs) // JOBS_PER_WORKER)))
        self.run.workers.append(first.info)
        threads = [threading.Thread(target=self._slot, args=(first if i == 0 else None,), daemon=True)
                   for i in range(wanted)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()


class Workers:
    """Torch workers for ``devices``. The first worker starts at construction, so torch's import
    (seconds) overlaps with whatever the caller does before calling ``run``.

    ``parallel`` is the most workers per device (default: the CPU count, at most 4);
    ``timeout`` each job's alarm, after which (plus ``kill_grace`` for code stuck outside
    Python) its worker is killed; ``cuda_standin`` (default ``$TTL_HARNESS_CUDA_STANDIN``) a
    directory for the test stand-in CUDA device."""

    def __init__(self, devices: Sequence[str], parallel: Optional[int] = None, timeout: float = 60.0,
                 kill_grace: float = 5.0, cuda_standin: Optional[str] = None):
        if not torch_installed():
            raise TorchMissing("torch is not installed in this Python environment "
                               f"({sys.executable}); install torch to run the harness")
        self.devices = list(devices)
        self.parallel = parallel or default_parallel()
        standin = cuda_standin if cuda_standin is not None else os.environ.get(STANDIN_VARIABLE) or None
        self.specs = {d: WorkerSpec(d, timeout, kill_grace, 1, standin) for d in self.devices}
        self.standin = standin
        self._first = WorkerProcess(self.specs[self.devices[0]]) if self.devices else None

    def _device(self, device: str, worker: Optional[WorkerProcess], todo: List[Dict[str, Any]],
                run: DeviceRun) -> None:
        """Start ``device``'s first worker unless given, then run its jobs."""
        try:
            worker = worker or WorkerProcess(self.specs[device])
            info = worker.ready()
        except WorkerGone as exc:
            run.error = str(exc)
            return
        run.available = bool(info.get("available"))
        run.torch = info.get("torch", run.torch)
        run.hardware = _hardware(info)
        run.error = info.get("error", "")
        if not run.available or not todo:
            worker.close()
            return
        DevicePool(self.specs[device], self.parallel, run).run_all(todo, worker)

    def run(self, jobs: Dict[str, List[Dict[str, Any]]]) -> Dict[str, DeviceRun]:
        """Run ``jobs[device]`` on each device, devices side by side. Devices that do not exist
        get ``available=False`` and no results. The first worker says whether CUDA exists, so a
        machine without a GPU never pays a torch import for a CUDA worker."""
        if not self.devices:
            return {}
        first, self._first = self._first, None
        try:
            info = first.ready() if first is not None else {}
        except WorkerGone as exc:
            raise TorchMissing(str(exc)) from None
        version = info.get("torch", "?")
        cuda_exists = bool(info.get("cuda")) or bool(self.standin)
        runs = {d: DeviceRun(d, False, version) for d in self.devices}
        threads = []
        for device in self.devices:
            worker = first if device == self.devices[0] else None
            if device == "cuda" and not cuda_exists:
                if worker is not None:
                    worker.close()  # `--device cuda` on a machine without one: its only worker
                continue  # reported unavailable, with no (other) worker started
            thread = threading.Thread(target=self._device, args=(device, worker, list(jobs.get(device, [])),
                                                                 runs[device]), daemon=True)
            thread.start()
            threads.append(thread)
        for thread in threads:
            thread.join()
        return runs


def run_jobs(jobs: Dict[str, List[Dict[str, Any]]], parallel: Optional[int] = None,
             timeout: float = 60.0) -> Dict[str, DeviceRun]:
    """Start workers for the devices in ``jobs`` and run them (see ``Workers.run``)."""
    return Workers(list(jobs), parallel, timeout).run(jobs)
