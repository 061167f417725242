"""An nn layer called on a tensor, and what torch prints when the input's dtype does not fit it."""
from __future__ import annotations

from typing import Optional

import libcst as cst

from ...model.values import ModuleValue, Category, category
from ..dtype_names import c10_name, scalar_type_name
from ..layers import NORM_LAYERS, first_layer
from ..torch_messages import TorchMessage
from ..context import RuleContext


def module_call(ctx: RuleContext, node: cst.Call):
    """(layer, input value, input node, path) when ``node`` calls an nn layer on a tensor."""
    callee = ctx.callee(node)
    if callee is None or callee.kind != "module" or not isinstance(callee.receiver, ModuleValue) \
            or callee.args.has_star:
        return None
    x = callee.args.get(0, "input")
    found = first_layer(callee.receiver, x)
    if found is None:
        return None
    layer, x, path = found
    return layer, x, callee.args.node(0, "input"), path, callee.receiver


def conv_kernel_message(x_dtype: str, p_dtype: str, transposed: bool) -> TorchMessage:
    """What a convolution without a bias says when input ``x_dtype`` meets weights ``p_dtype``
    (CPU): no bias check comes first, so the kernel's own check speaks, and which kernel runs
    depends on the CPU (oneDNN takes float16/bfloat16 input where the CPU supports it)."""
    x, p = scalar_type_name(x_dtype), scalar_type_name(p_dtype)
    if x_dtype in ("int64", "float64"):
        return TorchMessage.of(f"expected scalar type {x} but found {p}")  # never oneDNN's
    if x_dtype in ("float16", "bfloat16"):
        # oneDNN takes float16/bfloat16 input where the CPU has the instructions, and words
        # the failure its own way (three wordings seen so far): quote none rather than guess.
        return TorchMessage()
    if transposed:
        return TorchMessage()  # other combinations print device-specific type names
    return TorchMessage.of(f"expected scalar type {x} but found {p}")


def layer_message(layer: ModuleValue, x_dtype: Optional[str], p_dtype: Optional[str]) -> TorchMessage:
    """What torch 2.13 prints when ``layer`` (params ``p_dtype``) gets ``x_dtype`` input (CPU),
    in every wording the CPU backends use; empty where a wording is not known."""
    name = layer.short_name
    if x_dtype is None or p_dtype is None:
        return TorchMessage.of("input and parameter dtypes must match")
    x, p = scalar_type_name(x_dtype), scalar_type_name(p_dtype)
    if name in ("Linear", "LSTMCell", "GRUCell", "RNNCell"):
        if layer.config.get("bias") is False and name == "Linear":
            return TorchMessage.of(f"expected m1 and m2 to have the same dtype, but got: "
                                   f"{c10_name(x_dtype)} != {c10_name(p_dtype)}")
        return TorchMessage.of(f"mat1 and mat2 must have the same dtype, but got {x} and {p}")
    if name.startswith("Conv") and (name.startswith("ConvTranspose") or layer.config.get("bias") is False):
        return conv_kernel_message(x_dtype, p_dtype, transposed=name.startswith("ConvTranspose"))
    if name.startswith("Conv"):
        return TorchMessage.of(f"Input type ({c10_name(x_dtype)}) and bias type ({c10_name(p_dtype)}) "
                               "should be the same")
    if name in ("BatchNorm1d", "BatchNorm2d", "BatchNorm3d", "InstanceNorm1d", "InstanceNorm2d",
                "InstanceNorm3d") and category(x_dtype) < Category.FLOAT:
        return TorchMessage.of(f"\"batch_norm\" not implemented for '{x}'")
    if name in NORM_LAYERS:
        return TorchMessage.of("mixed dtype (CPU): all inputs must share same datatype.")
    if name == "Bilinear":
        return TorchMessage.of("All tensors must have the same dtype")
    return TorchMessage.of(f"expected m1 and m2 to have the same dtype, but got: "
                           f"{c10_name(x_dtype)} != {c10_name(p_dtype)}")
