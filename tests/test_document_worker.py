"""The language server's analyses run in the resident child, which keeps each document's last
analysis between edits yet never lets one document hang or kill the server
(torchtype_lint/run/incremental/worker.py, torchtype_lint/run/resident.py)."""
from __future__ import annotations

import os
import time

import pytest

from torchtype_lint.run import bounded, resident
from torchtype_lint.checker.check import check_source
from torchtype_lint.run.incremental import session
from torchtype_lint.run.incremental.worker import check_document
from torchtype_lint.model.settings import Settings

pytestmark = pytest.mark.skipif(not bounded.can_fork(), reason="the resident child is forked")

BUG = "import numpy as np\nimport torch\nimport torch.nn as nn\n\nlayer = nn.Linear(3, 2)\n" \
      "out = layer(torch.from_numpy(np.zeros((4, 3))))\n"


@pytest.fixture(autouse=True)
def fresh_child():
    # A child forked before a test's monkeypatch would not see it; one left running would keep
    # another test's documents.
    resident.stop_resident()
    yield
    resident.stop_resident()


def _codes(result):
    return [(f.code, f.line, f.message) for f in result.findings]


def test_the_child_answers_like_check_source_and_keeps_state_between_edits() -> None:
    result, last_run = check_document(BUG, "bug.py", Settings())
    assert _codes(result) == _codes(check_source(BUG, "bug.py"))
    assert last_run.incremental is False
    edited = BUG + "other = torch.ones(2) + 1\n"
    result, last_run = check_document(edited, "bug.py", Settings())
    assert _codes(result) == _codes(check_source(edited, "bug.py"))
    assert last_run.incremental  # the child kept the first analysis


def test_a_hanging_analysis_is_stopped_and_the_next_one_gets_a_fresh_child(monkeypatch) -> None:
    real = session.IncrementalChecker.check

    def slow(self, source, path, settings=None, overlay=None):
        if "hang" in path:
            time.sleep(60)
        return real(self, source, path, settings, overlay)

    monkeypatch.setattr(session.IncrementalChecker, "check", slow)  # before the fork: inherited
    started = time.monotonic()
    hung, last_run = check_document(BUG, "hang.py", Settings(time_budget=0.1))
    assert time.monotonic() - started < 30 and last_run is None
    assert [f.code for f in hung.findings] == ["TTL000"] and "stopped" in hung.findings[0].message
    result, last_run = check_document(BUG, "bug.py", Settings())
    assert [f.code for f in result.findings] == ["TTL401"] and last_run.incremental is False


def test_a_child_that_dies_is_reported_and_replaced(monkeypatch) -> None:
    real = session.IncrementalChecker.check

    def dying(self, source, path, settings=None, overlay=None):
        if "die" in path:
            os._exit(9)
        return real(self, source, path, settings, overlay)

    monkeypatch.setattr(session.IncrementalChecker, "check", dying)
    died, _ = check_document(BUG, "die.py", Settings())
    assert [f.code for f in died.findings] == ["TTL000"] and "exited with status 9" in died.findings[0].message
    result, _ = check_document(BUG, "bug.py", Settings())
    assert [f.code for f in result.findings] == ["TTL401"]


def test_a_child_started_and_warmed_ahead_answers_the_first_document_like_check_source() -> None:
    from torchtype_lint.run.incremental import worker

    worker.start()
    warmed = resident._resident.pid
    worker.warm()  # the warm-up program in the child leaves no document behind
    result, last_run = check_document(BUG, "bug.py", Settings())
    assert resident._resident.pid == warmed
    assert _codes(result) == _codes(check_source(BUG, "bug.py"))
    assert last_run.incremental is False  # a first analysis: nothing kept from the warm-up
