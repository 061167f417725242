"""TTL509 reshape-element-count: the rule, with the helpers only it uses."""
from __future__ import annotations

from typing import Any, Optional, Sequence, Tuple

import libcst as cst

from ...knowledge import shapes as S
from ...knowledge.torch_api import int_const, shape_from_size_args
from ...model.values import ScalarValue, SequenceValue, TensorValue, Value, numel
from ..base import Rule, RuntimeClaim, register
from .dim_arguments import ints_of, tensor_argument
from .known import _known, _shape
from .layer_chain import track_layer_chain
from .messages import _subject, describe_input
from ..context import RuleContext


def two_inferred(target: Sequence[Any]) -> bool:
    """A second -1 in a shape torch reads from the left, every size before it a valid known
    one: torch stops at it with "only one dimension can be inferred", whatever the tensor."""
    inferred = 0
    for d in target:
        if not _known(d) or d < -1:
            return False
        inferred += d == -1
        if inferred == 2:
            return True
    return False


def reshape_problem(src: Optional[Tuple[Any, ...]], target: Tuple[Any, ...]) -> Optional[str]:
    """Why viewing ``src`` as ``target`` fails: two -1s (whatever ``src`` is), or element
    counts that cannot match when both are known."""
    if two_inferred(target):
        return "only one size can be -1 (only one dimension can be inferred)"
    if src is None:
        return None
    total = numel(src)
    if total is None or any(not _known(d) for d in target):
        return None
    if any(d < -1 for d in target) or list(target).count(-1) > 1:
        return None
    rest = 1
    for d in target:
        if d != -1:
            rest *= d
    if -1 in target:
        if rest == 0 or total % rest == 0:
            return None
        return f"{total} elements cannot be split into rows of {rest} (the -1 has no integer solution)"
    if rest != total:
        return f"the new shape holds {rest} elements, the tensor has {total}"
    return None


@register
class ReshapeElementCount(Rule):
    """
    ## What it does
    Flags `x.view(...)`, `x.reshape(...)` and `torch.reshape(x, ...)` to a shape of known
    constants whose element count cannot match the tensor's known element count
    (with one `-1`: when the other sizes do not divide it), a shape with two `-1`s (whatever
    the tensor), and `x.unflatten(dim, sizes)` / `torch.unflatten` whose sizes cannot
    multiply up to the size of that dim.

    ## Why is this bad?
    The call fails with `shape '[3, 5]' is invalid for input of size 12` (`only one
    dimension can be inferred` for two `-1`s, `unflatten: Provided sizes [2, 2] don't
    multiply up to the size of dim 1 (3)`). In models this is typically a hard-coded
    `x.view(-1, 16 * 5 * 5)` after conv layers whose output size changed with the input
    resolution.

    ## Example
    ```python
    x = torch.randn(4, 16, 4, 4)
    flat = x.view(-1, 16 * 5 * 5)
    ```

    ## Use instead
    ```python
    flat = x.flatten(1)  # (4, 256), whatever the spatial size
    ```

    ## Fix safety
    No fix.
    """

    code = "TTL509"
    name = "reshape-element-count"
    summary = "view/reshape to a shape whose element count cannot match the tensor's"
    listens = (cst.Call,)
    call_trackers = (track_layer_chain,)  # its messages name where the reshaped chain started
    runtime = RuntimeClaim("RuntimeError", r"shape '\[[-0-9, ]+\]' is invalid for input of size \d+|"
                                           r"only one dimension can be inferred|don't multiply up to the size of dim")

    def visit(self, node: cst.Call, ctx: RuleContext) -> None:
        callee = ctx.callee(node)
        if callee is None or callee.args.has_star:
            return
        call = ctx.op_call(node)
        if call is not None and call.op == "torch.unflatten":
            self._unflatten(node, call, ctx)
            return
        if callee.kind == "method" and callee.name in ("view", "reshape") and isinstance(callee.receiver, TensorValue):
            x = callee.receiver
            x_node = node.func.value if isinstance(node.func, cst.Attribute) else None
            if callee.args.pos and not isinstance(callee.args.pos[0], (ScalarValue, SequenceValue)):
                return  # x.view(dtype) and friends
            target = shape_from_size_args(callee.args, 0, "shape") if callee.args.pos or "shape" in callee.args.kw else None
        elif callee.kind == "symbol" and callee.name == "torch.reshape":
            x = callee.args.get(0, "input")
            x_node = callee.args.node(0, "input")
            target = _shape_arg(callee.args.get(1, "shape"))
        else:
            return
        if not isinstance(x, TensorValue) or target is None:
            return
        src = _shape(x)
        problem = reshape_problem(src, tuple(target))
        if problem is None:
            return
        described, origin = describe_input(x, ctx) if src is not None else ("", None)
        self.report(node, f"cannot view {_subject(x_node)}{f' ({described})' if described else ''} as "
                          f"[{', '.join('?' if d is None else str(d) for d in target)}]: {problem}", origin=origin)

    def _unflatten(self, node: cst.Call, call: Any, ctx: RuleContext) -> None:
        x, x_node = tensor_argument(call)
        shape = _shape(x)
        dim = int_const(call.arg("dim"))
        sizes = ints_of(call.arg("sizes"))
        if shape is None or not shape or dim is None or sizes is None or not S.dim_in_range(dim, len(shape)):
            return  # unknown, 0-d (torch words that otherwise) or a dim out of range (TTL517)
        problem = unflatten_problem(shape[dim], dim % len(shape), sizes)
        if problem is None:
            return
        described, origin = describe_input(x, ctx)  # type: ignore[arg-type]
        self.report(node, f"cannot unflatten dim {dim} of {_subject(x_node)} ({described}) into "
                          f"[{', '.join(str(d) for d in sizes)}]: {problem}", origin=origin)


def unflatten_problem(size: Any, dim: int, sizes: Sequence[Any]) -> Optional[str]:
    """Why ``x.unflatten(dim, sizes)`` fails on a dim of ``size``: two -1s, or sizes whose
    product cannot be the dim's size (with one -1: does not divide it)."""
    if not sizes or any(not _known(d) or d < -1 for d in sizes):
        return None
    if two_inferred(sizes):
        return "only one size can be -1 (only one dimension can be inferred)"
    if not _known(size):
        return None
    rest = 1
    for d in sizes:
        if d != -1:
            rest *= d
    if -1 in sizes:
        if rest == 0 and size == 0:
            return None  # the -1 could be anything: another error, worded otherwise
        fits = rest != 0 and size % rest == 0
    else:
        fits = rest == size
    if fits:
        return None
    listed = ", ".join(str(d) for d in sizes)
    return f"Provided sizes [{listed}] don't multiply up to the size of dim {dim} ({size})"


def _shape_arg(value: Value) -> Optional[Tuple[Any, ...]]:
    if isinstance(value, SequenceValue) and value.items is not None:
        return tuple(int_const(v) for v in value.items)
    return None
