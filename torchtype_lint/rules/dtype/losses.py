"""Recognising a call of a loss, as `F.<function>` or as an `nn.<Module>` instance."""
from __future__ import annotations

from typing import Any, FrozenSet, Iterable, Optional, Tuple

from ...knowledge.ops import FUNCTION, MODULE, OpCall
from ..context import RuleContext

_F = "torch.nn.functional."


def loss_ops(functions: Iterable[str]) -> FrozenSet[str]:
    """The op names of ``torch.nn.functional.<functions>`` (what a loss rule declares)."""
    return frozenset(_F + function for function in functions)


def loss_call(ctx: RuleContext, node: Any, functions: Iterable[str]) -> Optional[Tuple[str, str, OpCall]]:
    """(functional name, the name the code uses, the call) when ``node`` computes one of
    ``F.<functions>``, spelled as the function or as an ``nn`` loss module; else None."""
    call = ctx.op_call(node)
    if call is None or call.has_star or call.spelling not in (FUNCTION, MODULE) \
            or not call.op.startswith(_F) or call.op[len(_F):] not in functions:
        return None
    name = call.op[len(_F):]
    return name, name if call.spelling == FUNCTION else call.receiver.short_name, call
