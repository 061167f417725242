"""Process-wide state a job can change in a long-lived torch worker, and putting it back.

A worker runs many jobs, one after another, each in fresh globals; what a fixture can change
beyond its globals is torch's and numpy's process-wide settings (default dtype and device, grad
and anomaly mode, thread count, deterministic mode, backend flags, numpy's error handling), the
interpreter's (environment, ``sys.argv``/``sys.path``, recursion limit, streams, signal
handlers), the functions of torch and numpy themselves (monkeypatching) and global ``nn``
hooks. ``Baseline.restore`` resets the settings before every job; ``Baseline.leftovers`` names
what a job changed that a reset cannot undo (a patched function, a registered global hook, a
thread still running, inference mode entered and never left), and the worker is then replaced.

Runs only inside the worker, which has imported torch; the linter never imports this module.
"""
from __future__ import annotations

import inspect
import os
import signal
import sys
import threading
from dataclasses import dataclass, fields
from typing import Any, Dict, List, Tuple

#: Signals whose handlers a job may replace; the worker's own SIGALRM handler is set per job.
SIGNALS = tuple(getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGALRM", "SIGUSR1", "SIGUSR2")
                if hasattr(signal, name))


def _call(function: Any, *args: Any) -> Any:
    """``function(*args)``, or None where this torch version lacks it (2.4 to 2.13 differ)."""
    if function is None:
        return None
    try:
        return function(*args)
    except (TypeError, RuntimeError, AttributeError):
        return None


def _attr(obj: Any, dotted: str) -> Any:
    for part in dotted.split("."):
        obj = getattr(obj, part, None)
        if obj is None:
            return None
    return obj


#: Boolean backend flags: (dotted name under ``torch.backends``), read and written as attributes.
BACKEND_FLAGS = ("cudnn.enabled", "cudnn.benchmark", "cudnn.deterministic", "cudnn.allow_tf32",
                 "cuda.matmul.allow_tf32", "cuda.matmul.allow_fp16_reduced_precision_reduction",
                 "cuda.matmul.allow_bf16_reduced_precision_reduction", "mkldnn.enabled")


@dataclass(frozen=True)
class Settings:
    """torch's and numpy's settings that ``restore`` can put back (compared as a whole)."""

    default_dtype: str
    new_tensor: Tuple[str, str]          # dtype and device of torch.empty(0): default tensor type/device
    grad_enabled: bool
    anomaly: Any
    num_threads: int
    deterministic: Tuple[Any, Any]       # (enabled, warn only)
    matmul_precision: Any
    warn_always: Any
    backend_flags: Tuple[Any, ...]
    numpy_errors: Tuple[Tuple[str, str], ...]
    cuda_device: Any                     # current device, only once CUDA is initialised


def read_settings(torch: Any, numpy: Any) -> Settings:
    probe = torch.empty(0)  # default tensor type and default device together, ~1 us
    cuda_ready = bool(_call(_attr(torch, "cuda.is_initialized")))
    return Settings(
        default_dtype=str(torch.get_default_dtype()),
        new_tensor=(str(probe.dtype), probe.device.type),
        grad_enabled=torch.is_grad_enabled(),
        anomaly=_call(getattr(torch, "is_anomaly_enabled", None)),
        num_threads=torch.get_num_threads(),
        deterministic=(_call(getattr(torch, "are_deterministic_algorithms_enabled", None)),
                       _call(getattr(torch, "is_deterministic_algorithms_warn_only_enabled", None))),
        matmul_precision=_call(getattr(torch, "get_float32_matmul_precision", None)),
        warn_always=_call(getattr(torch, "is_warn_always_enabled", None)),
        backend_flags=tuple(_attr(torch.backends, flag) for flag in BACKEND_FLAGS),
        numpy_errors=tuple(sorted(numpy.geterr().items())),
        cuda_device=_call(torch.cuda.current_device) if cuda_ready else None,
    )


def write_settings(torch: Any, numpy: Any, wanted: Settings) -> None:
    """Put back every setting that differs from ``wanted``. Only those are written: some
    setters are not free (``use_deterministic_algorithms`` imports ``torch._dynamo``)."""
    now = read_settings(torch, numpy)
    if now.new_tensor != wanted.new_tensor and hasattr(torch, "set_default_device"):
        torch.set_default_device(None)  # before the dtype: a default device of "meta" would stick
    if now.new_tensor != wanted.new_tensor or now.default_dtype != wanted.default_dtype:
        # Also undoes the deprecated set_default_tensor_type(torch.DoubleTensor).
        torch.set_default_dtype(getattr(torch, wanted.default_dtype.replace("torch.", "")))
    if now.grad_enabled != wanted.grad_enabled:
        torch.set_grad_enabled(wanted.grad_enabled)
    if now.anomaly != wanted.anomaly and wanted.anomaly is not None:
        torch.autograd.set_detect_anomaly(wanted.anomaly)
    if now.num_threads != wanted.num_threads:
        torch.set_num_threads(wanted.num_threads)
    if now.deterministic != wanted.deterministic and wanted.deterministic[0] is not None:
        _call(torch.use_deterministic_algorithms, wanted.deterministic[0])
    if now.matmul_precision != wanted.matmul_precision and wanted.matmul_precision is not None:
        torch.set_float32_matmul_precision(wanted.matmul_precision)
    if now.warn_always != wanted.warn_always and wanted.warn_always is not None:
        torch.set_warn_always(wanted.warn_always)
    for flag, value, current in zip(BACKEND_FLAGS, wanted.backend_flags, now.backend_flags):
        owner, _, name = flag.rpartition(".")
        target = _attr(torch.backends, owner)
        if value != current and value is not None and target is not None:
            _call(setattr, target, name, value)
    if now.numpy_errors != wanted.numpy_errors:
        numpy.seterr(**dict(wanted.numpy_errors))
    if now.cuda_device != wanted.cuda_device and wanted.cuda_device is not None:
        torch.cuda.set_device(wanted.cuda_device)
    torch.set_printoptions(profile="default")  # only printing, but a message may quote a tensor
    _call(getattr(torch, "set_flush_denormal", None), False)  # cannot be read back: always reset


def _namespaces(torch: Any, numpy: Any) -> Dict[str, Any]:
    """Objects whose attributes a job may replace (``torch.matmul = ...``), by name."""
    return {"torch": torch, "torch.Tensor": torch.Tensor, "torch.nn": torch.nn,
            "torch.nn.Module": torch.nn.Module, "torch.nn.functional": torch.nn.functional,
            "torch.cuda": torch.cuda, "torch.autograd": torch.autograd, "numpy": numpy}


def _global_hooks(torch: Any) -> int:
    """Global ``nn.Module`` hooks registered (``register_module_forward_hook`` and kin)."""
    module = torch.nn.modules.module
    return sum(len(value) for name, value in vars(module).items()
               if name.startswith("_global_") and isinstance(value, dict))


@dataclass(frozen=True)
class Interpreter:
    """The interpreter's own state a job may change, copied so it can be restored."""

    environ: Tuple[Tuple[str, str], ...]
    argv: Tuple[str, ...]
    path: Tuple[str, ...]
    recursion_limit: int
    streams: Tuple[Any, Any, Any]
    handlers: Tuple[Any, ...]


def read_interpreter() -> Interpreter:
    return Interpreter(tuple(os.environ.items()), tuple(sys.argv), tuple(sys.path),
                       sys.getrecursionlimit(), (sys.stdin, sys.stdout, sys.stderr),
                       tuple(signal.getsignal(s) for s in SIGNALS))


def write_interpreter(saved: Interpreter) -> None:
    if tuple(os.environ.items()) != saved.environ:  # clearing calls unsetenv per variable
        os.environ.clear()
        os.environ.update(dict(saved.environ))
    sys.argv[:] = list(saved.argv)
    sys.path[:] = list(saved.path)
    sys.setrecursionlimit(saved.recursion_limit)
    sys.stdin, sys.stdout, sys.stderr = saved.streams
    for number, handler in zip(SIGNALS, saved.handlers):
        if handler is not None:  # None: set outside Python, nothing to put back
            signal.signal(number, handler)


@dataclass(frozen=True)
class Baseline:
    """The worker's state before its first job: what every job starts from."""

    settings: Settings
    interpreter: Interpreter
    namespaces: Dict[str, Dict[str, Any]]   # name -> {attribute: object} as imported
    hooks: int
    threads: int

    def restore(self, torch: Any, numpy: Any) -> None:
        write_interpreter(self.interpreter)
        write_settings(torch, numpy, self.settings)

    def leftovers(self, torch: Any, numpy: Any) -> List[str]:
        """What the last job changed that ``restore`` did not undo; empty when the worker is
        as it was. Call after ``restore``."""
        out = []
        now = read_settings(torch, numpy)
        if now != self.settings:
            out += [f"{f.name} is {getattr(now, f.name)!r}" for f in fields(Settings)
                    if getattr(now, f.name) != getattr(self.settings, f.name)]
        for name, obj in _namespaces(torch, numpy).items():
            current = vars(obj)
            # Only replaced or deleted attributes: new ones appear as torch loads submodules lazily.
            out += [f"{name}.{attr} was replaced" for attr, value in self.namespaces[name].items()
                    if not _same(current.get(attr, _MISSING), value)]
        if _call(getattr(torch, "is_inference_mode_enabled", None)):
            out.append("inference mode was entered and never left")
        if _global_hooks(torch) != self.hooks:
            out.append("a global nn.Module hook was registered")
        if threading.active_count() > self.threads:
            out.append("a thread the job started is still running")
        return out


_MISSING = object()


def _same(now: Any, before: Any) -> bool:
    """``now`` is ``before``, or wraps it with ``functools.wraps``: importing ``torch._dynamo``
    (which ``use_deterministic_algorithms`` does) wraps ``torch.manual_seed`` in place."""
    if now is before:
        return True
    try:
        return inspect.unwrap(now) is before
    except ValueError:  # a __wrapped__ cycle
        return False


def take_baseline(torch: Any, numpy: Any) -> Baseline:
    return Baseline(read_settings(torch, numpy), read_interpreter(),
                    {name: dict(vars(obj)) for name, obj in _namespaces(torch, numpy).items()},
                    _global_hooks(torch), threading.active_count())
