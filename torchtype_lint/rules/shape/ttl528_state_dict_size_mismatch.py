"""TTL528 state-dict-size-mismatch: ``model.load_state_dict(sd)`` of a state dict taken from
another module, one of whose entries has a shape the module's own entry of that name does not."""
from __future__ import annotations

from typing import Any, Iterable, Optional, Set

import libcst as cst

from ...knowledge.module_state import (
    KEYS, StateEntriesOrigin, loads_with_size_mismatch, size_mismatch_message, state_entries, state_shapes,
)
from ...model.values import InstanceValue, ModuleValue, Origin, SequenceValue, Value, describe_shape
from ..base import Rule, RuntimeClaim, expr_text, register
from ..context import RuleContext

#: Dict methods that only read.
_READING_METHODS = frozenset({"get", "keys", "values", "items", "copy", "__contains__", "__getitem__", "__len__"})
#: Library calls that read what they are given and change none of it.
_READING_CALLS = frozenset({
    "torch.save", "builtins.print", "builtins.len", "builtins.isinstance", "builtins.list", "builtins.sorted",
    "builtins.dict", "builtins.tuple", "builtins.set", "builtins.iter", "builtins.enumerate", "builtins.zip",
    "builtins.repr", "builtins.str", "copy.deepcopy", "copy.copy", "collections.OrderedDict",
})
#: Words of the file that mean the names or shapes of a module's state may change in ways not
#: followed: load hooks, parametrisations (``weight_norm`` keeps ``weight_g``/``weight_v``),
#: pruning (``weight_orig``), fused or quantized modules.
_STATE_CHANGERS = ("state_dict_pre_hook", "_load_from_state_dict", "parametriz", "weight_norm", "spectral_norm",
                   "prune", "fuse_modules", "quantiz")
#: Exceptions a handler may name that catch the RuntimeError.
_CATCHING = frozenset({"RuntimeError", "Exception", "BaseException"})


class _Touched:
    """The ``model.state_dict()`` calls whose dicts the code changed or handed to code not
    followed (their entries may not be the ones taken any more), and the calls a ``try``
    guards."""

    def __init__(self) -> None:
        self.nodes: Set[Any] = set()
        self.guarded: Optional[Set[int]] = None


@register
class StateDictSizeMismatch(Rule):
    """
    ## What it does
    Flags `model.load_state_dict(state)` where `state` is the state dict of another module
    (`other.state_dict()`, kept as it is: stored in a checkpoint dict such as
    `{"model": net.state_dict(), "epoch": 3}` and read back by key, passed to a function, looked
    up in a loop over `ckpt.items()`) and an entry of the same name in both has another shape:
    the checkpoint's `fc.weight` is `(40, 512)` and the model's `(2, 512)`. Shapes come from the
    layers' constructor arguments (`nn.Linear`, the convolutions, `nn.BatchNorm*`,
    `nn.LayerNorm`, `nn.GroupNorm`, `nn.Embedding`) under the names `nn.Sequential`,
    `nn.ModuleList` and the attributes of the file's own `nn.Module` classes give them. A dict
    made another way (a comprehension that keeps only the entries whose shapes fit), changed
    in place (`del sd[k]`, `sd[k] = ...`, `sd.pop(k)`), or handed to code the linter does not
    follow is not judged; nor is a file with load hooks, parametrisations or pruning, nor a
    call inside a `try` that catches the error.

    ## Why is this bad?
    `load_state_dict` checks every entry it loads against the module's own and raises
    `RuntimeError: Error(s) in loading state_dict for Net: size mismatch for fc.weight:
    copying a param with shape torch.Size([40, 512]) from checkpoint, the shape in current
    model is torch.Size([2, 512])`, with `strict=False` too (`strict` only forgives missing and
    unexpected keys). The usual cause is a configuration changed between the run that saved
    the checkpoint and the one that resumes from it (the number of classes, a hidden size).

    ## Example
    ```python
    pretrained = Net(num_classes=40)
    model = Net(num_classes=2)
    model.load_state_dict(pretrained.state_dict())
    ```

    ## Use instead
    ```python
    pretrained = Net(num_classes=40)
    model = Net(num_classes=2)
    own = model.state_dict()
    model.load_state_dict(
        {k: v for k, v in pretrained.state_dict().items() if v.shape == own[k].shape}, strict=False
    )
    ```

    ## Fix safety
    No fix.
    """

    code = "TTL528"
    name = "state-dict-size-mismatch"
    summary = "load_state_dict of a state dict an entry of which has another shape than the module's"
    listens = (cst.Call, cst.Assign, cst.AugAssign, cst.AnnAssign, cst.Del)
    runtime = RuntimeClaim("RuntimeError", r"size mismatch for [\w.]+: copying a param with shape")

    def visit(self, node: Any, ctx: RuleContext) -> None:
        touched = ctx.state(_Touched)
        if not isinstance(node, cst.Call):
            for target in _subscript_targets(node):
                _touch(ctx.value(target.value), touched, 0)
            return
        callee = ctx.callee(node)
        func = node.func
        method = func.attr.value if isinstance(func, cst.Attribute) else None
        if method == "load_state_dict" and callee is not None and callee.kind == "method" and isinstance(
                callee.receiver, (ModuleValue, InstanceValue)):
            self._judge(node, callee.receiver, callee.args, ctx, touched)
            return
        if method == "load_state_dict":
            return  # another module's load reads the dict
        if callee is not None and callee.kind == "method" and isinstance(callee.receiver, SequenceValue):
            if method not in _READING_METHODS:
                _touch(callee.receiver, touched, 0)
        elif callee is None or callee.kind in ("unknown", "symbol") and callee.name not in _READING_CALLS:
            for arg in node.args:
                _touch(ctx.value(arg.value), touched, 0)

    def _judge(self, node: cst.Call, module: Value, args: Any, ctx: RuleContext, touched: _Touched) -> None:
        if args.has_star:
            return
        state = args.get(0, "state_dict")
        origin = state_entries(state)
        if origin is None or origin.gives != KEYS or not origin.shapes or origin.node in touched.nodes:
            return
        source = ctx.source or ""
        if any(word in source for word in _STATE_CHANGERS) or id(node) in _guarded(ctx, touched):
            return
        saved_shapes = dict(origin.shapes)
        for key, own in state_shapes(module).items():  # in the module's order, as torch lists them
            saved = saved_shapes.get(key)
            if saved is not None and loads_with_size_mismatch(saved, own):
                self._report(node, key, saved, own, origin, ctx)
                return

    def _report(self, node: cst.Call, key: str, saved: tuple, own: tuple, origin: StateEntriesOrigin,
                ctx: RuleContext) -> None:
        call = " ".join(expr_text(node, ctx.module).split())
        if len(call) > 60:
            call = call[:57] + "..."
        self.report(
            node,
            f"`{call}` loads `{key}` of shape {describe_shape(saved)} from a state dict taken {{origin}} into "
            f"a module whose `{key}` has shape {describe_shape(own)}: torch raises RuntimeError "
            f"(\"{size_mismatch_message(key, saved, own)}\"), with strict=False too; build the module with the "
            f"checkpoint's sizes, or load only the entries whose shapes match "
            f"(`{{k: v for k, v in sd.items() if v.shape == own[k].shape}}` with strict=False)",
            origin=Origin(origin.node, ""))


def _subscript_targets(node: Any) -> Iterable[cst.Subscript]:
    """The ``d[k]`` an assignment or ``del`` stores into or deletes."""
    targets = [t.target for t in node.targets] if isinstance(node, cst.Assign) else [node.target]
    out = []
    while targets:
        target = targets.pop()
        if isinstance(target, cst.Subscript):
            out.append(target)
        elif isinstance(target, (cst.Tuple, cst.List)):
            targets.extend(element.value for element in target.elements)
    return out


def _touch(value: Value, touched: _Touched, depth: int) -> None:
    """Every state dict ``value`` is or holds (a checkpoint dict, a list of them) is changed."""
    if not isinstance(value, SequenceValue) or depth > 3:
        return
    origin = state_entries(value)
    if origin is not None:
        touched.nodes.add(origin.node)
    for item in (value.items or ()) + (value.element,):
        _touch(item, touched, depth + 1)


def _guarded(ctx: RuleContext, touched: _Touched) -> Set[int]:
    """The calls of the file in the body of a ``try`` whose handlers may catch a RuntimeError."""
    if touched.guarded is None:
        touched.guarded = set()
        for body in _catching_bodies(ctx.module):
            touched.guarded.update(id(call) for call in _calls_in(body))
    return touched.guarded


def _catching_bodies(module: Any) -> Iterable[Any]:
    found = []

    class Finder(cst.CSTVisitor):
        def visit_Try(self, node: cst.Try) -> None:
            if any(_catches(handler.type) for handler in node.handlers):
                found.append(node.body)

    if isinstance(module, cst.Module):
        module.visit(Finder())
    return found


def _catches(kind: Any) -> bool:
    if kind is None:
        return True
    if isinstance(kind, cst.Tuple):
        return any(_catches(element.value) for element in kind.elements)
    name = kind.attr.value if isinstance(kind, cst.Attribute) else kind.value if isinstance(kind, cst.Name) else None
    return name is None or name in _CATCHING


def _calls_in(body: Any) -> Iterable[cst.Call]:
    calls = []

    class Finder(cst.CSTVisitor):
        def visit_Call(self, node: cst.Call) -> None:
            calls.append(node)

    body.visit(Finder())
    return calls
