"""TTL262 gpu-only-missing-kernel: an op CUDA has no kernel for at this dtype, on tensors on CUDA."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, List, Optional, Tuple

import libcst as cst

from ...knowledge.devices import device_origin, gpu_device
from ...knowledge.einsum import parse_equation
from ...knowledge.gpu_only import GpuOnlyCase, cuda_failure
from ...knowledge.ops import METHOD, OPERATOR, OpCall
from ...model.values import ScalarValue, SequenceValue, StringValue, TensorValue, Value
from ..base import Rule, RuntimeClaim, register
from ..context import RuleContext
from ..dtype_names import one
from .gpu_only import fails_on_gpu, name_of, named, reported_by_contract_rules

_F = "torch.nn.functional."

#: Ops of one input tensor, every spelling, by the measurement's name for them.
_ONE_INPUT = {
    "torch.nn.MaxPool2d": "MaxPool2d", _F + "max_pool2d": "MaxPool2d",  # the module calls the function
    "torch.nn.AvgPool2d": "AvgPool2d", _F + "avg_pool2d": "AvgPool2d",
    "torch.histc": "histc", "Tensor.histc": "histc",
}
#: Matrix products whose operands are all the call's tensors (addmm's `input` included).
_PRODUCTS = {"torch.matmul": "matmul", "torch.mm": "mm", "torch.bmm": "bmm", "torch.addmm": "addmm",
             "torch.baddbmm": "baddbmm"}
#: Keywords of the products that are scalars, never a tensor operand.
_SCALAR_KEYWORDS = frozenset({"beta", "alpha"})
#: What to do instead, by measurement name.
_ADVICE = {
    "MaxPool2d": "pool a float copy (`{x}.float()`), which CUDA supports",
    "AvgPool2d": "pool a float copy (`{x}.float()`), which CUDA supports",
    "interpolate.bilinear": "resize a float copy (`{x}.float()`) and convert back, or use mode='nearest', "
                            "which CUDA runs on uint8",
    "histc": "count in float32 (`{x}.float()`)",
}
_PRODUCT_ADVICE = "multiply in floating point (`{x}.double()`: exact for integers below 2**53)"


@register
class GpuOnlyMissingKernel(Rule):
    """
    ## What it does
    Flags an op that CUDA has no kernel for at the input's dtype while the CPU has one, on
    tensors that are on CUDA or on a device the program picks at run time
    (`torch.device("cuda" if torch.cuda.is_available() else "cpu")`):

    - integer matrix products: `@`, `torch.matmul`, `mm`, `bmm`, `addmm`, `baddbmm`, and
      `torch.einsum` of two integer tensors that sums over a shared index (`"ij,jk->ik"`,
      `"ij,ij->i"`): `"addmm_cuda" not implemented for 'Long'`, `"baddbmm_cuda" ...`;
    - `nn.MaxPool2d` / `F.max_pool2d` on uint8, int32 or int64 input, `nn.AvgPool2d` /
      `F.avg_pool2d` on int64: `"max_pool2d_with_indices_out_cuda_frame" not implemented for
      'Byte'`;
    - `F.interpolate(..., mode="bilinear")` on uint8 images: `"upsample_bilinear2d_out_frame"
      not implemented for 'Byte'`;
    - `torch.histc` on float16 (`HalfTensor is not supported`) or bfloat16.

    Each case was run on CPU and on CUDA (an NVIDIA H100 with torch 2.11,
    `torchtype_lint/data/gpu_only_failures.json`); only dtypes observed to fail there are
    reported (int8/int16, not measured, are not). Where TTL250 reports the call (the op
    contract table's observed CUDA failures, on a tensor known to be on CUDA) this rule stays
    silent; TTL251 reports the same ops when the tensor's device is unknown in a file that
    uses CUDA.

    ## Why is this bad?
    The code passes every CPU test and fails the first time it runs on a GPU, typically on a
    cluster after waiting for GPU time.

    ## Example
    ```python
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    image = torch.randint(0, 256, (1, 3, 32, 32), dtype=torch.uint8, device=device)
    pooled = nn.MaxPool2d(2)(image)
    ```

    ## Use instead
    ```python
    pooled = nn.MaxPool2d(2)(image.float())
    ```

    ## Fix safety
    No fix: computing in another dtype changes the result's dtype (and a float32 product of
    integers is exact only below 2**24), which the author has to accept.
    """

    code = "TTL262"
    name = "gpu-only-missing-kernel"
    summary = "integer matmul/pooling, uint8 bilinear resize, half histc: runs on CPU, no CUDA kernel"
    severity = "error"
    listens = (cst.Call, cst.BinaryOperation)
    fix_safety = "none"
    # Runs on CPU; the wordings are the H100's (torch 2.11), the harness checks them on CUDA.
    runtime = RuntimeClaim("RuntimeError", r"not implemented for|HalfTensor is not supported",
                           devices=("cuda",))

    def visit(self, node: Any, ctx: RuleContext) -> None:
        call = ctx.op_call(node)
        found = _measured_on_gpu(call)
        if found is None or reported_by_contract_rules(node, ctx):
            return
        device = gpu_device(*found.tensors)
        dtype = one(found.tensors[0])
        single = len(found.tensors) == 1
        what = f"`{call.label}` on {dtype} input" if single else f"`{call.label}` of {dtype} tensors"
        name = name_of(found.subject)
        advice = _ADVICE.get(found.case.name, _PRODUCT_ADVICE).format(x=name or "x")
        subject = named(found.subject, "the input" if single else "each operand")
        self.report(node, f"{fails_on_gpu(what, subject, device, found.case)}; {advice}",
                    origin=device_origin(device))


def reports_measured_case(node: Any, ctx: RuleContext) -> bool:
    """Is ``node`` a measured GPU-only failure on GPU-placed tensors? TTL251 leaves those to
    this rule, whose message names where the device was picked."""
    return _measured_on_gpu(ctx.op_call(node)) is not None


def _measured_on_gpu(call: Optional[OpCall]) -> Optional["_Observed"]:
    """The measured case ``call`` is, when all of its tensors run on a GPU device."""
    if call is None or call.has_star or "out" in call.args.kw:
        return None  # out= decides the computation's dtype: not a measured call
    found = _observed(call)
    return found if found is not None and gpu_device(*found.tensors) is not None else None


@dataclass(frozen=True)
class _Observed:
    """A call that is a measured case: the case, the call's tensors, the node of the first."""

    case: GpuOnlyCase
    tensors: Tuple[TensorValue, ...]
    subject: Any


def _observed(call: OpCall) -> Optional[_Observed]:
    """The measured case ``call`` is, or None (another op, another dtype, unknown operands)."""
    if call.op in _ONE_INPUT:
        name = _ONE_INPUT[call.op]
    elif call.op == _F + "interpolate" and _bilinear(call):
        name = "interpolate.bilinear"
    elif call.op in _PRODUCTS:
        return _product(call, _PRODUCTS[call.op])
    elif call.op == "torch.einsum":
        return _einsum(call)
    else:
        return None
    x = call.arg("input")
    dtype = one(x) if isinstance(x, TensorValue) else None
    case = cuda_failure(name, input=dtype) if dtype else None
    return _Observed(case, (x,), call.arg_node("input")) if case and isinstance(x, TensorValue) else None


def _bilinear(call: OpCall) -> bool:
    """``F.interpolate(x, size, scale_factor, mode, align_corners, recompute_scale_factor,
    antialias)`` with mode "bilinear" and no antialiasing (another kernel, not measured)."""
    mode, antialias = call.args.get(3, "mode"), call.args.get(6, "antialias")
    plain = not call.args.has(6, "antialias") or (isinstance(antialias, ScalarValue) and antialias.const is False)
    return isinstance(mode, StringValue) and mode.const == "bilinear" and plain


def _product(call: OpCall, name: str) -> Optional[_Observed]:
    """A matrix product whose every operand is a tensor of one measured integer dtype."""
    operands: List[Value] = ([call.receiver] if call.spelling in (METHOD, OPERATOR) else []) + list(call.args.pos)
    operands += [v for k, v in call.args.kw.items() if k not in _SCALAR_KEYWORDS]
    return _same_dtype(name, operands, call.arg_node("input"))


def _einsum(call: OpCall) -> Optional[_Observed]:
    """``torch.einsum(equation, a, b)`` (or ``[a, b]``) summing over an index both operands
    have: a batched matrix product (``bmm``), as in both measured equations; an index summed
    in one operand only is summed before the product, and none summed is a multiplication."""
    equation = call.args.get(0, "equation")
    operands = list(call.args.pos[1:])
    if len(operands) == 1 and isinstance(operands[0], SequenceValue) and operands[0].items is not None:
        operands = list(operands[0].items)  # the list form, einsum(equation, [a, b])
    parsed = parse_equation(equation.const) if isinstance(equation, StringValue) and equation.const else None
    if parsed is None or len(parsed.operands) != 2 or len(operands) != 2 or call.args.kw:
        return None
    first, second = (set(subscripts) for subscripts in parsed.operands)
    if not (first & second) - set(parsed.output) - {"..."}:
        return None
    found = _same_dtype("einsum.ij,jk", operands, call.args.node(1))
    # Both measured contractions must have failed for the dtype: then which one this is
    # does not matter (their CUDA wording is the same).
    if found is None or cuda_failure("einsum.ij,ij", a=found.case.dtype("a"), b=found.case.dtype("b")) is None:
        return None
    return found


def _same_dtype(name: str, operands: List[Value], subject: Any) -> Optional[_Observed]:
    """``name``'s measured case when every operand is a tensor of the same single dtype."""
    tensors = tuple(v for v in operands if isinstance(v, TensorValue))
    if not tensors or len(tensors) != len(operands):
        return None  # an operand of unknown kind could be anything
    dtypes = {one(t) for t in tensors}
    dtype = dtypes.pop() if len(dtypes) == 1 else None
    case = cuda_failure(name, a=dtype, b=dtype) if dtype else None
    return _Observed(case, tensors, subject) if case else None
