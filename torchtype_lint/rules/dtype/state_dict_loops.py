"""The syntax of a loop over every entry of a module's state: ``for k, v in
model.state_dict().items()``, ``for v in model.buffers()``, ``for k in sd: sd[k] ...``.

What such a loop does to *each* entry, unconditionally, is done to BatchNorm's int64
``num_batches_tracked`` buffer too; ``unconditional_statements`` gives the statements of the
body that run for every entry (stopping at a guard that may skip some), ``entry_expressions``
the expressions that stand for the entry in them.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, FrozenSet, Iterator, List, Optional, Tuple

import libcst as cst

from ...knowledge.module_state import ENTRIES, PAIRS, StateEntriesOrigin, state_entries, structure

#: Statements that may leave an iteration early: a guard holding one may skip the int entries.
_LEAVING = (cst.Continue, cst.Break, cst.Return, cst.Raise)


@dataclass(frozen=True)
class StateLoop:
    """A loop over a module's state entries: ``module`` the expression of the module,
    ``value_name`` the loop name bound to an entry's tensor (or None), ``dict_node`` and
    ``key_name`` the dict and key of ``sd[k]`` entries (or None)."""

    module: Any
    value_name: Optional[str]
    dict_node: Any
    key_name: Optional[str]
    #: The loop's body (where names the entry is updated with are assigned).
    body: Any = None
    #: Other expressions holding a tensor of the entry's dtype, made from it in the body
    #: (``d = v - other[k]``, ``diff[k] = v.clone()``): ("name", n) or ("item", dict, key).
    aliases: FrozenSet[Tuple[str, ...]] = frozenset()


def state_loop(loop: cst.For, scope_body: List[Any]) -> Optional[StateLoop]:
    """The state loop ``loop`` is, or None. ``scope_body`` holds the statements of the scope
    the loop is in (where ``sd = model.state_dict()`` is looked up)."""
    iterable, method = loop.iter, None
    if isinstance(iterable, cst.Call) and isinstance(iterable.func, cst.Attribute) and not iterable.args:
        method = iterable.func.attr.value  # .items() / .values() / .keys() / .buffers()
    if method in ("buffers", "named_buffers"):
        module = _module_of_iterator(iterable)
        name = _loop_value_name(loop.target, pair=method == "named_buffers")
        return StateLoop(module, name, None, None, loop.body) if module is not None and name else None
    if method in ("items", "values"):
        owner = iterable.func.value  # type: ignore[union-attr]
        module = _module_of_state_dict(owner, scope_body)
        name = _loop_value_name(loop.target, pair=method == "items")
        if module is None or name is None:
            return None
        key = _key_name(loop.target) if method == "items" else None
        return StateLoop(module, name, owner if isinstance(owner, cst.Name) else None, key, loop.body)
    owner = iterable.func.value if method == "keys" else iterable  # type: ignore[union-attr]
    if method not in (None, "keys") or not isinstance(owner, cst.Name) or not isinstance(loop.target, cst.Name):
        return None
    module = _module_of_state_dict(owner, scope_body)  # for k in sd: ... sd[k] ...
    return StateLoop(module, None, owner, loop.target.value, loop.body) if module is not None else None


def entry_loops(loop: cst.For, ctx: Any) -> List[Tuple[str, StateEntriesOrigin]]:
    """The loop names bound to one state entry each iteration, with the state collection they
    come from, found from the values (``self.ema = list(ema.state_dict().values())`` in
    ``__init__``, then ``for p, q in zip(self.params, self.ema):`` in ``step``): ``for v in
    X``, ``for k, v in X`` (pairs), ``for i, v in enumerate(X)`` and ``zip(X1, ..., Xn)``,
    where zip stops at its shortest argument: only when every argument is the state of a
    module of the same structure (each loop then visits every entry of each)."""
    iterable, target = loop.iter, loop.target
    callee = ctx.callee(iterable) if isinstance(iterable, cst.Call) else None
    name = callee.name if callee is not None and callee.kind == "symbol" else ""
    if name in ("builtins.zip", "builtins.enumerate"):
        args = iterable.args  # type: ignore[union-attr]
        if any(a.keyword is not None or a.star for a in args) or not isinstance(target, (cst.Tuple, cst.List)):
            return []
        parts = [element.value for element in target.elements]
        if name == "builtins.enumerate":
            if len(args) != 1 or len(parts) != 2:
                return []
            origin = state_entries(ctx.value(args[0].value))
            return _entry_names(parts[1], origin) if origin is not None else []
        if len(args) != len(parts) or not args:
            return []
        origins = [state_entries(ctx.value(a.value)) for a in args]
        if any(origin is None for origin in origins):
            return []
        shapes = {structure(origin.module) for origin in origins}  # type: ignore[union-attr]
        if len(shapes) != 1 or None in shapes:
            return []
        return [found for part, origin in zip(parts, origins) for found in _entry_names(part, origin)]
    origin = state_entries(ctx.value(iterable))
    return _entry_names(target, origin) if origin is not None else []


def _entry_names(target: Any, origin: StateEntriesOrigin) -> List[Tuple[str, StateEntriesOrigin]]:
    """The name ``target`` binds to the entry of one item of ``origin``'s collection."""
    if origin.gives == ENTRIES and isinstance(target, cst.Name):
        return [(target.value, origin)]
    name = _loop_value_name(target, pair=True) if origin.gives == PAIRS else None
    return [(name, origin)] if name is not None else []


def _module_of_iterator(call: cst.Call) -> Optional[Any]:
    func = call.func
    return func.value if isinstance(func, cst.Attribute) else None


def _module_of_state_dict(node: Any, scope_body: List[Any]) -> Optional[Any]:
    """``model`` of ``model.state_dict()``, ``copy.deepcopy(model.state_dict())``, or of the one
    assignment of such a call to the name ``node`` in the scope."""
    if isinstance(node, cst.Call):
        func = node.func
        if isinstance(func, cst.Attribute) and func.attr.value == "state_dict" and not node.args:
            return func.value
        if isinstance(func, cst.Attribute) and func.attr.value == "deepcopy" and len(node.args) == 1:
            return _module_of_state_dict(node.args[0].value, [])  # a copy holds the same entries
        return None
    if not isinstance(node, cst.Name):
        return None
    found = [value for target, value in _assignments(scope_body) if target == node.value]
    return _module_of_state_dict(found[0], []) if len(found) == 1 else None


def _assignments(body: List[Any]) -> Iterator[Tuple[str, Any]]:
    """(name, value) of every ``name = value`` at any depth of ``body`` (not in nested scopes)."""
    for stmt in body:
        if isinstance(stmt, cst.SimpleStatementLine):
            for small in stmt.body:
                if isinstance(small, cst.Assign):
                    for target in small.targets:
                        if isinstance(target.target, cst.Name):
                            yield target.target.value, small.value
                        else:
                            yield "", small.value  # a tuple target: no one name to trust
                elif isinstance(small, (cst.AugAssign, cst.AnnAssign)) and isinstance(small.target, cst.Name):
                    yield small.target.value, small.value  # rebound: makes the name ambiguous
        elif not isinstance(stmt, (cst.FunctionDef, cst.ClassDef)):
            for block in _blocks(stmt):
                yield from _assignments(block)


def _blocks(stmt: Any) -> Iterator[List[Any]]:
    """The statement lists nested in a compound statement."""
    for attr in ("body", "orelse", "finalbody"):
        part = getattr(stmt, attr, None)
        part = getattr(part, "body", part)  # an Else / Finally wraps its block
        part = getattr(part, "body", part)  # the block wraps its statements
        if isinstance(part, (list, tuple)):
            yield list(part)
    for handler in getattr(stmt, "handlers", ()):
        yield list(handler.body.body)


def _loop_value_name(target: Any, pair: bool) -> Optional[str]:
    if pair:
        if isinstance(target, (cst.Tuple, cst.List)) and len(target.elements) == 2 and \
                isinstance(target.elements[1].value, cst.Name):
            return target.elements[1].value.value
        return None
    return target.value if isinstance(target, cst.Name) else None


def _key_name(target: Any) -> Optional[str]:
    first = target.elements[0].value if isinstance(target, (cst.Tuple, cst.List)) else None
    return first.value if isinstance(first, cst.Name) else None


def unconditional_statements(body: Any, truth: Optional[Callable[[Any], Optional[bool]]] = None) -> Iterator[Any]:
    """The small statements of a loop body that run for every item: in order, through ``with``
    blocks and nested ``for`` loops, over compound statements that cannot leave the iteration,
    up to one that can. ``truth``: whether an ``if``'s test is certainly true or false, as the
    engine decided the branch (``if self.conf["dp"]:`` of a constant config): the branch that
    runs is followed too."""
    for stmt in getattr(body, "body", ()):
        if isinstance(stmt, cst.SimpleStatementLine):
            for small in stmt.body:
                if isinstance(small, _LEAVING):
                    return
                yield small
        elif isinstance(stmt, (cst.With, cst.For)) and getattr(stmt, "orelse", None) is None:
            # a with block runs once; a nested for (over the clients to average) runs its body
            # for this entry too, as long as it iterates at all
            yield from unconditional_statements(stmt.body, truth)
            if _leaves(stmt.body):
                return
        elif isinstance(stmt, cst.If) and truth is not None and _taken(stmt, truth) is not None:
            taken = _taken(stmt, truth)
            yield from unconditional_statements(taken, truth)
            if _leaves(taken):
                return
        elif _leaves(stmt):
            return  # `if not v.is_floating_point(): continue` skips the int entries


def _taken(stmt: cst.If, truth: Callable[[Any], Optional[bool]]) -> Optional[Any]:
    """The block of ``stmt`` that runs (its body, or a plain ``else``) when its test is decided;
    None when it is not, or when an ``elif`` would need deciding too."""
    decided = truth(stmt.test)
    if decided is True:
        return stmt.body
    if decided is False and isinstance(stmt.orelse, cst.Else):
        return stmt.orelse.body
    if decided is False and stmt.orelse is None:
        return cst.IndentedBlock(body=[])
    return None


def _leaves(node: Any) -> bool:
    """Whether ``node`` holds a statement that may leave the iteration (anywhere in it: one in a
    nested loop counts too, which only makes the rule quieter)."""
    found = []

    class _Finder(cst.CSTVisitor):
        def visit_Continue(self, _node: cst.Continue) -> None:
            found.append(True)

        def visit_Break(self, _node: cst.Break) -> None:
            found.append(True)

        def visit_Return(self, _node: cst.Return) -> None:
            found.append(True)

        def visit_Raise(self, _node: cst.Raise) -> None:
            found.append(True)

    node.visit(_Finder())
    return bool(found)


def is_entry(node: Any, loop: StateLoop) -> bool:
    """Does ``node`` stand for the loop's entry tensor (``v``, ``v.data``, ``sd[k]``)?"""
    if isinstance(node, cst.Attribute) and node.attr.value == "data":
        node = node.value  # v.data is the same storage
    if isinstance(node, cst.Name):
        return loop.value_name is not None and node.value == loop.value_name or ("name", node.value) in loop.aliases
    item = item_of(node)
    if item is not None and loop.key_name is not None and item[1] == loop.key_name:
        return loop.dict_node is not None and item[0] == loop.dict_node.value or ("item",) + item in loop.aliases
    return False


def item_of(node: Any) -> Optional[Tuple[str, str]]:
    """(dict, key) of ``d[k]`` with both names, else None."""
    if isinstance(node, cst.Subscript) and isinstance(node.value, cst.Name) and len(node.slice) == 1 \
            and isinstance(node.slice[0].slice, cst.Index) and isinstance(node.slice[0].slice.value, cst.Name):
        return node.value.value, node.slice[0].slice.value.value
    return None


def alias_key(node: Any, loop: StateLoop) -> Optional[Tuple[str, ...]]:
    """How ``loop.aliases`` names the assignment target ``node`` (a name, or ``d[k]`` of the
    loop's key), else None."""
    if isinstance(node, cst.Name):
        return ("name", node.value)
    item = item_of(node)
    if item is not None and loop.key_name is not None and item[1] == loop.key_name:
        return ("item",) + item
    return None
