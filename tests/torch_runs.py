"""Programs run with the real torch in one child process, for tests that check a claim.

What torch prints for one failure depends on the machine: a dtype mismatch in a matmul reads
``mat1 and mat2 must have the same dtype, but got Half and Float``, ``expected m1 and m2 to have
the same dtype`` or ``expected scalar type Float but found Half`` by the kernel that runs, which
depends on the CPU (oneDNN's kernels where it has float16/bfloat16 instructions), the device
and the torch version. A test that runs torch asserts what holds on every machine: the bad
program raises the exception class its case names and the good twin runs; the message is a
literal substring only where one check words it everywhere (shapes, Python argument types),
and otherwise (``AsClaimed``) is checked against the rule's runtime claim, which lists every
wording known (tests/test_claims_across_versions.py checks the claims against the runs recorded
with other torch versions and a GPU). A test of a finding that quotes torch compares the quote
with what the torch installed here raises (``quotes_what_torch_raised``), never with a literal.
"""
from __future__ import annotations

import builtins
import json
import re
import subprocess
import sys
import textwrap
from dataclasses import dataclass
from typing import Any, Dict, List, Union

import pytest

_RUNNER = textwrap.dedent("""
    import json, sys
    results = {}
    for name, source in json.loads(sys.stdin.read()).items():
        try:
            exec(compile(source, name, "exec"), {"__name__": "__main__"})
        except Exception as error:  # what torch raised is the result
            results[name] = f"{type(error).__name__}: {error}"
        else:
            results[name] = ""
    print(json.dumps(results))
""")


def run_in_torch(programs: Dict[str, str]) -> Dict[str, str]:
    """Each program run with real torch: "" when it ran, else "Type: message"."""
    pytest.importorskip("torch")
    done = subprocess.run([sys.executable, "-c", _RUNNER], input=json.dumps(programs), capture_output=True,
                          text=True, timeout=300, check=True)
    return json.loads(done.stdout)


@dataclass(frozen=True)
class AsClaimed:
    """A case's ``raises`` where torch's wording differs by CPU, device or version (dtype
    mismatches above all): the bad program raises ``exception`` (or a subclass of it) with a
    message that the runtime claim of the case's rule accepts on CPU."""

    exception: str


Raises = Union[str, AsClaimed]


def as_result(outcome: str) -> Dict[str, Any]:
    """``run_in_torch``'s outcome of one program as the harness records a run
    (``torchtype_lint.harness.confirm.claim_matches`` reads it)."""
    if not outcome:
        return {"outcome": "ok", "warnings": []}
    name, _, message = outcome.partition(": ")
    builtin = getattr(builtins, name, None)
    # torch's own exception classes (torch.AcceleratorError, OutOfMemoryError...) are RuntimeErrors
    mro = ([c.__name__ for c in builtin.__mro__] if isinstance(builtin, type)
           else [name, "RuntimeError", "Exception"])
    return {"outcome": "raised", "exception": name, "mro": mro, "message": message, "in_script": True}


def raised_as_said(code: str, raises: Raises, outcome: str) -> bool:
    """Whether a bad program's outcome (``run_in_torch``'s "Type: message") is the failure its
    case says: ``raises`` a substring of it, or an ``AsClaimed`` failure of rule ``code``."""
    if not outcome:
        return False
    if isinstance(raises, str):
        return raises in outcome
    from torchtype_lint.harness.confirm import claim_matches
    from torchtype_lint.rules.base import get_rule

    result = as_result(outcome)
    claim = get_rule(code).runtime
    return raises.exception in result["mro"] and claim is not None and claim_matches(claim, result, "cpu")


#: A finding's quote of torch: ``torch raises RuntimeError ("A")`` or ``("A" or "B")`` when CPU
#: backends word it differently (``torch_messages.TorchMessage.quoted``).
_QUOTE = re.compile(r"""\((?:torch: )?(?P<q>["'])(?P<text>.+?)(?P=q)\)""")
_OR = re.compile(r"""["'] or ["']""")


def quoted_wordings(message: str) -> List[str]:
    """The wordings of torch's message that a finding's message quotes ([] when none)."""
    match = _QUOTE.search(message)
    return _OR.split(match.group("text")) if match else []


def quotes_what_torch_raised(message: str, outcome: str) -> bool:
    """Whether a finding quotes torch and one wording it quotes is in what the torch installed
    here raised running the program (``run_in_torch``'s outcome)."""
    return bool(outcome) and any(wording in outcome for wording in quoted_wordings(message))
