"""``torch.autocast`` regions: which dtype they compute in and what that does to results.

The engine keeps the stack of enclosing regions (``with`` statements); given a call's
``Callee`` and the result computed as if outside autocast, ``under_autocast`` says what the
call gives inside the innermost region.
"""
from __future__ import annotations

from typing import Any, Optional

from ..model.values import FLOAT64, Callee, ModuleValue, Origin, ScalarValue, TensorValue, Value, is_floating
from . import dtypes as D
from .torch_api import device_of_arg, dtype_of_arg

#: Context managers that open an autocast region.
AUTOCAST_CONTEXTS = ("torch.autocast", "torch.cuda.amp.autocast", "torch.amp.autocast",
                     "torch.cpu.amp.autocast")

#: Ops autocast runs in its lower precision (float16/bfloat16): matrix products and the
#: layers built on them. Their results under autocast have the autocast dtype.
_LOWER_SYMBOLS = {"torch.matmul", "torch.mm", "torch.bmm", "torch.mv", "torch.addmm",
                  "torch.baddbmm", "torch.addbmm", "torch.einsum",
                  "torch.nn.functional.linear", "torch.nn.functional.conv1d",
                  "torch.nn.functional.conv2d", "torch.nn.functional.conv3d"}
_LOWER_METHODS = {"matmul", "mm", "bmm", "mv"}
_LOWER_MODULES = {"Linear", "Bilinear", "Conv1d", "Conv2d", "Conv3d", "ConvTranspose1d",
                  "ConvTranspose2d", "ConvTranspose3d"}


#: Ops on no autocast list of any device (neither lower precision nor float32, per torch's
#: autocast op reference): they run in their input's dtype inside a region, as outside it.
#: Checked on CPU in tests/test_reach_truth.py; layouts, activations, pooling and dropout.
_KEEP_SYMBOLS = {"torch.relu", "torch.sigmoid", "torch.tanh", "torch.flatten", "torch.reshape",
                 "torch.transpose", "torch.permute", "torch.squeeze", "torch.unsqueeze", "torch.clone",
                 "torch.nn.functional.relu", "torch.nn.functional.gelu", "torch.nn.functional.silu",
                 "torch.nn.functional.dropout", "torch.nn.functional.max_pool2d",
                 "torch.nn.functional.avg_pool2d", "torch.nn.functional.adaptive_avg_pool2d"}
_KEEP_METHODS = {"relu", "sigmoid", "tanh", "flatten", "view", "reshape", "transpose", "permute",
                 "squeeze", "unsqueeze", "contiguous", "clone"}
_KEEP_MODULES = {"ReLU", "GELU", "SiLU", "Sigmoid", "Tanh", "Dropout", "Identity", "Flatten",
                 "MaxPool2d", "AvgPool2d", "AdaptiveAvgPool2d"}
#: Operators that promote as usual under autocast (``/`` and ``**`` are on CUDA's float32 list).
_KEEP_OPERATORS = {"+", "-", "*"}
#: The provenance note of a result autocast made lower precision.
_AUTOCAST_NOTE = "computed under torch.autocast"


def autocast_dtype(name: str, callee: Optional[Callee]) -> Optional[str]:
    """The dtype an autocast region computes in: ``dtype=``, else float16 on CUDA and
    bfloat16 on CPU (torch's defaults); None when the device is not known. ``name`` is one
    of AUTOCAST_CONTEXTS, ``callee`` the call that opened the region."""
    if callee is None or callee.args.has_star:
        return None
    enabled_at = 0 if name in ("torch.cuda.amp.autocast", "torch.cpu.amp.autocast") else 2
    if callee.args.has(enabled_at, "enabled") and callee.args.get(enabled_at, "enabled") != ScalarValue("bool", True):
        return None  # a region that may be switched off: what it computes in is unknown
    if "dtype" in callee.args.kw:
        return dtype_of_arg(callee.args.kw["dtype"])
    if name == "torch.cuda.amp.autocast":
        return "float16"
    if name == "torch.cpu.amp.autocast":
        return "bfloat16"
    device = device_of_arg(callee.args.get(0, "device_type"))
    return {"cuda": "float16", "cpu": "bfloat16"}.get(device or "")


def under_autocast(callee: Callee, result: Value, node: Any, dtype: Optional[str]) -> Value:
    """A result computed inside an autocast region that computes in ``dtype``.

    Matrix products and linear/conv layers run in the autocast dtype. Other ops whose result
    would be float16/bfloat16 may run in float32 instead (autocast's float32 list differs by
    device), so their dtype becomes unknown; explicit casts keep theirs.
    """
    if not isinstance(result, TensorValue):
        return result
    lower = (callee.kind == "symbol" and callee.name in _LOWER_SYMBOLS) or (
        callee.kind == "method" and callee.name in _LOWER_METHODS) or (
        callee.kind == "operator" and callee.name == "@") or (
        callee.kind == "module" and isinstance(callee.receiver, ModuleValue)
        and callee.receiver.short_name in _LOWER_MODULES)
    if lower:
        if dtype is None or not result.dtypes or not all(is_floating(d) and d != FLOAT64 for d in result.dtypes):
            return TensorValue(None, result.shape, None, result.device, result.requires_grad)
        return TensorValue(frozenset({dtype}), result.shape,
                           Origin(node, f"{_AUTOCAST_NOTE}, which gives {dtype}"),
                           result.device, result.requires_grad)
    if callee.kind == "method" and (callee.name in D.CAST_METHODS or callee.name in ("to", "type", "type_as")):
        return result
    keeps = (callee.kind == "symbol" and callee.name in _KEEP_SYMBOLS) or (
        callee.kind == "method" and callee.name in _KEEP_METHODS) or (
        callee.kind == "operator" and callee.name in _KEEP_OPERATORS) or (
        callee.kind == "module" and isinstance(callee.receiver, ModuleValue)
        and callee.receiver.short_name in _KEEP_MODULES)
    if keeps:
        return result  # computed as outside the region: the input's dtype carries through
    if callee.kind in ("user", "module") and (not isinstance(callee.receiver, ModuleValue) or (
            callee.receiver.short_name == "Sequential")) and _made_by_autocast(result, dtype):
        # the file's own function or module, or an nn.Sequential run layer by layer, analysed
        # inside this region: its result is what autocast made of the ops in it
        return result
    if result.dtypes and any(d in ("float16", "bfloat16") for d in result.dtypes):
        return TensorValue(None, result.shape, None, result.device, result.requires_grad)
    return result


def _made_by_autocast(result: TensorValue, dtype: Optional[str]) -> bool:
    """The result's dtype is the region's and its provenance passes an op autocast lowered."""
    if dtype is None or result.dtypes != frozenset({dtype}):
        return False
    link, seen = result.origin, 0
    while link is not None and seen < 16:
        if (link.note or "").startswith(_AUTOCAST_NOTE):
            return True
        link, seen = link.parent, seen + 1
    return False
