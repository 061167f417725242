"""Calls that turn an ndarray into a tensor, and finding one in a value's provenance."""
from __future__ import annotations

from typing import Any, Optional

import libcst as cst

from ...model.values import Origin
from ..context import RuleContext


CONVERSIONS = {"torch.from_numpy", "torch.tensor", "torch.as_tensor", "torch.asarray"}


def conversion_name(call: Any, ctx: RuleContext) -> Optional[str]:
    """``torch.from_numpy`` / ``torch.tensor`` / ``torch.as_tensor`` when ``call`` is one."""
    if not isinstance(call, cst.Call):
        return None
    callee = ctx.callee(call)
    if callee is None or callee.kind != "symbol" or callee.name not in CONVERSIONS:
        return None
    return callee.name


def conversion_in_chain(origin: Optional[Origin], ctx: RuleContext) -> Optional[Any]:
    """The ``torch.from_numpy(...)``-style call node in a provenance chain, if any."""
    link = origin
    seen = 0
    while link is not None and seen < 12:
        if conversion_name(link.node, ctx) is not None and (
                "ndarray" in (link.note or "") or "from_numpy" in (link.note or "")):
            return link.node
        link = link.parent
        seen += 1
    return None
