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


def rule_case_tests(code: str, header: str, cases: Sequence[Tuple[str, ...]], silent: Dict[str, str],
                    raises: str = "RuntimeError"):
    """The four tests of a rule's case file, as module-level names for pytest to collect:
    each bad program reported on its ``# <-`` line and only there, each twin and look-alike
    silent, and every case true in torch (the exception class, the wording as the rule's claim
    accepts it, the finding's quote found in what the torch installed here raised). A case is
    ``(name, bad, good)`` or ``(name, bad, good, exception class)``."""
    import pytest
    from torch_runs import AsClaimed, quotes_what_torch_raised, raised_as_said

    ids = [case[0] for case in cases]

    def lines(body: str) -> Tuple[List[int], str]:
        source = program(header, body)
        return [line for line, _ in reported(source, code)], source

    @pytest.mark.parametrize("case", cases, ids=ids)
    def test_bad_program_reported_on_its_line(case):
        found, source = lines(case[1])
        assert found == [marked_line(source)]

    @pytest.mark.parametrize("case", cases, ids=ids)
    def test_twin_is_silent(case):
        assert lines(case[2])[0] == []

    @pytest.mark.parametrize("name", sorted(silent))
    def test_look_alikes_are_silent(name):
        assert lines(silent[name])[0] == []

    def test_cases_are_true_in_torch():
        outcomes = bad_outcomes(header, [tuple(case[:3]) for case in cases], silent)
        for case in cases:
            name, bad = case[0], case[1]
            expected = case[3] if len(case) > 3 else raises
            assert raised_as_said(code, AsClaimed(expected), outcomes[name]), (name, outcomes[name])
            message = reported(program(header, bad), code)[0][1]
            assert quotes_what_torch_raised(message, outcomes[name]), (message, outcomes[name])

    return (test_bad_program_reported_on_its_line, test_twin_is_silent, test_look_alikes_are_silent,
            test_cases_are_true_in_torch)
