"""TTL533 index-rank-mismatch: gather / scatter / take_along_dim with an index tensor that has
another number of dims than the tensor it indexes."""
from __future__ import annotations

from typing import Any, Optional, Tuple

import libcst as cst

from ...model.values import ScalarValue, TensorValue, Value, describe_shape
from ..base import Rule, RuntimeClaim, register
from ..context import RuleContext
from ..source_edits import code
from .messages import shape_origin

#: Methods taking (dim, index, ...) whose index must have the receiver's number of dims, and
#: how torch names the receiver in its message.
_METHODS = {"gather": "input", "scatter": "self", "scatter_": "self", "scatter_add": "self",
            "scatter_add_": "self", "scatter_reduce": "self", "scatter_reduce_": "self"}
#: The same as torch functions taking (input, dim, index, ...).
_FUNCTIONS = {"torch.gather": "input", "torch.scatter": "self", "torch.scatter_add": "self",
              "torch.scatter_reduce": "self"}


def _rank(value: Value) -> Optional[int]:
    """The number of dims torch checks: a 0-d tensor counts as 1-d."""
    if not isinstance(value, TensorValue) or value.shape is None:
        return None
    return max(len(value.shape), 1)


def _dims(count: int) -> str:
    return f"{count} dim{'' if count == 1 else 's'}"


@register
class IndexRankMismatch(Rule):
    """
    ## What it does
    Flags `gather`, `scatter`, `scatter_add`, `scatter_reduce` (methods, in-place forms and
    `torch.` functions) and `torch.take_along_dim(..., dim=d)` whose index tensor has another
    number of dimensions than the tensor it indexes: `q_values.gather(1, actions)` with
    actions of shape `(N,)` for `(N, A)` values.

    ## Why is this bad?
    These ops pick one element per index entry along `dim`, and need the index to have every
    other dimension too: `RuntimeError: Index tensor must have the same number of dimensions
    as input tensor`. The index usually lacks the trailing `1` that `unsqueeze(1)` adds (a
    DQN's actions, the labels of a one-hot `scatter_`).

    ## Example
    ```python
    q = q_net(states)  # (32, 2)
    chosen = q.gather(1, actions)  # actions: (32,)
    ```

    ## Use instead
    ```python
    chosen = q.gather(1, actions.unsqueeze(1)).squeeze(1)
    ```
    """

    code = "TTL533"
    name = "index-rank-mismatch"
    summary = "gather/scatter/take_along_dim index with another number of dims than the tensor it indexes"
    severity = "error"
    listens = (cst.Call,)
    runtime = RuntimeClaim("RuntimeError", r"Index tensor must have the same number of dimensions as (input|self) "
                                           r"tensor|input and indices should have the same number of dimensions")

    def visit(self, node: cst.Call, ctx: RuleContext) -> None:
        if not isinstance(node.func, cst.Attribute) or not (
                node.func.attr.value in _METHODS or node.func.attr.value == "take_along_dim"):
            return  # every form is spelled x.<name>(...) or torch.<name>(...)
        found = self._operands(node, ctx)
        if found is None:
            return
        x, index, index_node, says = found
        rx, ri = _rank(x), _rank(index)
        if rx is None or ri is None or rx == ri:
            return
        text = code(index_node, 30) if index_node is not None else "index"
        self.report(node, f"the index `{text}` has shape {describe_shape(index.shape)} ({_dims(ri)}) but the tensor "
                          f"it indexes has shape {describe_shape(x.shape)} ({_dims(rx)}): torch raises RuntimeError "
                          f"(\"{says}\"); give the index the same number of dims"
                          f"{' (`' + text + '.unsqueeze(-1)`)' if ri + 1 == rx else ''}",
                    origin=shape_origin(index, ctx) or shape_origin(x, ctx))

    @staticmethod
    def _operands(node: cst.Call, ctx: RuleContext) -> Optional[Tuple[Value, Value, Any, str]]:
        """(the indexed tensor, the index, the index's argument node, torch's message)."""
        callee = ctx.callee(node)
        if callee is None or callee.args.has_star:
            return None
        args = callee.args
        if callee.kind == "method" and isinstance(callee.receiver, TensorValue) and callee.name in _METHODS:
            says = f"Index tensor must have the same number of dimensions as {_METHODS[callee.name]} tensor"
            return callee.receiver, args.get(1, "index"), args.node(1, "index"), says
        if callee.kind == "symbol" and callee.name in _FUNCTIONS:
            says = f"Index tensor must have the same number of dimensions as {_FUNCTIONS[callee.name]} tensor"
            return args.get(0, "input"), args.get(2, "index"), args.node(2, "index"), says
        if callee.kind == "symbol" and callee.name == "torch.take_along_dim" and args.has(2, "dim") \
                and isinstance(args.get(2, "dim"), ScalarValue):
            # without a dim both are flattened: no rank to match
            return args.get(0, "input"), args.get(1, "indices"), args.node(1, "indices"), \
                "torch.take_along_dim(): input and indices should have the same number of dimensions"
        return None
