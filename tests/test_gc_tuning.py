"""The linter's own processes raise the collector's thresholds; the flake8 plugin does not touch
its host's (it runs inside flake8, next to other plugins)."""
from __future__ import annotations

import subprocess
import sys

from torchtype_lint.run.gc_tuning import THRESHOLDS

PROBE = """
import gc, sys
from torchtype_lint.cli.main import main
main(["--version"])
print(gc.get_threshold())
"""

PLUGIN_PROBE = """
import ast, gc
from torchtype_lint.frontends.flake8_plugin import TorchTypeChecker
before = gc.get_threshold()
list(TorchTypeChecker(ast.parse("x = 1"), lines=["x = 1\\n"], filename="x.py").run())
print(before == gc.get_threshold())
"""


def _run(code: str) -> str:
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip().splitlines()[-1]


def test_the_cli_raises_the_thresholds():
    assert _run(PROBE) == str(THRESHOLDS)


def test_the_flake8_plugin_leaves_the_hosts_collector_alone():
    assert _run(PLUGIN_PROBE) == "True"
