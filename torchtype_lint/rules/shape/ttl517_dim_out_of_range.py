"""TTL517 dim-out-of-range: the rule, with the helpers only it uses."""
from __future__ import annotations

from typing import Any, List, Optional, Tuple

import libcst as cst

from ...knowledge import shapes as S
from ...knowledge.dim_args import DIM_OPS, OUT_OF_RANGE, SEQUENTIAL_DIM_LISTS, DimParameters, first_list_problem
from ..base import Rule, RuntimeClaim, register
from ..context import RuleContext
from .dim_arguments import dims_given, tensor_argument
from .known import _shape
from .messages import _subject, describe_input


def out_of_range_dim(op: str, rank: int, dims: List[Tuple[str, List[Optional[int]]]]) -> Optional[str]:
    """What torch says about the first dim of ``dims`` ((parameter, dims given) pairs, the
    op's defaults filled in) that a ``rank``-dim tensor does not have; None when each known
    dim is valid or the failure is another rule's (a permute order of the wrong length)."""
    spec = DIM_OPS[op]
    if rank == 0 and spec.refuses_0d and not spec.range_first:
        return spec.refuses_0d
    if _length_decides_first(op, rank, dims):
        return None
    low, high = S.dim_range(rank, spec.extra)
    bad = _first_bad(dims, rank, spec, op)
    if bad is not None:
        return f"{OUT_OF_RANGE} (expected to be in range of [{low}, {high}], but got {bad[1]})"
    if rank == 0 and spec.refuses_0d:
        return spec.refuses_0d
    return None


def _length_decides_first(op: str, rank: int, dims: List[Tuple[str, List[Optional[int]]]]) -> bool:
    """torch checks a permute order's length, and movedim's source against destination,
    before the dims themselves (TTL518 reports those)."""
    if op == "torch.permute":
        return len(dims[0][1]) != rank
    if op in ("torch.movedim", "torch.moveaxis"):
        return len(dims[0][1]) != len(dims[1][1])
    return False


def dims_of(call: Any, spec: DimParameters) -> Optional[List[Tuple[str, List[Optional[int]]]]]:
    """(parameter, dims) for each dim parameter, defaults filled in; None when unknowable."""
    found = []
    for name in spec.names:
        given = dims_given(call, name)
        if given is None:
            return None
        if not given and not call.has_arg(name) and spec.default is not None:
            given = [spec.default]
        found.append((name, given))
    return found


@register
class DimOutOfRange(Rule):
    """
    ## What it does
    Flags shape ops given a dimension the tensor does not have: `chunk`, `split`, `unbind`,
    `movedim`/`moveaxis`, `transpose`/`swapdims`/`swapaxes`, `permute`, `squeeze`,
    `unsqueeze`, `flatten` and `unflatten` (functions, methods and in-place methods), when
    the tensor's rank is known. Negative dims count from the end; `unsqueeze` may also name
    the position after the last dim; a 0-d tensor takes 0 and -1 like a 1-d one, except in
    `chunk`, `split` and `unbind`, which need a dim to cut along.

    ## Why is this bad?
    torch raises `IndexError: Dimension out of range (expected to be in range of [-2, 1],
    but got 2)` (for `chunk`/`split` of a 0-d tensor: `chunk expects at least a
    1-dimensional tensor`). It usually means the tensor lost or never had a batch dim: a
    `transpose(1, 2)` written for `(batch, seq, features)` meets an unbatched `(seq,
    features)` tensor.

    ## Example
    ```python
    tokens = torch.randn(10, 64)  # (seq, features): no batch dim
    per_feature = tokens.transpose(1, 2)
    ```

    ## Use instead
    ```python
    per_feature = tokens.transpose(0, 1)  # or add the batch dim: tokens.unsqueeze(0)
    ```

    ## Fix safety
    No fix.
    """

    code = "TTL517"
    name = "dim-out-of-range"
    summary = "shape op given a dimension the tensor does not have"
    listens = (cst.Call,)
    ops = frozenset(DIM_OPS)
    # IndexError for a dim out of range; RuntimeError for chunk/split of a 0-d tensor.
    runtime = RuntimeClaim("Exception", r"Dimension out of range \(expected to be in range of|"
                                        r"Dimension specified as 0 but tensor has no dimensions|"
                                        r"expects at least a 1-dimensional tensor")

    def visit(self, node: cst.Call, ctx: RuleContext) -> None:
        call = ctx.op_call(node)
        if call is None or call.has_star:
            return
        x, x_node = tensor_argument(call)
        shape = _shape(x)
        if shape is None:
            return
        dims = dims_of(call, DIM_OPS[call.op])
        if dims is None:
            return
        torch_says = out_of_range_dim(call.op, len(shape), dims)
        if torch_says is None:
            return
        described, origin = describe_input(x, ctx)  # type: ignore[arg-type]
        subject = f"{_subject(x_node)}, a {len(shape)}-dim tensor ({described})"
        bad = _first_bad(dims, len(shape), DIM_OPS[call.op], call.op)
        what = (f"`{call.label}`: {bad[0]}={bad[1]} is out of range for {subject}" if bad is not None
                else f"`{call.label}` on {subject}: there is no dim to cut along")
        self.report(node, f"{what}; torch raises \"{torch_says}\"", origin=origin)


def _first_bad(dims: List[Tuple[str, List[Optional[int]]]], rank: int,
               spec: DimParameters, op: str) -> Optional[Tuple[str, int]]:
    """(parameter, dim) of the first dim out of range; None when a 0-d tensor is refused
    whatever the dim, or a list read one dim at a time fails first on a repeated one."""
    if rank == 0 and spec.refuses_0d and not spec.range_first:
        return None
    if op in SEQUENTIAL_DIM_LISTS:
        found = first_list_problem(dims[0][1], rank)
        return (dims[0][0], found[1]) if found is not None and found[0] == "range" else None
    low, high = S.dim_range(rank, spec.extra)
    for name, given in dims:
        for dim in given:
            if dim is not None and not low <= dim <= high:
                return name, dim
    return None
