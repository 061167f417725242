"""The harness's process model (issue 24): no job runs in a process forked from one that
imported torch, initialised CUDA or ran autograd.

Each worker is a fresh ``python -I -B`` interpreter that imports torch once and runs jobs one
at a time; the pool replaces a worker after a crash, a hang, a CUDA error or state it cannot
reset. Three pools run once per module, each over an ordered list of jobs on one worker slot
(so "the next job" is the next one on the same worker unless that one had to go):

* ``cpu``: autograd with several threads, then the state a job can change (default dtype,
  grad mode, threads, seeds, environment, monkeypatched torch, ...);
* ``crashes``: a segfault, a Python-level hang and a job stuck outside Python;
* ``standin``: CUDA jobs on the stand-in device (``harness/cuda_standin.py``), which records
  ``CUDA_LAUNCH_BLOCKING``, every ``synchronize`` and how each CUDA worker was started.

On a machine with a GPU, the ``cpu`` pool also runs real CUDA jobs (a device-side assert from
an out-of-range embedding index); elsewhere those tests are skipped.
"""
from __future__ import annotations

import argparse
import importlib.util
import json
import os
import textwrap
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, List

import pytest

if importlib.util.find_spec("torch") is None:
    pytest.skip("torch is not installed: the harness's workers cannot run", allow_module_level=True)

from torchtype_lint.cli import main as cli  # noqa: E402
from torchtype_lint.checker.check import check_path  # noqa: E402
from torchtype_lint.harness import pool  # noqa: E402
from torchtype_lint.harness.commands import confirm_hook  # noqa: E402
from torchtype_lint.harness.pool import DeviceRun, Workers  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent


def _job(ident: str, source: str) -> Dict[str, str]:
    return {"id": ident, "source": textwrap.dedent(source).lstrip("\n")}


# --------------------------------------------------------------------------- the jobs

#: Ordered: each check job runs right after the job that changed what it checks.
CPU_JOBS = [
    # The fork-based worker died here on a 16-core machine: autograd with several threads in
    # the process, then more autograd jobs. In-process, nothing is forked after it.
    _job("backward_many_threads", """
        import torch
        torch.set_num_threads(4)
        w = torch.randn(64, 64, requires_grad=True)
        loss = (torch.randn(256, 64) @ w).relu().sum()
        loss.backward()
        assert w.grad is not None
        """),
    _job("backward_again", """
        import torch
        assert torch.get_num_threads() == 1, torch.get_num_threads()
        torch.set_num_threads(4)
        layer = torch.nn.Linear(32, 8)
        layer(torch.randn(128, 32)).sum().backward()
        torch.randn(512, 512) @ torch.randn(512, 512)
        """),
    _job("set_float64", """
        import torch
        torch.set_default_dtype(torch.float64)
        torch.set_grad_enabled(False)
        LEAKED_GLOBAL = torch.zeros(1)
        """),
    _job("after_float64", """
        import torch
        assert torch.get_default_dtype() == torch.float32, torch.get_default_dtype()
        assert torch.tensor([1.0]).dtype == torch.float32
        assert torch.is_grad_enabled()
        assert "LEAKED_GLOBAL" not in globals()
        """),
    _job("seeded_first", """
        import torch
        __observed__ = str(torch.rand(3).tolist())
        """),
    _job("more_state", """
        import os
        import numpy
        import torch
        torch.rand(1000)
        numpy.random.rand(1000)
        numpy.seterr(all="raise")
        torch.set_default_device("meta")
        torch.set_num_threads(3)
        torch.autograd.set_detect_anomaly(True)
        torch.set_default_tensor_type(torch.DoubleTensor)
        os.environ["TTL_LEAKED"] = "1"
        os.chdir("/")
        """),
    _job("seeded_again", """
        import torch
        __observed__ = str(torch.rand(3).tolist())
        """),
    _job("after_more_state", """
        import os
        import numpy
        import torch
        assert numpy.geterr()["divide"] == "warn", numpy.geterr()
        assert torch.empty(1).device.type == "cpu" and torch.empty(1).dtype == torch.float32
        assert torch.get_num_threads() == 1 and not torch.is_anomaly_enabled()
        assert "TTL_LEAKED" not in os.environ and os.environ["TTL_DEVICE"] == "cpu"
        assert os.getcwd() != "/" and not os.listdir(".")
        """),
    # What cannot be put back: the worker is replaced, the next job runs in a fresh one.
    _job("patch_torch", """
        import torch
        torch.matmul = lambda *args: "patched"
        torch.nn.modules.module.register_module_forward_hook(lambda module, args, out: None)
        """),
    _job("after_patch", """
        import torch
        assert torch.matmul(torch.eye(2), torch.eye(2)).shape == (2, 2)
        assert not torch.nn.modules.module._global_forward_hooks
        """),
]

CRASH_JOBS = [
    _job("segfault", """
        import ctypes
        x = 1
        ctypes.string_at(0)
        """),
    _job("after_segfault", "x = 1\n"),
    _job("hang", """
        while True:
            pass
        """),
    _job("after_hang", "x = 1\n"),
    # SIGALRM blocked: the job's own alarm never fires, the pool kills the worker.
    _job("stuck", """
        import signal
        import time
        signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGALRM})
        time.sleep(60)
        """),
    _job("after_stuck", "x = 1\n"),
]

#: Ordered CUDA jobs for the stand-in device.
STANDIN_JOBS = [
    _job("marked", """
        import torch
        x = torch.ones(3)
        torch.cuda.standin_note("last statement of the job")
        """),
    # With CUDA_LAUNCH_BLOCKING=1 the failing kernel raises at its own line (3).
    _job("device_assert", """
        import torch
        x = torch.ones(3)
        torch.cuda.standin_fault("device-side assert triggered")
        y = x + 1
        """),
    _job("after_assert", "import torch\ny = torch.ones(2) * 2\n"),
    # A fault the device reports late: the synchronize at the end of the job raises, in this job.
    _job("late_assert", """
        import torch
        torch.cuda.standin_fault("device-side assert triggered", late=True)
        y = 1
        """),
    _job("after_late", "import torch\ny = torch.ones(2) * 2\n"),
]

#: Real CUDA, run only where a GPU exists: an out-of-range embedding index is a device-side
#: assert, reported late without synchronisation.
GPU_JOBS = [
    _job("gpu_autograd", """
        import torch
        layer = torch.nn.Linear(8, 2).to(DEVICE)
        layer(torch.randn(4, 8, device=DEVICE)).sum().backward()
        """),
    _job("gpu_embedding_assert", """
        import torch
        embedding = torch.nn.Embedding(3, 2).to(DEVICE)
        index = torch.tensor([5], device=DEVICE)
        out = embedding(index)
        """),
    _job("gpu_after_assert", """
        import torch
        x = torch.ones(2, device=DEVICE) * 2
        assert x.sum().item() == 4
        """),
]


# --------------------------------------------------------------------------- the runs


@dataclass
class PoolRun:
    runs: Dict[str, DeviceRun]
    test_pid: int

    def result(self, ident: str, device: str = "cpu") -> dict:
        return self.runs[device].results[ident]


@pytest.fixture(scope="module")
def cpu() -> PoolRun:
    with pytest.MonkeyPatch.context() as patch:
        def no_fork() -> int:
            raise AssertionError("the harness forked the linter's process")

        # Workers are started by exec, never by os.fork (which would copy this process).
        patch.setattr(os, "fork", no_fork)
        patch.delenv(pool.STANDIN_VARIABLE, raising=False)
        runs = Workers(["cpu", "cuda"], parallel=1).run({"cpu": CPU_JOBS, "cuda": GPU_JOBS})
    return PoolRun(runs, os.getpid())


@pytest.fixture(scope="module")
def crashes() -> PoolRun:
    runs = Workers(["cpu"], parallel=1, timeout=2.0, kill_grace=0.5).run({"cpu": CRASH_JOBS})
    return PoolRun(runs, os.getpid())


@dataclass
class StandinRun(PoolRun):
    records: List[dict]


def _records(directory: Path) -> List[dict]:
    out = []
    for path in sorted(directory.glob("worker-*.jsonl")):
        out += [json.loads(line) for line in path.read_text().splitlines()]
    return out


@pytest.fixture(scope="module")
def standin(tmp_path_factory: pytest.TempPathFactory) -> StandinRun:
    directory = tmp_path_factory.mktemp("standin")
    # CUDA alone: with the stand-in, no CPU worker is needed to learn that CUDA exists.
    runs = Workers(["cuda"], parallel=1, cuda_standin=str(directory)).run({"cuda": STANDIN_JOBS})
    return StandinRun(runs, os.getpid(), _records(directory))


# --------------------------------------------------------------------------- CPU: same process model


def test_cpu_jobs_run_in_fresh_interpreters_never_forked(cpu: PoolRun) -> None:
    run = cpu.runs["cpu"]
    assert run.available and len(run.results) == len(CPU_JOBS), run.error
    workers = {info["pid"]: info for info in run.workers}
    for info in workers.values():
        # torch was not in the worker's modules before it imported it: not a fork of a torch process.
        assert info["preloaded"] is False and info["device"] == "cpu"
    # Every job ran inside one of those workers, not in a child of one.
    assert {r["pid"] for r in run.results.values()} <= set(workers)


def test_autograd_with_many_threads_then_more_jobs(cpu: PoolRun) -> None:
    first, second = cpu.result("backward_many_threads"), cpu.result("backward_again")
    assert first["outcome"] == "ok", first
    # Same worker, thread count reset to one, autograd and a 4-thread matmul run again.
    assert second["outcome"] == "ok", second
    assert first["pid"] == second["pid"] and "recycle" not in first


def test_default_dtype_and_grad_mode_do_not_leak(cpu: PoolRun) -> None:
    changed, checked = cpu.result("set_float64"), cpu.result("after_float64")
    assert checked["outcome"] == "ok", checked["message"]
    # Reset, not replaced: a job that changes a setting costs no torch import.
    assert changed["pid"] == checked["pid"] and "recycle" not in changed


def test_every_job_starts_from_the_same_seeds(cpu: PoolRun) -> None:
    first, again = cpu.result("seeded_first"), cpu.result("seeded_again")
    assert first["observed"] == again["observed"] and first["pid"] == again["pid"]


def test_other_settings_environment_and_directory_are_reset(cpu: PoolRun) -> None:
    changed, checked = cpu.result("more_state"), cpu.result("after_more_state")
    assert changed["outcome"] == "ok", changed["message"]
    assert checked["outcome"] == "ok", checked["message"]
    assert changed["pid"] == checked["pid"] and "recycle" not in changed


def test_state_that_cannot_be_reset_replaces_the_worker(cpu: PoolRun) -> None:
    changed, checked = cpu.result("patch_torch"), cpu.result("after_patch")
    assert "torch.matmul was replaced" in changed.get("recycle", ""), changed
    assert "a global nn.Module hook was registered" in changed["recycle"]
    assert checked["outcome"] == "ok", checked["message"]
    assert checked["pid"] != changed["pid"]


# --------------------------------------------------------------------------- crashes and hangs


def test_segfault_is_reported_at_its_line_and_the_next_job_runs(crashes: PoolRun) -> None:
    crashed = crashes.result("segfault")
    assert crashed["outcome"] == "crashed" and "SIGSEGV" in crashed["message"], crashed
    assert "Fatal Python error: Segmentation fault" in crashed["message"]
    assert crashed["line"] == 3, crashed  # from faulthandler's dump: `ctypes.string_at(0)`
    after = crashes.result("after_segfault")
    assert after["outcome"] == "ok" and after["pid"] != crashed["pid"]


def test_hang_times_out_and_the_next_job_runs_in_a_fresh_worker(crashes: PoolRun) -> None:
    hung = crashes.result("hang")
    assert hung["outcome"] == "timeout" and "timed out" in hung["recycle"], hung
    after = crashes.result("after_hang")
    assert after["outcome"] == "ok" and after["pid"] != hung["pid"]


def test_job_stuck_outside_python_is_killed(crashes: PoolRun) -> None:
    stuck = crashes.result("stuck")
    assert stuck["outcome"] == "crashed" and "stuck outside Python" in stuck["message"], stuck
    assert crashes.result("after_stuck")["outcome"] == "ok"


def test_every_crash_verdict_is_the_crashing_jobs_own(crashes: PoolRun) -> None:
    outcomes = {ident: r["outcome"] for ident, r in crashes.runs["cpu"].results.items()}
    assert outcomes == {"segfault": "crashed",
                        "after_segfault": "ok", "hang": "timeout", "after_hang": "ok",
                        "stuck": "crashed", "after_stuck": "ok"}


# --------------------------------------------------------------------------- CUDA, on the stand-in


def _cuda_starts(records: List[dict]) -> List[dict]:
    return [r for r in records if r["event"] == "start"]


def test_standin_cuda_workers_are_fresh_with_blocking_launches(standin: StandinRun) -> None:
    run = standin.runs["cuda"]
    assert run.available and run.torch.endswith("(CUDA stand-in)"), (run.torch, run.error)
    starts = _cuda_starts(standin.records)
    # The first worker, then one after each of the two device-side asserts.
    assert len(starts) == 3, starts
    for start in starts:
        assert start["launch_blocking"] == "1"
        assert start["torch_preloaded"] is False  # torch was imported by the worker itself
        assert start["orig_argv"][1:3] == ["-I", "-B"]  # an exec'd interpreter, not a fork
        assert start["ppid"] == standin.test_pid  # started by the linter's process, which has no torch workers' state


def test_standin_synchronizes_after_each_job(standin: StandinRun) -> None:
    marked = [(r["event"], r.get("text")) for r in standin.records if r["job"] == "marked"]
    assert marked == [("begin", None), ("note", "last statement of the job"), ("synchronize", None)]
    for ident in ("after_assert", "late_assert", "after_late"):
        events = [r["event"] for r in standin.records if r["job"] == ident]
        assert events[-1] == "synchronize", (ident, events)
    assert standin.result("marked", "cuda")["outcome"] == "ok"


def test_blocking_device_assert_is_attributed_to_its_line(standin: StandinRun) -> None:
    failed = standin.result("device_assert", "cuda")
    assert failed["outcome"] == "raised" and failed["line"] == 3, failed
    assert failed["message"] == "CUDA error: device-side assert triggered" and not failed.get("late")
    assert "CUDA error" in failed["recycle"]
    after = standin.result("after_assert", "cuda")
    # A poisoned context would make this job's synchronize raise: it runs in a fresh worker.
    assert after["outcome"] == "ok" and after["pid"] != failed["pid"], after


def test_late_device_assert_is_attributed_to_its_own_job(standin: StandinRun) -> None:
    late = standin.result("late_assert", "cuda")
    assert late["outcome"] == "raised" and late["late"] is True, late
    assert "device-side assert" in late["message"] and "recycle" in late
    after = standin.result("after_late", "cuda")
    assert after["outcome"] == "ok" and after["pid"] != late["pid"], after


def test_check_confirm_runs_cuda_reproductions_in_fresh_synchronized_workers(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture) -> None:
    records = tmp_path / "records"
    records.mkdir()
    monkeypatch.setenv(pool.STANDIN_VARIABLE, str(records))
    program = tmp_path / "prog.py"
    program.write_text("import torch\na = torch.randn(4, 3)\nb = torch.randn(5, 2)\nc = a @ b\n")
    findings = check_path(str(program)).findings
    assert [f.code for f in findings] == ["TTL507"], findings
    confirm_hook(findings, argparse.Namespace(confirm=True, stdin_filename=None))
    lines = findings[0].confirmations
    assert any(c.startswith("confirmed on cpu: RuntimeError: mat1 and mat2") for c in lines), lines
    assert any(c.startswith("confirmed on cuda: RuntimeError: mat1 and mat2") for c in lines), lines
    written = _records(records)
    assert [r["launch_blocking"] for r in _cuda_starts(written)] == ["1"]
    # The reproduction raised in the script, so the synchronize after it never ran: it began.
    assert [r["event"] for r in written if r["job"] == "0"] == ["begin"]


def test_confirm_device_all_with_the_standin_writes_json(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                         capsys: pytest.CaptureFixture) -> None:
    records = tmp_path / "records"
    records.mkdir()
    monkeypatch.setenv(pool.STANDIN_VARIABLE, str(records))
    out = tmp_path / "confirm.json"
    code = cli.main(["confirm", "--device", "all", "--rule", "TTL101", "--no-lint", "--json", str(out)])
    assert code == 0, capsys.readouterr().out
    data = json.loads(out.read_text())
    assert data["available"] == {"cpu": True, "cuda": True}
    assert data["hardware"]["cuda"] == "CUDA stand-in (runs on CPU)"
    assert data["rules"]["TTL101"]["cuda"]["status"] == "confirmed", data["rules"]["TTL101"]
    fixtures = [f["fixture"] for f in data["rules"]["TTL101"]["cuda"]["fixtures"]]
    # Each good fixture ran to its end, so each ended with the worker's synchronize.
    synchronized = {r["job"] for r in _records(records) if r["event"] == "synchronize"}
    assert {f"TTL101/{name}" for name in fixtures if name.startswith("good_")} <= synchronized


# --------------------------------------------------------------------------- real CUDA (a GPU only)


def _gpu(cpu: PoolRun) -> DeviceRun:
    run = cpu.runs["cuda"]
    if not run.available:
        pytest.skip("no CUDA device on this machine: the stand-in tests above cover the CUDA path")
    return run


def test_gpu_autograd_then_a_device_side_assert_at_its_line(cpu: PoolRun) -> None:
    run = _gpu(cpu)
    assert run.results["gpu_autograd"]["outcome"] == "ok", run.results["gpu_autograd"]
    failed = run.results["gpu_embedding_assert"]
    # CUDA_LAUNCH_BLOCKING=1: the assert is raised by the embedding call, line 4, not later.
    assert failed["outcome"] == "raised" and failed["line"] == 4, failed
    assert "recycle" in failed
    after = run.results["gpu_after_assert"]
    assert after["outcome"] == "ok" and after["pid"] != failed["pid"], after
    assert all(info["preloaded"] is False for info in run.workers)


# --------------------------------------------------------------------------- without a worker


def test_which_results_replace_the_worker() -> None:
    from torchtype_lint.harness.worker import Device, recycle_reason

    cuda, cpu_device = Device("cuda", "cuda"), Device("cpu", "cpu")

    def raised(exception: str, message: str, mro: List[str]) -> dict:
        return {"outcome": "raised", "exception": exception, "message": message, "mro": mro}

    # torch >= 2.8 raises CUDA errors as torch.AcceleratorError, older ones as RuntimeError.
    assert recycle_reason(raised("AcceleratorError", "CUDA error: an illegal memory access was encountered",
                                 ["AcceleratorError", "RuntimeError"]), cuda, [])
    assert recycle_reason(raised("RuntimeError", "CUBLAS_STATUS_EXECUTION_FAILED when calling cublasSgemm",
                                 ["RuntimeError"]), cuda, [])
    # An ordinary dtype error on CUDA keeps the worker; so does CUDA's wording on a CPU worker.
    assert not recycle_reason(raised("NotImplementedError", '"addmm_cuda" not implemented for \'Long\'',
                                     ["NotImplementedError", "RuntimeError"]), cuda, [])
    assert not recycle_reason(raised("RuntimeError", "CUDA error: no kernel image", ["RuntimeError"]),
                              cpu_device, [])
    assert recycle_reason(raised("MemoryError", "", ["MemoryError"]), cpu_device, [])
    assert recycle_reason({"outcome": "timeout", "exception": "TimeoutError", "message": "", "mro": []},
                          cpu_device, [])
    assert "torch.matmul was replaced" in recycle_reason({"outcome": "ok", "exception": None, "message": "",
                                                          "mro": []}, cpu_device, ["torch.matmul was replaced"])
