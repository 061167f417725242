"""TTL526 view-non-contiguous: the rule, with the helpers only it uses."""
from __future__ import annotations

from typing import Any, List, Optional, Sequence, Tuple

import libcst as cst

from ...knowledge.layouts import channels_last_like, made_by, strides_of
from ...knowledge.torch_api import int_const, shape_from_size_args
from ...model.values import Origin, ScalarValue, SequenceValue, TensorValue, numel
from ..base import Rule, RuntimeClaim, expr_text, register
from ..context import RuleContext
from .known import _known, _shape
from .strides import contiguous_strides, permuted, view_strides

#: Calls whose result is a fresh contiguous tensor (no ``memory_format``, no ``_like``; not
#: cat/stack, which keep channels_last inputs' layout, nor from_numpy, which keeps the array's).
_FRESH = {"torch.randn", "torch.rand", "torch.zeros", "torch.ones", "torch.empty", "torch.full",
          "torch.arange", "torch.randint", "torch.linspace", "torch.matmul",
          "torch.bmm", "torch.mm"}
#: nn layers whose output is a fresh contiguous tensor whatever the input's layout.
_FRESH_LAYERS = {"Linear", "Embedding"}
#: Layers whose output keeps a contiguous input's (default) memory format.
_LAYOUT_KEEPING_LAYERS = {"Conv1d", "Conv2d", "Conv3d", "BatchNorm1d", "BatchNorm2d", "BatchNorm3d", "LayerNorm",
                          "ReLU", "LeakyReLU", "GELU", "Sigmoid", "Tanh", "Dropout", "MaxPool1d", "MaxPool2d",
                          "AvgPool1d", "AvgPool2d"}
#: Functions of one tensor whose result is contiguous when that tensor is.
_LAYOUT_KEEPING_FUNCTIONS = {"torch.relu", "torch.sigmoid", "torch.tanh", "torch.exp", "torch.softmax",
                             "torch.nn.functional.relu", "torch.nn.functional.gelu", "torch.nn.functional.softmax",
                             "torch.nn.functional.dropout", "torch.nn.functional.leaky_relu"}
#: Tensor methods whose result is contiguous when the tensor is (views of a contiguous tensor
#: in row-major order, casts and elementwise ops that keep its layout).
_LAYOUT_KEEPING_METHODS = {"view", "reshape", "flatten", "unsqueeze", "squeeze", "float", "half", "double",
                           "bfloat16", "to", "clone", "detach", "relu", "sigmoid", "tanh", "softmax", "exp"}
#: Methods that give a view of permuted dims.
_PERMUTING = {"t", "transpose", "swapaxes", "swapdims", "permute"}
#: How far back through ``name = ...`` statements the rule follows a value.
_DEPTH = 6


def _contains(tree: cst.CSTNode, target: cst.CSTNode) -> bool:
    """Whether ``target`` (by identity) is inside ``tree``."""
    found = []

    class _Find(cst.CSTVisitor):
        def on_visit(self, node: cst.CSTNode) -> bool:
            if node is target:
                found.append(node)
            return not found

    tree.visit(_Find())
    return bool(found)


def _may_rebind(stmt: cst.CSTNode, name: str) -> bool:
    """Whether the statement may bind ``name`` anew or change its layout in place: a compound
    statement that mentions it, a store to it, or an in-place method call on it (``x.t_()``);
    a plain read leaves it as it was."""
    nodes = _walk(stmt)
    if not any(isinstance(n, cst.Name) and n.value == name for n in nodes):
        return False
    if not isinstance(stmt, cst.SimpleStatementLine):
        return True
    for n in nodes:
        if isinstance(n, (cst.Assign, cst.AugAssign, cst.AnnAssign, cst.Del, cst.NamedExpr, cst.Global, cst.Nonlocal)):
            targets = [t.target for t in n.targets] if isinstance(n, cst.Assign) else \
                [getattr(n, "target", None) or getattr(n, "names", None)]
            if any(_names(t, name) for t in targets if t is not None):
                return True
        if (isinstance(n, cst.Attribute) and isinstance(n.value, cst.Name) and n.value.value == name
                and n.attr.value.endswith("_") and not n.attr.value.startswith("_")):
            return True  # x.transpose_(...), x.set_(...): the name keeps another layout
    return False


def _names(target: Any, name: str) -> bool:
    """Whether ``name`` is among the names an assignment target (or del/global list) binds."""
    if isinstance(target, (list, tuple)):
        return any(_names(t, name) for t in target)
    return any(isinstance(n, cst.Name) and n.value == name for n in _walk(target))


def _walk(tree: cst.CSTNode) -> List[cst.CSTNode]:
    out: List[cst.CSTNode] = []

    class _All(cst.CSTVisitor):
        def on_visit(self, node: cst.CSTNode) -> bool:
            out.append(node)
            return True

    tree.visit(_All())
    return out


def _block_of(body: Sequence[cst.CSTNode], node: cst.CSTNode) -> Optional[Tuple[Sequence[cst.CSTNode], int]]:
    """The innermost statement list holding ``node`` and the index of its statement there."""
    for i, stmt in enumerate(body):
        if not _contains(stmt, node):
            continue
        for block in _inner_blocks(stmt):
            inner = _block_of(block, node)
            if inner is not None:
                return inner
        return body, i
    return None


def _inner_blocks(stmt: cst.CSTNode) -> List[Sequence[cst.CSTNode]]:
    """The statement lists of a compound statement (if/for/while/with/try and their else)."""
    blocks: List[Sequence[cst.CSTNode]] = []
    for child in stmt.children:
        if isinstance(child, cst.IndentedBlock):
            blocks.append(child.body)
        elif isinstance(child, (cst.Else, cst.If, cst.ExceptHandler, cst.Finally)):
            blocks.extend(_inner_blocks(child))
    return blocks


def _definition(name: str, before: cst.CSTNode, ctx: RuleContext) -> Optional[cst.BaseExpression]:
    """The expression of the last ``name = <expr>`` before the statement holding ``before`` in
    the same statement list, when no statement between them mentions ``name`` (so it is the
    value on every path)."""
    scope = ctx.function_node
    body = scope.body.body if scope is not None and isinstance(scope.body, cst.IndentedBlock) else ctx.module.body
    found = _block_of(body, before)
    if found is None:
        return None
    block, index = found
    for stmt in reversed(block[:index]):
        if not _may_rebind(stmt, name):
            continue
        if not isinstance(stmt, cst.SimpleStatementLine) or len(stmt.body) != 1:
            return None
        assign = stmt.body[0]
        if (isinstance(assign, cst.Assign) and len(assign.targets) == 1
                and isinstance(assign.targets[0].target, cst.Name) and assign.targets[0].target.value == name):
            return assign.value
        return None  # another use or store of the name decides its layout
    return None


def _is_contiguous(expr: cst.BaseExpression, ctx: RuleContext, depth: int) -> bool:
    """Whether ``expr`` is a contiguous tensor on every path (a fresh tensor, a layer or matrix
    product output, ``.contiguous()``, or a name bound to one)."""
    if depth <= 0:
        return False
    if isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, cst.MatrixMultiply):
        return True  # matmul's result is a new tensor
    if isinstance(expr, cst.Name):
        bound = _definition(expr.value, expr, ctx)
        return bound is not None and _is_contiguous(bound, ctx, depth - 1)
    if not isinstance(expr, cst.Call):
        return False
    callee = ctx.callee(expr)
    if callee is None:
        return False
    if callee.kind == "symbol" and callee.name in _FRESH and "memory_format" not in callee.args.kw:
        return True
    if callee.kind == "symbol" and callee.name == "torch.tensor" and expr.args:
        return isinstance(expr.args[0].value, (cst.List, cst.Tuple))  # torch.tensor(t) keeps t's strides
    if callee.kind == "module" and getattr(callee.receiver, "short_name", None) in _FRESH_LAYERS:
        return True
    if callee.kind == "method" and callee.name == "contiguous":
        return not callee.args.pos and not callee.args.kw  # contiguous(memory_format=...) is another layout
    if "memory_format" in callee.args.kw or callee.args.has_star:
        return False
    if callee.kind == "method" and callee.name in _LAYOUT_KEEPING_METHODS and isinstance(expr.func, cst.Attribute):
        return _is_contiguous(expr.func.value, ctx, depth - 1)
    first = expr.args[0].value if expr.args and expr.args[0].keyword is None else None
    keeps = ((callee.kind == "module" and getattr(callee.receiver, "short_name", None) in _LAYOUT_KEEPING_LAYERS)
             or (callee.kind == "symbol" and callee.name in _LAYOUT_KEEPING_FUNCTIONS))
    return keeps and first is not None and _is_contiguous(first, ctx, depth - 1)


def _order(expr: cst.BaseExpression, rank: int, ctx: RuleContext) -> Optional[Tuple[cst.BaseExpression, List[int]]]:
    """(the tensor, the dim order) of a permuting view: ``x.t()``,
    ``x.transpose(i, j)``, ``x.permute(...)``, ``x.T``, ``x.mT``."""
    if isinstance(expr, cst.Attribute) and expr.attr.value in ("T", "mT"):
        order = list(range(rank))
        if expr.attr.value == "T":
            return expr.value, order[::-1]
        if rank < 2:
            return None
        order[-1], order[-2] = order[-2], order[-1]
        return expr.value, order
    if not isinstance(expr, cst.Call) or not isinstance(expr.func, cst.Attribute):
        return None
    callee = ctx.callee(expr)
    if callee is None or callee.kind != "method" or callee.name not in _PERMUTING or callee.args.has_star:
        return None
    order = list(range(rank))
    if callee.name == "t":
        order.reverse()  # t() of a 0-d or 1-d tensor is the tensor itself
        return expr.func.value, order
    if callee.name == "permute":
        items = callee.args.pos
        if len(items) == 1 and isinstance(items[0], SequenceValue):
            items = items[0].items or []
        dims = [int_const(v) for v in items]
        if len(dims) != rank or any(d is None for d in dims):
            return None
        dims = [d % rank for d in dims]
        return (expr.func.value, dims) if sorted(dims) == order else None
    a, b = int_const(callee.args.get(0, "dim0")), int_const(callee.args.get(1, "dim1"))
    if a is None or b is None or not (-rank <= a < rank and -rank <= b < rank):
        return None
    a, b = a % rank, b % rank
    order[a], order[b] = order[b], order[a]
    return expr.func.value, order


def _target(sizes: Sequence[Any], total: int) -> Optional[List[int]]:
    """The view's sizes with its -1 solved; None when one is unknown or they cannot fit."""
    if any(not _known(d) or d < -1 for d in sizes) or list(sizes).count(-1) > 1:
        return None
    rest = 1
    for d in sizes:
        rest *= d if d != -1 else 1
    if -1 in sizes:
        if rest == 0 or total % rest:
            return None
        return [total // rest if d == -1 else d for d in sizes]
    return list(sizes) if rest == total else None  # a count mismatch is TTL509's


@register
class ViewNonContiguous(Rule):
    """
    ## What it does
    Flags `x.view(...)` where the strides of `x` are known and the new shape cannot be laid
    over them: `x` is a transposed or permuted view (`.t()`, `.transpose(i, j)`, `.permute(...)`,
    `.T`, `.mT`), a slice that skips memory (`x[:, :4]`, rows of a transposed tensor), what an
    elementwise operation made of such a tensor (`pred.t().eq(target)` keeps the transposed
    order), the output of 2-D convolutions, batch norms and pools given a channels-last
    input, or a `batch_first` LSTM/GRU/RNN output on the CPU (the time-major result transposed
    back), however far back and through whatever calls: `narrow`, `select`, `chunk`/`split`/
    `unbind` pieces keep the strides, `torch.cat`, `repeat`, `F.pad`, `.contiguous()` and a
    time-major recurrent output start row-major again. The strides follow torch's own rules
    (TensorIterator's for elementwise results, `suggest_memory_format` for layers), so a `view`
    that only splits or keeps dims, or any view of a tensor of unknown layout, is silent. The
    message names the line whose operation gave the layout.

    ## Why is this bad?
    `view` never copies; on memory that is not laid out in the new shape's order it fails with
    `view size is not compatible with input tensor's size and stride (at least one dimension
    spans across two contiguous subspaces). Use .reshape(...) instead.` The classic case is
    merging attention heads after `transpose(1, 2)`.

    ## Example
    ```python
    heads = torch.randn(2, 4, 10, 8)  # (batch, heads, time, dim)
    merged = heads.transpose(1, 2).view(2, 10, 32)
    ```

    ## Use instead
    ```python
    merged = heads.transpose(1, 2).reshape(2, 10, 32)  # or .contiguous().view(2, 10, 32)
    ```

    ## Fix safety
    No fix.
    """

    code = "TTL526"
    name = "view-non-contiguous"
    summary = "view of a transposed or permuted tensor whose strides cannot take the new shape"
    listens = (cst.Call,)
    runtime = RuntimeClaim("RuntimeError", r"view size is not compatible with input tensor's size and stride")

    def visit(self, node: cst.Call, ctx: RuleContext) -> None:
        if not isinstance(node.func, cst.Attribute) or node.func.attr.value != "view":
            return
        callee = ctx.callee(node)
        if callee is None or callee.kind != "method" or not isinstance(callee.receiver, TensorValue):
            return
        if callee.args.has_star or (callee.args.pos and not isinstance(callee.args.pos[0], (ScalarValue, SequenceValue))):
            return  # x.view(dtype), or sizes not read
        shape = _shape(callee.receiver)
        if shape is None or any(not _known(d) for d in shape):
            return
        if self._known_layout(node, callee, tuple(shape), ctx):
            return
        receiver = node.func.value
        permuting = receiver
        if isinstance(receiver, cst.Name):
            permuting = _definition(receiver.value, node, ctx)  # the syntax search runs only here
            if permuting is None:
                return
        found = _order(permuting, len(shape), ctx)
        if found is None:
            return
        base, order = found
        base_shape = _shape(ctx.value(base))
        if base_shape is None or len(base_shape) != len(shape) or any(not _known(d) for d in base_shape):
            return
        if tuple(base_shape[d] for d in order) != tuple(shape) or not _is_contiguous(base, ctx, _DEPTH):
            return  # the engine and the syntax disagree, or the base's own layout is unknown
        sizes = shape_from_size_args(callee.args, 0, "shape")
        total = numel(shape)
        target = _target(sizes, total) if sizes is not None and total else None
        if target is None:
            return
        view_shape, strides = permuted(base_shape, contiguous_strides(base_shape), order)
        if view_strides(view_shape, strides, target) is not None:
            return
        text = " ".join(expr_text(permuting).split())
        text = text if len(text) <= 50 else text[:47] + "..."
        subject = f"`{text}`" if permuting is receiver else f"`{receiver.value}` (`{text}`)"
        self.report(node, f"{subject} is a permuted view of shape {tuple(shape)}, not contiguous: `view` cannot "
                          f"lay it out as [{', '.join(str(d) for d in sizes)}] without a copy and torch raises "
                          f"RuntimeError (view size is not compatible with input tensor's size and stride); "
                          f"use `.reshape(...)`, or `.contiguous()` before `.view`")

    def _known_layout(self, node: cst.Call, callee: Any, shape: Tuple[int, ...], ctx: RuleContext) -> bool:
        """Judge the view by the receiver's strides where the engine knows them (a transpose,
        a slice, an elementwise result or a channels-last layer output, however far back and
        through whatever calls): True when that decided it (reported or fine)."""
        strides = strides_of(callee.receiver)
        if strides is None:
            return False
        sizes = shape_from_size_args(callee.args, 0, "shape")
        total = numel(shape)
        target = _target(sizes, total) if sizes is not None and total else None
        if target is None:
            return False
        if view_strides(shape, strides, target) is not None:
            return True
        maker = made_by(callee.receiver)
        receiver = _short(node.func.value)
        how, origin = "", None
        if maker is not None and _short(maker) != receiver:
            how, origin = " (its layout {origin})", Origin(maker)  # "since line N: `x.transpose(0, 1)`"
        kind = "channels-last strides" if channels_last_like(shape, strides) else "strides"
        shown = "(" + ", ".join("?" if stride is None else str(stride) for stride in strides) + \
            ("," if len(strides) == 1 else "") + ")"  # a size-1 dim's stride may be unknown
        self.report(node, f"`{receiver}` of shape {tuple(shape)} has {kind} {shown}{how}, not contiguous: "
                          f"`view` cannot lay it out as [{', '.join(str(d) for d in sizes)}] without a copy and "
                          f"torch raises RuntimeError (view size is not compatible with input tensor's size and "
                          f"stride); use `.reshape(...)`, or `.contiguous()` before `.view`", origin)
        return True


def _short(node: Any) -> str:
    text = " ".join(expr_text(node).split())
    return text if len(text) <= 50 else text[:47] + "..."
