"""The source and target shapes of a reshape (``view``, ``reshape``, ``view_as``,
``reshape_as``, ``torch.reshape``), for the rules that compare their element counts as
products of annotated sizes (TTL654, TTL655)."""
from __future__ import annotations

from typing import Any, NamedTuple, Optional, Tuple

import libcst as cst

from ...knowledge.symbolic_dims import as_dim, product
from ...knowledge.torch_api import shape_from_size_args, shape_from_value
from ...model.values import ScalarValue, SequenceValue, TensorValue
from ..context import RuleContext


class Reshape(NamedTuple):
    source: TensorValue
    source_shape: Tuple[Any, ...]
    target: Tuple[Any, ...]

    @property
    def element_counts(self) -> Tuple[Any, Any]:
        """(elements the tensor has, elements the target shape holds), as dims (products of sizes)."""
        return as_dim(product(self.source_shape)), as_dim(product(self.target))


def reshape_at(node: cst.Call, ctx: RuleContext) -> Optional[Reshape]:
    """The reshape ``node`` is, when both shapes are known to their rank and the target
    infers no size (-1: no count to compare)."""
    callee = ctx.callee(node)
    if callee is None or callee.args.has_star:
        return None
    target = None
    if callee.kind == "method" and isinstance(callee.receiver, TensorValue):
        x = callee.receiver
        if callee.name in ("view", "reshape"):
            if callee.args.pos and not isinstance(callee.args.pos[0], (ScalarValue, SequenceValue)):
                return None  # x.view(dtype) reinterprets bits
            if callee.args.pos or "shape" in callee.args.kw:
                target = shape_from_size_args(callee.args, 0, "shape", symbols=True)
        elif callee.name in ("view_as", "reshape_as"):
            other = callee.args.get(0, "other")
            target = other.shape if isinstance(other, TensorValue) else None
        else:
            return None
    elif callee.kind == "symbol" and callee.name == "torch.reshape":
        x = callee.args.get(0, "input")
        target = shape_from_value(callee.args.get(1, "shape"), symbols=True)
    else:
        return None
    if not isinstance(x, TensorValue) or x.shape is None or target is None:
        return None
    if any(d is None or d == -1 for d in target):
        return None
    return Reshape(x, tuple(x.shape), tuple(target))
