"""Questions about libcst nodes that need no values: dotted names, assignment targets,
decorators, a method's first parameter, the attributes a method assigns on ``self``.
"""
from __future__ import annotations

from collections import OrderedDict
from typing import Any, FrozenSet, Iterator, List, Optional, Sequence, Tuple

import libcst as cst

from ..knowledge.torch_objects import TRANSPARENT_BARE_NAMES, TRANSPARENT_DECORATORS

#: libcst operator class names and the Python spelling rules and knowledge use.
OPERATOR_SYMBOLS = {
    "Add": "+", "Subtract": "-", "Multiply": "*", "Divide": "/", "FloorDivide": "//",
    "Modulo": "%", "Power": "**", "MatrixMultiply": "@", "BitAnd": "&", "BitOr": "|",
    "BitXor": "^", "LeftShift": "<<", "RightShift": ">>",
    "Equal": "==", "NotEqual": "!=", "LessThan": "<", "LessThanEqual": "<=",
    "GreaterThan": ">", "GreaterThanEqual": ">=", "Is": "is", "IsNot": "is not",
    "In": "in", "NotIn": "not in",
}


def dotted_name(node: Any) -> Optional[str]:
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        head = dotted_name(node.value)
        return None if head is None else f"{head}.{node.attr.value}"
    return None


def target_names(target: Any) -> List[str]:
    if isinstance(target, cst.Name):
        return [target.value]
    if isinstance(target, (cst.Tuple, cst.List)):
        return [name for element in target.elements for name in target_names(element.value)]
    return []


def has_decorator(fnode: Any, name: str) -> bool:
    for deco in getattr(fnode, "decorators", ()):
        d = dotted_name(deco.decorator)
        if d is not None and (d == name or d.endswith("." + name)):
            return True
    return False


def is_transparent(decorator: Any) -> bool:
    target = decorator.func if isinstance(decorator, cst.Call) else decorator
    d = dotted_name(target)
    if d is None:
        return False
    return any(d == t or t.endswith("." + d) or d.endswith(t.rsplit(".", 1)[-1]) and "." in t
               for t in TRANSPARENT_DECORATORS) or d in TRANSPARENT_BARE_NAMES


def first_param(fnode: Any) -> Optional[str]:
    params = list(fnode.params.posonly_params) + list(fnode.params.params)
    return params[0].name.value if params else None


def small_statements(body: Any) -> Iterator[Any]:
    """The small statements (assignments, ``return``, ``break``...) of a body, nested blocks
    included, nested functions and classes not. A statement-level walk: far cheaper than a
    visitor."""
    stack = [body]
    while stack:
        node = stack.pop()
        if isinstance(node, (cst.IndentedBlock, cst.SimpleStatementSuite)):
            stack.extend(node.body)
        elif isinstance(node, cst.SimpleStatementLine):
            yield from node.body
        elif isinstance(node, (cst.If, cst.For, cst.While, cst.With, cst.Try)) or (
                hasattr(cst, "TryStar") and isinstance(node, cst.TryStar)):
            stack.append(node.body)
            orelse = getattr(node, "orelse", None)
            if orelse is not None:
                stack.append(orelse if isinstance(orelse, cst.If) else orelse.body)
            for handler in getattr(node, "handlers", ()):
                stack.append(handler.body)
            final = getattr(node, "finalbody", None)
            if final is not None:
                stack.append(final.body)


#: Method bodies of imported modules and the owner parameter -> ``self_attributes_assigned``.
#: Their trees are parsed once per process and shared by every analysis importing them
#: (``source/project/sources.py``), each of which builds its own prototypes of their classes:
#: ``torch.nn.Module``'s 90 methods walked again for every file. Keys hold their nodes (an id
#: is never reused while kept); least recently used first out.
_kept_assigned: "OrderedDict[Tuple[Any, str], Tuple[str, ...]]" = OrderedDict()
KEPT_ASSIGNED_SIZE = 2048


def self_attributes_assigned(body: Any, owner: str, keep: bool = False) -> Sequence[str]:
    """Names ``X`` of ``owner.X = ...`` statements in a function body (nested blocks included,
    nested functions and classes not). ``keep``: the body belongs to a tree that outlives the
    analysis (an imported module's): the answer is kept for the next analyses."""
    if not keep:
        return _self_attributes_assigned(body, owner)
    key = (body, owner)
    names = _kept_assigned.get(key)
    if names is None:
        names = _kept_assigned[key] = tuple(_self_attributes_assigned(body, owner))
        if len(_kept_assigned) > KEPT_ASSIGNED_SIZE:
            _kept_assigned.popitem(last=False)
    else:
        _kept_assigned.move_to_end(key)
    return names


def _self_attributes_assigned(body: Any, owner: str) -> List[str]:
    found: List[str] = []
    for small in small_statements(body):
        targets: List[Any] = []
        if isinstance(small, cst.Assign):
            targets = [t.target for t in small.targets]
        elif isinstance(small, (cst.AugAssign, cst.AnnAssign)):
            targets = [small.target]
        while targets:
            target = targets.pop()
            if isinstance(target, (cst.Tuple, cst.List)):
                targets.extend(e.value for e in target.elements)
            elif isinstance(target, cst.Attribute) and isinstance(target.value, cst.Name) \
                    and target.value.value == owner:
                found.append(target.attr.value)
    return found


def attributes_stored_from_outside(module: cst.Module) -> FrozenSet[str]:
    """Names ``X`` of ``<receiver>.X = ...`` stores anywhere in ``module`` whose receiver is not
    the ``self`` of the method the store is in: ``layer.cache = ...``, ``self.attn.cache = ...``,
    ``model.fc = ...``. An object's attribute stored that way may be rebuilt by code of another
    class or function before any one method of its own class runs. A statement-level walk."""
    found: set = set()
    # (statement, the enclosing method's owner parameter or None, directly in a class body)
    stack: List[Tuple[Any, Optional[str], bool]] = [(s, None, False) for s in module.body]
    while stack:
        node, owner, in_class = stack.pop()
        if isinstance(node, cst.ClassDef):
            stack.extend((s, None, True) for s in _block_statements(node.body))
        elif isinstance(node, cst.FunctionDef):
            own = first_param(node) if in_class else None  # a nested def's `self.x` is someone else's store
            stack.extend((s, own, False) for s in _block_statements(node.body))
        elif isinstance(node, cst.SimpleStatementLine):
            for small in node.body:
                found.update(_outside_targets(small, owner))
        elif isinstance(node, (cst.Assign, cst.AugAssign, cst.AnnAssign)):
            found.update(_outside_targets(node, owner))  # a small statement of a one-line suite
        elif isinstance(node, cst.BaseCompoundStatement):
            for block in _compound_blocks(node):
                stack.extend((s, owner, in_class) for s in _block_statements(block))
    return frozenset(found)


def _block_statements(block: Any) -> Sequence[Any]:
    """The statements of an indented block, or the small statements of a one-line suite."""
    return block.body if isinstance(block, (cst.IndentedBlock, cst.SimpleStatementSuite)) else ()


def _compound_blocks(node: Any) -> Iterator[Any]:
    """The bodies of an if/for/while/with/try/match, its else, handlers, cases and finally."""
    yield getattr(node, "body", None)
    for case in getattr(node, "cases", ()):
        yield case.body
    orelse = getattr(node, "orelse", None)
    if isinstance(orelse, cst.If):
        yield from _compound_blocks(orelse)  # elif
    elif orelse is not None:
        yield orelse.body
    for handler in getattr(node, "handlers", ()):
        yield handler.body
    final = getattr(node, "finalbody", None)
    if final is not None:
        yield final.body


def _outside_targets(small: Any, owner: Optional[str]) -> Iterator[str]:
    if isinstance(small, cst.Assign):
        targets = [t.target for t in small.targets]
    elif isinstance(small, (cst.AugAssign, cst.AnnAssign)):
        targets = [small.target]
    else:
        return
    while targets:
        target = targets.pop()
        if isinstance(target, (cst.Tuple, cst.List)):
            targets.extend(e.value for e in target.elements)
        elif isinstance(target, cst.StarredElement):
            targets.append(target.value)
        elif isinstance(target, cst.Attribute) and not (
                isinstance(target.value, cst.Name) and target.value.value == owner):
            yield target.attr.value


#: Statements that leave a loop body before its end.
_EARLY_EXITS = (cst.Break, cst.Continue, cst.Return, cst.Raise)


def leaves_early(body: Any) -> bool:
    """Whether a loop body may stop an iteration or the loop before its end (break,
    continue, return, raise), nested blocks included, nested functions and classes not."""
    return any(isinstance(small, _EARLY_EXITS) for small in small_statements(body))


class _BoundNames(cst.CSTVisitor):
    """Names a block binds, in its own scope (nested functions, classes and lambdas skipped)."""

    def __init__(self) -> None:
        self.names: List[str] = []

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        self.names.append(node.name.value)
        return False

    def visit_ClassDef(self, node: cst.ClassDef) -> bool:
        self.names.append(node.name.value)
        return False

    def visit_Lambda(self, node: cst.Lambda) -> bool:
        return False

    def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
        self.names.extend(target_names(node.target))

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        self.names.extend(target_names(node.target))

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self.names.extend(target_names(node.target))

    def visit_For(self, node: cst.For) -> None:
        self.names.extend(target_names(node.target))

    def visit_AsName(self, node: cst.AsName) -> None:
        self.names.extend(target_names(node.name))

    def visit_NamedExpr(self, node: cst.NamedExpr) -> None:
        self.names.extend(target_names(node.target))


def names_bound_in(body: Any) -> FrozenSet[str]:
    """Every name a loop body may rebind (assignments, loop targets, ``as`` names, walrus,
    nested ``def``/``class`` names), found without running it."""
    visitor = _BoundNames()
    body.visit(visitor)
    return frozenset(visitor.names)


def is_dataclass_decorated(class_node: Any) -> bool:
    """``@dataclass``, ``@dataclasses.dataclass`` or either called (``@dataclass(frozen=True)``)."""
    for deco in class_node.decorators:
        target = deco.decorator.func if isinstance(deco.decorator, cst.Call) else deco.decorator
        name = dotted_name(target)
        if name in ("dataclass", "dataclasses.dataclass"):
            return True
    return False


def function_name(fnode: Any) -> str:
    """A def's name; ``<lambda>`` for a lambda."""
    return fnode.name.value if isinstance(fnode, cst.FunctionDef) else "<lambda>"


def child_expressions(node: Any) -> Tuple[Any, ...]:
    """The sub-expressions an expression the engine does not model evaluates, in source order:
    its expression children, those of its arguments and elements, an f-string part's expression."""
    found: List[Any] = []
    for child in node.children:
        if isinstance(child, cst.BaseExpression):
            found.append(child)
        elif isinstance(child, (cst.Arg, cst.Element, cst.DictElement, cst.StarredDictElement)):
            found.extend(grand for grand in child.children if isinstance(grand, cst.BaseExpression))
        elif isinstance(child, cst.FormattedStringExpression):
            found.append(child.expression)  # f"{evaluate(model, loader):.3f}" calls evaluate
    return tuple(found)
