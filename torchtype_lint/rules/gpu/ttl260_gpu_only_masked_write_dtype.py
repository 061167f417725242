"""TTL260 gpu-only-masked-write-dtype: `x[mask] = v` with a 0-dim `v` of another dtype, on CUDA."""
from __future__ import annotations

from typing import Any

import libcst as cst

from ...model.findings import Fix
from ...knowledge.devices import device_origin, gpu_device
from ...knowledge.gpu_only import cuda_failure
from ...model.values import BOOL, TensorValue
from ..base import Rule, RuntimeClaim, register
from ..context import RuleContext
from ..dtype_names import one
from ..source_edits import code, paren
from .gpu_only import fails_on_gpu, name_of


@register
class GpuOnlyMaskedWriteDtype(Rule):
    """
    ## What it does
    Flags `x[mask] = v` where `mask` is a boolean tensor, `v` a 0-dim tensor of another
    dtype than `x` (a float64 statistic, an int64 count), and the tensors are on CUDA or on
    a device the program picks at run time (`torch.device("cuda" if
    torch.cuda.is_available() else "cpu")`).

    ## Why is this bad?
    On CPU torch fills the masked elements with the value, converted to `x`'s dtype, as
    `masked_fill` would. On CUDA the same line is an index put, which requires equal dtypes:
    `RuntimeError: Index put requires the source and destination dtypes match, got Float for
    the destination and Double for the source.` (observed on an NVIDIA H100 with torch 2.11
    for every pair of float16, float32 or int64 destination and another source dtype). The
    script passes every test on a laptop and fails on the cluster.

    Only the cases observed on a GPU are reported (`torchtype_lint/data/gpu_only_failures.json`):
    a value of one element or more through a mask, or any value through an integer index,
    fails on CPU too (TTL205 reports it); a Python number, or `x.masked_fill_(mask, v)`, runs
    on both devices.

    ## Example
    ```python
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    scores = torch.randn(6, device=device)
    floor = scores.double().mean()
    scores[scores < 0] = floor
    ```

    ## Use instead
    ```python
    scores[scores < 0] = floor.to(scores.dtype)
    ```

    ## Fix safety
    Safe: `x[mask] = v` becomes `x[mask] = v.to(x.dtype)`, the conversion the CPU already
    makes, so the result on CPU is unchanged and CUDA runs it.
    """

    code = "TTL260"
    name = "gpu-only-masked-write-dtype"
    summary = "`x[mask] = v` with a 0-dim `v` of another dtype: cast on CPU, raises on CUDA"
    severity = "error"
    listens = (cst.Assign,)
    fix_safety = "safe"
    # Runs on CPU; the wording is the H100's (torch 2.11), the harness checks it on CUDA.
    runtime = RuntimeClaim("RuntimeError", r"Index put requires the source and destination dtypes match",
                           devices=("cuda",))

    def visit(self, node: Any, ctx: RuleContext) -> None:
        for target in node.targets:
            if isinstance(target.target, cst.Subscript):
                self._write(node, target.target, ctx)

    def _write(self, stmt: cst.Assign, target: cst.Subscript, ctx: RuleContext) -> None:
        if len(target.slice) != 1 or not isinstance(target.slice[0].slice, cst.Index):
            return  # `x[mask, 0] = v` was not observed: only a lone boolean mask
        dest, mask = ctx.value(target.value), ctx.value(target.slice[0].slice.value)
        src = ctx.value(stmt.value)
        if not (isinstance(dest, TensorValue) and isinstance(mask, TensorValue) and isinstance(src, TensorValue)):
            return
        if mask.dtypes != frozenset({BOOL}) or src.shape != ():
            return  # an integer index, or a value that is not 0-dim, fails on CPU too (TTL205)
        d, s = one(dest), one(src)
        case = cuda_failure("x[mask]=v0d", dest=d, src=s) if d and s and d != s else None
        # The value must be on the GPU too: a CPU 0-dim value is filled as on CPU (not observed).
        device = gpu_device(dest, mask, src)
        if case is None or device is None:
            return
        fix = None
        if name_of(target.value) is not None:  # the fix evaluates `x` once more: only a name or attribute
            new_value = cst.Call(func=cst.Attribute(value=paren(stmt.value), attr=cst.Name("to")),
                                 args=[cst.Arg(cst.Attribute(value=target.value, attr=cst.Name("dtype")))])
            fix = Fix(stmt.value, new_value, f"Convert the value: `{code(stmt.value, 30)}.to("
                                             f"{code(target.value, 20)}.dtype)`", safe=True)
        x = code(target.value, 30)
        what = (f"`{code(target, 40)} = {code(stmt.value, 30)}` (a 0-dim {s} value written into {d} `{x}` "
                f"through a boolean mask)")
        self.report(stmt, f"{fails_on_gpu(what, f'`{x}`', device, case)}; convert the value: "
                          f"`{code(stmt.value, 30)}.to({x}.dtype)` (the conversion CPU makes)",
                    origin=device_origin(device), fix=fix)
