"""TTL509 reshape-element-count: the rule, with the helpers only it uses."""
from __future__ import annotations

from typing import Any, Optional, Tuple

import libcst as cst

from ...knowledge.torch_api import int_const, shape_from_size_args
from ...values import ScalarValue, SequenceValue, TensorValue, Value, numel
from ..base import Rule, RuntimeClaim, register
from .known import _known, _shape
from .layer_chain import track_layer_chain
from .messages import _subject, describe_input
from ..context import RuleContext


def reshape_problem(src: Tuple[Any, ...], target: Tuple[Any, ...]) -> Optional[str]:
    """Why viewing ``src`` as ``target`` fails, when both element counts are known."""
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
    (with one `-1`: when the other sizes do not divide it).

    ## Why is this bad?
    The call fails with `shape '[3, 5]' is invalid for input of size 12`. In models this
    is typically a hard-coded `x.view(-1, 16 * 5 * 5)` after conv layers whose output
    size changed with the input resolution.

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
    runtime = RuntimeClaim("RuntimeError", r"shape '\[[-0-9, ]+\]' is invalid for input of size \d+")

    def visit(self, node: cst.Call, ctx: RuleContext) -> None:
        track_layer_chain(node, ctx)
        callee = ctx.callee(node)
        if callee is None or callee.args.has_star:
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
        src = _shape(x)
        if src is None or target is None:
            return
        problem = reshape_problem(src, tuple(target))
        if problem is None:
            return
        described, origin = describe_input(x, ctx)  # type: ignore[arg-type]
        self.report(node, f"cannot view {_subject(x_node)} ({described}) as "
                          f"[{', '.join(str(d) for d in target)}]: {problem}", origin=origin)


def _shape_arg(value: Value) -> Optional[Tuple[Any, ...]]:
    if isinstance(value, SequenceValue) and value.items is not None:
        return tuple(int_const(v) for v in value.items)
    return None
