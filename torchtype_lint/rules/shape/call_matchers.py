"""Recognising the calls shape rules check: a call of an nn layer, a call of a loss."""
from __future__ import annotations

from typing import Any, Optional, Tuple

import libcst as cst

from ...model.values import ModuleValue, Value
from ..base import calls_a_module
from ..context import RuleContext
from ..dtype.losses import loss_call, loss_ops


def _module_call(node: cst.Call, ctx: RuleContext) -> Optional[Tuple[ModuleValue, Value, Any]]:
    """(layer, input value, input node) when ``node`` calls a known nn layer."""
    callee = ctx.callee(node)
    if not calls_a_module(callee) or callee.args.has_star:
        return None
    return callee.receiver, callee.args.get(0, "input"), callee.args.node(0, "input")


#: The losses shape rules check (their nn modules included: ``knowledge/ops.py``).
_SHAPE_CHECKED_LOSSES = ("cross_entropy", "nll_loss", "binary_cross_entropy",
                         "binary_cross_entropy_with_logits", "mse_loss", "l1_loss")
LOSS_OPS = loss_ops(_SHAPE_CHECKED_LOSSES)


def _loss_call(node: cst.Call, ctx: RuleContext) -> Optional[Tuple[str, str, Value, Value, Any, Any]]:
    """(functional name, how it reads, input, target, input node, target node) of a loss call."""
    found = loss_call(ctx, node, _SHAPE_CHECKED_LOSSES)
    if found is None:
        return None
    name, _, call = found
    return (name, call.label, call.arg("input"), call.arg("target"),
            call.arg_node("input"), call.arg_node("target"))
