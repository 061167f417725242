"""How many items a list built by a loop holds, when the loop's count is known.

``for i in range(len(data) - 4): xs.append(data[i:i + 4])`` runs its body once per item of a
known count, and a body that appends to ``xs`` exactly once, on every iteration, leaves ``xs``
holding that many items: ``np.array(xs)`` then has that many rows. The same holds for a list
comprehension with one ``for`` and no ``if``. The items are not known one by one: each is the
join of what any iteration appends (the list holds ``count`` copies of that value).

The body qualifies only when it cannot skip or repeat the append: one ``xs.append(...)``
statement at its top level, no other mention of ``xs`` (no other mutation, no alias, no read
of its length), and no ``break``/``continue``/``return``/``raise``. Lists of more than
``MAX_COUNTED`` items stay of unknown length (their items would cost memory and time).
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Dict, Optional

import libcst as cst

from ..model.values import ArrayValue, ScalarValue, SequenceValue, TensorValue, Value
from .syntax import leaves_early

if TYPE_CHECKING:
    from .interpreter import Interpreter

#: A list of more items than this keeps an unknown length.
MAX_COUNTED = 1024


def iteration_count(interp: "Interpreter", iter_node: Any, iterable: Value) -> Optional[int]:
    """How many times a ``for`` over ``iter_node`` (whose value is ``iterable``) runs its
    body, when known: a ``range`` of known ints, ``enumerate``/``zip`` of counted iterables, a
    tuple or list of known items, the rows of a tensor or array whose first dim is known."""
    callee = interp._callees.get(iter_node) if isinstance(iter_node, cst.Call) else None
    name = callee.name[len("builtins."):] if callee is not None and callee.kind == "symbol" and \
        callee.name.startswith("builtins.") else None
    if name in ("range", "enumerate", "zip"):
        args = callee.args  # type: ignore[union-attr]
        if args.has_star or args.kw and name != "enumerate":
            return None
        if name == "range":
            bounds = [a.const if isinstance(a, ScalarValue) and isinstance(a.const, int)
                      and not isinstance(a.const, bool) else None for a in args.pos]
            if not 1 <= len(bounds) <= 3 or None in bounds or len(bounds) == 3 and bounds[2] == 0:
                return None
            return len(range(*bounds))  # type: ignore[arg-type]
        counts = [iteration_count(interp, node, value) for node, value in zip(args.pos_nodes, args.pos)]
        if not counts or None in counts or name == "enumerate" and len(counts) != 1:
            return None
        return min(counts)  # type: ignore[type-var]
    if isinstance(iterable, SequenceValue) and iterable.items is not None and iterable.container in ("list", "tuple"):
        return len(iterable.items)
    if isinstance(iterable, (TensorValue, ArrayValue)) and iterable.shape:
        first = iterable.shape[0]
        return first if isinstance(first, int) and not isinstance(first, bool) else None
    return None


def counted(element: Value, count: Optional[int], container: SequenceValue) -> Optional[SequenceValue]:
    """``container`` holding ``count`` items, each ``element``; None when the count is
    unknown or too large."""
    if count is None or not 0 <= count <= MAX_COUNTED:
        return None
    items = (element,) * count
    return SequenceValue(container.container, element if count else container.element, items, container.origin)


def appended_each_iteration(body: Any) -> Dict[str, Any]:
    """The local names the loop body appends to exactly once per iteration: name -> the
    ``append`` call. Empty when the body may leave an iteration early."""
    if leaves_early(body) or not isinstance(body, cst.IndentedBlock):
        return {}
    found: Dict[str, Any] = {}
    for stmt in body.body:
        if not (isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1
                and isinstance(stmt.body[0], cst.Expr)):
            continue
        call = stmt.body[0].value
        if isinstance(call, cst.Call) and isinstance(call.func, cst.Attribute) and call.func.attr.value == "append" \
                and isinstance(call.func.value, cst.Name) and len(call.args) == 1 and call.args[0].keyword is None \
                and not call.args[0].star:
            name = call.func.value.value
            found[name] = None if name in found else call  # appended twice: not once per iteration
    found = {name: call for name, call in found.items() if call is not None}
    if not found:
        return {}
    mentions: Dict[str, int] = {}

    class _Names(cst.CSTVisitor):
        def visit_Name(self, node: cst.Name) -> None:
            if node.value in found:
                mentions[node.value] = mentions.get(node.value, 0) + 1

    body.visit(_Names())
    return {name: call for name, call in found.items() if mentions.get(name) == 1}


def count_appended_lists(interp: "Interpreter", stmt: cst.For, count: Optional[int],
                         before: Dict[str, Value]) -> None:
    """After ``stmt`` ran ``count`` iterations: each list that was empty before the loop and
    that the body appends to once per iteration holds ``count`` items."""
    if count is None or count > MAX_COUNTED or stmt.orelse is not None:
        return
    for name in appended_each_iteration(stmt.body):
        start, now = before.get(name), interp.frame.vars.get(name)
        if not (isinstance(start, SequenceValue) and start.container == "list" and start.items == ()
                and isinstance(now, SequenceValue) and now.container == "list"):
            continue
        result = counted(now.element, count, now)
        if result is not None:
            interp.frame.vars[name] = result
