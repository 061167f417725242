"""A numpy conversion whose tensor is cast explicitly later on, or fed to a float64 model: the
dtype is the user's choice, or the one the code needs."""
from __future__ import annotations

import libcst as cst

from ...knowledge import dtypes as D
from ...knowledge.ops import MODULE
from ...model.values import FLOAT64, DTypeValue, ModuleValue, TensorValue
from ..context import RuleContext
from .conversions import conversion_in_chain

_CASTS = set(D.CAST_METHODS) | {"type", "type_as"}


_LIKE_WITH_DTYPE = {f"torch.{name}_like" for name in ("zeros", "ones", "empty", "full", "rand", "randn", "randint")}


def mark_later_casts(node: cst.Call, ctx: RuleContext) -> None:
    """A conversion whose tensor is later cast explicitly (``.float()``, ``.to(torch.float32)``,
    even ``.double()``) is a decision the user made: a settled root cause."""
    _settle_float64_model_inputs(node, ctx)
    _settle_accepted_loss_targets(node, ctx)
    callee = ctx.callee(node)
    if (callee is not None and callee.kind == "symbol" and callee.name in _LIKE_WITH_DTYPE
            and "dtype" in callee.args.kw and isinstance(callee.args.get(0, "input"), TensorValue)):
        # torch.zeros_like(torch.from_numpy(a), dtype=...): only the shape of the conversion is used
        conversion = conversion_in_chain(callee.args.get(0, "input").origin, ctx)
        if conversion is not None:
            ctx.settle_cause(conversion)
        return
    if callee is None or callee.kind != "method" or not isinstance(callee.receiver, TensorValue):
        return
    explicit = callee.name in _CASTS or (callee.name == "to" and (
        any(isinstance(v, (DTypeValue, TensorValue)) for v in callee.args.all_values())
        or "dtype" in callee.args.kw
        # `.to(x.device, x.dtype)`: a dtype chosen in the code, even when x's is unknown here
        or any(isinstance(n, cst.Attribute) and n.attr.value == "dtype" for n in callee.args.pos_nodes)))
    if explicit:
        conversion = conversion_in_chain(callee.receiver.origin, ctx)
        if conversion is not None:
            ctx.settle_cause(conversion)


def _settle_float64_model_inputs(node: cst.Call, ctx: RuleContext) -> None:
    """``model.double()(torch.from_numpy(a))``: a float64 tensor fed to a layer whose every
    parameter is float64 is what that layer needs, so its conversion is no mistake."""
    call = ctx.op_call(node)
    if call is None or call.spelling != MODULE or not isinstance(call.receiver, ModuleValue):
        return
    params = call.receiver.param_dtypes
    x = call.args.get(0, "input")
    if params and params == {FLOAT64} and isinstance(x, TensorValue):
        conversion = conversion_in_chain(x.origin, ctx)
        if conversion is not None:
            ctx.settle_cause(conversion)


#: Losses that take a float64 target with a float input, backward included (torch 2.13,
#: checked in tests/test_rules_dtype.py): a float64 target there is no mistake.
_FLOAT64_TARGET_LOSSES = frozenset("torch.nn.functional." + name for name in (
    "mse_loss", "l1_loss", "smooth_l1_loss", "binary_cross_entropy_with_logits"))


def _settle_accepted_loss_targets(node: cst.Call, ctx: RuleContext) -> None:
    """``F.mse_loss(pred, torch.from_numpy(y))``: the float64 target is what the loss accepts."""
    call = ctx.op_call(node)
    if call is None or call.has_star or call.op not in _FLOAT64_TARGET_LOSSES:
        return
    target = call.arg("target")
    if isinstance(target, TensorValue) and target.dtypes == {FLOAT64}:
        conversion = conversion_in_chain(target.origin, ctx)
        if conversion is not None:
            ctx.settle_cause(conversion)
