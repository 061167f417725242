"""Recognising a call of a loss, as `F.<function>` or as an `nn.<Module>` instance."""
from __future__ import annotations

from typing import Tuple

import libcst as cst

from ...knowledge.torch_api import LOSS_FUNCTIONALS
from ...values import ModuleValue
from ..context import RuleContext


def modules_of(functions: Tuple[str, ...]) -> Tuple[str, ...]:
    """The ``nn`` loss classes whose forward is one of ``functions`` (from the one table)."""
    return tuple(sorted(cls for cls, function in LOSS_FUNCTIONALS.items() if function in functions))


def symbol_or_module(ctx: RuleContext, node: cst.Call, functions: Tuple[str, ...], modules: Tuple[str, ...]):
    """(name, args) when ``node`` calls one of ``torch.nn.functional.<functions>`` or an
    ``nn.<modules>`` instance; None otherwise."""
    callee = ctx.callee(node)
    if callee is None or callee.args.has_star:
        return None
    if callee.kind == "symbol" and callee.name.startswith("torch.nn.functional.") and \
            callee.name[20:] in functions:
        return callee.name[20:], callee.args
    if callee.kind == "module" and isinstance(callee.receiver, ModuleValue) and \
            callee.receiver.short_name in modules:
        return callee.receiver.short_name, callee.args
    return None
