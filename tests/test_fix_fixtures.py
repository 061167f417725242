"""Fixes, judged by torch: every bad fixture, with all its fixes applied (``--fix --unsafe-fixes``),
re-parses, has no finding left, and then runs without error (the bug is really gone).

All fixed programs run in one subprocess (torch is imported once); each fixture's outcome is
one test.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Dict

import pytest

from torchtype_lint.checker.check import Settings
from torchtype_lint.edit.fix import fix_source, is_valid_python
from torchtype_lint.rules.base import get_rule
from torchtype_lint.model.selection import Selection

REPO = Path(__file__).resolve().parent.parent


def _has_fixes(code: str) -> bool:
    rule = get_rule(code)
    return rule is not None and rule.fix_safety != "none"


#: Bad fixtures of the rules that offer fixes.
BAD = sorted(p for p in (REPO / "fixtures").glob("TTL*/bad_*.py") if _has_fixes(p.parent.name))

#: Known gaps, each with its reason (not strict: a fix landing elsewhere shows up as XPASS
#: and should then be removed from here).
KNOWN = {
    "TTL101/bad_loop_variable.py": "the fix rebinds the loop variable; the list keeps its int64 tensors",
    "TTL101/bad_self_attribute.py": "the fixture asserts on a fresh Scaler() that never ran forward()",
}

RUNNER = """
import json, runpy, sys
import torch
results = {}
for path in sys.argv[1:]:
    default_dtype = torch.get_default_dtype()
    try:
        runpy.run_path(path, run_name="__main__")
        results[path] = "ok"
    except BaseException as exc:  # the outcome is the result
        first = str(exc).splitlines()[0] if str(exc) else ""
        results[path] = f"{type(exc).__name__}: {first}"
    finally:
        torch.set_default_dtype(default_dtype)
print(json.dumps(results))
"""


def _settings(path: Path) -> Settings:
    return Settings(selection=Selection(select=["TTL"], extend_select=[path.parent.name]))


@pytest.fixture(scope="module")
def fixed(tmp_path_factory) -> Dict[str, dict]:
    """For each bad fixture with fixes: the fixed source, what is left, and how it ran."""
    out = tmp_path_factory.mktemp("fixed")
    info: Dict[str, dict] = {}
    for path in BAD:
        source = path.read_text(encoding="utf-8")
        new, applied, remaining = fix_source(source, str(path), _settings(path), unsafe=True)
        if not applied:
            continue
        target = out / f"{path.parent.name}_{path.name}"
        target.write_text(new, encoding="utf-8")
        info[_id(path)] = {"source": new, "remaining": [f.concise() for f in remaining], "file": str(target)}
    env = dict(os.environ, TTL_DEVICE="cpu")
    proc = subprocess.run([sys.executable, "-c", RUNNER, *(v["file"] for v in info.values())],
                          capture_output=True, text=True, timeout=600, cwd=out, env=env)
    assert proc.returncode == 0, proc.stderr[-2000:]
    outcomes = json.loads(proc.stdout.splitlines()[-1])
    for value in info.values():
        value["outcome"] = outcomes[value["file"]]
    return info


def _id(path: Path) -> str:
    return f"{path.parent.name}/{path.name}"


def _params():
    for path in BAD:
        marks = [pytest.mark.xfail(strict=False, reason=KNOWN[_id(path)])] if _id(path) in KNOWN else []
        yield pytest.param(path, id=_id(path), marks=marks)


@pytest.mark.parametrize("path", list(_params()))
def test_fixed_fixture_is_clean_and_runs(fixed, path):
    entry = fixed.get(_id(path))
    if entry is None:
        pytest.skip("the rule offers no fix for this particular fixture")
    assert is_valid_python(entry["source"])
    assert entry["remaining"] == []
    assert entry["outcome"] == "ok", entry["outcome"]


def test_some_fixtures_have_fixes(fixed):
    assert len(fixed) >= 10
