"""TTL530 recurrent-state-shape-mismatch: the rule."""
from __future__ import annotations

from typing import Any, List, Optional, Tuple

import libcst as cst

from ...knowledge.nn_modules import recurrent_state_shape
from ...model.values import ModuleValue, SequenceValue, TensorValue, Value, describe_shape
from ..base import Rule, RuntimeClaim, register
from ..context import RuleContext
from .call_matchers import _module_call
from .known import _known
from .messages import _subject, layer_label

_LAYERS = ("LSTM", "GRU", "RNN")
_CELLS = ("LSTMCell", "GRUCell", "RNNCell")


@register
class RecurrentStateShapeMismatch(Rule):
    """
    ## What it does
    Flags a call of `nn.LSTM`, `nn.GRU`, `nn.RNN` (or their `...Cell` versions) given an
    initial state whose shape is known and differs from the one the layer requires for that
    input: `(num_layers * directions, batch, hidden_size)`, where `batch` is dim 0 of the input
    with `batch_first=True` and dim 1 without it (cells: `(batch, hidden_size)`), or a 2-D state
    for a batched 3-D input.

    ## Why is this bad?
    The layer checks the state before it runs and raises `Expected hidden[0] size (2, 1, 32),
    got [2, 16, 32]` (GRU and RNN: `Expected hidden size ...`; cells: `Input batch size 4
    doesn't match hidden0 batch size 5`). The usual cause is a state built for the other
    layout: `torch.zeros(num_layers, x.size(1), hidden)` for a `batch_first=True` layer, or an
    input viewed as one sequence of `batch` steps when the state holds one row per sample.

    ## Example
    ```python
    lstm = nn.LSTM(8, 32, num_layers=2, batch_first=True)
    x = torch.randn(4, 10, 8)  # (batch, time, features)
    h0 = torch.zeros(2, x.size(1), 32)  # the time steps taken for the batch
    out, _ = lstm(x, (h0, h0))
    ```

    ## Use instead
    ```python
    h0 = torch.zeros(2, x.size(0), 32)  # batch_first: the batch is dim 0
    out, _ = lstm(x, (h0, h0))
    ```

    ## Fix safety
    No fix.
    """

    code = "TTL530"
    name = "recurrent-state-shape-mismatch"
    summary = "initial hidden state of an LSTM/GRU/RNN whose shape differs from the one its input requires"
    listens = (cst.Call,)
    module_calls = True  # it judges calls of a layer only
    runtime = RuntimeClaim("RuntimeError", r"Expected hidden(\[[01]\])? size|should also be [23]-D|"
                                           r"doesn't match hidden[01] batch size|hidden[01] has inconsistent")

    def visit(self, node: cst.Call, ctx: RuleContext) -> None:
        found = _module_call(node, ctx)
        if found is None:
            return
        module, x, x_node = found
        if module.short_name not in _LAYERS + _CELLS or not isinstance(x, TensorValue) or x.shape is None:
            return
        callee = ctx.callee(node)
        if callee is None or not callee.args.has(1, "hx"):
            return
        shape = tuple(x.shape)
        expected_in = module.config.get("input_size")
        if shape and _known(expected_in) and _known(shape[-1]) and shape[-1] != expected_in:
            return  # the input itself is refused first (TTL503)
        states = _states(module, callee.args.get(1, "hx"))
        if states is None:
            return
        hx_node = callee.args.node(1, "hx")
        for index, (which, state) in enumerate(states):
            expected = recurrent_state_shape(module, shape, which)
            got = _shape(state)
            if expected is None or got is None:
                return
            problem = _mismatch(module, shape, expected, got)
            if problem is None:
                continue  # torch checks the next state only when this one fits
            given = _subject(hx_node) if len(states) == 1 else f"`{which}0` in {_subject(hx_node)}"
            self.report(node, f"{layer_label(module)} needs {_state_label(index, len(states))} "
                              f"of shape {describe_shape(expected)} for the input {_subject(x_node)} of shape "
                              f"{describe_shape(shape)}{_batch_note(module, shape)}, but {given} {problem} "
                              f"{describe_shape(got)}; torch raises RuntimeError before the layer runs")
            return


def _states(module: ModuleValue, hx: Value) -> Optional[List[Tuple[str, Value]]]:
    """The states given: LSTM and LSTMCell take ``(h, c)``, the others one tensor."""
    if module.short_name in ("LSTM", "LSTMCell"):
        if not isinstance(hx, SequenceValue) or hx.container not in ("tuple", "list") or hx.items is None \
                or len(hx.items) != 2:
            return None
        return [("h", hx.items[0]), ("c", hx.items[1])]
    return [("h", hx)]


def _shape(value: Value) -> Optional[Tuple[Any, ...]]:
    if not isinstance(value, TensorValue) or value.shape is None:
        return None
    return tuple(value.shape)


def _mismatch(module: ModuleValue, shape: Tuple[Any, ...], expected: Tuple[Any, ...],
              got: Tuple[Any, ...]) -> Optional[str]:
    """How ``got`` fails the check, or None when it passes or is not known to fail."""
    if len(got) != len(expected):
        if module.short_name in _CELLS:
            return None  # cells unsqueeze some ranks: only same-rank states are judged
        return f"is {len(got)}-D, shape"
    if any(not _known(d) for d in expected + got) or expected == got:
        return None
    return "has shape"


def _state_label(index: int, count: int) -> str:
    if count == 1:
        return "an initial hidden state"
    return "the initial hidden state `h0`" if index == 0 else "the initial cell state `c0`"


def _batch_note(module: ModuleValue, shape: Tuple[Any, ...]) -> str:
    """Which dim of the input the layer takes for the batch."""
    if module.short_name in _CELLS or len(shape) != 3:
        return " (unbatched)" if len(shape) in (1, 2) and module.short_name in _LAYERS else ""
    if module.config.get("batch_first"):
        return f" (batch_first=True: the batch is dim 0, {shape[0]})"
    return f" (without batch_first the layer reads (time, batch, features): the batch is dim 1, {shape[1]})"
