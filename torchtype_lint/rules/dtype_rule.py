"""The base of the dtype rule families: a report whose value came through a numpy conversion
says so, and names that conversion as the root cause it explains (one report per root cause:
``torchtype_lint/checker/root_causes.py``)."""
from __future__ import annotations

import re
from typing import Any, Optional

from ..model.findings import Fix
from ..model.values import Origin
from .base import Rule
from .context import RuleContext
from .numpy.conversions import conversion_in_chain
from .source_edits import code


class DtypeRule(Rule):
    """A rule of the dtype families: a report whose value came through a numpy conversion
    says so, and names that conversion as the root cause it explains."""

    def flag(self, ctx: RuleContext, node: Any, message: str, origin: Optional[Origin] = None,
             fix: Optional[Fix] = None) -> None:
        conversion = conversion_in_chain(origin, ctx)
        if conversion is not None:
            note = f"; converted by `{code(conversion)}`, which keeps numpy's dtype"
            if "{origin}" in message:
                message = message.replace("{origin}", "{origin}" + note, 1)
            else:
                message += f" ({note[2:]})"
        self.report(node, _articles(message), origin=origin, fix=fix, explains=conversion)


def _articles(message: str) -> str:
    """``a int64`` -> ``an int64`` (dtype names are filled into ``a {dtype}`` templates)."""
    return re.sub(r"\ba ((?:int|{int)\w*)", r"an \1", message)
