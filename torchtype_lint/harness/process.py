"""One torch worker process, seen from the linter: a fresh interpreter, never a fork.

Each worker is started with ``subprocess`` as ``python -I -B -c <bootstrap>`` (so nothing it
inherits comes from a process that imported torch, initialised CUDA or ran autograd), in a
fresh empty temporary directory, and runs one job at a time (``worker.py``). This side sends a
job, waits for its result with a deadline, and turns a worker that died or hung into a
"crashed" result for that job. Nothing here imports torch.
"""
from __future__ import annotations

import json
import os
import re
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Dict, List, Optional

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

#: Seconds a worker may take to import torch (and create a CUDA context): 2 s on a quiet
#: machine, 8 s measured on a loaded one; beyond this it is reported as unable to start.
START_TIMEOUT = 300.0

#: Seconds between a dying worker closing its stdout and its exit status being there.
EXIT_WAIT = 5.0

#: A faulthandler frame line in the worker's stderr log: where a crashed job was.
FAULT_FRAME = re.compile(r'^\s*File "(?P<file>.*)", line (?P<line>\d+)')


def worker_command(device: str, threads: int = 1, timeout: float = 60.0,
                   cuda_standin: Optional[str] = None) -> List[str]:
    """The command line of an isolated torch worker for ``device``."""
    command = [sys.executable, "-I", "-B", "-c", BOOTSTRAP, PACKAGE_PARENT, "--device", device,
               "--threads", str(threads), "--timeout", str(timeout)]
    if cuda_standin and device == "cuda":
        command += ["--cuda-standin", cuda_standin]
    return command


@dataclass(frozen=True)
class WorkerSpec:
    """How to start the workers of one device."""

    device: str
    timeout: float = 60.0              # the job's own alarm (TimeoutError in Python code)
    kill_grace: float = 5.0            # a job still running this long after it is killed
    threads: int = 1                   # torch's intra-op threads per job
    cuda_standin: Optional[str] = None  # records directory of the test stand-in (cuda_standin.py)

    def command(self) -> List[str]:
        return worker_command(self.device, self.threads, self.timeout, self.cuda_standin)

    def environment(self) -> Dict[str, str]:
        env = dict(os.environ)
        # torch.cuda.is_available() asks NVML: a CPU worker never creates a CUDA context.
        env["PYTORCH_NVML_BASED_CUDA_CHECK"] = "1"
        if self.device == "cuda":
            # Every kernel error is raised by the launching call, so the failing line is right.
            env["CUDA_LAUNCH_BLOCKING"] = "1"
        return env


class WorkerGone(Exception):
    """The worker could not start, or died between jobs."""


def _death(returncode: Optional[int]) -> str:
    if returncode is not None and returncode < 0:
        try:
            name = signal.Signals(-returncode).name
        except ValueError:
            name = f"signal {-returncode}"
        return f"worker died ({name})"
    return f"worker exited with status {returncode}"


class WorkerProcess:
    """A started worker. ``ready()`` waits for torch's import; ``run(job)`` runs one job."""

    def __init__(self, spec: WorkerSpec):
        self.spec = spec
        # A fresh directory: nothing the linted project holds is next to the worker. Its stderr
        # log sits beside the working directory, not in it.
        self.base = Path(tempfile.mkdtemp(prefix="ttl-worker-"))
        (self.base / "cwd").mkdir()
        self.log_path = self.base / "stderr.log"
        with open(self.log_path, "ab") as log:  # append mode: the worker truncates it per job
            self.proc = subprocess.Popen(spec.command(), cwd=self.base / "cwd", env=spec.environment(),
                                         stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=log,
                                         bufsize=0)
        self._buffer = b""
        self.eof = False
        self.info: Dict[str, Any] = {}

    # ------------------------------------------------------------------ pipes

    def _read_line(self, seconds: float) -> Optional[bytes]:
        """One line from the worker, or None at EOF or after ``seconds``."""
        deadline = time.monotonic() + seconds
        fd = self.proc.stdout.fileno()  # type: ignore[union-attr]
        while b"\n" not in self._buffer:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([fd], [], [], left)[0]:
                return None
            chunk = os.read(fd, 1 << 16)
            if not chunk:
                self.eof = True  # the worker is gone (or going): not a deadline
                return None
            self._buffer += chunk
        line, _, self._buffer = self._buffer.partition(b"\n")
        return line

    def _send(self, job: Dict[str, Any]) -> bool:
        data = (json.dumps(job) + "\n").encode("utf-8")
        try:
            view = memoryview(data)
            while view:  # a raw pipe may take part of a long snippet at a time
                view = view[self.proc.stdin.write(view) or 0:]  # type: ignore[union-attr]
        except (BrokenPipeError, OSError):
            return False
        return True

    def _stderr(self) -> str:
        try:
            return self.log_path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            return ""

    # ------------------------------------------------------------------ lifecycle

    def ready(self) -> Dict[str, Any]:
        """The worker's ready line (torch version, device availability); ``WorkerGone`` with
        the last line of its stderr when it cannot start."""
        if self.info:
            return self.info
        line = self._read_line(START_TIMEOUT)
        try:
            info = json.loads(line) if line else None
        except ValueError:
            info = None
        if not isinstance(info, dict) or not info.get("ready"):
            self.kill()
            tail = self._stderr().strip().splitlines()[-1:] or [_death(self.proc.returncode)]
            self.close()
            raise WorkerGone(f"the {self.spec.device} worker could not start torch: {tail[0]}")
        self.info = info
        return info

    def run(self, job: Dict[str, Any]) -> Dict[str, Any]:
        """The job's result. A worker that dies or overruns gives a "crashed" result (it is
        then unusable: ``alive`` is False)."""
        started = time.monotonic()
        limit = self.spec.timeout + self.spec.kill_grace
        line = self._read_line(limit) if self._send(job) else None
        if line is not None:
            try:
                return json.loads(line)
            except ValueError:
                self.kill()  # out of step with the protocol: the worker cannot be trusted further
                return self.crashed(job, "worker sent a garbled result")
        if self.eof:
            try:
                self.proc.wait(timeout=EXIT_WAIT)  # its stdout closed as it died
            except subprocess.TimeoutExpired:
                pass
        killed = self.proc.poll() is None
        self.kill()
        if killed:
            why = f"killed after {time.monotonic() - started:.0f}s (stuck outside Python)"
        else:
            why = _death(self.proc.returncode)
        return self.crashed(job, why)

    def crashed(self, job: Dict[str, Any], why: str) -> Dict[str, Any]:
        """A "crashed" result for ``job``, with the fatal error and the job's line from the
        faulthandler dump in the worker's stderr, when there is one."""
        text = self._stderr()
        fatal = next((line.strip() for line in text.splitlines() if line.startswith("Fatal Python error")), "")
        filename = job.get("path") or "<torchtype-lint reproduction>"
        # faulthandler prints the most recent call first: the first frame in the job is its line.
        line = next((int(m.group("line")) for m in map(FAULT_FRAME.match, text.splitlines())
                     if m and m.group("file") == filename), None)
        return {"id": job["id"], "outcome": "crashed", "exception": None, "mro": [],
                "message": why + (f": {fatal}" if fatal else ""), "line": line, "in_script": line is not None,
                "warnings": [], "pid": self.proc.pid}

    @property
    def alive(self) -> bool:
        return self.proc.poll() is None

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()

    def close(self) -> None:
        """Stop the worker (EOF on its stdin ends an idle one; any other is killed) and remove
        its directory."""
        try:
            self.proc.stdin.close()  # type: ignore[union-attr]
        except OSError:
            pass
        try:
            # An idle worker ends at EOF within milliseconds; one still importing torch is killed.
            self.proc.wait(timeout=2 if self.info else 0)
        except subprocess.TimeoutExpired:
            self.kill()
        if self.proc.stdout is not None:
            self.proc.stdout.close()
        shutil.rmtree(self.base, ignore_errors=True)
