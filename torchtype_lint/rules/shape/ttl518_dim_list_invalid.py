"""TTL518 dim-list-invalid: the rule, with the helpers only it uses."""
from __future__ import annotations

from typing import List, Optional, Tuple

import libcst as cst

from ...knowledge import shapes as S
from ...knowledge.dim_args import first_list_problem
from ..base import Rule, RuntimeClaim, register
from ..context import RuleContext
from .dim_arguments import dims_given, tensor_argument
from .known import _shape
from .messages import _subject, describe_input

_MOVEDIM = ("torch.movedim", "torch.moveaxis")


def dim_list_problem(op: str, rank: int, lists: List[List[Optional[int]]]) -> Optional[Tuple[str, str]]:
    """(what is wrong, the phrase torch prints) for a permute order, movedim's source and
    destination, or squeeze's tuple of dims that torch refuses as a list: the wrong length, or
    a dim named twice (``0`` and ``-3`` are one dim of a 3-dim tensor). Dims out of range are
    TTL517's, and a list with an unknown dim is left alone."""
    if op == "torch.permute":
        order = lists[0]
        if len(order) != rank:
            return (f"the order names {len(order)} dim{'s' * (len(order) != 1)}, the tensor has {rank}",
                    "number of dimensions in the tensor input does not match the length of the desired "
                    "ordering of dimensions")
        return _repeated_in_turn(order, rank, "duplicate dims are not allowed")
    if op in _MOVEDIM:
        source, destination = lists
        if len(source) != len(destination):
            return (f"source names {len(source)} dim{'s' * (len(source) != 1)}, destination {len(destination)}",
                    "movedim: Invalid source or destination dims")
        low, high = S.dim_range(rank)
        if any(d is None or not low <= d <= high for d in source + destination):
            return None  # unknown, or out of range (TTL517): torch checks every dim's range first
        for name, dims in (("source", source), ("destination", destination)):
            found = _repeated_in_turn(dims, rank, f"movedim: repeated dim in `{name}`")
            if found is not None:
                return (f"{name}: {found[0]}", found[1])
        return None
    if op == "torch.squeeze" and len(lists[0]) > 1:
        return _repeated_in_turn(lists[0], rank, "appears multiple times in the list of dims")
    return None


def _repeated_in_turn(dims: List[Optional[int]], rank: int, torch_says: str) -> Optional[Tuple[str, str]]:
    """A dim named twice before any dim out of range or unknown (torch reads them in turn)."""
    found = first_list_problem(dims, rank)
    if found is None or found[0] != "repeat":
        return None
    dim = found[1]
    wrapped = dim % max(rank, 1)
    first = next(d for d in dims if d is not None and d % max(rank, 1) == wrapped)
    same = f"{first} and {dim} are the same dim" if first != dim else f"{dim} is written twice"
    return (f"dim {wrapped} is named twice ({same})", torch_says)


@register
class DimListInvalid(Rule):
    """
    ## What it does
    Flags `permute` given an order that does not name every dim of the tensor exactly once
    (too few, too many, or one twice), `movedim`/`moveaxis` whose source and destination
    differ in length or repeat a dim, and `squeeze` given a tuple that names a dim twice,
    when the tensor's rank and the dims are known. `0` and `-3` are the same dim of a 3-dim
    tensor.

    ## Why is this bad?
    torch raises `RuntimeError: permute(sparse_coo): number of dimensions in the tensor
    input does not match the length of the desired ordering of dimensions` (or `duplicate
    dims are not allowed`, `movedim: repeated dim in source`). A typical cause is a
    `permute(0, 2, 1)` written for a batched `(B, T, C)` tensor, applied to a 4-d feature
    map or an unbatched 2-d one.

    ## Example
    ```python
    features = torch.randn(8, 16, 32, 32)  # (B, C, H, W)
    channels_last = features.permute(0, 2, 1)
    ```

    ## Use instead
    ```python
    channels_last = features.permute(0, 2, 3, 1)  # (B, H, W, C)
    ```

    ## Fix safety
    No fix.
    """

    code = "TTL518"
    name = "dim-list-invalid"
    summary = "permute/movedim/squeeze dims that do not name each dim once"
    listens = (cst.Call,)
    ops = frozenset({"torch.permute", "torch.squeeze", *_MOVEDIM})
    runtime = RuntimeClaim("RuntimeError",
                           r"does not match the length of the desired ordering of dimensions|"
                           r"duplicate dims are not allowed|movedim: repeated dim|"
                           r"movedim: Invalid source or destination dims|appears multiple times in the list of dims")

    def visit(self, node: cst.Call, ctx: RuleContext) -> None:
        call = ctx.op_call(node)
        if call is None or call.has_star:
            return
        x, x_node = tensor_argument(call)
        shape = _shape(x)
        if shape is None:
            return
        params = ("source", "destination") if call.op in _MOVEDIM else ("dims",) if call.op == "torch.permute" \
            else ("dim",)
        lists = [dims_given(call, name) for name in params]
        if any(dims is None for dims in lists):
            return
        if call.op == "torch.permute" and not call.has_arg("dims"):
            return  # x.permute() is a TypeError, not this
        found = dim_list_problem(call.op, len(shape), lists)  # type: ignore[arg-type]
        if found is None:
            return
        what, torch_says = found
        described, origin = describe_input(x, ctx)  # type: ignore[arg-type]
        self.report(node, f"`{call.label}` on {_subject(x_node)}, a {len(shape)}-dim tensor ({described}): "
                          f"{what}; torch raises \"{torch_says}\"", origin=origin)
