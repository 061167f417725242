"""Which tensor entered the layer chain a value came out of, for messages about its output."""
from __future__ import annotations

from typing import Dict, Optional, Tuple

import libcst as cst

from ...model.values import SequenceValue, TensorValue, Value
from ..context import RuleContext


class _ChainSource(Dict[int, Tuple[Value, TensorValue]]):
    """Per analysis (``ctx.state``): id(tensor value) -> (the value, the tensor that entered
    the first layer of the chain it came out of). Values are kept alive in the table, so ids
    stay unique."""


def track_layer_chain(node: cst.Call, ctx: RuleContext) -> None:
    """Remember where a layer chain started, for messages about its output.

    A layer call starts a chain at its input; any call (``F.relu``, ``torch.flatten``,
    another layer) on a tensor of a chain continues it. Listeners see calls in evaluation
    order, so ``fc1(flatten(pool(relu(conv(x)))))`` traces back to ``x``.
    """
    callee = ctx.callee(node)
    if callee is None:
        return
    result = callee.result
    if isinstance(result, SequenceValue) and result.items:
        result = result.items[0]  # LSTM/GRU: (output, state)
    if not isinstance(result, TensorValue):
        return
    table = ctx.state(_ChainSource)
    if id(result) in table:
        return
    inputs = [callee.receiver] + list(callee.args.pos) + list(callee.args.kw.values())
    for value in list(inputs):
        if isinstance(value, SequenceValue) and value.items:
            inputs.extend(value.items)  # torch.cat([a, b]) continues the chains of a and b
    for value in inputs:
        entry = table.get(id(value))
        if entry is not None and entry[0] is value:
            table[id(result)] = (result, entry[1])
            return
    if callee.kind == "module":
        first = callee.args.get(0, "input")
        if isinstance(first, TensorValue) and first is not result:
            table[id(result)] = (result, first)


def chain_source(value: Value, ctx: RuleContext) -> Optional[TensorValue]:
    """The tensor whose trip through layers produced ``value``, if it did."""
    entry = ctx.state(_ChainSource).get(id(value))
    if entry is None or entry[0] is not value or entry[1] is value:
        return None
    return entry[1]
