"""TTL508 concat-shape-mismatch: the rule, with the helpers only it uses."""
from __future__ import annotations

from typing import Any, Optional, Sequence, Tuple

import libcst as cst

from ...knowledge.torch_api import int_const
from ...model.values import SequenceValue, describe_shape
from ..base import Rule, RuntimeClaim, register
from .known import _known, _shape
from .messages import shape_origin
from ..context import RuleContext


@register
class ConcatShapeMismatch(Rule):
    """
    ## What it does
    Flags `torch.cat` / `torch.concat` / `torch.concatenate` of a literal list of
    tensors whose ranks differ or whose known sizes differ in a dimension other than the
    concatenated one, and `torch.stack` of tensors whose known shapes differ.

    ## Why is this bad?
    torch raises `Sizes of tensors must match except in dimension 0. Expected size 3 but
    got size 4 for tensor number 1 in the list.`, `Tensors must have same number of
    dimensions`, or `stack expects each tensor to be equal size`. Concatenating along the
    wrong dimension (`dim=0` instead of `dim=1`) is the usual cause.

    ## Example
    ```python
    features = torch.cat([torch.randn(4, 3), torch.randn(4, 5)])
    ```

    ## Use instead
    ```python
    features = torch.cat([torch.randn(4, 3), torch.randn(4, 5)], dim=1)
    ```

    ## Fix safety
    No fix.
    """

    code = "TTL508"
    name = "concat-shape-mismatch"
    summary = "torch.cat/stack of tensors whose shapes cannot be joined"
    listens = (cst.Call,)
    runtime = RuntimeClaim(
        "RuntimeError",
        r"Sizes of tensors must match except in dimension|Tensors must have same number of dimensions|"
        r"stack expects each tensor to be equal size")

    _FUNCTIONS = {"torch.cat": "cat", "torch.concat": "cat", "torch.concatenate": "cat", "torch.stack": "stack"}

    def visit(self, node: cst.Call, ctx: RuleContext) -> None:
        callee = ctx.callee(node)
        if callee is None or callee.kind != "symbol" or callee.name not in self._FUNCTIONS or callee.args.has_star:
            return
        op = self._FUNCTIONS[callee.name]
        seq = callee.args.get(0, "tensors")
        if not isinstance(seq, SequenceValue) or seq.items is None or len(seq.items) < 2:
            return
        shapes = [_shape(v) for v in seq.items]
        if any(s is None for s in shapes):
            return
        dim_value = callee.args.get(1, "dim") if callee.args.has(1, "dim") else callee.args.kw.get("axis")
        dim = 0 if dim_value is None else int_const(dim_value)
        problem = concat_problem(op, shapes, dim)  # type: ignore[arg-type]
        if problem is None:
            return
        listed = ", ".join(describe_shape(s) for s in shapes)
        first = seq.items[0]
        origin = shape_origin(first, ctx)
        self.report(node, f"`{callee.name}` of shapes {listed}: {problem}", origin=origin)


def concat_problem(op: str, shapes: Sequence[Tuple[Any, ...]], dim: Optional[int]) -> Optional[str]:
    """Why torch.cat (op "cat") or torch.stack ("stack") of these shapes fails, if provable."""
    first = shapes[0]
    for index, shape in enumerate(shapes[1:], start=1):
        if len(shape) != len(first):
            if op == "cat" and (shape == (0,) or first == (0,)):
                return None  # legacy: 1-D empty tensors are skipped by cat
            return (f"tensor {index} has {len(shape)} dimensions, tensor 0 has {len(first)}"
                    if op == "cat" else f"tensor {index} has shape {describe_shape(shape)}, "
                                        f"tensor 0 has {describe_shape(first)}; stack needs equal shapes")
    rank = len(first)
    if op == "cat":
        if dim is None or rank == 0:
            return None
        d = dim + rank if dim < 0 else dim
        if not 0 <= d < rank:
            return None
        for index, shape in enumerate(shapes[1:], start=1):
            for axis in range(rank):
                if axis == d:
                    continue
                if _known(first[axis]) and _known(shape[axis]) and first[axis] != shape[axis]:
                    return (f"dimension {axis} is {first[axis]} in tensor 0 and {shape[axis]} in tensor "
                            f"{index}; only the concatenated dimension {d} may differ")
        return None
    for index, shape in enumerate(shapes[1:], start=1):
        for axis in range(rank):
            if _known(first[axis]) and _known(shape[axis]) and first[axis] != shape[axis]:
                return (f"dimension {axis} is {first[axis]} in tensor 0 and {shape[axis]} in tensor "
                        f"{index}; stack needs equal shapes")
    return None
