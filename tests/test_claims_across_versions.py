"""Runtime claims hold for the torch versions and devices the project has recorded runs of.

The harness checks every claim against the torch installed here (``confirm``); these tests
check them against what other torch versions and a GPU printed for the same fixtures, recorded
by running each fixture as its own process (``../shared/gpu/``: torch 2.11 on an H100 and on
that machine's CPU). A claim whose pattern lists only one version's wording fails here when
another version words the same failure differently (torch 2.11's CPU said `expected scalar
type Long but found Float` where 2.13 says `expected target dtype to be Long or Byte`).
"""
from __future__ import annotations

import builtins
import json
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple

import pytest

from torchtype_lint.harness.confirm import claim_matches
from torchtype_lint.rules.base import RuntimeClaim, all_rules

ROOT = Path(__file__).resolve().parent.parent
RECORDED = ROOT.parent / "shared" / "gpu"
#: (file, device) of each recorded run of every fixture.
RUNS = (("fixtures-cpu-torch2.11.json", "cpu"), ("fixtures-cuda-h100-torch2.11.json", "cuda"))
CLAIMS: Dict[str, Optional[RuntimeClaim]] = {rule.code: rule.runtime for rule in all_rules()}


def _result(row: Dict[str, Any]) -> Optional[Dict[str, Any]]:
    """The recorded run as the harness records one, or None when it shows a CUDA error
    reported late (a device-side assert printed by the kernel, not an exception)."""
    if row["rc"] == 0 and "Assertion" in row["last"]:
        return None  # a device-side assert nothing synchronised on: the harness synchronises
    if row["rc"] == 0:
        return {"outcome": "ok", "warnings": []}
    name, sep, message = row["last"].partition(": ")
    name = name.rsplit(".", 1)[-1]
    if not sep or not name.isidentifier():
        return None
    builtin = getattr(builtins, name, None)
    # torch's own exception classes (torch.AcceleratorError...) derive from RuntimeError.
    mro = ([c.__name__ for c in builtin.__mro__] if isinstance(builtin, type)
           else [name, "RuntimeError", "Exception"])
    return {"outcome": "raised", "exception": name, "mro": mro, "message": message,
            "in_script": True}


def _recorded() -> List[Tuple[str, str, str, Dict[str, Any]]]:
    cases = []
    for name, device in RUNS:
        path = RECORDED / name
        if not path.is_file():
            continue
        for row in json.loads(path.read_text(encoding="utf-8")):
            code, fixture = Path(row["file"]).parts[1], Path(row["file"]).name
            result = _result(row)
            # Only bad fixtures that still exist, of rules with a claim, on a device it names.
            if (fixture.startswith("bad_") and (ROOT / row["file"]).is_file() and result is not None
                    and CLAIMS.get(code) is not None and device in CLAIMS[code].devices):
                cases.append((row["file"], device, code, result))
    return cases


CASES = _recorded()


@pytest.mark.skipif(not CASES, reason="no recorded runs beside the checkout (../shared/gpu)")
@pytest.mark.parametrize("fixture, device, code, result", CASES,
                         ids=[f"{device}:{fixture}" for fixture, device, _, _ in CASES])
def test_the_claim_accepts_what_torch_2_11_did(fixture, device, code, result):
    assert claim_matches(CLAIMS[code], result, device), (CLAIMS[code], result)
