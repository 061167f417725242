"""TTL520 expand-size-mismatch: the rule, with the helpers only it uses."""
from __future__ import annotations

from typing import Any, Optional, Sequence, Tuple

import libcst as cst

from ...model.values import describe_shape
from ..base import Rule, RuntimeClaim, register
from ..context import RuleContext
from .dim_arguments import sizes_given
from .known import _known, _shape
from .messages import _subject, describe_input


def expand_problem(shape: Sequence[Any], sizes: Sequence[Optional[int]]) -> Optional[Tuple[str, str]]:
    """(what is wrong, the phrase torch prints) when ``x.expand(*sizes)`` fails for ``x`` of
    ``shape``: fewer sizes than dims, a size that is neither the dim's own, 1's broadcast nor
    -1, or -1 for a new leading dim. Unknown sizes and dims are taken to fit."""
    rank = len(shape)
    if len(sizes) < rank:
        return (f"{len(sizes)} size{'s' * (len(sizes) != 1)} for {rank} dims",
                f"the number of sizes provided ({len(sizes)}) must be greater or equal to the number of "
                f"dimensions in the tensor ({rank})")
    new = len(sizes) - rank
    for i in range(len(sizes) - 1, -1, -1):  # torch checks from the last dim
        size = sizes[i]
        if size is None:
            continue
        if i < new:
            if size == -1 and rank:  # (a 0-d tensor fails otherwise: "integer multiplication overflow")
                return (f"size -1 at dim {i}, a new leading dim, has no size to keep",
                        f"The expanded size of the tensor (-1) isn't allowed in a leading, non-existing "
                        f"dimension {i}")
            continue
        existing = shape[i - new]
        if size != -1 and _known(existing) and existing != 1 and existing != size:
            return (f"its dim {i - new} has size {existing}, which cannot become {size} (only dims of size 1 expand)",
                    f"The expanded size of the tensor ({size}) must match the existing size ({existing}) at "
                    f"non-singleton dimension {i}")
    return None


@register
class ExpandSizeMismatch(Rule):
    """
    ## What it does
    Flags `x.expand(*sizes)` and `x.expand_as(other)` when the known sizes cannot be reached
    by expanding: a dim whose size is not 1 asked to become another size, fewer sizes than
    the tensor has dims, or `-1` for a new leading dim. Sizes are aligned from the right;
    `-1` keeps a dim's size and only dims of size 1 expand.

    ## Why is this bad?
    torch raises `RuntimeError: The expanded size of the tensor (4) must match the existing
    size (2) at non-singleton dimension 0` (or `the number of sizes provided (1) must be
    greater or equal to the number of dimensions in the tensor (2)`). `expand` never copies or
    tiles data: to repeat a tensor whose dim is not 1, use `repeat`; to line up a mask, add
    the missing dim first (`mask.unsqueeze(-1).expand_as(x)`).

    ## Example
    ```python
    x = torch.randn(4, 3, 16)
    mask = torch.ones(4, 3)
    masked = x * mask.expand_as(x)
    ```

    ## Use instead
    ```python
    masked = x * mask.unsqueeze(-1).expand_as(x)  # (4, 3, 1) expands to (4, 3, 16)
    ```

    ## Fix safety
    No fix.
    """

    code = "TTL520"
    name = "expand-size-mismatch"
    summary = "expand/expand_as to sizes a tensor cannot expand to"
    listens = (cst.Call,)
    ops = frozenset({"Tensor.expand", "Tensor.expand_as"})
    runtime = RuntimeClaim("RuntimeError",
                           r"must match the existing size \(\d+\) at non-singleton dimension|"
                           r"must be greater or equal to the number of dimensions in the tensor|"
                           r"isn't allowed in a leading, non-existing dimension")

    def visit(self, node: cst.Call, ctx: RuleContext) -> None:
        call = ctx.op_call(node)
        if call is None or call.has_star:
            return
        shape = _shape(call.receiver)
        if shape is None:
            return
        if call.op == "Tensor.expand_as":
            other = call.args.get(0, "other")
            target = _shape(other)
            if target is None:
                return
            sizes = [d if _known(d) else None for d in target]
            how = f"to {_subject(call.args.node(0, 'other'))} (shape {describe_shape(target)})"
        else:
            given = sizes_given(call)
            if not given:
                return  # unknown, or x.expand() (a TypeError)
            sizes = given
            how = f"to {describe_shape(tuple(sizes))}"
        found = expand_problem(shape, sizes)
        if found is None:
            return
        what, torch_says = found
        described, origin = describe_input(call.receiver, ctx)  # type: ignore[arg-type]
        self.report(node, f"`{call.label}` of {_subject(call.receiver_node)} ({described}) {how}: {what}; "
                          f"torch raises \"{torch_says}\"", origin=origin)
