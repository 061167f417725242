"""Start torch workers (one per device), hand them jobs, collect the results."""
from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence

DEVICES = ("cpu", "cuda")


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


#: The directory holding the ``torchtype_lint`` package this process runs (a checkout or
#: site-packages).
PACKAGE_PARENT = str(Path(__file__).resolve().parents[2])

#: The worker's entry point. ``-I`` keeps the current directory, the script's directory,
#: PYTHON* variables and the user site out of ``sys.path``, so a ``torch.py``, ``numpy.py``,
#: ``tempfile.py`` or ``sitecustomize.py`` in the directory being linted is never imported.
#: The package is found in site-packages, else in ``PACKAGE_PARENT``, added *last* so it can
#: never shadow the standard library or torch.
BOOTSTRAP = (
    "import importlib.util, sys\n"
    "if importlib.util.find_spec('torchtype_lint') is None:\n"
    "    sys.path.append(sys.argv[1])\n"
    "from torchtype_lint.harness.worker import main\n"
    "sys.exit(main(sys.argv[2:]))\n"
)


def worker_command(device: str, parallel: int, timeout: float) -> List[str]:
    """The command line of an isolated torch worker for ``device``."""
    return [sys.executable, "-I", "-B", "-c", BOOTSTRAP, PACKAGE_PARENT, "--device", device,
            "--parallel", str(parallel), "--timeout", str(timeout)]


def _start(device: str, parallel: int, timeout: float) -> subprocess.Popen:
    # A fresh empty directory: nothing the linted project holds is next to the worker.
    workdir = tempfile.mkdtemp(prefix="ttl-worker-")
    proc = subprocess.Popen(worker_command(device, parallel, timeout), cwd=workdir,
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)
    proc.workdir = workdir  # type: ignore[attr-defined] - removed once the worker is done
    return proc


def _cleanup(proc: subprocess.Popen) -> None:
    shutil.rmtree(getattr(proc, "workdir", ""), ignore_errors=True)


def _ready(proc: subprocess.Popen, device: str) -> Dict[str, Any]:
    line = proc.stdout.readline() if proc.stdout else ""
    try:
        info = json.loads(line)
    except ValueError:
        err = proc.stderr.read() if proc.stderr else ""
        proc.wait()
        _cleanup(proc)
        tail = err.strip().splitlines()[-1:] or ["no output"]
        raise TorchMissing(f"the {device} worker could not start torch: {tail[0]}") from None
    return info


def _feed(proc: subprocess.Popen, jobs: Sequence[Dict[str, Any]], run: DeviceRun) -> None:
    payload = "".join(json.dumps(job) + "\n" for job in jobs)
    try:
        out, err = proc.communicate(payload)
    finally:
        _cleanup(proc)
    for line in out.splitlines():
        if not line.strip():
            continue
        result = json.loads(line)
        run.results[result["id"]] = result
    if proc.returncode != 0:
        run.error = (err.strip().splitlines() or [f"worker exited with {proc.returncode}"])[-1]


def default_parallel() -> int:
    return max(1, min(4, os.cpu_count() or 1))


class Workers:
    """Torch workers for ``devices``. The first one starts at construction, so torch's import
    (seconds) overlaps with whatever the caller does before calling ``run``."""

    def __init__(self, devices: Sequence[str], parallel: Optional[int] = None, timeout: float = 60.0):
        if not torch_installed():
            raise TorchMissing("torch is not installed in this Python environment "
                               f"({sys.executable}); install torch to run the harness")
        self.devices = list(devices)
        self.parallel = parallel or default_parallel()
        self.timeout = timeout
        self._first = _start(self.devices[0], self.parallel, timeout) if self.devices else None

    def run(self, jobs: Dict[str, List[Dict[str, Any]]]) -> Dict[str, DeviceRun]:
        """Run ``jobs[device]`` on each device. Devices that do not exist get
        ``available=False`` and no results. The first worker says whether CUDA exists, so a
        machine without a GPU never pays a second torch import for a CUDA worker."""
        runs: Dict[str, DeviceRun] = {}
        procs: Dict[str, subprocess.Popen] = {}
        cuda_exists: Optional[bool] = None
        torch_version = "?"
        for device in self.devices:
            if device == "cuda" and cuda_exists is False:
                runs[device] = DeviceRun(device, False, torch_version)
                continue
            proc = self._first if device == self.devices[0] else _start(device, self.parallel, self.timeout)
            info = _ready(proc, device)
            cuda_exists = bool(info.get("cuda"))
            torch_version = info.get("torch", "?")
            runs[device] = DeviceRun(device, bool(info.get("available")), torch_version)
            procs[device] = proc
        threads = []
        for device, proc in procs.items():
            todo = jobs.get(device, []) if runs[device].available else []
            thread = threading.Thread(target=_feed, args=(proc, todo, runs[device]), daemon=True)
            thread.start()
            threads.append(thread)
        for thread in threads:
            thread.join()
        return runs


def run_jobs(jobs: Dict[str, List[Dict[str, Any]]], parallel: Optional[int] = None,
             timeout: float = 60.0) -> Dict[str, DeviceRun]:
    """Start workers for the devices in ``jobs`` and run them (see ``Workers.run``)."""
    return Workers(list(jobs), parallel, timeout).run(jobs)
