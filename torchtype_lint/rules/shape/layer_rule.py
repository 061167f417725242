"""The visit shared by the layer-contract rules (TTL501-TTL505, TTL514)."""
from __future__ import annotations

from typing import Any, Optional, Tuple

import libcst as cst

from ...model.values import ModuleValue, TensorValue, describe_shape, numel
from ..base import Rule, expr_text
from .call_matchers import _module_call
from .flattened_batch import _flattened_batch
from .layer_chain import track_layer_chain
from .layer_contracts import chain_failure, layer_mismatch
from .messages import _subject, describe_input, layer_label
from ..context import RuleContext


class _LayerRule(Rule):
    """Shared visit for the layer-contract rules (TTL501-TTL505): one layer call, or the
    first failing layer of an ``nn.Sequential`` call."""

    listens = (cst.Call,)
    module_calls = True  # it judges calls of a layer only
    call_trackers = (track_layer_chain,)  # a chain goes on through any call (F.relu, flatten)

    def visit(self, node: cst.Call, ctx: RuleContext) -> None:
        found = _layer_call(node, ctx)
        if found is None:
            return
        module, x, x_node = found
        if not isinstance(x, TensorValue) or x.shape is None:
            return
        if module.short_name == "Sequential":
            failure = chain_failure(module, x)
            if failure is None or failure[2][0] != self.code:
                return
            path, layer, (code, expects, got), shape = failure
            described, origin = describe_input(x, ctx)
            if path:
                subject = f"its input (the output of {' -> '.join(path)} on {_subject(x_node)}, {described})"
                self.report(node, f"{layer_label(layer)} inside this nn.Sequential {expects}; "
                                  f"{subject} {got} (shape {describe_shape(shape)})", origin=origin)
            else:
                self.report(node, f"{layer_label(layer)}, the first layer of this nn.Sequential, "
                                  f"{expects}; {_subject(x_node)} {got} ({described})", origin=origin)
            return
        if _flattened_batch(ctx, x, module) is not None:
            return  # TTL513 explains this one better
        problem = layer_mismatch(module, tuple(x.shape))
        if problem is None or problem[0] != self.code:
            return
        _, expects, got = problem
        described, origin = describe_input(x, ctx)
        self.report(node, f"{layer_label(module)} {expects}; {_subject(x_node)} {got} ({described})"
                          f"{_flatten_hint(module, tuple(x.shape), x_node)}", origin=origin)


class _LastLayerCall:
    """Per analysis (``ctx.state``): the evaluation of a call the layer rules judge now (its
    ``Callee``, new for each evaluation) and what ``_module_call`` found for it."""

    def __init__(self) -> None:
        self.callee: Any = None
        self.found: Optional[Tuple[ModuleValue, Any, Any]] = None


def _layer_call(node: cst.Call, ctx: RuleContext) -> Optional[Tuple[ModuleValue, Any, Any]]:
    """``_module_call`` of ``node``: once per evaluation for all the layer rules (the call's
    values do not change; its chain was tracked before any visit: ``call_trackers``)."""
    callee = ctx.callee(node)
    if callee is None:
        return None
    last = ctx.state(_LastLayerCall)
    if callee is not last.callee:
        last.callee, last.found = callee, _module_call(node, ctx)
    return last.found


def _flatten_hint(module: ModuleValue, shape: Tuple[Any, ...], x_node: Any) -> str:
    """A Linear given an unflattened (N, C, H, W) batch whose per-sample size is right."""
    if module.short_name != "Linear" or len(shape) < 3:
        return ""
    per_sample = numel(shape[1:])
    if per_sample is None or per_sample != module.config.get("in_features"):
        return ""
    name = expr_text(x_node) if isinstance(x_node, (cst.Name, cst.Attribute)) else "x"
    return f"; flatten each sample first: `{name}.flatten(1)` has shape ({shape[0]}, {per_sample})"
