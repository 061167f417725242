"""TTL506 embedding-index-out-of-range: the rule, with the helpers only it uses."""
from __future__ import annotations

from typing import Any, List, Optional, Tuple

import libcst as cst

from ...model.values import Origin, TensorValue, Value, is_integral
from ..base import Rule, RuntimeClaim, register
from .call_matchers import _module_call
from .known import _known
from .label_values import label_values
from .messages import _subject, layer_label
from ..context import RuleContext


_INDEX_CONSTRUCTORS = {"torch.tensor", "torch.as_tensor", "torch.LongTensor", "torch.IntTensor"}


def _literal_ints(node: Any) -> Optional[List[int]]:
    """The ints of a literal ``5``, ``-1`` or nested list/tuple of them; None otherwise."""
    if isinstance(node, cst.Integer):
        try:
            return [int(node.value.replace("_", ""), 0)]
        except ValueError:
            return None
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus) \
            and isinstance(node.expression, cst.Integer):
        inner = _literal_ints(node.expression)
        return None if inner is None else [-inner[0]]
    if isinstance(node, (cst.List, cst.Tuple)):
        out: List[int] = []
        for element in node.elements:
            if isinstance(element, cst.StarredElement):
                return None
            inner = _literal_ints(element.value)
            if inner is None:
                return None
            out.extend(inner)
        return out
    return None


def literal_indices(x: Value, x_node: Any, ctx: RuleContext) -> Optional[Tuple[List[int], Any]]:
    """The index values of a tensor built from a literal (``torch.tensor([1, 10])``), directly
    or through a name still bound to exactly that tensor; with the constructor node."""
    call = x_node
    if not isinstance(call, cst.Call):
        if not isinstance(x, TensorValue) or x.origin is None:
            return None
        call = x.origin.root().node
        # The name must hold the constructor's very value: any operation in between
        # (arithmetic, clamp, indexing) makes a new value, and then the ints are unknown.
        if not isinstance(call, cst.Call) or ctx.value(call) is not x:
            return None
    callee = ctx.callee(call)
    if callee is None or callee.kind != "symbol" or callee.name not in _INDEX_CONSTRUCTORS:
        return None
    data_node = callee.args.node(0, "data")
    if data_node is None:
        return None
    ints = _literal_ints(data_node)
    if not ints:
        return None
    return ints, call


@register
class EmbeddingIndexOutOfRange(Rule):
    """
    ## What it does
    Flags an `nn.Embedding(num_embeddings, dim)` called with literal indices (built with
    `torch.tensor([...])`) of which one is negative or not smaller than `num_embeddings`, or
    with indices the code spells out otherwise (`torch.arange(n)`, `ids % k`, a name bound
    to them), every value of which is certainly among them.

    ## Why is this bad?
    An embedding is a table lookup; a row that does not exist fails with `IndexError:
    index out of range in self` (on CUDA: a device-side assert that kills the process).
    The usual cause is an off-by-one vocabulary size: token ids 1..10 need
    `num_embeddings=11`, or reserving an id for padding without counting it.

    ## Example
    ```python
    embed = nn.Embedding(10, 4)
    vectors = embed(torch.tensor([1, 5, 10]))
    ```

    ## Use instead
    ```python
    embed = nn.Embedding(11, 4)
    vectors = embed(torch.tensor([1, 5, 10]))
    ```

    ## Fix safety
    No fix.
    """

    code = "TTL506"
    name = "embedding-index-out-of-range"
    summary = "literal index passed to nn.Embedding is outside [0, num_embeddings)"
    listens = (cst.Call,)
    module_calls = True  # it judges calls of a layer only
    # On CUDA the lookup fails as a device-side assert instead: a failure, with another message.
    runtime = RuntimeClaim("IndexError", r"index out of range in self", pattern_devices=("cpu",))

    def visit(self, node: cst.Call, ctx: RuleContext) -> None:
        found = _module_call(node, ctx)
        if found is None or found[0].short_name != "Embedding":
            return
        module, x, x_node = found
        size = module.config.get("num_embeddings")
        if not _known(size):
            return
        literal = literal_indices(x, x_node, ctx)
        if literal is None:
            # indices the code spells out otherwise (torch.arange(n), a name bound to them,
            # `ids % k`...): every value of them certainly present (label_values.py)
            spelled = label_values(x_node, ctx) if x_node is not None and isinstance(x, TensorValue) \
                and x.dtypes and all(is_integral(d, include_bool=False) for d in x.dtypes) else None
            if spelled is None:
                return
            literal = sorted(spelled.values), spelled.node
        ints, ctor = literal
        bad = [i for i in ints if i < 0 or i >= size]
        if not bad:
            return
        worst = max(bad, key=lambda i: i if i >= 0 else size - i)
        why = "is negative" if worst < 0 else f"is not smaller than num_embeddings={size}"
        origin = Origin(ctor, "")
        self.report(node, f"{layer_label(module)} has rows 0..{size - 1}, but index {worst} "
                          f"{why} ({_subject(x_node)} {{origin}})", origin=origin)
