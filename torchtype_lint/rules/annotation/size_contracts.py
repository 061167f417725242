"""Shape annotations as promises about every size (the TTL65x contract rules).

``def gram(x: Float[Tensor, "b d"])`` promises to work for every ``b`` and ``d``: analysed on
its own, ``x`` has the shape ``(b, d)`` (names, see ``knowledge/symbolic_dims.py``). An
operation that needs two of those sizes to be equal (``x @ x`` needs ``d == b``) then runs
only for special sizes. A contract finding needs every name it involves to be declared by
the annotations of the function under analysis: names that leak in from elsewhere (another
function's return annotation) prove nothing here, and unknown dims stay silent.

Sizes no annotation declares, an ``int`` parameter of unknown value (``d_in``: a
``SizeSymbol``), promise nothing: they count only where a claim holds for *every* size
(TTL655), and only in the function that took them (or, for ``__init__``'s, in the class's
methods, through ``self``), never in a function their value merely flowed into.
"""
from __future__ import annotations

from typing import Any, FrozenSet, Optional

import libcst as cst

from ...knowledge.symbolic_dims import SizeSymbol, differ_for_every, equality_condition, has_names, names_of
from ..base import expr_text
from ..context import RuleContext
from .shape_annotations import shape_annotation


class _DeclaredNames:
    """Per analysis (``ctx.state``): the dim names each function's parameter annotations
    declare, read once per function."""

    def __init__(self) -> None:
        self.by_function: dict = {}


def declared_names(ctx: RuleContext) -> FrozenSet[str]:
    """The named dims (``b``, ``d``; variadic ones excluded: they are no single size) that
    the parameter annotations of the function under analysis declare; empty at module level."""
    fnode = ctx.function_node
    if not isinstance(fnode, cst.FunctionDef):
        return frozenset()
    holder = ctx.state(_DeclaredNames)
    if fnode not in holder.by_function:
        names = set()
        params = fnode.params
        for param in list(params.posonly_params) + list(params.params) + list(params.kwonly_params):
            if param.annotation is None:
                continue
            annotation = shape_annotation(param.annotation.annotation, ctx)
            if annotation is None or annotation.dims is None:
                continue
            names.update(str(d.value) for d in annotation.dims
                         if d.kind == "named" and d.value and not d.variadic and not d.broadcastable)
        holder.by_function[fnode] = frozenset(names)
    return holder.by_function[fnode]


def sizes_condition(a: Any, b: Any, ctx: RuleContext) -> Optional[str]:
    """What the annotated sizes must satisfy for the dims ``a`` and ``b`` to be equal
    (``"b == d"``), when both are named sizes (or products of them) the function's
    annotations declare and they are equal only for some sizes; else None."""
    if not (has_names(a) and has_names(b)):
        return None
    declared = declared_names(ctx)
    if not declared or not all(name in declared for name in names_of(a) + names_of(b)):
        return None
    return equality_condition(a, b)


def never_equal(a: Any, b: Any, ctx: RuleContext) -> bool:
    """Whether the dims differ for every choice of the sizes (``2*d`` and ``d``): sizes the
    annotations declare, or int parameters of the function (or of its class's ``__init__``)."""
    if not (has_names(a) or has_names(b)):
        return False  # two ints: the shape rules' (TTL5xx) business
    declared = declared_names(ctx)
    return all(name in declared or _fixed_here(name, ctx) for name in names_of(a) + names_of(b)) \
        and differ_for_every(a, b)


def _fixed_here(name: str, ctx: RuleContext) -> bool:
    """Whether ``name`` is an int parameter's size fixed for the whole function under
    analysis: its own parameter, or its class's ``__init__``'s (the instance's). Elsewhere
    (a result that left the function) two uses may stand for different calls' values."""
    if not isinstance(name, SizeSymbol):
        return False
    fnode = ctx.function_node
    if fnode is None:
        return False
    if name.function is fnode:
        return True
    owner = name.owner
    return owner is not None and isinstance(owner, cst.ClassDef) and isinstance(owner.body, cst.IndentedBlock) \
        and any(statement is fnode for statement in owner.body.body)


def promise(ctx: RuleContext) -> str:
    """How messages name the promise broken: "`gram`'s shape annotations promise every size"."""
    fnode = ctx.function_node
    name = fnode.name.value if isinstance(fnode, cst.FunctionDef) else "the function"
    return f"`{name}`'s shape annotations promise any sizes"


def shown(how: Any) -> str:
    """An operation as messages show it: its source text (or a label), on one short line."""
    text = " ".join((how if isinstance(how, str) else expr_text(how)).split())
    return text if len(text) <= 50 else text[:47] + "..."
