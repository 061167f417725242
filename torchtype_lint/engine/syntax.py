"""Questions about libcst nodes that need no values: dotted names, assignment targets,
decorators, a method's first parameter, the attributes a method assigns on ``self``.
"""
from __future__ import annotations

from typing import Any, Iterator, List, Optional

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


def self_attributes_assigned(body: Any, owner: str) -> List[str]:
    """Names ``X`` of ``owner.X = ...`` statements in a function body (nested blocks included,
    nested functions and classes not)."""
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


#: Statements that leave a loop body before its end.
_EARLY_EXITS = (cst.Break, cst.Continue, cst.Return, cst.Raise)


def leaves_early(body: Any) -> bool:
    """Whether a loop body may stop an iteration or the loop before its end (break,
    continue, return, raise), nested blocks included, nested functions and classes not."""
    return any(isinstance(small, _EARLY_EXITS) for small in small_statements(body))


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
