"""What the engine knew when a rule reported: the facts a reproduction is built from.

The analysis is run once more with every enabled rule wrapped so that, at the moment a rule
reports, the values of the reported node's sub-expressions and the calls it contains are
copied out of the interpreter's current context (the context the rule fired in, not the
join over every context). No torch here, and the user's code is only parsed, never run.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Tuple

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

from ..checker.check import Settings, enabled_rules, parse, run_rules
from ..rules.base import Report
from ..rules.context import RuleContext
from ..model.values import TOP, Callee, Value

#: Sub-expressions copied per report; reproductions need a handful, not a whole function body.
NODE_LIMIT = 400


@dataclass
class Facts:
    """The reported node plus the values and calls inside it, in the reporting context."""

    code: str
    node: Any
    visited: Any
    module: cst.Module
    values: Dict[Any, Value] = field(default_factory=dict)
    callees: Dict[Any, Callee] = field(default_factory=dict)
    default_float: str = "float32"

    def value(self, node: Any) -> Value:
        return self.values.get(node, TOP)

    def callee(self, node: Any) -> Optional[Callee]:
        return self.callees.get(node)

    def text(self, node: Any) -> str:
        try:
            return " ".join(self.module.code_for_node(node).split())
        except Exception:  # noqa: BLE001 - only for messages
            return "?"


def _subtree(node: Any, limit: int = NODE_LIMIT) -> List[Any]:
    out, stack = [], [node]
    while stack and len(out) < limit:
        current = stack.pop()
        out.append(current)
        try:
            stack.extend(reversed(list(current.children)))
        except Exception:  # noqa: BLE001 - a node without children
            continue
    return out


def _snapshot(report: Report, visited: Any, ctx: RuleContext, module: cst.Module) -> Facts:
    facts = Facts(report.code, report.node, visited, module, default_float=ctx.default_float)
    seen = set()
    for root in (report.node, visited):
        for node in _subtree(root):
            if id(node) in seen:
                continue
            seen.add(id(node))
            value = ctx.value(node)
            if value is not TOP:
                facts.values[node] = value
            if isinstance(node, cst.Call):
                callee = ctx.callee(node)
                if callee is not None:
                    facts.callees[node] = callee
    return facts


def collect(source: str, settings: Optional[Settings] = None) -> Dict[Tuple[str, int, int], Facts]:
    """(code, line, column) of each report -> its facts. Empty when the file does not parse
    or the analysis fails: confirmation is best effort and never changes the lint result."""
    settings = settings or Settings()
    module = parse(source)  # screened like every parse of user code
    if not isinstance(module, cst.Module):
        return {}
    captured: List[Facts] = []

    def sink(report: Report, ctx: RuleContext) -> None:
        captured.append(_snapshot(report, ctx.node, ctx, module))

    try:
        run_rules(module, enabled_rules(settings.selection), settings.time_budget, sink)
    except Exception:  # noqa: BLE001 - budget or engine failure: nothing to confirm
        return {}
    if not captured:
        return {}
    positions = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    out: Dict[Tuple[str, int, int], Facts] = {}
    for facts in captured:
        pos = positions.get(facts.node)
        if pos is not None:
            out.setdefault((facts.code, pos.start.line, pos.start.column), facts)
    return out
