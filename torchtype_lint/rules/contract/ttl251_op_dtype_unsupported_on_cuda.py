"""TTL251 op-dtype-unsupported-on-cuda: no CUDA kernel for the input dtype, in a file that uses CUDA."""
from __future__ import annotations

from typing import Any

import libcst as cst

from ...contracts import table
from ...knowledge.devices import CUDA_IF_AVAILABLE
from ...model.values import describe_dtypes
from ..base import Rule, RuntimeClaim, register
from .judged_calls import (
    handled_elsewhere, judged_call, observed_on_gpu, origin_note, subject_text, suggestion,
)
from ..context import RuleContext
from ..gpu.ttl262_gpu_only_missing_kernel import reports_measured_case


@register
class OpDtypeUnsupportedOnCuda(Rule):
    """
    ## What it does
    Flags a call that works on CPU but has no CUDA kernel for its input dtype, in a file
    that moves tensors or models to CUDA (`.cuda()`, `.to("cuda")`, `device="cuda"`)
    while the tensor's own device is not known, or on a tensor placed with the idiom
    `torch.device("cuda" if torch.cuda.is_available() else "cpu")` (TTL262 reports the
    failures measured on a GPU there, with where the device was picked). The classic case
    is integer matrix multiplication: `torch.matmul` of two int64 tensors works on CPU and raises
    `RuntimeError: "addmm_cuda" not implemented for 'Long'` on a GPU.

    Only failures observed on a real GPU are reported: each (op, dtype) pair the rule could
    report was run there with OpInfo's own sample inputs (an NVIDIA H100 with torch 2.11
    for the shipped table), and a pair counts as missing only when every sample and
    calling convention failed. A pair torch merely declares without a CUDA kernel is
    silent: of the 118 such gaps this rule reported before, 15 ran on the H100 (integer
    `einsum`, `inner`, `tensordot`) and 4 could not be exercised (see docs/contracts.md).
    When the tensor is known to be on CUDA, TTL250 reports the call as an error instead.

    ## Why is this bad?
    The code passes every CPU test and fails the first time it runs on a GPU.

    ## Example
    ```python
    device = "cuda" if torch.cuda.is_available() else "cpu"
    counts = torch.tensor([[1, 2], [3, 4]])
    pairs = torch.matmul(counts, counts)
    ```

    ## Use instead
    ```python
    device = "cuda" if torch.cuda.is_available() else "cpu"
    counts = torch.tensor([[1, 2], [3, 4]])
    pairs = torch.matmul(counts.float(), counts.float())
    ```

    ## Fix safety
    No fix: converting changes the result dtype (and, past 2**24, float32 loses integer
    precision), which the author has to accept.
    """

    code = "TTL251"
    name = "op-dtype-unsupported-on-cuda"
    summary = "operator has no CUDA kernel for the input dtype, in a file that uses CUDA"
    severity = "warning"
    listens = (cst.Call, cst.BinaryOperation)
    fix_safety = "none"
    runtime = RuntimeClaim("RuntimeError", r"not implemented for", ("cuda",))

    def visit(self, node: Any, ctx: RuleContext) -> None:
        call = judged_call(node, ctx)
        # Unknown in a file that moves things to CUDA, or picked at run time between CUDA and
        # the CPU (the is_available() idiom); a known device is TTL250's (CUDA) or nobody's (CPU).
        if call is None or handled_elsewhere(call) or not (
                call.device == CUDA_IF_AVAILABLE or (call.device is None and ctx.uses_cuda)):
            return
        if call.device == CUDA_IF_AVAILABLE and reports_measured_case(node, ctx):
            return  # TTL262's, with where the device was picked
        contract = table.contract(call.name)
        if contract is None or not all(contract.cuda_only_gap(d) for d in call.dtypes):
            return
        shown = describe_dtypes(call.dtypes)
        subject = subject_text(call)
        origin = origin_note(call)
        placed = (f"`{subject}` runs on CUDA wherever a GPU is available" if call.device == CUDA_IF_AVAILABLE
                  else "this file moves tensors to CUDA")
        self.report(
            node,
            f"`{call.label}` on {shown} tensors works on CPU but is not implemented on CUDA "
            f"(every OpInfo sample input failed {observed_on_gpu()}), and {placed}; "
            f"`{subject}` is {shown}{origin}{suggestion(contract, subject, call.dtypes)}",
            origin=call.subject_value.origin)
