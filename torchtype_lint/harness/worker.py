"""The torch side of the harness: one process per device that imports torch once and runs
each job (a fixture file or a synthesized snippet) in a forked child.

Protocol (JSON lines): the worker first writes ``{"ready": ..., "torch": ..., "available": ...}``;
then for every job read from stdin (``{"id", "path"}`` or ``{"id", "source"}``) it writes one
result ``{"id", "outcome", "exception", "mro", "message", "line", "in_script", "warnings",
"seconds"}``. ``outcome`` is "ok", "raised", "timeout" or "crashed". An empty line or EOF ends it.

Forking after ``import torch`` keeps each job isolated (its own globals, default dtype, seeds)
while paying torch's import (seconds) only once per device. CUDA is never initialised in the
parent, so children may initialise it after the fork.
"""
from __future__ import annotations

import argparse
import json
import os
import runpy
import signal
import sys
import tempfile
import time
import traceback
import warnings
from typing import Any, Dict, List, Optional

from ..bounded import limit_memory

SNIPPET_FILENAME = "<torchtype-lint reproduction>"


def _device_available(torch: Any, device: str) -> bool:
    if device == "cpu":
        return True
    if device == "cuda":
        # With PYTORCH_NVML_BASED_CUDA_CHECK=1 (set in serve) this asks NVML, not the CUDA
        # driver, so the worker can still fork children that use CUDA.
        return bool(torch.cuda.is_available())
    return False


#: Address space a synthesized reproduction may add on CPU: sizes come from the user's code,
#: and `torch.zeros(100000, 100000)` rebuilt faithfully must fail, not exhaust the machine.
SNIPPET_MEMORY = 4 << 30


def _innermost_frame_in(tb: Any, filename: str) -> Optional[int]:
    """Line of the last traceback frame inside ``filename`` (where the script failed)."""
    line = None
    for frame in traceback.extract_tb(tb):
        if frame.filename == filename:
            line = frame.lineno
    return line


def _run_child(job: Dict[str, Any], device: str, result_path: str, timeout: float) -> None:
    """Body of the forked child: run one job, write its result, never return."""
    import torch  # already imported by the parent; a dict lookup here

    result: Dict[str, Any] = {"id": job["id"], "outcome": "ok", "exception": None, "mro": [],
                              "message": "", "line": None, "in_script": False, "warnings": []}
    start = time.perf_counter()
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    os.dup2(devnull, 2)
    os.environ["TTL_DEVICE"] = device
    torch.manual_seed(0)
    torch.set_num_threads(1)  # several children share two cores

    def on_timeout(signum: int, frame: Any) -> None:
        raise TimeoutError(f"ran longer than {timeout:g}s")

    if "source" in job and device == "cpu":
        limit_memory(SNIPPET_MEMORY)  # not Linux: the timeout still bounds the run
    signal.signal(signal.SIGALRM, on_timeout)
    signal.setitimer(signal.ITIMER_REAL, timeout)
    filename = job.get("path") or SNIPPET_FILENAME
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                os.chdir(tempfile.gettempdir())  # a fixture writing files must not litter the repo
                if "path" in job:
                    sys.argv = [job["path"]]
                    runpy.run_path(job["path"], run_name="__main__")
                else:
                    code = compile(job["source"], SNIPPET_FILENAME, "exec")
                    namespace = {"__name__": "__main__", "DEVICE": device}
                    exec(code, namespace)  # noqa: S102 - our own synthesized snippet
                    # A reproduction that runs cleanly reports what torch computed instead.
                    if isinstance(namespace.get("__observed__"), str):
                        result["observed"] = namespace["__observed__"]
            finally:
                signal.setitimer(signal.ITIMER_REAL, 0)
            result["warnings"] = [[w.category.__name__, str(w.message)] for w in caught][:20]
    except TimeoutError as exc:
        result.update(outcome="timeout", exception="TimeoutError", message=str(exc))
    except SystemExit as exc:
        if exc.code not in (0, None):  # sys.exit(0) at the end of a script is a clean run
            result.update(outcome="raised", exception="SystemExit", mro=["SystemExit", "BaseException"],
                          message=f"exit status {exc.code}", in_script=True)
    except BaseException as exc:  # noqa: BLE001 - everything the script raises is the result
        result.update(
            outcome="raised",
            exception=type(exc).__name__,
            mro=[cls.__name__ for cls in type(exc).__mro__],
            message=str(exc),
            line=_innermost_frame_in(exc.__traceback__, filename),
        )
        frames = traceback.extract_tb(exc.__traceback__)
        result["in_script"] = bool(frames) and frames[-1].filename == filename
    result["seconds"] = round(time.perf_counter() - start, 4)
    try:
        with open(result_path, "w", encoding="utf-8") as handle:
            json.dump(result, handle)
    finally:
        os._exit(0)


def _warm_up(torch: Any) -> None:
    """Run a few common CPU ops once, so each forked child inherits torch's lazily initialised
    state (dispatcher tables, kernels) instead of paying for it again. CUDA is left alone, and
    one intra-op thread keeps OpenMP from starting a thread pool, which does not survive a fork."""
    torch.set_num_threads(1)
    x = torch.rand(2, 3)
    w = torch.rand(4, 3)
    torch.nn.functional.linear(x, w)
    x @ w.t()
    torch.nn.functional.conv2d(torch.rand(1, 1, 4, 4), torch.rand(1, 1, 3, 3))
    torch.nn.functional.cross_entropy(torch.rand(2, 3), torch.tensor([0, 1]))
    torch.nn.Linear(3, 2)(x).sum().backward()


def serve(device: str, parallel: int, timeout: float) -> None:
    # By default torch.cuda.is_available() initialises the CUDA driver, after which forked
    # children can no longer use CUDA; the NVML-based check leaves it untouched.
    os.environ.setdefault("PYTORCH_NVML_BASED_CUDA_CHECK", "1")
    import numpy  # noqa: F401 - fixtures use it; import once here, not in every child
    import torch
    import torch.nn  # noqa: F401
    import torch.nn.functional  # noqa: F401

    _warm_up(torch)
    out = sys.stdout
    available = _device_available(torch, device)
    out.write(json.dumps({"ready": True, "torch": torch.__version__, "device": device,
                          "available": available,
                          "cuda": _device_available(torch, "cuda")}) + "\n")
    out.flush()
    workdir = tempfile.mkdtemp(prefix="ttl-harness-")
    running: Dict[int, Dict[str, Any]] = {}
    started: Dict[int, float] = {}
    killed: Dict[int, float] = {}
    pending: List[Dict[str, Any]] = []
    # The child's own alarm raises TimeoutError in Python code; a child stuck inside a C call
    # never sees it, so the parent kills it a little later.
    hard_limit = timeout + 5.0

    def reap_one() -> None:
        while True:
            pid, status = os.waitpid(-1, os.WNOHANG)
            if pid:
                break
            now = time.monotonic()
            for child, since in started.items():
                if child not in killed and now - since > hard_limit:
                    os.kill(child, signal.SIGKILL)
                    killed[child] = now - since
            time.sleep(0.002)
        job = running.pop(pid, None)
        started.pop(pid, None)
        if job is None:
            return
        path = os.path.join(workdir, f"{pid}.json")
        try:
            with open(path, encoding="utf-8") as handle:
                result = json.load(handle)
            os.unlink(path)
        except (OSError, ValueError):
            why = (f"killed after {killed[pid]:.0f}s (stuck outside Python)" if pid in killed
                   else f"child died (wait status {status})")
            result = {"id": job["id"], "outcome": "crashed", "exception": None, "mro": [],
                      "message": why, "line": None, "in_script": False, "warnings": []}
        out.write(json.dumps(result) + "\n")
        out.flush()

    # Read every job first: the parent sends its whole batch at once, then closes stdin.
    for line in sys.stdin:
        if not line.strip():
            break
        pending.append(json.loads(line))
    sys.stderr.flush()
    while pending or running:
        while pending and len(running) < parallel:
            job = pending.pop(0)
            if not available:
                out.write(json.dumps({"id": job["id"], "outcome": "unavailable"}) + "\n")
                continue
            out.flush()  # a forked child must not inherit unwritten output
            pid = os.fork()
            if pid == 0:
                _run_child(job, device, os.path.join(workdir, f"{os.getpid()}.json"), timeout)
            running[pid] = job
            started[pid] = time.monotonic()
        if running:
            reap_one()
    out.flush()
    try:
        os.rmdir(workdir)
    except OSError:
        pass


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m torchtype_lint.harness.worker")
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--parallel", type=int, default=max(1, min(4, os.cpu_count() or 1)))
    parser.add_argument("--timeout", type=float, default=60.0)
    args = parser.parse_args(argv)
    serve(args.device, args.parallel, args.timeout)
    return 0


if __name__ == "__main__":
    sys.exit(main())
