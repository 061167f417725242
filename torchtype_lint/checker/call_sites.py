"""Failures inside another module's function that only the analysed file's arguments cause,
reported at the analysed file's call.

``def project(x): return x @ W`` in ``data.py`` (a float64 ``W``) fails for the float32 tensor
``train.py`` passes, and for no value ``data.py``'s own analysis knows of. While a call of the
analysed file runs such a function (``engine/modules.running_call``), rules judge its nodes in
the caller's context, and each report made there names that call (``Report.call_site``). Here
each such report becomes one report on the call, saying where it fails:
"`project(x)` fails in data.py:7: ...". Rules fire only when every value fails, so the call
fails for every value of what the analysed file passes.

Reported once: one report per rule and call, and none for a failure the module's own analysis
already reports (it fails whatever the arguments: ``data.py`` shows it). Warnings about a root
cause stay with the module they are about. A failure the module's own analysis could not be
run to tell apart (its time budget spent) is left out: unknown means silent.
"""
from __future__ import annotations

import os
import time
from typing import Any, Callable, Dict, List, Optional, Sequence, Set, Tuple

from libcst.metadata import MetadataWrapper, PositionProvider

from ..rules.base import Report
from ..source.project.imports import project_imports

#: Characters of the call shown in the message before it is shortened.
CALL_SNIPPET_CHARS = 60


def at_call_sites(reports: Sequence[Report], interpreter: Any, rule_classes: Sequence[type],
                  deadline: float, run_rules: Callable[..., Any]) -> List[Report]:
    """``reports`` (in the order they were made), each report made in another module's code
    replaced by its report at the analysed file's call, or dropped (see the module docstring).
    ``run_rules``: ``check.run_rules``, given rather than imported (check imports this module)."""
    kept: List[Report] = []
    done: Set[Tuple[str, Any]] = set()
    modules = _Modules(interpreter, rule_classes, deadline, run_rules)
    for report in reports:
        site = report.call_site
        if site is None:
            kept.append(report)  # the analysed file's own code (or no call: dropped as before)
            continue
        if report.cause_warning or (report.code, site) in done:
            continue
        found = modules.where(report.node)
        if found is None:
            continue
        home, line = found
        own = modules.own_reports(home)
        if own is None or (report.code, report.node) in own:
            continue  # its own analysis reports it (or could not tell): not this file's finding
        done.add((report.code, site))
        where = os.path.relpath(home.path, os.path.dirname(interpreter.main_home.path or home.path))
        message = f"`{_snippet(interpreter.main_home.module, site)}` fails in " \
                  f"{where.replace(os.sep, '/')}:{line}: {report.message}"
        kept.append(Report(report.code, site, message, report.severity, report.origin, None,
                           report.explains, False))
    return kept


class _Modules:
    """The loaded project modules: where a node is, and what each module's own analysis
    reports (computed on first need: only for modules holding a failure)."""

    def __init__(self, interpreter: Any, rule_classes: Sequence[type], deadline: float,
                 run_rules: Callable[..., Any]):
        self.homes = [h for h in interpreter.loaded.values() if h is not None]
        self.rule_classes = rule_classes
        self.deadline = deadline
        self.run_rules = run_rules
        self.positions: Dict[str, Any] = {}
        self.reports: Dict[str, Optional[Set[Tuple[str, Any]]]] = {}

    def where(self, node: Any) -> Optional[Tuple[Any, int]]:
        """The module holding ``node`` and its line there."""
        for home in self.homes:
            if home.path not in self.positions:
                try:
                    self.positions[home.path] = MetadataWrapper(
                        home.module, unsafe_skip_copy=True).resolve(PositionProvider)
                except Exception:  # noqa: BLE001 - a module without positions holds nothing found
                    self.positions[home.path] = {}
            position = self.positions[home.path].get(node)
            if position is not None:
                return home, position.start.line
        return None

    def own_reports(self, home: Any) -> Optional[Set[Tuple[str, Any]]]:
        """(rule, node) of every report the module's own analysis makes; None if unknown."""
        if home.path not in self.reports:
            self.reports[home.path] = self._analyse(home)
        return self.reports[home.path]

    def _analyse(self, home: Any) -> Optional[Set[Tuple[str, Any]]]:
        made: Set[Tuple[str, Any]] = set()
        budget = self.deadline - time.monotonic()
        if budget <= 0:
            return None
        try:
            self.run_rules(home.module, self.rule_classes, budget,
                      lambda report, _ctx: made.add((report.code, report.node)), project_imports(home.path))
        except Exception:  # noqa: BLE001 - its budget spent or a failure: which is whose is unknown
            return None
        return made


def _snippet(module: Any, node: Any) -> str:
    try:
        text = " ".join(module.code_for_node(node).split())
    except Exception:  # noqa: BLE001 - a message must never fail
        return "?"
    return text if len(text) <= CALL_SNIPPET_CHARS else text[: CALL_SNIPPET_CHARS - 3] + "..."
