"""Where a tensor runs: the device picked at run time, and where a device came from.

A device in the engine is one of torch's names (``"cpu"``, ``"cuda"``, ``"mps"``, ``"meta"``),
None when it is not known, or ``CUDA_IF_AVAILABLE``: a device the program picks at run time
between CUDA and the CPU, as in the idiom

    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")

(or ``"cuda" if use_cuda else "cpu"``, any condition the engine cannot decide). Code on it runs
on CUDA on every machine where the condition holds, which for the idiom is every machine with a
GPU. The rules about failures seen only on a GPU (TTL26x, ``rules/gpu/``) report on it; every
other reader compares devices with ``"cuda"`` or ``"cpu"`` and so treats it as "not known to be
one device", exactly as it treated None before.

A device the engine saw being picked or moved to carries its provenance: ``Device`` is a
``str`` (it compares, hashes and prints as the plain name, so no reader of ``TensorValue.device``
changes) with an ``origin``, the chain of places that put the tensor there (``x.to(device)``
back to the ``"cuda" if ... else "cpu"`` that picked it).
"""
from __future__ import annotations

from typing import Any, Optional, Tuple

import libcst as cst

from ..model.values import DeviceValue, Origin, TensorValue, Value

#: The device of code that runs on CUDA wherever the program's run-time condition holds.
CUDA_IF_AVAILABLE = "cuda-if-available"
#: Devices on which code runs on a GPU, always or wherever one is available.
GPU_DEVICES = frozenset({"cuda", CUDA_IF_AVAILABLE})
#: The two sides of a run-time choice (a nested choice counts as the CUDA side).
_CHOICES = frozenset({"cuda", "cpu", CUDA_IF_AVAILABLE})
_MODULE = cst.Module(body=[])


class Device(str):
    """A device name with where it came from (``origin``); equal to the plain name."""

    origin: Optional[Origin]

    def __new__(cls, name: str, origin: Optional[Origin] = None) -> "Device":
        device = super().__new__(cls, name)
        device.origin = origin
        return device

    def __reduce__(self) -> Tuple[Any, ...]:
        # pickled by name and origin (a str subclass would otherwise lose the origin)
        return (Device, (str(self), self.origin))


def device_origin(device: Optional[str]) -> Optional[Origin]:
    """Where ``device`` was picked or moved to, when the engine saw it."""
    return getattr(device, "origin", None)


def on_gpu(device: Optional[str]) -> bool:
    """Code on ``device`` runs on CUDA, always or wherever a GPU is available."""
    return device in GPU_DEVICES


def runtime_choice(node: Any, test: Any, body: Optional[str], orelse: Optional[str]) -> Optional[DeviceValue]:
    """``"cuda" if <test> else "cpu"`` (either order; ``body`` and ``orelse`` are the devices
    its two sides name, from strings or ``torch.device``s) whose test the engine cannot decide:
    the device picked at run time, with the expression as its origin; None for any other
    conditional expression."""
    sides = {body, orelse}
    if len(sides) != 2 or not sides <= _CHOICES or "cpu" not in sides:
        return None  # not a choice between a GPU and the CPU
    origin = Origin(node, f"CUDA when `{_text(test)}` holds, else the CPU")
    return DeviceValue(Device(CUDA_IF_AVAILABLE, origin), origin)


def moved(device: Optional[str], node: Any, note: str) -> Optional[str]:
    """``device`` as the device of a tensor put there at ``node`` (``x.to(device)``,
    ``x.cuda()``, ``torch.zeros(..., device=device)``): a GPU device remembers the step,
    after where the device itself came from; any other device is returned as it is."""
    if not on_gpu(device):
        return device
    return Device(str(device), Origin(node, note, device_origin(device)))


def gpu_device(*values: Value) -> Optional[str]:
    """The device the tensors ``values`` run on when it is a GPU one, else None: every tensor
    among them on a GPU device (a known CPU or unknown one makes it None); "cuda" when one is
    known to be on CUDA, else ``CUDA_IF_AVAILABLE``."""
    devices = [v.device for v in values if isinstance(v, TensorValue)]
    if not devices or not all(on_gpu(d) for d in devices):
        return None
    return next((d for d in devices if d == "cuda"), devices[0])


def _text(node: Any, limit: int = 40) -> str:
    try:
        text = " ".join(_MODULE.code_for_node(node).split())
    except Exception:  # noqa: BLE001 - a note must never crash the engine
        return "the condition"
    return text if len(text) <= limit else text[: limit - 3] + "..."
