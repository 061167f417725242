"""The torch side of the harness: a fresh interpreter that imports torch once, then runs jobs
(a fixture file or a synthesized snippet) one at a time, in-process, each in fresh globals.

Nothing is ever forked from this process: forking after ``import torch`` breaks on real
machines (a forked child cannot initialise CUDA, "CUDA error: initialization error", and
cannot use autograd once the parent ran it with several threads). The pool (``pool.py``)
starts several of these side by side instead, and replaces one that crashed, hung, raised a
CUDA error or changed process-wide state it cannot put back.

Protocol (JSON lines over the process's original stdin and stdout; the jobs themselves see
/dev/null there): the worker first writes ``{"ready": true, "torch", "device", "available",
"cuda", "pid", "preloaded", "gpu"}``; then for every job read (``{"id", "path"}`` or
``{"id", "source"}``) it writes one result ``{"id", "outcome", "exception", "mro", "message",
"line", "in_script", "warnings", "seconds", "pid"}`` (plus ``"observed"`` for a snippet that
sets ``__observed__``, ``"late": true`` when the error came from the end-of-job CUDA
synchronize, and ``"recycle": <why>`` when this worker must not run another job: it exits right
after). ``outcome`` is "ok", "raised" or "timeout". EOF ends it.
"""
from __future__ import annotations

import argparse
import faulthandler
import json
import os
import random
import re
import runpy
import signal
import sys
import time
import traceback
import warnings
from dataclasses import dataclass
from typing import Any, Dict, List, Optional, TextIO, Tuple

from ..run.bounded import limit_memory

SNIPPET_FILENAME = "<torchtype-lint reproduction>"

#: Address space a synthesized reproduction may add on CPU: sizes come from the user's code,
#: and `torch.zeros(100000, 100000)` rebuilt faithfully must fail, not exhaust the machine.
SNIPPET_MEMORY = 4 << 30

#: What CUDA errors look like (the message, or ``torch.AcceleratorError`` in torch >= 2.8): a
#: device-side assert leaves the context unusable, so the worker is replaced after any of them.
CUDA_FAULT = re.compile(r"CUDA error|device-side assert|CUBLAS_STATUS|CUDNN_STATUS|cuda runtime error|"
                        r"illegal memory access|unspecified launch failure", re.IGNORECASE)


@dataclass(frozen=True)
class Device:
    """Where this worker's jobs run."""

    name: str             # "cpu" or "cuda": whose results these are
    tensor_device: str    # TTL_DEVICE and DEVICE for the jobs (the CUDA stand-in runs on "cpu")
    standin: Any = None   # cuda_standin.CudaStandIn, only under test


def _innermost_frame_in(tb: Any, filename: str) -> Optional[int]:
    """Line of the last traceback frame inside ``filename`` (where the script failed)."""
    line = None
    for frame in traceback.extract_tb(tb):
        if frame.filename == filename:
            line = frame.lineno
    return line


def _text(exc: BaseException) -> str:
    try:
        return str(exc)
    except Exception:  # noqa: BLE001 - an exception whose __str__ fails still gets reported
        return f"<unprintable {type(exc).__name__}>"


def cuda_fault(exc: BaseException) -> bool:
    names = {cls.__name__ for cls in type(exc).__mro__}
    return "AcceleratorError" in names or bool(CUDA_FAULT.search(_text(exc)))


class Alarm:
    """``timeout`` seconds of wall time for the job, raised as ``TimeoutError`` in Python code.
    Code stuck in C never sees it: the pool kills the whole worker a little later."""

    def __init__(self, timeout: float):
        self.timeout = timeout

    def _fire(self, signum: int, frame: Any) -> None:
        raise TimeoutError(f"ran longer than {self.timeout:g}s")

    def __enter__(self) -> "Alarm":
        signal.signal(signal.SIGALRM, self._fire)  # set per job: the job may have replaced it
        signal.setitimer(signal.ITIMER_REAL, self.timeout)
        return self

    def __exit__(self, *exc: Any) -> None:
        signal.setitimer(signal.ITIMER_REAL, 0)


class MemoryCap:
    """At most ``SNIPPET_MEMORY`` more address space while a snippet runs on CPU; the soft
    limit goes back afterwards (raising it up to the hard limit needs no privilege)."""

    def __init__(self, active: bool):
        self.active = active
        self.saved: Optional[Tuple[int, int]] = None

    def __enter__(self) -> "MemoryCap":
        if self.active:
            try:
                import resource

                self.saved = resource.getrlimit(resource.RLIMIT_AS)
            except (ImportError, OSError):
                return self  # not Linux: the timeout still bounds the run
            limit_memory(SNIPPET_MEMORY)
        return self

    def __exit__(self, *exc: Any) -> None:
        if self.saved is not None:
            import resource

            resource.setrlimit(resource.RLIMIT_AS, self.saved)


def run_job(job: Dict[str, Any], device: Device, timeout: float, torch: Any) -> Dict[str, Any]:
    """Run one job in fresh globals; its result (see the module docstring), without
    ``recycle``. On CUDA the job ends with ``torch.cuda.synchronize()`` inside its own ``try``,
    so a late device-side error is this job's, not the next one's."""
    result: Dict[str, Any] = {"id": job["id"], "outcome": "ok", "exception": None, "mro": [],
                              "message": "", "line": None, "in_script": False, "warnings": []}
    filename = job.get("path") or SNIPPET_FILENAME
    finishing = False
    start = time.perf_counter()
    try:
        with warnings.catch_warnings(record=True) as caught, \
                MemoryCap("source" in job and device.name == "cpu"), Alarm(timeout):
            warnings.simplefilter("always")
            if "path" in job:
                sys.argv = [job["path"]]
                runpy.run_path(job["path"], run_name="__main__")
            else:
                code = compile(job["source"], SNIPPET_FILENAME, "exec")
                namespace = {"__name__": "__main__", "DEVICE": device.tensor_device}
                exec(code, namespace)  # noqa: S102 - our own synthesized snippet
                # A reproduction that runs cleanly reports what torch computed instead.
                if isinstance(namespace.get("__observed__"), str):
                    result["observed"] = namespace["__observed__"]
            if device.name == "cuda":
                finishing = True
                torch.cuda.synchronize()  # an asynchronous kernel error surfaces here, in this job
        result["warnings"] = [[w.category.__name__, str(w.message)] for w in caught][:20]
    except TimeoutError as exc:
        result.update(outcome="timeout", exception="TimeoutError", message=_text(exc))
    except SystemExit as exc:
        if exc.code not in (0, None):  # sys.exit(0) at the end of a script is a clean run
            result.update(outcome="raised", exception="SystemExit", mro=["SystemExit", "BaseException"],
                          message=f"exit status {exc.code}", in_script=True)
    except BaseException as exc:  # noqa: BLE001 - everything the script raises is the result
        frames = traceback.extract_tb(exc.__traceback__)
        result.update(outcome="raised", exception=type(exc).__name__,
                      mro=[cls.__name__ for cls in type(exc).__mro__], message=_text(exc),
                      line=_innermost_frame_in(exc.__traceback__, filename),
                      in_script=bool(frames) and frames[-1].filename == filename)
        if finishing:
            result["late"] = True  # reported by the synchronize after the script's last line
    result["seconds"] = round(time.perf_counter() - start, 4)
    result["pid"] = os.getpid()
    return result


def recycle_reason(result: Dict[str, Any], device: Device, leftovers: List[str]) -> str:
    """Why this worker must not run another job after ``result`` ("" when it may)."""
    if result["outcome"] == "timeout":
        return "the job timed out (interrupted inside torch, whose state is then unknown)"
    if result["exception"] == "MemoryError":
        return "the job ran out of memory"
    if device.name == "cuda" and result["outcome"] == "raised" and (
            "AcceleratorError" in result["mro"] or CUDA_FAULT.search(result["message"] or "")):
        return "a CUDA error leaves the CUDA context unusable"
    if leftovers:
        return "the job changed process-wide state: " + "; ".join(leftovers[:5])
    return ""


def _open_protocol() -> Tuple[TextIO, TextIO]:
    """The pool's requests and our results move to private descriptors; the jobs get /dev/null
    as stdin and stdout, so nothing they read or print (from Python or C) touches the protocol."""
    requests = os.fdopen(os.dup(0), "r", encoding="utf-8")
    results = os.fdopen(os.dup(1), "w", encoding="utf-8")
    null = os.open(os.devnull, os.O_RDWR)
    os.dup2(null, 0)
    os.dup2(null, 1)
    os.close(null)
    return requests, results


def _start_device(name: str, torch: Any, standin_dir: Optional[str], preloaded: bool) -> Tuple[Device, Dict[str, Any]]:
    """This worker's device and what the ready line says about it."""
    info: Dict[str, Any] = {"available": name == "cpu", "cuda": bool(torch.cuda.is_available())}
    if standin_dir and name == "cuda":
        from .cuda_standin import CudaStandIn

        standin = CudaStandIn(standin_dir, preloaded)
        standin.install(torch)
        info.update(available=True, cuda=True, gpu="CUDA stand-in (runs on CPU)",
                    torch=f"{torch.__version__} (CUDA stand-in)")
        return Device(name, "cpu", standin), info
    if name == "cuda" and info["cuda"]:
        try:
            torch.cuda.init()  # a context now, so "available" means usable and jobs time only themselves
            major, minor = torch.cuda.get_device_capability()
            info.update(available=True, gpu=torch.cuda.get_device_name(), capability=f"{major}.{minor}")
        except Exception as exc:  # noqa: BLE001 - a driver that NVML sees but CUDA cannot use
            info.update(available=False, error=f"{type(exc).__name__}: {_text(exc)}".splitlines()[0])
    return Device(name, name), info


def _no_core_dumps() -> None:
    """A crashing job must not write gigabytes of core file (torch maps a lot) before the pool
    sees the worker die."""
    try:
        import resource

        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    except (ImportError, OSError, ValueError):
        pass  # not Linux, or not allowed: the crash is still reported, only later


def _seed(torch: Any, numpy: Any) -> None:
    """Every job starts from the same seeds, as a fresh process would."""
    torch.manual_seed(0)
    numpy.random.seed(0)
    random.seed(0)


def _warm_up(torch: Any, numpy: Any) -> None:
    """What torch sets up lazily on first use (kernels, the autograd engine, oneDNN's
    convolution), done before the baseline is taken: the baseline is then what every job
    leaves behind, and the first job does not pay for it."""
    _seed(torch, numpy)
    x = torch.rand(2, 3, requires_grad=True)
    loss = torch.nn.functional.cross_entropy(torch.nn.Linear(3, 3)(x), torch.tensor([0, 1]))
    loss.backward()
    torch.nn.functional.conv2d(torch.rand(1, 1, 4, 4), torch.rand(1, 1, 3, 3))


def serve(device_name: str, threads: int, timeout: float, standin_dir: Optional[str] = None) -> None:
    preloaded = "torch" in sys.modules  # True in a process forked from one that imported torch
    requests, results = _open_protocol()
    faulthandler.enable()  # a segfault or abort leaves the job's traceback in the stderr log
    _no_core_dumps()
    # torch.cuda.is_available() then asks NVML instead of creating a CUDA context in CPU workers.
    os.environ.setdefault("PYTORCH_NVML_BASED_CUDA_CHECK", "1")
    import numpy
    import torch
    import torch.nn  # noqa: F401 - fixtures use them; imported once per worker, not per job
    import torch.nn.functional  # noqa: F401

    from .worker_state import take_baseline

    device, info = _start_device(device_name, torch, standin_dir, preloaded)
    torch.set_num_threads(threads)  # several workers share the machine's cores
    os.environ["TTL_DEVICE"] = device.tensor_device
    home = os.getcwd()  # the pool's fresh empty directory
    _warm_up(torch, numpy)
    baseline = take_baseline(torch, numpy)
    ready = dict({"ready": True, "torch": torch.__version__, "device": device_name, "pid": os.getpid(),
                  "preloaded": preloaded}, **info)  # the stand-in's info names its torch differently
    results.write(json.dumps(ready) + "\n")
    results.flush()
    for line in requests:
        if not line.strip():
            break
        job = json.loads(line)
        try:
            os.ftruncate(2, 0)  # the stderr log holds only the current job's, for crash reports
        except OSError:
            pass  # stderr is a terminal or a pipe: run by hand
        _seed(torch, numpy)
        if device.standin is not None:
            device.standin.begin(job["id"])
        result = run_job(job, device, timeout, torch)
        try:
            os.chdir(home)  # a fixture may chdir; the next one starts where the first did
            baseline.restore(torch, numpy)
            leftovers = baseline.leftovers(torch, numpy)
        except Exception as exc:  # noqa: BLE001 - a job broke what the reset relies on
            leftovers = [f"resetting it failed ({type(exc).__name__}: {_text(exc)})"]
        reason = recycle_reason(result, device, leftovers)
        if reason:
            result["recycle"] = reason
        results.write(json.dumps(result) + "\n")
        results.flush()
        if reason:
            break  # the pool starts a fresh worker for the next job


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m torchtype_lint.harness.worker")
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--threads", type=int, default=1, help="torch's intra-op threads per job")
    parser.add_argument("--timeout", type=float, default=60.0)
    parser.add_argument("--cuda-standin", metavar="DIR", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    serve(args.device, args.threads, args.timeout, args.cuda_standin)
    return 0


if __name__ == "__main__":
    sys.exit(main())
