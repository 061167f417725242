"""The resident analysis child (``resident.py``): one process answers call after call, keeps
what it loaded, and is bounded like a child forked per call (a deadline kills it, a crash or an
exception is a ``BoundExceeded``, and the next call starts a fresh child)."""
from __future__ import annotations

import os
import time

import pytest

from torchtype_lint.run import bounded, resident
from torchtype_lint.run.bounded import BoundExceeded
from torchtype_lint.source.project import sources
from torchtype_lint.run.runner import check_bytes_bounded
from torchtype_lint.model.settings import Settings

pytestmark = pytest.mark.skipif(not bounded.can_fork(), reason="a resident child needs fork")


@pytest.fixture(autouse=True)
def fresh_resident_child():
    resident.stop_resident()
    yield
    resident.stop_resident()


def _pid() -> int:
    return os.getpid()


def _sleep(seconds: float) -> None:
    time.sleep(seconds)


def _raise() -> None:
    raise ValueError("broken on purpose")


def _die() -> None:
    os._exit(3)


def test_one_child_answers_every_call():
    first = resident.call_resident(_pid, seconds=30)
    assert first != os.getpid()
    assert resident.call_resident(_pid, seconds=30) == first


def test_a_call_past_its_deadline_is_killed_and_the_next_gets_a_fresh_child():
    first = resident.call_resident(_pid, seconds=30)
    with pytest.raises(BoundExceeded, match="did not finish within 0.5s"):
        resident.call_resident(_sleep, 30, seconds=0.5)
    second = resident.call_resident(_pid, seconds=30)
    assert second != first
    with pytest.raises(ProcessLookupError):
        os.kill(first, 0)  # killed and reaped, not left behind


def test_an_exception_is_reported_and_the_child_serves_on():
    first = resident.call_resident(_pid, seconds=30)
    with pytest.raises(BoundExceeded, match="ValueError: broken on purpose") as raised:
        resident.call_resident(_raise, seconds=30)
    assert raised.value.raised
    assert resident.call_resident(_pid, seconds=30) == first


def test_a_child_that_dies_is_reported_and_replaced():
    first = resident.call_resident(_pid, seconds=30)
    with pytest.raises(BoundExceeded, match="exited with status 3"):
        resident.call_resident(_die, seconds=30)
    assert resident.call_resident(_pid, seconds=30) != first


def test_a_forked_process_never_uses_its_parents_child(monkeypatch):
    first = resident.call_resident(_pid, seconds=30)
    monkeypatch.setattr(resident._resident, "owner", -1)  # as seen from a process forked since
    assert resident.call_resident(_pid, seconds=30) != first


def test_files_importing_the_same_module_share_its_parse(tmp_path, monkeypatch):
    (tmp_path / "pyproject.toml").write_text("")
    (tmp_path / "data.py").write_text("import torch\n\ndef make_batch(n):\n    return torch.randint(0, 10, (n, 4))\n")
    log = tmp_path / "parses.log"
    parse = sources._parse

    def counted(data):
        with open(log, "a") as handle:
            handle.write(f"{os.getpid()}\n")
        return parse(data)

    monkeypatch.setattr(sources, "_parse", counted)  # before the child starts: it inherits this
    for n in range(3):
        train = tmp_path / f"train{n}.py"
        train.write_text(f"import torch.nn as nn\nfrom data import make_batch\n\nout = nn.Linear(4, 2)(make_batch({n + 1}))\n")
        result = check_bytes_bounded(train.read_text(), str(train), Settings(), resident=True)
        assert [f.code for f in result.findings] == ["TTL202"]  # an int64 batch into a float32 Linear
    pids = log.read_text().split()
    assert len(pids) == 1 and pids[0] != str(os.getpid())  # parsed once, in the child


EXITS = """\
import multiprocessing, os
from torchtype_lint.run import resident

def in_worker(_):
    return resident.call_resident(os.getpid, seconds=30)

if __name__ == "__main__":
    print(resident.call_resident(os.getpid, seconds=30))
    with multiprocessing.get_context("fork").Pool(1) as pool:  # as flake8 -j N runs plugins
        print(pool.map(in_worker, [0])[0])
        pool.close()
        pool.join()
"""


def test_the_child_ends_with_the_process_that_started_it(tmp_path):
    # Reaped by its parent (so its CPU counts as the parent's children's), whether the parent
    # is a plain process (atexit) or a multiprocessing worker (its finalizers).
    import subprocess
    import sys

    script = tmp_path / "exits.py"
    script.write_text(EXITS)
    run = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    pids = [int(line) for line in run.stdout.split()]
    assert len(pids) == 2
    for pid in pids:
        with pytest.raises(ProcessLookupError):
            os.kill(pid, 0)


def test_before_start_runs_only_when_a_child_is_forked():
    calls = []
    first = resident.call_resident(_pid, seconds=30, before_start=lambda: calls.append(1))
    assert resident.call_resident(_pid, seconds=30, before_start=lambda: calls.append(2)) == first
    assert calls == [1]  # the running child took the second call: nothing to prepare
    with pytest.raises(BoundExceeded):
        resident.call_resident(_die, seconds=30)
    assert resident.call_resident(_pid, seconds=30, before_start=lambda: calls.append(3)) != first
    assert calls == [1, 3]


def test_a_child_started_ahead_answers_the_calls_of_other_threads():
    import threading

    resident.start_resident()
    started = resident._resident.pid
    answers = []
    thread = threading.Thread(target=lambda: answers.append(resident.call_resident(_pid, seconds=30)))
    thread.start()
    thread.join()
    assert answers == [started]
    resident.start_resident()  # one running already: no second child
    assert resident._resident.pid == started
