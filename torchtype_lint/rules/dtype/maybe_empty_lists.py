"""Lists the data may leave empty, turned into tensors without a dtype.

``torch.tensor([])`` is float32: with no element to infer int64 from, torch takes the default
dtype. A list filled only under a condition (``if score > t: keep.append(i)``, a comprehension
with an ``if``) is empty when no item passes, and ``torch.tensor(keep)`` is then float32 where
the engine (which sees the ints appended) knows int64. This module finds such a tensor's
``torch.tensor(...)`` call and says which path empties the list; it is pure syntax over the
file's tree (the values only say where a tensor came from).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Dict, Iterator, List, Optional

import libcst as cst

from ..context import RuleContext
from ..source_edits import code

#: ``torch.<name>(data)`` infers the dtype from the data (float32 for an empty list).
_INFERRING = ("tensor", "as_tensor")


@dataclass(frozen=True)
class EmptyPath:
    """``call`` (``torch.tensor(keep)``) is float32 on the path ``when`` describes."""

    call: Any
    when: str


def empty_list_tensor(origin: Any, ctx: RuleContext) -> Optional[EmptyPath]:
    """The path on which the tensor with provenance ``origin`` is float32 because the list it
    was made from is empty, or None."""
    link = origin
    while link is not None:
        node = link.node
        if isinstance(node, cst.Call) and _inferring_call(node):
            known = ctx.state(_PathTable).paths
            if node not in known:  # one scan of the scope per torch.tensor call, not per use
                known[node] = _empty_path(node, ctx)
            return known[node]
        link = link.parent
    return None


class _PathTable:
    """The empty-list path of each ``torch.tensor(...)`` call judged in this analysis."""

    def __init__(self) -> None:
        self.paths: Dict[Any, Optional[EmptyPath]] = {}


def _inferring_call(call: cst.Call) -> bool:
    func = call.func
    return isinstance(func, cst.Attribute) and func.attr.value in _INFERRING and \
        isinstance(func.value, cst.Name) and func.value.value == "torch" and bool(call.args) and \
        call.args[0].keyword is None and not call.args[0].star and \
        not any(arg.keyword is not None and arg.keyword.value == "dtype" for arg in call.args)


def _empty_path(call: cst.Call, ctx: RuleContext) -> Optional[EmptyPath]:
    data = call.args[0].value
    if isinstance(data, cst.ListComp) and _filtered(data):
        return EmptyPath(call, "when no item passes the comprehension's `if`")
    if not isinstance(data, cst.Name):
        return None
    parents = ctx.state(_ParentTable).of(ctx.module)
    scope = _scope_of(call, parents)
    if scope is None:
        return None
    uses = _Uses(data.value)
    scope.visit(uses)
    if len(uses.bindings) != 1:
        return None  # bound more than once: not our path
    if uses.tested:
        if _never_empty(uses.bindings[0]):
            return None  # [0] + rest: a test for emptiness is only defensive
        return _tested_after(call, data.value, uses, scope)  # checked for emptiness: only after the call?
    binding = uses.bindings[0]
    if isinstance(binding, cst.ListComp) and _filtered(binding):
        return EmptyPath(call, f"when no item passes the `if` of the comprehension `{data.value}` is built by")
    if not (isinstance(binding, cst.List) and not binding.elements) or not uses.appends:
        return None
    if all(_under_condition(append, scope, parents, uses.appends) for append in uses.appends):
        return EmptyPath(call, f"when `{data.value}` stays empty (every `{data.value}.append` is under an `if`)")
    return None


def _tested_after(call: cst.Call, name: str, uses: "_Uses", scope: Any) -> Optional[EmptyPath]:
    """The code tests ``name`` for emptiness (``if len(frames)``, ``max(len(frames), 1)``), so
    it may be empty, but only after ``call`` turned it into a tensor: that test guards nothing
    before it. None when any test could guard the call (it comes first, or holds it)."""
    order = {id(node): position for position, node in enumerate(_walk_scope(scope))}
    at = order.get(id(call))
    if at is None or not uses.tests or any(order.get(id(test), -1) <= at for test in uses.tests):
        return None
    emptiness = [test for test in uses.emptiness if order.get(id(test), -1) > at]
    if not emptiness:
        return None
    return EmptyPath(call, f"when `{name}` is empty, as the code allows for after this call "
                           f"(`{code(emptiness[0], 40)}`)")


def _never_empty(binding: Any) -> bool:
    """A list the syntax shows has an item: a list literal with elements, or one added to
    another list (``[0] + rest``)."""
    if isinstance(binding, (cst.List, cst.Tuple)):
        return bool(binding.elements)
    if isinstance(binding, cst.BinaryOperation) and isinstance(binding.operator, cst.Add):
        return _never_empty(binding.left) or _never_empty(binding.right)
    return False


def _walk_scope(scope: Any) -> Iterator[Any]:
    """The nodes of ``scope`` in source order (a node before what it holds)."""
    stack = [scope]
    while stack:
        current = stack.pop()
        yield current
        stack.extend(reversed(current.children))


def _filtered(comp: cst.ListComp) -> bool:
    clause: Any = comp.for_in
    while clause is not None:
        if clause.ifs:
            return True
        clause = clause.inner_for_in
    return False


class _ParentTable:
    """Each node's parent in the file, built once per analysis when first needed."""

    def __init__(self) -> None:
        self._table: Optional[Dict[Any, Any]] = None

    def of(self, module: cst.Module) -> Dict[Any, Any]:
        if self._table is None:
            table: Dict[Any, Any] = {}
            stack: List[Any] = [module]
            while stack:
                node = stack.pop()
                for child in node.children:
                    table[child] = node
                    stack.append(child)
            self._table = table
        return self._table


def _ancestors(node: Any, parents: Dict[Any, Any]) -> Iterator[Any]:
    node = parents.get(node)
    while node is not None:
        yield node
        node = parents.get(node)


def _scope_of(node: Any, parents: Dict[Any, Any]) -> Optional[Any]:
    """The function (or module) whose body holds ``node``."""
    for ancestor in _ancestors(node, parents):
        if isinstance(ancestor, (cst.FunctionDef, cst.Module)):
            return ancestor
        if isinstance(ancestor, (cst.Lambda, cst.ClassDef)):
            return None  # a lambda or class body: not followed
    return None


def _under_condition(node: Any, scope: Any, parents: Dict[Any, Any], appends: List[Any]) -> bool:
    """Is ``node`` inside an ``if`` within ``scope`` whose other branch appends nothing
    (``if ok: keep.append(i) else: keep.append(-1)`` appends on every pass)?"""
    child = node
    for ancestor in _ancestors(node, parents):
        if ancestor is scope:
            return False
        if isinstance(ancestor, cst.IfExp):
            return True
        if isinstance(ancestor, cst.If):
            other = ancestor.orelse if child is ancestor.body else ancestor.body
            if other is None or not any(_inside(append, other) and not _conditional_below(append, ancestor, parents)
                                        for append in appends):
                return True
        child = ancestor
    return False


def _inside(node: Any, block: Any) -> bool:
    return any(sub is node for sub in _walk(block))


def _conditional_below(node: Any, top: Any, parents: Dict[Any, Any]) -> bool:
    """Is there an ``if`` (an ``elif`` too) between ``node`` and ``top``?"""
    for ancestor in _ancestors(node, parents):
        if ancestor is top:
            return False
        if isinstance(ancestor, (cst.If, cst.IfExp)):
            return True
    return False


class _Uses(cst.CSTVisitor):
    """How a scope uses the name: its bindings, its appends, and whether it is ever tested for
    emptiness (``if keep``, ``len(keep) == 0``, ``n = len(keep)``, ``while keep``, ``assert keep``)."""

    def __init__(self, name: str):
        self.name = name
        self.bindings: List[Any] = []
        self.appends: List[Any] = []
        self.tested = False
        #: Where it is tested, and the tests that ask whether it is empty (``len(keep)`` as a
        #: truth value, ``not keep``, ``len(keep) == 0``, ``max(len(keep), 1)``).
        self.tests: List[Any] = []
        self.emptiness: List[Any] = []

    def _test(self, node: Any) -> None:
        if self._mentions(node):
            self.tested = True
            self.tests.append(node)
            if self._asks_empty(node):
                self.emptiness.append(node)

    def _asks_empty(self, test: Any) -> bool:
        """Is ``test`` (a truth value) whether the list is empty?"""
        while isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
            test = test.expression
        if isinstance(test, cst.BooleanOperation):
            return self._asks_empty(test.left) or self._asks_empty(test.right)
        if isinstance(test, cst.Name):
            return test.value == self.name
        if self._is_len(test):
            return True
        if isinstance(test, cst.Comparison) and len(test.comparisons) == 1 and self._is_len(test.left):
            right = test.comparisons[0].comparator
            operator = type(test.comparisons[0].operator).__name__
            return isinstance(right, cst.Integer) and (right.value, operator) in {
                ("0", "Equal"), ("0", "NotEqual"), ("0", "GreaterThan"), ("1", "GreaterThanEqual"),
                ("1", "LessThan"), ("0", "LessThanEqual")}
        return False

    def _is_len(self, node: Any) -> bool:
        return isinstance(node, cst.Call) and isinstance(node.func, cst.Name) and node.func.value == "len" and \
            len(node.args) == 1 and isinstance(node.args[0].value, cst.Name) and node.args[0].value.value == self.name

    def _mentions(self, node: Any) -> bool:
        return any(isinstance(n, cst.Name) and n.value == self.name for n in _walk(node))

    def visit_FunctionDef(self, node: cst.FunctionDef) -> Optional[bool]:
        return None  # the scope itself is visited; nested functions may use the name too

    def visit_Assign(self, node: cst.Assign) -> None:
        if isinstance(node.value, cst.Call) and isinstance(node.value.func, cst.Name) and \
                node.value.func.value == "len" and self._mentions(node.value):
            self.tested = True  # n = len(keep): a count the code may test later
            self.tests.append(node.value)
        for target in node.targets:
            if self._mentions(target.target) and not isinstance(target.target, cst.Subscript):
                self.bindings.append(node.value if isinstance(target.target, cst.Name) else None)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        if isinstance(node.target, cst.Name) and node.target.value == self.name:
            self.appends.append(node)  # keep += [i]: a conditional extension like append

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        if self._mentions(node.target):
            self.bindings.append(node.value)

    def visit_For(self, node: cst.For) -> None:
        if self._mentions(node.target):
            self.bindings.append(None)  # a loop rebinds it

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        if isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name) and func.value.value == self.name:
            if func.attr.value in ("append", "extend", "insert"):
                self.appends.append(node)
            elif func.attr.value not in ("copy", "index", "count"):
                self.bindings.append(None)  # another mutation (clear, pop...): not followed
        if isinstance(func, cst.Name) and func.value == "bool" and any(self._mentions(a.value) for a in node.args):
            self.tested = True
            self.tests.append(node)
        if isinstance(func, cst.Name) and func.value == "max" and len(node.args) == 2 and \
                any(self._is_len(a.value) for a in node.args) and \
                any(isinstance(a.value, cst.Integer) and a.value.value == "1" for a in node.args):
            self.tested = True  # max(len(keep), 1): a count kept from zero
            self.tests.append(node)
            self.emptiness.append(node)

    def visit_Comparison(self, node: cst.Comparison) -> None:
        # len(keep) == 0, keep == []: a test wherever it is (a size argument, torch.randn(len(keep)),
        # is not one)
        self._test(node)

    def visit_If(self, node: cst.If) -> None:
        self._test(node.test)

    def visit_While(self, node: cst.While) -> None:
        self._test(node.test)

    def visit_Assert(self, node: cst.Assert) -> None:
        self._test(node.test)

    def visit_IfExp(self, node: cst.IfExp) -> None:
        self._test(node.test)


def _walk(node: Any) -> Iterator[Any]:
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        stack.extend(current.children)


def describe(path: EmptyPath) -> str:
    """``torch.tensor(keep)`` for messages."""
    return code(path.call, 40)
