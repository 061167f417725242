"""The language server's document worker: a persistent child that keeps analyses between
edits, yet never lets one document hang or kill the server (torchtype_lint/incremental/worker.py)."""
from __future__ import annotations

import os
import time

import pytest

from torchtype_lint import bounded
from torchtype_lint.check import check_source
from torchtype_lint.incremental import session
from torchtype_lint.incremental.worker import DocumentWorker
from torchtype_lint.settings import Settings

pytestmark = pytest.mark.skipif(not bounded.can_fork(), reason="the worker is a forked child")

BUG = "import numpy as np\nimport torch\nimport torch.nn as nn\n\nlayer = nn.Linear(3, 2)\n" \
      "out = layer(torch.from_numpy(np.zeros((4, 3))))\n"


def _codes(result):
    return [(f.code, f.line, f.message) for f in result.findings]


def test_the_worker_answers_like_check_source_and_keeps_state_between_edits() -> None:
    worker = DocumentWorker()
    try:
        assert _codes(worker.check(BUG, "bug.py", Settings())) == _codes(check_source(BUG, "bug.py"))
        assert worker.last_run.incremental is False
        edited = BUG + "other = torch.ones(2) + 1\n"
        assert _codes(worker.check(edited, "bug.py", Settings())) == _codes(check_source(edited, "bug.py"))
        assert worker.last_run.incremental  # the child kept the first analysis
    finally:
        worker.close()


def test_a_hanging_analysis_is_stopped_and_the_next_one_gets_a_fresh_child(monkeypatch) -> None:
    real = session.IncrementalChecker.check

    def slow(self, source, path, settings=None, overlay=None):
        if "hang" in path:
            time.sleep(60)
        return real(self, source, path, settings, overlay)

    # Patched before the fork: the child inherits it.
    monkeypatch.setattr(session.IncrementalChecker, "check", slow)
    worker = DocumentWorker()
    try:
        started = time.monotonic()
        hung = worker.check(BUG, "hang.py", Settings(time_budget=0.1))
        assert time.monotonic() - started < 30
        assert [f.code for f in hung.findings] == ["TTL000"] and "stopped" in hung.findings[0].message
        assert [f.code for f in worker.check(BUG, "bug.py", Settings()).findings] == ["TTL401"]
    finally:
        worker.close()


def test_a_child_that_dies_is_reported_and_replaced(monkeypatch) -> None:
    real = session.IncrementalChecker.check

    def dying(self, source, path, settings=None, overlay=None):
        if "die" in path:
            os._exit(9)
        return real(self, source, path, settings, overlay)

    monkeypatch.setattr(session.IncrementalChecker, "check", dying)
    worker = DocumentWorker()
    try:
        died = worker.check(BUG, "die.py", Settings())
        assert [f.code for f in died.findings] == ["TTL000"] and "died" in died.findings[0].message
        assert [f.code for f in worker.check(BUG, "bug.py", Settings()).findings] == ["TTL401"]
    finally:
        worker.close()
