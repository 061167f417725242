"""TTL653 contract-concat-sizes: torch.cat/stack joining tensors along dims of different annotated sizes."""
from __future__ import annotations

from typing import Any, List, Optional, Tuple

import libcst as cst

from ...knowledge.torch_api import int_const
from ...model.values import SequenceValue, TensorValue, describe_shape
from ..base import Rule, RuntimeClaim, register
from ..context import RuleContext
from .size_contracts import promise, sizes_condition

_FUNCTIONS = {"torch.cat": "cat", "torch.concat": "cat", "torch.concatenate": "cat", "torch.stack": "stack"}


def _first_condition(shapes: List[Tuple[Any, ...]], skip: Optional[int],
                     ctx: RuleContext) -> Optional[Tuple[int, int, Any, Any, str]]:
    """(tensor index, axis, dim of tensor 0, its dim, condition) of the first dim, other than
    ``skip``, where a tensor's size is another annotated size than tensor 0's."""
    first = shapes[0]
    for index, shape in enumerate(shapes[1:], start=1):
        for axis, (x, y) in enumerate(zip(first, shape)):
            if axis == skip:
                continue
            condition = sizes_condition(x, y, ctx)
            if condition is not None:
                return index, axis, x, y, condition
    return None


@register
class ContractConcatSizes(Rule):
    """
    ## What it does
    In a function whose parameters carry shape annotations, flags `torch.cat` /
    `torch.concat` / `torch.concatenate` of tensors whose dimensions other than the joined
    one are *different* annotated sizes (`torch.cat([x, y], dim=1)` for
    `x: Float[Tensor, "b d"]` and `y: Float[Tensor, "n k"]` needs `b == n`), and
    `torch.stack` of tensors whose shapes differ in that way. The message says which sizes
    would have to be equal. Only dimensions named by the function's own annotations count.

    ## Why is this bad?
    The annotations promise the function works for every `b` and `n`; joining the tensors
    works only when they are equal, and otherwise raises `Sizes of tensors must match except
    in dimension 1` (`stack expects each tensor to be equal size`). Either the annotation
    should use one name, or the code joins the wrong dimension. A contract finding (select
    or ignore with `TTL65`).

    ## Example
    ```python
    def join(x: Float[Tensor, "b d"], y: Float[Tensor, "n k"]) -> Float[Tensor, "b dk"]:
        return torch.cat([x, y], dim=1)
    ```

    ## Use instead
    ```python
    def join(x: Float[Tensor, "b d"], y: Float[Tensor, "b k"]) -> Float[Tensor, "b dk"]:
        return torch.cat([x, y], dim=1)
    ```

    ## Fix safety
    No fix.
    """

    code = "TTL653"
    name = "contract-concat-sizes"
    summary = "torch.cat/stack that runs only when two different annotated sizes are equal"
    listens = (cst.Call,)
    runtime = RuntimeClaim("RuntimeError",
                           r"Sizes of tensors must match except in dimension|stack expects each tensor to be equal size")

    def visit(self, node: cst.Call, ctx: RuleContext) -> None:
        callee = ctx.callee(node)
        if callee is None or callee.kind != "symbol" or callee.name not in _FUNCTIONS or callee.args.has_star:
            return
        op = _FUNCTIONS[callee.name]
        seq = callee.args.get(0, "tensors")
        if not isinstance(seq, SequenceValue) or seq.items is None or len(seq.items) < 2:
            return
        if not all(isinstance(v, TensorValue) and v.shape is not None for v in seq.items):
            return
        shapes = [tuple(v.shape) for v in seq.items]  # type: ignore[union-attr]
        rank = len(shapes[0])
        if rank == 0 or any(len(s) != rank for s in shapes):
            return  # ranks that differ are TTL508's
        skip = None
        if op == "cat":
            dim_value = callee.args.get(1, "dim") if callee.args.has(1, "dim") else callee.args.kw.get("axis")
            dim = 0 if dim_value is None else int_const(dim_value)
            if dim is None or not -rank <= dim < rank:
                return
            skip = dim % rank
        found = _first_condition(shapes, skip, ctx)
        if found is None:
            return
        index, axis, x, y, condition = found
        joined = f", joined in dimension {skip}" if skip is not None else ""
        self.report(node, f"`{callee.name}` of shapes {', '.join(describe_shape(s) for s in shapes)}{joined}: "
                          f"dimension {axis} is `{x}` in tensor 0 and `{y}` in tensor {index}, so it runs only "
                          f"when {condition}, while {promise(ctx)}", origin=seq.items[index].origin)
