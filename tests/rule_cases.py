"""A rule's cases as its tests write them: small programs under a header, the finding expected on
the line marked ``# <-``, a fixed twin and look-alikes that must run and stay silent. Shared by
the rule tests that check each case in torch (tests/test_backward_on_non_scalar.py...)."""
from __future__ import annotations

import textwrap
from typing import Dict, List, Sequence, Tuple

from torch_runs import run_in_torch

from torchtype_lint.checker.check import Settings, check_source
from torchtype_lint.model.selection import Selection


def program(header: str, body: str) -> str:
    return header + textwrap.dedent(body).lstrip("\n")


def reported(source: str, code: str) -> List[Tuple[int, str]]:
    """(line, message) of every finding of ``code`` in ``source``, default rules selected."""
    findings = check_source(source, "program.py", Settings(selection=Selection(select=["TTL"]))).findings
    return [(f.line, f.message) for f in findings if f.code == code]


def marked_line(source: str) -> int:
    return next(i for i, line in enumerate(source.splitlines(), 1) if line.endswith("# <-"))


def bad_outcomes(header: str, pairs: Sequence[Tuple[str, str, str]], silent: Dict[str, str]) -> Dict[str, str]:
    """Run every (name, bad, good) pair and every look-alike in torch; assert that the twins and
    look-alikes run, and give what each bad program raised ("Type: message"), by name."""
    programs = {}
    for name, bad, good in pairs:
        programs[name + ":bad"], programs[name + ":good"] = program(header, bad), program(header, good)
    for name, body in silent.items():
        programs[name + ":silent"] = program(header, body)
    results = run_in_torch(programs)
    for name, _, _ in pairs:
        assert results[name + ":good"] == "", (name, results[name + ":good"])
    for name in silent:
        assert results[name + ":silent"] == "", (name, results[name + ":silent"])
    return {name: results[name + ":bad"] for name, _, _ in pairs}
