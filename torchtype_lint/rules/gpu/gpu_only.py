"""What the TTL26x rules share: where a call runs, whether another rule already reports it,
and how a report says that it works on CPU and fails on the GPU.

A TTL26x rule reports only calls on tensors that run on CUDA (``.cuda()``, ``.to("cuda")``,
``device="cuda"``) or may run there (a device picked at run time, ``knowledge/devices.py``),
and only when the call matches a case observed to run on CPU and raise on CUDA
(``knowledge/gpu_only.py``). On a CPU-only script, or a tensor whose device is unknown, they
are silent: TTL251 covers the unknown device in a file that moves tensors to CUDA.
"""
from __future__ import annotations

from typing import Any, Optional

import libcst as cst

from ...contracts import table
from ...knowledge.devices import CUDA_IF_AVAILABLE, device_origin
from ...knowledge.gpu_only import GpuOnlyCase, seen_on
from ..contract.judged_calls import handled_elsewhere, judged_call
from ..context import RuleContext
from ..source_edits import code


def where(device: str) -> str:
    """Where code on ``device`` runs, for a message."""
    if device == CUDA_IF_AVAILABLE:
        return "on CUDA wherever a GPU is available"
    return "on CUDA"


def device_note(device: str) -> str:
    """`` ({origin})`` when the engine saw where the device came from (the report's origin)."""
    return " ({origin})" if device_origin(device) is not None else ""


def name_of(node: Any) -> Optional[str]:
    """The tensor's name when the code writes one (`x`, `self.buf`), for messages and advice."""
    plain = node
    while isinstance(plain, cst.Attribute):
        plain = plain.value
    return code(node, 30) if isinstance(plain, cst.Name) else None


def named(node: Any, fallback: str = "the input") -> str:
    """How a message names the tensor whose device decides: `` `x` ``, else ``fallback``."""
    name = name_of(node)
    return f"`{name}`" if name is not None else fallback


def fails_on_gpu(what: str, subject: str, device: str, case: GpuOnlyCase) -> str:
    """The common part of a TTL26x message: it works on CPU, the data runs on the GPU (and
    since where), and what torch printed there in the observed run. ``subject`` names the
    tensor that is there (`` `x` `` or "the input")."""
    return (f"{what} works on CPU but fails on the GPU, and {subject} runs {where(device)}"
            f"{device_note(device)}: CUDA raises {case.exception} `{case.message}` "
            f"(observed on {seen_on()})")


def reported_by_contract_rules(node: Any, ctx: RuleContext) -> bool:
    """Does TTL250 report this call (the op contract table's observed CUDA failures, on a
    tensor known to be on CUDA)? Then it is that rule's finding, not ours. (TTL251 reports
    only tensors of unknown device, which the TTL26x rules never do.)"""
    call = judged_call(node, ctx)
    if call is None or handled_elsewhere(call) or call.device != "cuda":
        return False
    contract = table.contract(call.name)
    return contract is not None and all(contract.fails_on_cuda(d) for d in call.dtypes)
