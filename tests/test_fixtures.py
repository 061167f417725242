"""Every rule fixture, checked against its own annotations (see fixtures/README.md):

- ``fixtures/<CODE>/bad_*.py``: the linter reports exactly the lines marked ``# expect: CODE``
  (with those codes), nothing else;
- ``fixtures/<CODE>/good_*.py``: no findings at all.

The rule under test is enabled explicitly, so opt-in (TTL9xx) fixtures work the same way.
"""
from __future__ import annotations

import re
from pathlib import Path
from typing import List, Set, Tuple

import pytest

from torchtype_lint.checker.check import Settings, check_path
from torchtype_lint.model.selection import Selection

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
EXPECT = re.compile(r"#\s*expect:\s*(?P<codes>TTL\d{3}(?:\s*,\s*TTL\d{3})*)")


def _fixture_files(prefix: str) -> List[Path]:
    return sorted(p for p in FIXTURES.glob(f"TTL*/{prefix}_*.py") if p.parent.name.startswith("TTL"))


def _id(path: Path) -> str:
    return f"{path.parent.name}/{path.name}"


def expected_findings(path: Path) -> Set[Tuple[int, str]]:
    out = set()
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        match = EXPECT.search(line)
        if match:
            out.update((number, code.strip()) for code in match.group("codes").split(","))
    return out


def reported_findings(path: Path) -> Set[Tuple[int, str]]:
    code = path.parent.name
    settings = Settings(selection=Selection(select=["TTL"], extend_select=[code]))
    result = check_path(str(path), settings)
    return {(f.line, f.code) for f in result.findings}


BAD = _fixture_files("bad")
GOOD = _fixture_files("good")


def test_there_are_fixtures():
    assert BAD, "no bad fixtures found"


@pytest.mark.parametrize("path", BAD, ids=[_id(p) for p in BAD])
def test_bad_fixture_reports_exactly_the_expected_lines(path: Path):
    expected = expected_findings(path)
    assert expected, f"{_id(path)} has no `# expect: CODE` line"
    assert any(code == path.parent.name for _, code in expected), \
        f"{_id(path)} does not expect its own rule {path.parent.name}"
    assert sorted(reported_findings(path)) == sorted(expected)


@pytest.mark.parametrize("path", GOOD, ids=[_id(p) for p in GOOD])
def test_good_fixture_has_no_findings(path: Path):
    assert not expected_findings(path), f"{_id(path)}: a good fixture must not carry `# expect:`"
    assert sorted(reported_findings(path)) == []
