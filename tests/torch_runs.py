"""Programs run with the real torch in one child process, for tests that check a claim."""
from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from typing import Dict

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
