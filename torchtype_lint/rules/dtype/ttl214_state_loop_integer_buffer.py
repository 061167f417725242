"""TTL214 state-loop-integer-buffer: a loop over every state entry of a model with BatchNorm
applies a float-only in-place op to its int64 ``num_batches_tracked`` buffer too."""
from __future__ import annotations

from dataclasses import replace
from typing import Any, List, Optional, Tuple

import libcst as cst

from ...model.values import InstanceValue, ModuleValue, Origin, ScalarValue, TensorValue, Value, is_floating
from ..base import RuntimeClaim, register
from ..context import RuleContext
from ..dtype_rule import DtypeRule
from ..source_edits import code
from ...knowledge.module_state import state_entries, structure
from .state_dict_loops import StateLoop, alias_key, entry_loops, is_entry, state_loop, unconditional_statements

#: In-place methods that fail on an int64 tensor whatever their arguments.
_FLOAT_ONLY_METHODS = {"normal_", "uniform_", "log_normal_", "exponential_", "cauchy_", "lerp_",
                       "div_", "true_divide_"}
#: In-place arithmetic that fails on an int64 tensor given a float operand.
_ARITHMETIC_METHODS = {"mul_", "add_", "sub_"}
#: Functions that fail on an int64 tensor passed first.
_FLOAT_ONLY_FUNCTIONS = {"torch.nn.init.normal_", "torch.nn.init.uniform_", "torch.nn.init.trunc_normal_",
                         "torch.randn_like", "torch.rand_like"}
#: Augmented assignments that fail on an int64 target: ``/=`` always, the others with a float.
_AUG_ALWAYS = (cst.DivideAssign,)
_AUG_WITH_FLOAT = (cst.MultiplyAssign, cst.AddAssign, cst.SubtractAssign)
#: The BatchNorm layers that keep ``num_batches_tracked`` (unless track_running_stats=False).
_BATCHNORMS = {"BatchNorm1d", "BatchNorm2d", "BatchNorm3d", "SyncBatchNorm"}


@register
class StateLoopIntegerBuffer(DtypeRule):
    """
    ## What it does
    Flags a loop over every entry of a model's state (`model.state_dict().items()`,
    `.values()`, `for k in sd: sd[k]`, `model.buffers()`) that applies a float-only in-place
    operation to each entry, when the model holds a BatchNorm layer: `v.normal_()`,
    `v.uniform_()`, `v.mul_(0.5)`, `v.add_(noise)`, `sd[k] /= n`, `nn.init.normal_(v)`,
    `torch.randn_like(v)`. The entries may reach the loop through a list kept for later
    (`self.ema_params = list(ema.state_dict().values())`, then
    `for p, q in zip(self.params, self.ema_params):` in another method), `enumerate` or
    `zip` over the states of models of one structure; a comprehension that filters the
    entries, or a `zip` with a shorter list, is not such a loop.

    ## Why is this bad?
    Every BatchNorm layer (with the default `track_running_stats=True`) keeps an int64 buffer,
    `num_batches_tracked`, in its state. The loop reaches it after the float entries and torch
    raises: `NotImplementedError: "normal_kernel_cpu" not implemented for 'Long'`,
    `RuntimeError: result type Float can't be cast to the desired output type Long` (weight
    averaging, `w_avg[k] /= n`; EMA updates, `v.mul_(decay)`).

    ## Example
    ```python
    model = nn.Sequential(nn.Linear(4, 4), nn.BatchNorm1d(4))
    for name, v in model.state_dict().items():
        v.mul_(0.5)
    ```

    ## Use instead
    ```python
    for name, v in model.state_dict().items():
        if v.dtype.is_floating_point:
            v.mul_(0.5)
    ```
    """

    code = "TTL214"
    name = "state-loop-integer-buffer"
    summary = "float-only in-place op applied to every state entry, BatchNorm's int64 counter included"
    severity = "error"
    listens = (cst.For,)
    runtime = RuntimeClaim("RuntimeError", r"not implemented for 'Long'|can't be cast to the desired output "
                                           r"type Long|must be a floating point|must not be a floating point")

    def visit(self, node: Any, ctx: RuleContext) -> None:
        function = ctx.function_node
        scope = list(function.body.body) if function is not None and isinstance(
            function.body, cst.IndentedBlock) else list(ctx.module.body)
        loop = state_loop(node, scope)
        if loop is not None:
            self._judge(node, ctx, [(loop, ctx.value(loop.module), f"`{code(loop.module, 30)}`'s state")])
            return
        # the state reached the loop through names, attributes, list(...), zip(...): the values
        self._judge(node, ctx, [(StateLoop(None, name, None, None, node.body), origin.module,
                                 f"`{code(origin.node, 40)}`") for name, origin in entry_loops(node, ctx)])

    def _judge(self, node: cst.For, ctx: RuleContext, loops: List[Tuple[StateLoop, Value, str]]) -> None:
        """Report the first unconditional statement of the loop that fails on an int64 entry
        (of any of ``loops``: the names one iteration binds to entries, with their module and
        how a message names their state)."""
        judged = []
        for loop, owner, state in loops:
            batchnorm = tracked_batchnorm(owner)
            if batchnorm is not None and not (isinstance(owner, InstanceValue) and _overrides_state(owner)):
                judged.append([loop, batchnorm, state, owner])
        if not judged:
            return  # no BatchNorm's state here: the walk of the body (most of this rule's cost) is not needed
        for small in unconditional_statements(node.body, ctx.known_truth):
            for entry in list(judged):
                loop, batchnorm, state, owner = entry
                if isinstance(small, cst.Assign):
                    targets = [t.target for t in small.targets]
                    if any(is_entry(t, replace(loop, aliases=frozenset())) for t in targets):
                        judged.remove(entry)  # sd[k] = sd[k].float(): maybe no longer int64
                        continue
                    # diff[k] = v - other.state_dict()[k]: another tensor of the entry's dtype
                    keys = [alias_key(t, loop) for t in targets]
                    derived = len(keys) == 1 and keys[0] is not None and _keeps_dtype(small.value, loop, owner, ctx)
                    aliases = loop.aliases - set(keys) | ({keys[0]} if derived else set())
                    if aliases != loop.aliases:
                        entry[0] = loop = replace(loop, aliases=frozenset(aliases))
                failing = _failing_use(small, loop, ctx)
                if failing is not None:
                    self._report(ctx, failing, batchnorm, state)
                    return

    def _report(self, ctx: RuleContext, failing: Any, batchnorm: ModuleValue, state: str) -> None:
        where = batchnorm.origin.node if batchnorm.origin is not None else None
        layer = f"`{code(where, 40)}`" if where is not None else "a BatchNorm layer"
        self.flag(ctx, failing,
                  f"this loop visits every entry of {state}, and {layer} "
                  f"keeps an int64 `num_batches_tracked` buffer there: `{code(failing, 40)}` raises on it "
                  "(an operation only float tensors support, on a Long tensor); skip integer entries "
                  "(`if v.dtype.is_floating_point:`)",
                  origin=Origin(where, "BatchNorm's num_batches_tracked is int64") if where else None)


def tracked_batchnorm(module: Value, seen: Optional[set] = None) -> Optional[ModuleValue]:
    """A BatchNorm layer in ``module`` (itself, a container's child, a model's attribute) that
    keeps ``num_batches_tracked``, or None."""
    seen = set() if seen is None else seen
    if id(module) in seen:
        return None
    seen.add(id(module))
    if isinstance(module, ModuleValue):
        if module.short_name in _BATCHNORMS:
            return module if _tracks_stats(module) else None
        parts: List[Value] = list(module.children)
    elif isinstance(module, InstanceValue):
        parts = list(module.attrs.values())
    else:
        return None
    for part in parts:
        found = tracked_batchnorm(part, seen)
        if found is not None:
            return found
    return None


def _tracks_stats(module: ModuleValue) -> bool:
    """False when the construction passed ``track_running_stats`` (no counter, or unknown)."""
    call = module.origin.node if module.origin is not None else None
    if not isinstance(call, cst.Call):
        return False  # not built here: how it was configured is unknown
    return not any(arg.keyword is not None and arg.keyword.value == "track_running_stats" or arg.star
                   for arg in call.args)


def _overrides_state(instance: InstanceValue) -> bool:
    return any(name in instance.cls.methods for name in ("state_dict", "buffers", "named_buffers"))


def _failing_use(small: Any, loop: StateLoop, ctx: RuleContext) -> Optional[Any]:
    """The node of ``small`` that fails on an int64 entry, or None."""
    if isinstance(small, cst.AugAssign) and is_entry(small.target, loop):
        if isinstance(small.operator, _AUG_ALWAYS) or (
                isinstance(small.operator, _AUG_WITH_FLOAT) and _floating(small.value, ctx, loop)):
            return small
    for call in _calls(small):
        func = call.func
        if isinstance(func, cst.Attribute) and is_entry(func.value, loop):
            method = func.attr.value
            if method in ("div_", "true_divide_") and any(
                    a.keyword is not None and a.keyword.value == "rounding_mode" for a in call.args):
                continue  # floor / trunc division keeps integers
            if method in _FLOAT_ONLY_METHODS:
                return call
            if method in _ARITHMETIC_METHODS and call.args and (
                    _floating(call.args[0].value, ctx, loop) or any(
                        a.keyword is not None and a.keyword.value == "alpha" and _is_float(ctx.value(a.value))
                        for a in call.args)):
                return call
        callee = ctx.callee(call)
        if callee is not None and callee.kind == "symbol" and callee.name in _FLOAT_ONLY_FUNCTIONS and \
                call.args and call.args[0].keyword is None and is_entry(call.args[0].value, loop):
            return call
    return None


#: Tensor methods whose result has the tensor's dtype (a copy, the same values elsewhere).
_SAME_DTYPE_METHODS = ("clone", "detach", "cpu", "contiguous")
#: Operators that keep an int64 tensor int64 with another int64 tensor or a Python int.
_INTEGRAL_OPERATORS = (cst.Add, cst.Subtract, cst.Multiply)


def _keeps_dtype(node: Any, loop: StateLoop, owner: Value, ctx: RuleContext, depth: int = 0) -> bool:
    """Is ``node`` int64 whenever the loop's entry is the int64 counter? The entry itself (or a
    name made from it), a copy of it (``v.clone()``), or a sum, difference or product of such
    values with Python ints and with the entry of the same key in the state of a module of the
    same structure (``v - global_model.state_dict()[k]``: the other model's counter)."""
    if depth > 4:
        return False
    if is_entry(node, loop):
        return True
    if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and \
            node.func.attr.value in _SAME_DTYPE_METHODS and not node.args:
        return _keeps_dtype(node.func.value, loop, owner, ctx, depth + 1)
    if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, _INTEGRAL_OPERATORS):
        sides = (node.left, node.right)
        made = [_keeps_dtype(side, loop, owner, ctx, depth + 1) for side in sides]
        return any(made) and all(known or _python_int(ctx.value(side)) or _same_entry_elsewhere(side, loop, owner, ctx)
                                 for side, known in zip(sides, made))
    return False


def _python_int(value: Value) -> bool:
    return isinstance(value, ScalarValue) and value.pytype in ("int", "bool")


def _same_entry_elsewhere(node: Any, loop: StateLoop, owner: Value, ctx: RuleContext) -> bool:
    """``other.state_dict()[k]`` (or ``sd[k]`` of a name holding one) with the loop's key, where
    ``other`` has the structure of the module whose entries the loop visits: the same entry
    there, of the same dtype."""
    if not (isinstance(node, cst.Subscript) and len(node.slice) == 1 and isinstance(node.slice[0].slice, cst.Index)):
        return False
    key = node.slice[0].slice.value
    if loop.key_name is None or not isinstance(key, cst.Name) or key.value != loop.key_name:
        return False
    origin = state_entries(ctx.value(node.value))
    if origin is None:
        return False
    mine = structure(owner)
    return mine is not None and structure(origin.module) == mine


def _floating(node: Any, ctx: RuleContext, loop: StateLoop, depth: int = 0) -> bool:
    """Is the expression floating whatever its tensors' dtypes: a float value, a true division,
    a product, sum or difference with a Python float (an int64 tensor times 0.5 is float32), or
    a name the loop body assigns one of those?"""
    if _is_float(ctx.value(node)):
        return True
    if depth > 3:
        return False
    if isinstance(node, cst.BinaryOperation):
        if isinstance(node.operator, cst.Divide):
            return True  # true division always gives floats
        if isinstance(node.operator, (cst.Multiply, cst.Add, cst.Subtract)):
            return any(_is_python_float(ctx.value(side)) or _floating(side, ctx, loop, depth + 1)
                       for side in (node.left, node.right))
    if isinstance(node, cst.Call) and node.args:
        callee = ctx.callee(node)
        name = callee.name if callee is not None and callee.kind == "symbol" else ""
        if name in ("torch.div", "torch.true_divide") and not any(
                a.keyword is not None and a.keyword.value == "rounding_mode" for a in node.args):
            return True
        if name in ("torch.mul", "torch.add", "torch.sub"):
            return any(_is_python_float(ctx.value(a.value)) or _floating(a.value, ctx, loop, depth + 1)
                       for a in node.args if a.keyword is None)
    if isinstance(node, cst.Name) and loop.body is not None:
        found = [s.value for s in unconditional_statements(loop.body, ctx.known_truth)
                 if isinstance(s, cst.Assign) and len(s.targets) == 1
                 and isinstance(s.targets[0].target, cst.Name) and s.targets[0].target.value == node.value]
        return len(found) == 1 and _floating(found[0], ctx, loop, depth + 1)
    return False


def _is_python_float(value: Value) -> bool:
    return isinstance(value, ScalarValue) and value.pytype == "float"


def _is_float(value: Value) -> bool:
    """A Python float or a tensor that is floating whatever its dtype: an int64 target cannot
    hold the result."""
    if isinstance(value, ScalarValue):
        return value.pytype == "float"
    return isinstance(value, TensorValue) and value.dtypes is not None and bool(value.dtypes) and all(
        is_floating(d) for d in value.dtypes)


def _calls(node: Any) -> List[cst.Call]:
    """The calls in ``node``, outermost first (not inside lambdas)."""
    found: List[cst.Call] = []

    class _Collector(cst.CSTVisitor):
        def visit_Call(self, call: cst.Call) -> None:
            found.append(call)

        def visit_Lambda(self, _node: cst.Lambda) -> bool:
            return False

    node.visit(_Collector())
    return found
