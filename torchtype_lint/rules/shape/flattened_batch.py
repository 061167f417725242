"""Tensors made by flattening a whole batch (TTL513), which the layer rules leave to it."""
from __future__ import annotations

from typing import Any, Dict, Optional, Tuple

import libcst as cst

from ...knowledge.torch_api import int_const, shape_from_size_args
from ...model.values import ModuleValue, TensorValue, Value, numel
from .known import _known, _shape
from ..context import RuleContext


class _Flattened(Dict[int, Tuple[TensorValue, Any, Tuple]]):
    """Per analysis (``ctx.state``): id(flattened value) -> (the value, the flatten call node,
    the shape before). Values are kept alive in the table, so ids stay unique."""


def _note_flatten(node: cst.Call, ctx: RuleContext) -> None:
    """Remember tensors made by flattening *every* dimension of a batched tensor."""
    callee = ctx.callee(node)
    if callee is None or callee.args.has_star or not isinstance(callee.result, TensorValue):
        return
    args = callee.args
    if callee.kind == "method" and isinstance(callee.receiver, TensorValue):
        src = callee.receiver
        if callee.name == "flatten":
            start = int_const(args.get(0, "start_dim")) if args.has(0, "start_dim") else 0
            if start != 0:
                return
        elif callee.name in ("view", "reshape"):
            target = shape_from_size_args(args, 0, "shape")
            if target != (-1,):
                return
        else:
            return
    elif callee.kind == "symbol" and callee.name == "torch.flatten":
        src = args.get(0, "input")
        start = int_const(args.get(1, "start_dim")) if args.has(1, "start_dim") else 0
        if not isinstance(src, TensorValue) or start != 0:
            return
    else:
        return
    shape = _shape(src)
    if shape is None or len(shape) < 2 or not _known(shape[0]) or shape[0] < 2:
        return
    result = callee.result
    ctx.state(_Flattened)[id(result)] = (result, node, shape)


def _flattened_batch(ctx: RuleContext, x: Value, module: ModuleValue) -> Optional[Tuple[Any, Tuple]]:
    """(flatten node, shape before) when ``x`` is a fully flattened batch whose per-sample
    size is exactly what ``module`` (an nn.Linear) expects."""
    if module.short_name != "Linear":
        return None
    entry = ctx.state(_Flattened).get(id(x))
    if entry is None or entry[0] is not x:
        return None
    _, flat_node, shape = entry
    total, features = numel(shape), module.config.get("in_features")
    if total is None or not _known(features) or features <= 0 or total != shape[0] * features:
        return None
    return flat_node, shape
