"""TTL250 op-dtype-unsupported: an op called on a dtype it has no kernel for."""
from __future__ import annotations

from typing import Any

import libcst as cst

from ...contracts import table
from ...model.values import describe_dtypes
from ..base import Rule, RuntimeClaim, register
from .judged_calls import (
    handled_elsewhere, judged_call, observed_on_gpu, origin_note, subject_text, suggestion,
)
from ..context import RuleContext


@register
class OpDtypeUnsupported(Rule):
    """
    ## What it does
    Flags a call of a torch operator on tensors of a dtype the operator has no kernel for,
    using a table generated from torch's own operator database (OpInfo): about 1,100
    public names such as `torch.cholesky`, `torch.bitwise_and`, `Tensor.abs`,
    `torch.nn.functional.relu`, `torch.linalg.svd`, with their supported dtypes on CPU and
    on CUDA. Every reported gap was observed by running the operator with OpInfo's own
    sample inputs: on CPU by the table's generator, on CUDA on a real GPU (an NVIDIA H100
    with torch 2.11 for the shipped table; see docs/contracts.md). A gap torch only
    declares, without a GPU run that saw it fail, is not reported.

    It reports when the call fails on the device the tensors are known to be on, or on
    every device when the device is not known (observed failing on CPU and on the GPU):
    for example integer `torch.matmul` on a tensor known to be on CUDA, `torch.linalg.inv`
    on an integer tensor anywhere.

    Every spelling of an op is judged by the same facts: the function, the method, the
    `nn` module class (`nn.MSELoss()(a, b)` as `F.mse_loss`, `nn.Hardsigmoid()(x)` as
    `F.hardsigmoid`) and the Python operator (`a & b` as `torch.bitwise_and`, `a @ b`,
    `a // b`...), each mapping checked against torch.

    ## Why is this bad?
    The call raises as soon as it runs: `NotImplementedError: "cholesky_cpu" not
    implemented for 'Long'`, `RuntimeError: linalg.svd: Expected a floating point or
    complex tensor as input. Got Long`, `NotImplementedError: "bitwise_and_cpu" not
    implemented for 'Float'`. torch does not convert the input for you.

    Calls are judged only when every tensor input has the same known dtype and nothing
    in the call changes the dtype the operator computes in (`dtype=`, `out=`, a float
    scalar next to an integer tensor): mixed-dtype calls are the business of type
    promotion and of the hand-written rules (TTL201, TTL211...), which also take
    precedence where they report the same call.

    ## Example
    ```python
    counts = torch.tensor([[2, 1], [1, 2]])
    inverse = torch.linalg.inv(counts)
    ```

    ## Use instead
    ```python
    counts = torch.tensor([[2, 1], [1, 2]])
    inverse = torch.linalg.inv(counts.float())
    ```

    ## Fix safety
    No fix: which dtype the computation should run in (float32, float64, or rather an
    integer-friendly operator) is the author's decision.
    """

    code = "TTL250"
    name = "op-dtype-unsupported"
    summary = "operator called on a dtype it has no kernel for (from torch's OpInfo table)"
    severity = "error"
    listens = (cst.Call, cst.BinaryOperation)
    fix_safety = "none"
    # NotImplementedError ("... not implemented for 'Long'") is a RuntimeError subclass.
    runtime = RuntimeClaim("RuntimeError", r"not implemented for|not supported|does not support|"
                                           r"only supports?|Expected a floating point|expected .* dtype")

    def visit(self, node: Any, ctx: RuleContext) -> None:
        call = judged_call(node, ctx)
        if call is None or handled_elsewhere(call):
            return
        contract = table.contract(call.name)
        if contract is None:
            return
        dtypes = call.dtypes
        if call.device == "cuda":
            if not all(contract.fails_on_cuda(d) for d in dtypes):
                return  # ran on the GPU, or only declared missing there: unknown means silent
        else:
            if not all(contract.fails_on_cpu(d) for d in dtypes):
                return
            if call.device != "cpu" and not all(contract.fails_on_cuda(d) for d in dtypes):
                return  # the tensor may be on a GPU, where it ran or was never observed
        # Texts only once the call is reported: printing the subject costs O(its size), which
        # made long method chains (`x.abs().abs()...`) quadratic.
        shown = describe_dtypes(dtypes)
        subject = subject_text(call)
        origin = origin_note(call)
        if call.device == "cuda":
            where = "on CUDA" if not all(contract.fails_on_cpu(d) for d in dtypes) else "on CPU or CUDA"
            message = (f"`{call.label}` is not implemented for {shown} tensors {where} "
                       f"(every OpInfo sample input failed {observed_on_gpu()}); `{subject}` "
                       f"is {shown} on cuda{origin}{suggestion(contract, subject, call.dtypes)}")
        else:
            single = next(iter(dtypes)) if len(dtypes) == 1 else None
            torch_says = contract.cpu_message(single) if single else None
            said = f": torch raises `{torch_says}`" if torch_says else ""
            where = "" if call.device == "cpu" else " (on CPU or CUDA)"
            message = (f"`{call.label}` is not implemented for {shown} tensors{where}{said}; "
                       f"`{subject}` is {shown}{origin}{suggestion(contract, subject, call.dtypes)}")
        self.report(node, message, origin=call.subject_value.origin)
