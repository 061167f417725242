"""Recognising the calls shape rules check: a call of an nn layer, a call of a loss."""
from __future__ import annotations

from typing import Any, Optional, Tuple

import libcst as cst

from ...knowledge.torch_api import LOSS_FUNCTIONALS
from ...values import ModuleValue, Value
from ..context import RuleContext


def _module_call(node: cst.Call, ctx: RuleContext) -> Optional[Tuple[ModuleValue, Value, Any]]:
    """(layer, input value, input node) when ``node`` calls a known nn layer."""
    callee = ctx.callee(node)
    if callee is None:
        return None
    if callee.kind == "module" and isinstance(callee.receiver, ModuleValue):
        module = callee.receiver
    elif callee.kind == "method" and callee.name == "forward" and isinstance(callee.receiver, ModuleValue):
        module = callee.receiver
    else:
        return None
    if callee.args.has_star:
        return None
    return module, callee.args.get(0, "input"), callee.args.node(0, "input")


_LOSS_FUNCTIONS = {
    "torch.nn.functional.cross_entropy": "cross_entropy", "torch.nn.functional.nll_loss": "nll_loss",
    "torch.nn.functional.binary_cross_entropy": "binary_cross_entropy",
    "torch.nn.functional.binary_cross_entropy_with_logits": "binary_cross_entropy_with_logits",
    "torch.nn.functional.mse_loss": "mse_loss", "torch.nn.functional.l1_loss": "l1_loss",
}
#: The nn spellings of the same losses, from the one table of loss modules.
_LOSS_MODULES = {cls: function for cls, function in LOSS_FUNCTIONALS.items()
                 if function in _LOSS_FUNCTIONS.values()}


def _loss_call(node: cst.Call, ctx: RuleContext) -> Optional[Tuple[str, str, Value, Value, Any, Any]]:
    """(functional name, how it reads, input, target, input node, target node) of a loss call."""
    callee = ctx.callee(node)
    if callee is None or callee.args.has_star:
        return None
    if callee.kind == "symbol" and callee.name in _LOSS_FUNCTIONS:
        name = _LOSS_FUNCTIONS[callee.name]
        how = f"F.{name}"
    elif callee.kind == "module" and isinstance(callee.receiver, ModuleValue) \
            and callee.receiver.short_name in _LOSS_MODULES:
        name = _LOSS_MODULES[callee.receiver.short_name]
        how = f"nn.{callee.receiver.short_name}"
    else:
        return None
    args = callee.args
    return (name, how, args.get(0, "input"), args.get(1, "target"),
            args.node(0, "input"), args.node(1, "target"))
