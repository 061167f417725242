"""Batches drawn by hand: a counted loop that takes one batch of a loader per step.

Code that walks two loaders side by side (domain adaptation: a source and a target loader)
does not iterate either: it keeps ``it = iter(loader)`` and draws ``x, y = next(it)`` once per
step of ``for i in range(n)``. When ``n`` is at least ``len(loader)`` (``ceil(N / B)`` for a
loader that keeps its last batch), the loop's draws reach the loader's last batch, as a ``for``
over the loader would. This module finds such a draw: one ``next(it)`` of the loader, a whole
statement at the top of the loop body (so every step runs it), in a body that neither leaves
early nor rebinds the iterator.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, List, Optional

import libcst as cst

from ...knowledge.data_pipeline import DataLoaderValue
from ...model.values import ScalarValue, SymbolValue
from ..context import RuleContext
from .loader_loops import walk

#: Statements after which a step may not reach its later statements (or the next step).
_LEAVING = (cst.Break, cst.Continue, cst.Return, cst.Raise)


@dataclass(frozen=True)
class Draw:
    """``target = next(it)`` at the top of a ``for`` body run ``count`` times: each step
    draws the next batch of ``loader``; ``rest`` is the body after the draw (where the names
    ``target`` binds hold the batch)."""

    loader: DataLoaderValue
    target: Any
    count: int
    rest: cst.IndentedBlock


def counted_draws(node: cst.For, ctx: RuleContext) -> List[Draw]:
    """The draws of ``node``'s body, when it is a ``for`` over ``range(...)`` of known ints
    whose every step runs them (none when the body can leave a step early)."""
    count = _range_count(node.iter, ctx)
    if count is None or not isinstance(node.body, cst.IndentedBlock):
        return []
    if any(isinstance(sub, _LEAVING) for sub in walk(node.body)):
        return []
    statements = list(node.body.body)
    draws: List[Draw] = []
    for index, statement in enumerate(statements):
        if not isinstance(statement, cst.SimpleStatementLine) or len(statement.body) != 1:
            continue
        small = statement.body[0]
        if not isinstance(small, cst.Assign) or len(small.targets) != 1:
            continue
        iterator = _next_of(small.value, ctx)
        if iterator is None:
            continue
        loader = ctx.value(iterator)
        if not isinstance(loader, DataLoaderValue) or _drawn_or_bound_elsewhere(node.body, small, iterator.value):
            continue
        draws.append(Draw(loader, small.targets[0].target, count,
                          node.body.with_changes(body=tuple(statements[index + 1:]))))
    return draws


def _range_count(iterable: Any, ctx: RuleContext) -> Optional[int]:
    """How many steps ``range(...)`` of known ints takes."""
    if not (isinstance(iterable, cst.Call) and iterable.args) or len(iterable.args) > 3:
        return None
    func = ctx.value(iterable.func)
    if not (isinstance(func, SymbolValue) and func.qualname == "builtins.range"):
        return None
    bounds = []
    for arg in iterable.args:
        value = ctx.value(arg.value)
        if arg.keyword is not None or arg.star or not (
                isinstance(value, ScalarValue) and isinstance(value.const, int) and not isinstance(value.const, bool)):
            return None
        bounds.append(value.const)
    if len(bounds) == 3 and bounds[2] == 0:
        return None
    return len(range(*bounds))


def _next_of(value: Any, ctx: RuleContext) -> Optional[cst.Name]:
    """The iterator name of ``next(it)`` (no default: an exhausted iterator raises)."""
    if not (isinstance(value, cst.Call) and len(value.args) == 1 and value.args[0].keyword is None
            and not value.args[0].star and isinstance(value.args[0].value, cst.Name)):
        return None
    func = ctx.value(value.func)
    if not (isinstance(func, SymbolValue) and func.qualname == "builtins.next"):
        return None
    return value.args[0].value


def _drawn_or_bound_elsewhere(body: Any, draw: Any, name: str) -> bool:
    """Does the body draw from ``name`` anywhere but ``draw``, or bind it (a fresh iterator)?"""
    for sub in walk(body):
        if sub is draw:
            continue
        if isinstance(sub, (cst.Assign, cst.AugAssign, cst.AnnAssign, cst.For, cst.With, cst.NamedExpr)):
            targets = [t.target for t in sub.targets] if isinstance(sub, cst.Assign) else \
                [getattr(sub, "target", None)] + [item.asname for item in getattr(sub, "items", ())]
            if any(isinstance(n, cst.Name) and n.value == name for t in targets if t is not None for n in walk(t)):
                return True
        if isinstance(sub, cst.Call) and any(isinstance(a.value, cst.Name) and a.value.value == name
                                             for a in sub.args) and not _inside(sub, draw):
            return True  # next(it) again, or it handed to a function that may draw
    return False


def _inside(node: Any, outer: Any) -> bool:
    return any(sub is node for sub in walk(outer))
