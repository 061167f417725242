"""The runner: worker pool, findings cache, order and failure isolation."""
from __future__ import annotations

import json
import multiprocessing
import os
import subprocess
import sys
import textwrap
import time

import pytest

from torchtype_lint.run import runner
from torchtype_lint.run.cache import Cache, finding_from_dict, finding_to_dict
from torchtype_lint.checker.check import Settings
from torchtype_lint.model.selection import Selection

BAD = textwrap.dedent("""\
    import torch
    x = torch.ones(3, dtype=torch.int64)
    x.float()
""")
CLEAN = "import torch\ny = torch.zeros(2)\n"
NO_TORCH = "print('hello')\n"

needs_fork = pytest.mark.skipif("fork" not in multiprocessing.get_all_start_methods(),
                                reason="the crash and hang tests patch the engine in forked workers")


def _tree(tmp_path, n=6):
    paths = []
    for i in range(n):
        path = tmp_path / f"m{i}.py"
        path.write_text((BAD, CLEAN, NO_TORCH)[i % 3])
        paths.append(str(path))
    return paths


def _shown(results):
    return [[(f.path, f.code, f.line, f.column, f.message) for f in r.findings] for r in results]


def test_pool_gives_the_same_findings_in_the_same_order(tmp_path):
    paths = _tree(tmp_path)
    serial = runner.run_files(paths, Settings(), jobs=1)
    pooled = runner.run_files(paths, Settings(), jobs=2)
    assert [r.path for r in serial] == paths == [r.path for r in pooled]
    assert _shown(serial) == _shown(pooled)
    assert [f.code for f in serial[0].findings] == ["TTL101"]
    # The fix survives the trip from the worker as its span and text.
    fix = pooled[0].findings[0].fix
    assert fix is not None and fix.new_text == "x = x.float()" and fix.location.line == 3


def test_warm_cache_answers_without_analysing(tmp_path, monkeypatch):
    paths = _tree(tmp_path)
    cache_dir = str(tmp_path / "cache")
    cold = runner.run_files(paths, Settings(), cache=Cache(cache_dir, Settings()))

    def must_not_run(*args, **kwargs):
        raise AssertionError("a cached file was analysed again")

    monkeypatch.setattr("torchtype_lint.checker.check.check_bytes", must_not_run)
    cache = Cache(cache_dir, Settings())
    warm = runner.run_files(paths, Settings(), cache=cache)
    assert cache.hits == len(paths) and cache.misses == 0
    assert _shown(warm) == _shown(cold)
    original, cached = cold[0].findings[0], warm[0].findings[0]
    assert (cached.provenance, cached.fix.new_text, cached.fix.location, cached.severity) == (
        original.provenance, original.fix.new_text, original.fix.location, original.severity)
    # The cache directory keeps itself out of version control.
    assert open(os.path.join(cache_dir, ".gitignore")).read().strip().endswith("*")


def test_cache_key_follows_content_path_and_settings(tmp_path):
    paths = _tree(tmp_path, 3)
    cache_dir = str(tmp_path / "cache")
    runner.run_files(paths, Settings(), cache=Cache(cache_dir, Settings()))
    with open(paths[0], "a") as handle:
        handle.write("# changed\n")
    cache = Cache(cache_dir, Settings())
    runner.run_files(paths, Settings(), cache=cache)
    assert (cache.hits, cache.misses) == (2, 1)
    ignoring = Settings(selection=Selection(ignore=["TTL101"]))
    cache = Cache(cache_dir, ignoring)
    results = runner.run_files(paths, ignoring, cache=cache)
    assert cache.hits == 0 and results[0].findings == []
    assert Cache(cache_dir, Settings()).key(b"x", "a.py") != Cache(cache_dir, Settings()).key(b"x", "b.py")


def test_corrupt_entries_are_misses(tmp_path):
    paths = _tree(tmp_path, 1)
    cache_dir = tmp_path / "cache"
    runner.run_files(paths, Settings(), cache=Cache(str(cache_dir), Settings()))
    entries = list(cache_dir.rglob("*.json"))
    assert len(entries) == 1
    entries[0].write_text('{"findings": [{"code": "TTL1')  # torn write from some other tool
    cache = Cache(str(cache_dir), Settings())
    results = runner.run_files(paths, Settings(), cache=cache)
    assert cache.misses == 1 and [f.code for f in results[0].findings] == ["TTL101"]


def test_run_dependent_findings_are_not_cached(tmp_path):
    path = tmp_path / "slow.py"
    path.write_text(BAD * 50)
    settings = Settings(time_budget=0.0)
    cache = Cache(str(tmp_path / "cache"), settings)
    first = runner.run_files([str(path)], settings, cache=cache)
    assert [f.code for f in first[0].findings] == ["TTL000"]
    assert not list((tmp_path / "cache").rglob("*.json"))


def _hammer(cache_dir, key, payload, rounds):
    cache = Cache(cache_dir, Settings())
    for _ in range(rounds):
        cache.put_dicts(key, payload)


def test_concurrent_writers_never_expose_a_partial_entry(tmp_path):
    cache_dir = str(tmp_path / "cache")
    cache = Cache(cache_dir, Settings())
    key = cache.key(BAD.encode(), "m.py")
    finding = runner.run_files([str(_tree(tmp_path, 1)[0])], Settings())[0].findings[0]
    payload = [finding_to_dict(finding)] * 200  # big enough that a torn write would show
    method = "fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn"
    writers = [multiprocessing.get_context(method).Process(target=_hammer, args=(cache_dir, key, payload, 25))
               for _ in range(3)]
    for w in writers:
        w.start()
    seen = 0
    while any(w.is_alive() for w in writers):
        got = cache.get(key, "m.py")
        if got is not None:
            assert len(got) == 200 and got[0].message == finding.message
            seen += 1
    for w in writers:
        w.join()
        assert w.exitcode == 0
    assert len(cache.get(key, "m.py")) == 200
    assert not [p for p in os.listdir(os.path.dirname(cache._entry_path(key))) if p.startswith(".tmp-")]


def test_dict_round_trip_keeps_every_reported_field(tmp_path):
    finding = runner.run_files(_tree(tmp_path, 1), Settings())[0].findings[0]
    again = finding_from_dict(json.loads(json.dumps(finding_to_dict(finding))), finding.path)
    fields = ("code", "message", "severity", "path", "location", "provenance", "confirmations")
    assert [getattr(again, n) for n in fields] == [getattr(finding, n) for n in fields]
    fix_fields = ("description", "safe", "location", "new_text")
    assert [getattr(again.fix, n) for n in fix_fields] == [getattr(finding.fix, n) for n in fix_fields]


@pytest.mark.parametrize("jobs", [1, 2])
@pytest.mark.parametrize("cached", [False, True])
def test_missing_and_unreadable_paths_become_ttl001(tmp_path, jobs, cached):
    paths = _tree(tmp_path, 2)
    gone = str(tmp_path / "vanished.py")
    directory = str(tmp_path / "dir.py")
    os.mkdir(directory)
    cache = Cache(str(tmp_path / "cache"), Settings()) if cached else None
    results = runner.run_files([paths[0], gone, directory, paths[1]], Settings(), jobs=jobs, cache=cache)
    assert [r.path for r in results] == [paths[0], gone, directory, paths[1]]
    for r in results[1:3]:
        assert [f.code for f in r.findings] == ["TTL001"]
        assert "could not read file" in r.findings[0].message
    assert [f.code for f in results[0].findings] == ["TTL101"]


def _misbehaving_check(real):
    def check_bytes(data, path, settings=None):
        name = os.path.basename(path)
        if name == "crash.py":
            os._exit(3)  # the worker dies (as if the OS killed it)
        if name == "hang.py":
            time.sleep(60)  # stuck in something the time budget cannot interrupt
        return real(data, path, settings)
    return check_bytes


@needs_fork
def test_pool_survives_a_dying_and_a_stuck_worker(tmp_path, monkeypatch):
    import torchtype_lint.checker.check as check

    paths = _tree(tmp_path, 4)
    for name in ("crash.py", "hang.py"):
        (tmp_path / name).write_text(BAD)
    order = [paths[0], str(tmp_path / "crash.py"), paths[1], str(tmp_path / "hang.py"), paths[2], paths[3]]
    monkeypatch.setattr(check, "check_bytes", _misbehaving_check(check.check_bytes))
    monkeypatch.setattr(runner, "hard_deadline", lambda settings: 3.0)
    started = time.monotonic()
    results = runner.run_files(order, Settings(), jobs=2)
    assert time.monotonic() - started < 30
    assert [r.path for r in results] == order
    crash, hang = results[1].findings, results[3].findings
    assert [f.code for f in crash] == ["TTL000"] and "worker process" in crash[0].message
    assert "exit code 3" in crash[0].message
    assert [f.code for f in hang] == ["TTL000"] and "did not finish within 3s" in hang[0].message
    assert [f.code for f in results[0].findings] == ["TTL101"]
    assert results[2].findings == [] and results[4].findings == []


def test_warm_cli_run_never_imports_the_engine(tmp_path, capsys):
    from torchtype_lint.cli.main import main

    paths = _tree(tmp_path, 3)
    env = dict(os.environ, TORCHTYPE_LINT_CACHE_DIR=str(tmp_path / "cache"))
    probe = ("import sys; from torchtype_lint.cli.main import main; code = main(['check', '--isolated', '-j', '2', "
             f"*{paths!r}]); print('ENGINE' if 'libcst' in sys.modules else 'LIGHT'); sys.exit(code)")
    first = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, env=env)
    second = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, env=env)
    assert first.returncode == second.returncode == 1
    assert first.stdout.strip().endswith("ENGINE")
    assert second.stdout.strip().endswith("LIGHT"), second.stdout + second.stderr
    assert first.stdout.replace("ENGINE", "") == second.stdout.replace("LIGHT", "")
    assert list((tmp_path / "cache").rglob("*.json"))
    # --no-cache neither reads nor creates a cache directory.
    unused = tmp_path / "unused"
    assert main(["check", "--isolated", "--no-cache", "--cache-dir", str(unused), *paths]) == 1
    assert capsys.readouterr().out == first.stdout.replace("ENGINE\n", "")
    assert not unused.exists()


@pytest.mark.parametrize("select, extend, wanted", [
    (["F"], [], False), (["E", "W"], [], False), (["F"], ["TTL1"], True), (["TTL"], [], True),
    (["T"], [], True), ([], [], True), (None, None, True),
])
def test_flake8_plugin_costs_nothing_when_ttl_is_not_selected(monkeypatch, select, extend, wanted):
    from types import SimpleNamespace

    from torchtype_lint.frontends.flake8_plugin import TorchTypeChecker

    calls = []
    # The plugin analyses in a child process (its resident one, resident.py, or one forked per
    # file by bounded.call_bounded): count the calls of either.
    monkeypatch.setattr("torchtype_lint.run.bounded.call_bounded", lambda *args, **kwargs: calls.append(args) or [])
    monkeypatch.setattr("torchtype_lint.run.runner.call_resident", lambda *args, **kwargs: calls.append(args) or [])
    monkeypatch.setattr(TorchTypeChecker, "_run_plan", None)
    TorchTypeChecker.parse_options(SimpleNamespace(select=select, extend_select=extend))
    try:
        list(TorchTypeChecker(None, BAD.splitlines(keepends=True), "m.py").run())
    finally:
        TorchTypeChecker.parse_options(SimpleNamespace(select=None, extend_select=None))
    assert bool(calls) == wanted
