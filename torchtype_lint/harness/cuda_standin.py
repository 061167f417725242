"""A stand-in CUDA device, so that CI without a GPU exercises the CUDA worker's process model.

Enabled only by ``TTL_HARNESS_CUDA_STANDIN=<directory>`` in the linter's environment (the
pool passes it to CUDA workers as ``--cuda-standin``); the worker then reports CUDA as
present, runs the CUDA jobs on CPU tensors (``TTL_DEVICE=cpu``) and reports its torch version
as ``<version> (CUDA stand-in)``, so a stand-in result is never mistaken for a GPU's.

What it models is what the harness must get right on a real GPU:

* ``torch.cuda.synchronize`` is replaced by one that records the call, so a test sees that the
  worker synchronises at the end of every job;
* ``torch.cuda.standin_fault(message, late=False)`` is a kernel that trips a device-side
  assert: with ``CUDA_LAUNCH_BLOCKING=1`` in the worker's environment (read once, at start, as
  CUDA reads it when it initialises) it raises at the calling line; otherwise, or with
  ``late=True``, only the next ``synchronize`` raises. Either way the context stays poisoned
  (every later ``synchronize`` raises too), as a real device-side assert leaves it;
* the first record of each worker says how it was started (``sys.orig_argv``, whether torch
  was already imported before the worker's ``main`` ran, its parent's pid), so a test sees
  that the CUDA worker is a fresh interpreter, not a fork of a process that imported torch.

Records go to ``<directory>/worker-<pid>.jsonl``, one JSON object a line.
"""
from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any, Dict, Optional

#: CUDA's wording, so the worker's "is the context poisoned?" check sees what a GPU prints.
ASSERT_PREFIX = "CUDA error: "


class CudaStandIn:
    """Installed into ``torch.cuda`` of one worker by ``install``."""

    def __init__(self, directory: str, preloaded: bool):
        self.path = Path(directory) / f"worker-{os.getpid()}.jsonl"
        # Read once, as the CUDA runtime reads it when the context is created.
        self.blocking = os.environ.get("CUDA_LAUNCH_BLOCKING") == "1"
        self.poisoned: Optional[str] = None
        self.job: Optional[str] = None
        self._record({"event": "start", "pid": os.getpid(), "ppid": os.getppid(),
                      "orig_argv": list(getattr(sys, "orig_argv", sys.argv)),
                      "torch_preloaded": preloaded,
                      "launch_blocking": os.environ.get("CUDA_LAUNCH_BLOCKING")})

    def _record(self, entry: Dict[str, Any]) -> None:
        # Opened per record: a worker killed mid-job still leaves every earlier line.
        with open(self.path, "a", encoding="utf-8") as handle:
            handle.write(json.dumps(dict(entry, job=self.job)) + "\n")

    def install(self, torch: Any) -> None:
        torch.cuda.synchronize = self.synchronize
        torch.cuda.standin_fault = self.fault
        torch.cuda.standin_note = self.note

    def begin(self, job: str) -> None:
        self.job = job
        self._record({"event": "begin"})

    def note(self, text: str) -> None:
        """A job's own marker, to order its statements against the worker's synchronize."""
        self._record({"event": "note", "text": text})

    def fault(self, message: str, late: bool = False) -> None:
        """A kernel whose device-side assert fails (see the module docstring)."""
        self.poisoned = ASSERT_PREFIX + message
        self._record({"event": "fault", "late": late, "raised": self.blocking and not late})
        if self.blocking and not late:
            raise RuntimeError(self.poisoned)

    def synchronize(self, device: Any = None) -> None:
        self._record({"event": "synchronize", "raised": self.poisoned is not None})
        if self.poisoned is not None:
            raise RuntimeError(self.poisoned)
