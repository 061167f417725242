"""TTL261 gpu-only-norm-half-input: a float32 LayerNorm/GroupNorm on float16/bfloat16 input, on CUDA."""
from __future__ import annotations

from typing import Any

import libcst as cst

from ...knowledge.devices import device_origin, gpu_device, on_gpu
from ...knowledge.gpu_only import cuda_failure
from ...model.values import FLOAT32, TensorValue
from ..base import Rule, RuntimeClaim, register
from ..context import RuleContext
from ..dtype.layer_inputs import module_call
from ..dtype_names import one
from ..source_edits import cast_text
from .gpu_only import fails_on_gpu, name_of, named

#: The switch that gives each norm layer its parameters (off: nothing to mismatch).
_AFFINE = {"LayerNorm": "elementwise_affine", "GroupNorm": "affine"}


@register
class GpuOnlyNormHalfInput(Rule):
    """
    ## What it does
    Flags an `nn.LayerNorm` or `nn.GroupNorm` with float32 parameters called on a float16 or
    bfloat16 input that is on CUDA or on a device the program picks at run time
    (`torch.device("cuda" if torch.cuda.is_available() else "cpu")`), outside
    `torch.autocast`. The usual way there: a model or its input made `.half()` while a norm
    layer built separately stays float32.

    ## Why is this bad?
    The CPU kernels of these layers accept low-precision input with float32 parameters (so
    TTL401 does not report it), the CUDA kernels do not: `RuntimeError: expected scalar type
    Half but found Float` (observed on an NVIDIA H100 with torch 2.11). `BatchNorm`,
    `InstanceNorm` and `RMSNorm` were observed to accept the same mix on CUDA and are not
    reported.

    ## Example
    ```python
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    norm = nn.LayerNorm(64).to(device)
    y = norm(torch.randn(8, 64, device=device).half())
    ```

    ## Use instead
    ```python
    norm = nn.LayerNorm(64).to(device).half()
    y = norm(torch.randn(8, 64, device=device).half())
    ```

    ## Fix safety
    No fix: whether the layer should compute in half precision or the input in float32 is
    the author's decision.
    """

    code = "TTL261"
    name = "gpu-only-norm-half-input"
    summary = "float32 LayerNorm/GroupNorm on float16/bfloat16 input: runs on CPU, raises on CUDA"
    severity = "error"
    listens = (cst.Call,)
    module_calls = True  # it judges calls of a layer only
    fix_safety = "none"
    # Runs on CPU; the wording is the H100's (torch 2.11), the harness checks it on CUDA.
    runtime = RuntimeClaim("RuntimeError", r"expected scalar type (Half|BFloat16) but found Float",
                           devices=("cuda",))

    def visit(self, node: Any, ctx: RuleContext) -> None:
        found = module_call(ctx, node)
        if found is None or ctx.in_autocast:
            return  # autocast runs these layers in float32
        layer, x, x_node, path, _ = found
        switch = _AFFINE.get(layer.short_name)
        if switch is None or layer.config.get(switch, True) is not True or not isinstance(x, TensorValue):
            return  # no parameters (or not known whether there are): nothing to mismatch
        if layer.param_dtypes != frozenset({FLOAT32}):
            return
        x_dtype = one(x)
        case = cuda_failure(layer.short_name, params=FLOAT32, input=x_dtype) if x_dtype else None
        # The input decides where the layer runs; a layer moved to the GPU takes an input of
        # unknown device with it (any other device would fail there anyway).
        device = gpu_device(x) or (layer.device if x.device is None and on_gpu(layer.device) else None)
        if case is None or device is None or (layer.device is not None and not on_gpu(layer.device)):
            return  # a layer known on the CPU fails on the GPU for its device, not its dtype
        where = f"`nn.{layer.short_name}`" + (f" (layer {path} of the nn.Sequential)" if path else "")
        what = f"{where} with float32 parameters on a {x_dtype} input"
        name = name_of(x_node)
        cast = f"`{cast_text(name, FLOAT32)}`" if name else "`.float()`"
        self.report(node, f"{fails_on_gpu(what, named(x_node), device, case)}; convert the input "
                          f"({cast}) or the layer (`.{_method(x_dtype)}()`)",
                    origin=device_origin(device))


def _method(dtype: str) -> str:
    return "half" if dtype == "float16" else "bfloat16"
