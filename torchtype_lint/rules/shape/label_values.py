"""The exact element values of an integer tensor or array the code spells out, each one certainly
present: ``torch.arange(n) % k``, ``torch.tensor([0, 3, 7])``, ``list(range(k))``,
``[i % k for i in range(n)]``, ``np.arange(a, b)``, ``torch.full((n,), k)``, and what keeps every
element (``.long()``, ``.to(device)``, ``.view(-1)``, ``+``/``-``/``*``/``//``/``%`` by a known int,
``torch.cat`` of such parts).

A fact that holds for every run: the values come from the code, not from the data. Random
labels (``torch.randint``, ``rng.integers``) only have bounds, and no value is certainly drawn:
they have no exact values here. Names are followed to their one binding in their scope (a plain
``name = expr`` at the top level of the function or module, before the use, never rebound nor
changed in place); anything else gives None ("not known").
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Dict, FrozenSet, Iterator, List, Optional, Set, Tuple

import libcst as cst

from ...model.values import ScalarValue, TensorValue, ArrayValue
from ..context import RuleContext

#: The most elements a value set is computed for (a label tensor is small; a range is not).
_LIMIT = 200_000
_DEPTH = 12

_ARANGES = frozenset({"torch.arange", "numpy.arange", "builtins.range"})
_WRAPPERS = frozenset({"torch.tensor", "torch.as_tensor", "torch.LongTensor", "torch.IntTensor", "torch.from_numpy",
                       "numpy.array", "numpy.asarray", "builtins.list", "builtins.tuple", "torch.Tensor.long"})
_FULLS = frozenset({"torch.full", "numpy.full"})
_ZEROS = {"torch.zeros": 0, "numpy.zeros": 0, "torch.ones": 1, "numpy.ones": 1}
_CATS = frozenset({"torch.cat", "torch.concat", "torch.concatenate", "numpy.concatenate", "numpy.hstack"})
#: Methods whose result holds every element of the receiver and nothing else.
_KEEPING_METHODS = frozenset({"long", "int", "short", "to", "cuda", "cpu", "clone", "contiguous", "detach", "numpy",
                              "flatten", "ravel", "view", "reshape", "astype", "type", "squeeze", "unsqueeze", "t",
                              "tolist", "copy", "expand", "flip", "sort", "permute", "transpose", "T"})
_KEYWORDS_KEPT = frozenset({"dtype", "device", "requires_grad", "non_blocking", "copy"})


@dataclass(frozen=True)
class LabelValues:
    """``values``: every element of the tensor, each present at least once; ``node``: the
    expression that built them (for messages)."""

    values: FrozenSet[int]
    node: Any


class _Parents:
    """Each node's parent in the file (computed once per analysis, on first use)."""

    def __init__(self) -> None:
        self.module: Any = None
        self.parent: Dict[int, Any] = {}

    def of(self, module: Any, node: Any) -> Any:
        if self.module is not module:
            self.module, self.parent = module, {}
            stack = [module]
            while stack:
                current = stack.pop()
                for child in current.children:
                    self.parent[id(child)] = current
                    stack.append(child)
        return self.parent.get(id(node))


def parent_of(ctx: RuleContext, node: Any) -> Any:
    return ctx.state(_Parents).of(ctx.module, node)


def ancestors(ctx: RuleContext, node: Any) -> Iterator[Any]:
    current = parent_of(ctx, node)
    while current is not None:
        yield current
        current = parent_of(ctx, current)


def _scope_of(ctx: RuleContext, node: Any) -> Tuple[Any, Any]:
    """(scope node, the top-level statement of its body holding ``node``): the nearest function
    or the module; (None, None) inside a class body, lambda or comprehension."""
    statement = node
    for up in ancestors(ctx, node):
        if isinstance(up, (cst.Lambda, cst.ClassDef, cst.ListComp, cst.SetComp, cst.GeneratorExp, cst.DictComp)):
            return None, None
        if isinstance(up, cst.FunctionDef):
            return up, statement
        if isinstance(up, cst.Module):
            return up, statement
        if isinstance(up, (cst.IndentedBlock,)) and isinstance(parent_of(ctx, up), cst.FunctionDef):
            continue
        statement = up
    return None, None


def _body(scope: Any) -> List[Any]:
    if isinstance(scope, cst.Module):
        return list(scope.body)
    body = scope.body
    return list(body.body) if isinstance(body, cst.IndentedBlock) else []


def _walk_scope(node: Any) -> Iterator[Any]:
    """Every node under ``node`` that belongs to its scope (not into nested scopes)."""
    stack = list(node.children)
    while stack:
        current = stack.pop()
        yield current
        if isinstance(current, (cst.FunctionDef, cst.ClassDef, cst.Lambda)):
            if isinstance(current, (cst.FunctionDef, cst.ClassDef)):
                yield current.name
            continue
        stack.extend(current.children)


def _target_names(target: Any) -> Iterator[Any]:
    if isinstance(target, cst.Name):
        yield target
    elif isinstance(target, (cst.Tuple, cst.List)):
        for element in target.elements:
            yield from _target_names(element.value)
    elif isinstance(target, cst.StarredElement):
        yield from _target_names(target.value)


def _is_changed(node: Any, name: str) -> bool:
    """``name[...] = ``, ``name.attr = ``, ``name += ``, ``name.add_(...)``, ``del name``."""
    def names(target: Any) -> bool:
        while isinstance(target, (cst.Subscript, cst.Attribute)):
            target = target.value
        return isinstance(target, cst.Name) and target.value == name
    if isinstance(node, cst.AssignTarget):
        return not isinstance(node.target, cst.Name) and names(node.target)
    if isinstance(node, cst.AugAssign):
        return names(node.target)
    if isinstance(node, cst.Del):
        return any(names(t.target if hasattr(t, "target") else t) for t in [node.target])
    if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute):
        attr = node.func.attr.value
        return attr.endswith("_") and not attr.endswith("__") and names(node.func.value)
    return False


def binding(ctx: RuleContext, name_node: cst.Name) -> Optional[Any]:
    """The expression ``name_node`` certainly holds: its scope's one binding of the name, a
    plain ``name = expr`` at the top level, before the statement of the use; None otherwise
    (a parameter, a loop variable, bound twice, in a branch, changed in place)."""
    name = name_node.value
    scope, statement = _scope_of(ctx, name_node)
    if scope is None:
        return None
    if isinstance(scope, cst.FunctionDef):
        params = scope.params
        every = list(params.params) + list(params.posonly_params) + list(params.kwonly_params)
        every += [p for p in (params.star_arg, params.star_kwarg) if isinstance(p, cst.Param)]
        if any(p.name.value == name for p in every):
            return None
    bound: List[Any] = []
    for node in _walk_scope(scope) if isinstance(scope, cst.Module) else _walk_scope(scope.body):
        if isinstance(node, (cst.Global, cst.Nonlocal)) and any(n.name.value == name for n in node.names):
            return None
        if isinstance(node, cst.AssignTarget):
            bound.extend(n for n in _target_names(node.target) if n.value == name)
        elif isinstance(node, (cst.AugAssign, cst.AnnAssign, cst.For, cst.NamedExpr, cst.CompFor)):
            bound.extend(n for n in _target_names(node.target) if n.value == name)
        elif isinstance(node, cst.AsName):
            bound.extend(n for n in _target_names(node.name) if n.value == name)
        elif isinstance(node, (cst.FunctionDef, cst.ClassDef)) and node.name.value == name:
            return None
        elif isinstance(node, cst.ExceptHandler) and node.name is not None:
            bound.extend(n for n in _target_names(node.name.name) if n.value == name)
        if _is_changed(node, name):
            return None
    if len(bound) != 1:
        if not bound and isinstance(scope, cst.FunctionDef):
            module = ctx.module
            return _module_binding(ctx, module, name)
        return None
    if not _only_read(ctx, scope, name):
        return None
    statements = _body(scope)
    use = next((i for i, line in enumerate(statements) if line is statement), None)
    if use is None:
        return None
    for index, line in enumerate(statements):
        if isinstance(line, cst.SimpleStatementLine) and len(line.body) == 1 and isinstance(line.body[0], cst.Assign):
            assign = line.body[0]
            if len(assign.targets) == 1 and assign.targets[0].target is bound[0]:
                return assign.value if index < use else None
    return None


#: Methods that read a tensor, array or list and change none of its values.
_READING_METHODS = _KEEPING_METHODS | frozenset({
    "size", "dim", "numel", "max", "min", "sum", "float", "double", "half", "bool", "item", "unique", "bincount",
    "eq", "ne", "ge", "gt", "le", "lt", "mean", "argmax", "argmin", "any", "all", "nonzero", "count", "index",
    "sort", "__len__", "__getitem__", "__contains__", "tolist", "amax", "amin", "shape", "long", "format"})
#: Library functions that write into an array they are given.
_WRITING_FUNCTIONS = frozenset({"numpy.put", "numpy.copyto", "numpy.place", "numpy.putmask", "numpy.fill_diagonal",
                                "numpy.put_along_axis"})


def _only_read(ctx: RuleContext, scope: Any, name: str) -> bool:
    """``name`` is only read in its scope: its methods called are readers, it is handed only to
    library functions that do not write into it (never as ``out=``), and no function of the file
    rebinds it as a global."""
    for node in _walk_scope(scope) if isinstance(scope, cst.Module) else _walk_scope(scope.body):
        if not isinstance(node, cst.Call):
            continue
        func = node.func
        if isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name) and func.value.value == name \
                and func.attr.value not in _READING_METHODS:
            return False
        for arg in node.args:
            if not (isinstance(arg.value, cst.Name) and arg.value.value == name):
                continue
            if arg.keyword is not None and arg.keyword.value == "out":
                return False
            callee = ctx.callee(node)
            if callee is None or callee.kind not in ("symbol", "module") or callee.name in _WRITING_FUNCTIONS:
                return False
    return not _global_anywhere(ctx, name)


def _global_anywhere(ctx: RuleContext, name: str) -> bool:
    stack = [ctx.module]
    while stack:
        current = stack.pop()
        if isinstance(current, (cst.Global, cst.Nonlocal)) and any(n.name.value == name for n in current.names):
            return True
        stack.extend(current.children)
    return False


def _module_binding(ctx: RuleContext, module: Any, name: str) -> Optional[Any]:
    """A module-level name read in a function: its one plain binding at the module's top level."""
    found = None
    for node in _walk_scope(module):
        if isinstance(node, (cst.AssignTarget, cst.AugAssign, cst.AnnAssign, cst.For, cst.NamedExpr)):
            if any(n.value == name for n in _target_names(node.target)):
                if found is not None:
                    return None
                found = node
        elif isinstance(node, cst.AsName) and any(n.value == name for n in _target_names(node.name)):
            return None
        elif isinstance(node, (cst.FunctionDef, cst.ClassDef)) and node.name.value == name:
            return None
        if _is_changed(node, name):
            return None
    if not _only_read(ctx, module, name):
        return None
    for line in module.body:
        if isinstance(line, cst.SimpleStatementLine) and len(line.body) == 1 and isinstance(line.body[0], cst.Assign):
            assign = line.body[0]
            if len(assign.targets) == 1 and assign.targets[0] is found:
                return assign.value
    return None


class _Evaluator:
    def __init__(self, ctx: RuleContext) -> None:
        self.ctx = ctx
        self.origin: Any = None

    # ---------------------------------------------------------------- Python ints

    def integer(self, node: Any, env: Optional[Dict[str, int]] = None) -> Optional[int]:
        if isinstance(node, cst.Integer):
            try:
                return int(node.value.replace("_", ""), 0)
            except ValueError:
                return None
        if isinstance(node, cst.Name) and env is not None and node.value in env:
            return env[node.value]
        if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus):
            inner = self.integer(node.expression, env)
            return None if inner is None else -inner
        if isinstance(node, cst.BinaryOperation) and env is not None:
            left, right = self.integer(node.left, env), self.integer(node.right, env)
            if left is None or right is None:
                return None
            return _apply(type(node.operator).__name__, left, right)
        if env is not None and _mentions(node, env):
            return None
        value = self.ctx.joined_value(node)
        if isinstance(value, ScalarValue) and value.pytype == "int" and isinstance(value.const, int) \
                and not isinstance(value.const, bool):
            return value.const
        return None

    # ---------------------------------------------------------------- element sets

    def values(self, node: Any, depth: int = 0) -> Optional[FrozenSet[int]]:
        if depth > _DEPTH:
            return None
        if isinstance(node, cst.Name):
            bound = binding(self.ctx, node)
            if bound is None:
                return None
            self.origin = bound
            return self.values(bound, depth + 1)
        if isinstance(node, (cst.List, cst.Tuple)):
            out: Set[int] = set()
            for element in node.elements:
                if isinstance(element, cst.StarredElement):
                    return None
                one = self.integer(element.value)
                if one is not None:
                    out.add(one)
                    continue
                inner = self.values(element.value, depth + 1) \
                    if isinstance(element.value, (cst.List, cst.Tuple)) else None
                if inner is None:
                    return None
                out |= inner
            return frozenset(out) if out else None
        if isinstance(node, cst.ListComp):
            return self._comprehension(node)
        if isinstance(node, cst.BinaryOperation):
            op = type(node.operator).__name__
            if op not in ("Modulo", "Add", "Subtract", "Multiply", "FloorDivide"):
                return None
            right = self.integer(node.right)
            if right is not None:
                left = self.values(node.left, depth + 1)
                return None if left is None else _mapped(left, lambda v: _apply(op, v, right))
            left_int = self.integer(node.left)
            if left_int is not None and op in ("Add", "Subtract", "Multiply"):
                inner = self.values(node.right, depth + 1)
                return None if inner is None else _mapped(inner, lambda v: _apply(op, left_int, v))
            return None
        if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus):
            inner = self.values(node.expression, depth + 1)
            return None if inner is None else frozenset(-v for v in inner)
        if isinstance(node, cst.Call):
            return self._call(node, depth)
        return None

    def _call(self, node: cst.Call, depth: int) -> Optional[FrozenSet[int]]:
        if any(a.star for a in node.args):
            return None
        func = node.func
        callee = self.ctx.callee(node)
        name = callee.name if callee is not None and callee.kind == "symbol" else ""
        positional = [a.value for a in node.args if a.keyword is None]
        keywords = {a.keyword.value: a.value for a in node.args if a.keyword is not None}
        if name in _ARANGES:
            if set(keywords) - {"dtype", "device", "start", "end", "step", "requires_grad"}:
                return None
            spelled = positional + [keywords[k] for k in ("start", "end", "step") if k in keywords]
            if keywords.keys() & {"start", "end", "step"} and positional:
                return None
            ints = [self.integer(n) for n in spelled]
            if not ints or len(ints) > 3 or any(i is None for i in ints):
                return None
            bounds = (0, ints[0], 1) if len(ints) == 1 else (ints[0], ints[1], ints[2] if len(ints) == 3 else 1)
            if bounds[2] == 0:
                return None
            numbers = range(*bounds)  # type: ignore[arg-type]
            if not numbers or len(numbers) > _LIMIT:
                return None
            return frozenset(numbers)
        if name in _WRAPPERS:
            if len(positional) != 1 or set(keywords) - _KEYWORDS_KEPT:
                return None
            return self.values(positional[0], depth + 1)
        if name in _FULLS or name in _ZEROS:
            result = self.ctx.joined_value(node)
            if not isinstance(result, (TensorValue, ArrayValue)) or result.shape is None:
                return None
            count = 1
            for d in result.shape:
                if not isinstance(d, int) or isinstance(d, bool):
                    return None
                count *= d
            if count <= 0:
                return None
            if name in _ZEROS:
                return frozenset({_ZEROS[name]})
            fill = self.integer(positional[1]) if len(positional) == 2 else (
                self.integer(keywords["fill_value"]) if len(positional) == 1 and "fill_value" in keywords else None)
            return None if fill is None else frozenset({fill})
        if name in _CATS:
            if len(positional) != 1 or set(keywords) - {"dim", "axis"} \
                    or not isinstance(positional[0], (cst.List, cst.Tuple)):
                return None
            out: Set[int] = set()
            for element in positional[0].elements:
                if isinstance(element, cst.StarredElement):
                    return None
                part = self.values(element.value, depth + 1)
                if part is None:
                    return None
                out |= part
            return frozenset(out)
        if isinstance(func, cst.Attribute) and (callee is None or callee.kind in ("method", "unknown")) \
                and func.attr.value in _KEEPING_METHODS:
            if func.attr.value in ("view", "reshape") and not positional and not keywords:
                return None
            return self.values(func.value, depth + 1)
        if isinstance(func, cst.Attribute) and func.attr.value == "repeat" and positional:
            counts = [self.integer(p) for p in positional]
            if any(c is None or c < 1 for c in counts):
                return None
            return self.values(func.value, depth + 1)
        return None

    def _comprehension(self, node: cst.ListComp) -> Optional[FrozenSet[int]]:
        comp = node.for_in
        if comp.inner_for_in is not None or comp.ifs or comp.asynchronous is not None \
                or not isinstance(comp.target, cst.Name):
            return None
        items = self.values(comp.iter) if isinstance(comp.iter, cst.Call) else None
        iterable = comp.iter
        if items is None or not isinstance(iterable, cst.Call):
            return None
        callee = self.ctx.callee(iterable)
        if callee is None or callee.kind != "symbol" or callee.name != "builtins.range":
            return None
        out: Set[int] = set()
        for i in items:
            one = self.integer(node.elt, {comp.target.value: i})
            if one is None:
                return None
            out.add(one)
        return frozenset(out) if out else None


def _mentions(node: Any, env: Dict[str, int]) -> bool:
    stack = [node]
    while stack:
        current = stack.pop()
        if isinstance(current, cst.Name) and current.value in env:
            return True
        stack.extend(current.children)
    return False


def _apply(op: str, a: int, b: int) -> Optional[int]:
    """Python's (and torch's: remainder and floor_divide round to minus infinity) int result."""
    if op == "Add":
        return a + b
    if op == "Subtract":
        return a - b
    if op == "Multiply":
        return a * b
    if op in ("Modulo", "FloorDivide"):
        if b == 0:
            return None
        return a % b if op == "Modulo" else a // b
    return None


def _mapped(values: FrozenSet[int], fn: Any) -> Optional[FrozenSet[int]]:
    out = set()
    for v in values:
        r = fn(v)
        if r is None:
            return None
        out.add(r)
    return frozenset(out)


def label_values(node: Any, ctx: RuleContext) -> Optional[LabelValues]:
    """The exact element values of the tensor or array ``node`` evaluates to, when the code
    spells them out (module docstring); None otherwise."""
    evaluator = _Evaluator(ctx)
    try:
        found = evaluator.values(node)
    except RecursionError:  # pragma: no cover - a deep chain of names
        return None
    if not found:
        return None
    return LabelValues(found, evaluator.origin if evaluator.origin is not None else node)


def integer(node: Any, ctx: RuleContext) -> Optional[int]:
    """The int a (scalar) expression certainly holds, if any."""
    return _Evaluator(ctx).integer(node)
