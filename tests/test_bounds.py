"""Every input ends fast with a diagnostic, in every front end (issue 12, items 4-7).

The screen (``screen.py``) turns inputs that make libcst's parser hang or exhaust memory into
TTL001 in about a second; ``bounded.py`` puts every analysis in a child process with a
wall-clock deadline and an address-space cap, so whatever the screen misses costs a TTL000 for
that file, never the run, the flake8 process or the language server.
"""
from __future__ import annotations

import os
import subprocess
import sys
import time

import pytest

from torchtype_lint.run import bounded, runner
from torchtype_lint.checker.check import check_source
from torchtype_lint.model.settings import Settings

HEAD = "import torch\n"
BAD = "x = torch.ones(2, dtype=torch.int64)\nx.float()\n"
#: Each of these took libcst tens of seconds and gigabytes (or crashed it) before the screen;
#: CPython refuses or measures each in about a second.
PATHOLOGICAL = {
    "10,000 unary minus (10 KB)": "x = " + "-" * 10_000 + "1\n",
    "100,000 unary minus": "x = " + "-" * 100_000 + "1\n",
    "10,000 not": "x = " + "not " * 10_000 + "1\n",
    "100,000 attribute chain": "x = a" + ".b" * 100_000 + "\n",
    "50,000 subscripts": "x = a" + "[0]" * 50_000 + "\n",
    "50,000 calls": "x = f" + "()" * 50_000 + "\n",
    "10,000 conditional expressions": "x = " + "1 if c else " * 10_000 + "2\n",
    "200,000 term sum": "x = " + "+".join(["a"] * 200_000) + "\n",
    "1,000,000 term and-chain": "x = " + " and ".join(["a"] * 1_000_000) + "\n",
    "one-line list of 1,000,000 items": "x = [" + ",".join(["1"] * 1_000_000) + "]\n",
    "10,000 nested lambdas": "x = " + "lambda: " * 10_000 + "1\n",
}


@pytest.mark.parametrize("name", list(PATHOLOGICAL))
def test_pathological_inputs_end_in_seconds_with_one_diagnostic(name):
    source = HEAD + PATHOLOGICAL[name]
    started = time.monotonic()
    result = runner.check_bytes_deep(source.encode(), "deep.py", Settings())
    took = time.monotonic() - started
    assert [f.code for f in result.findings] == ["TTL001"], result.findings
    message = result.findings[0].message
    assert "too" in message and ("nested" in message or "large" in message), message
    assert took < 15, f"{name}: {took:.1f}s"  # at most 1.3 s here; generous for a loaded 2-core CI


def test_the_screen_leaves_real_code_alone():
    # The caps are far above real code: a 1,000-deep expression and a 5,000-item table pass.
    source = HEAD + "y = " + " + ".join(["1"] * 1000) + "\nt = [" + ",".join(["0.5"] * 5000) + "]\n" + BAD
    result = runner.check_bytes_deep(source.encode(), "ok.py", Settings())
    assert [f.code for f in result.findings] == ["TTL101"]


def test_adjacent_string_literals_are_not_a_false_syntax_error():
    # CPython compiles 200,000 adjacent literals; libcst cannot. Not the user's syntax error.
    source = HEAD + "s = (" + " ".join(['"a"'] * 200_000) + ")\n" + BAD
    compile(source, "s.py", "exec")
    result = runner.check_bytes_deep(source.encode(), "strings.py", Settings())
    assert [f.code for f in result.findings] == ["TTL000"], result.findings
    assert "which Python accepts" in result.findings[0].message


def test_a_50_mb_file_is_refused_without_parsing(tmp_path):
    path = tmp_path / "huge.py"
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(HEAD)
        line = "x = 1  # " + "padding " * 12 + "\n"
        handle.write(line * (50_000_000 // len(line)))
    started = time.monotonic()
    result = runner.run_files([str(path)], Settings(), jobs=1)[0]
    assert time.monotonic() - started < 15
    assert [f.code for f in result.findings] == ["TTL001"]
    assert "too large" in result.findings[0].message


def test_a_large_text_in_memory_is_refused_by_the_screen():
    source = HEAD + "# comment\n" * 1_200_000  # 12 MB, beyond MAX_SOURCE_CHARS
    result = check_source(source, "big.py")
    assert [f.code for f in result.findings] == ["TTL001"]
    assert "file too large to analyse" in result.findings[0].message


def test_the_time_budget_counts_parsing():
    # 1,000 chained calls take libcst about a second to parse, far beyond a 0.05 s budget:
    # the budget is wall time for the whole file, so this is TTL000, not an analysis.
    source = HEAD + "y = x" + ".abs()" * 1000 + "\n" + BAD
    result = runner.check_bytes_deep(source.encode(), "slow.py", Settings(time_budget=0.05))
    assert [f.code for f in result.findings] == ["TTL000"]
    assert "parsing included" in result.findings[0].message


# ---------------------------------------------------------------------- the hard bounds


def _sleep_forever(*_args):
    while True:
        time.sleep(1)


def _allocate(gigabytes):
    return len(bytearray(gigabytes << 30))


def _crash():
    import ctypes

    return ctypes.string_at(0)  # a segmentation fault, as from a native parser


needs_fork = pytest.mark.skipif(not bounded.can_fork(), reason="hard bounds need os.fork")
#: The address-space cap is Linux's RLIMIT_AS, sized from /proc: elsewhere an allocation test
#: would really try to allocate.
needs_memory_cap = pytest.mark.skipif(not (sys.platform.startswith("linux") and os.path.exists("/proc/self/statm")),
                                      reason="the memory cap needs Linux's RLIMIT_AS and /proc")


@needs_fork
def test_call_bounded_kills_at_the_deadline():
    started = time.monotonic()
    with pytest.raises(bounded.BoundExceeded, match="did not finish within 1s"):
        bounded.call_bounded(_sleep_forever, seconds=1)
    assert time.monotonic() - started < 5


@needs_fork
@needs_memory_cap
def test_call_bounded_caps_memory():
    with pytest.raises(bounded.BoundExceeded, match="MemoryError"):
        bounded.call_bounded(_allocate, 8, seconds=60, memory=1 << 30)
    assert bounded.call_bounded(_allocate, 0, seconds=60) == 0


@needs_fork
def test_call_bounded_survives_a_crash_in_native_code():
    with pytest.raises(bounded.BoundExceeded, match="SIGSEGV|SIGBUS"):
        bounded.call_bounded(_crash, seconds=60)


@needs_fork
def test_single_file_runs_have_a_hard_wall_clock_deadline(tmp_path, monkeypatch):
    # Before, -j1 and single files ran in-process with no deadline at all.
    import torchtype_lint.checker.check as check_module

    path = tmp_path / "stuck.py"
    path.write_text(HEAD + BAD)
    monkeypatch.setattr(check_module, "check_bytes", _sleep_forever)  # the worker is forked: it sees this
    started = time.monotonic()
    result = runner.run_files([str(path)], Settings(time_budget=0.5), jobs=1)[0]
    assert time.monotonic() - started < 20
    assert [f.code for f in result.findings] == ["TTL000"]
    assert "did not finish within" in result.findings[0].message


@needs_fork
@needs_memory_cap
def test_a_worker_out_of_memory_costs_one_file(tmp_path, monkeypatch):
    import torchtype_lint.checker.check as check_module

    real = check_module.check_bytes
    greedy, fine = tmp_path / "greedy.py", tmp_path / "fine.py"
    greedy.write_text(HEAD + BAD)
    fine.write_text(HEAD + BAD)

    def check_bytes(data, path, settings=None):
        if path.endswith("greedy.py"):
            _allocate(64)  # far beyond the worker's cap, far beyond this machine
        return real(data, path, settings)

    monkeypatch.setattr(check_module, "check_bytes", check_bytes)
    results = runner.run_files([str(greedy), str(fine)], Settings(), jobs=1)
    assert [f.code for f in results[0].findings] == ["TTL000"]
    assert "MemoryError" in results[0].findings[0].message
    assert [f.code for f in results[1].findings] == ["TTL101"]


# ---------------------------------------------------------------------- every front end

DEEP_FILE = HEAD + "x = " + "-" * 10_000 + "1\n"


def _limited(gigabytes):
    def preexec():
        import resource

        resource.setrlimit(resource.RLIMIT_AS, (gigabytes << 30, gigabytes << 30))
    return preexec if sys.platform.startswith("linux") else None


@pytest.mark.parametrize("command", [["check"], ["check", "-"], ["explain"]])
def test_cli_modes_end_fast_on_deep_nesting(tmp_path, command):
    path = tmp_path / "deep.py"
    path.write_text(DEEP_FILE)
    args = [sys.executable, "-m", "torchtype_lint", *command]
    stdin = None
    if command[-1] == "-":
        stdin = DEEP_FILE.encode()
    else:
        args.append(str(path))
    started = time.monotonic()
    done = subprocess.run(args, input=stdin, capture_output=True, timeout=60, cwd=tmp_path,
                          preexec_fn=_limited(3))  # before: 40 s and 5.5 GB
    assert time.monotonic() - started < 30
    assert b"TTL001" in done.stdout, done
    assert b"Traceback" not in done.stderr


def test_flake8_ends_fast_on_deep_nesting(tmp_path):
    pytest.importorskip("flake8")
    path = tmp_path / "deep.py"
    # Flat for CPython (and pyflakes), 20,000 levels deep for libcst, which crashes on a
    # million of them: the screen measures the tree flake8 hands over.
    path.write_text(HEAD + "x = " + " and ".join(["a"] * 20_000) + "\n")
    done = subprocess.run([sys.executable, "-m", "flake8", "--select=TTL", str(path)], capture_output=True,
                          timeout=120, cwd=tmp_path, preexec_fn=_limited(3))
    assert b"TTL001 expression nested too deeply" in done.stdout, done
    assert b"Traceback" not in done.stderr


def test_language_server_survives_deep_nesting():
    pytest.importorskip("pygls")
    from test_lsp_protocol_errors import RawClient

    client = RawClient()
    try:
        client.request(1, "initialize", {"processId": None, "capabilities": {}})
        client.reply()
        client.notify("initialized", {})
        deep = {"uri": "file:///tmp/deep.py", "languageId": "python", "version": 1, "text": DEEP_FILE}
        client.notify("textDocument/didOpen", {"textDocument": deep})
        diagnostics = client.diagnostics(deep["uri"])  # before: the server died (SIGSEGV)
        assert [d["code"] for d in diagnostics] == ["TTL001"]
        ok = {"uri": "file:///tmp/ok.py", "languageId": "python", "version": 1, "text": HEAD + BAD}
        client.notify("textDocument/didOpen", {"textDocument": ok})
        assert [d["code"] for d in client.diagnostics(ok["uri"])] == ["TTL101"]
        client.request(2, "textDocument/hover", {"textDocument": {"uri": ok["uri"]},
                                                 "position": {"line": 2, "character": 0}})
        assert "int64" in str(client.reply()["result"])
        assert client.process.poll() is None
    finally:
        client.close()


# ---------------------------------------------------------------------- nothing from the cwd


def test_python_dash_m_imports_nothing_from_the_working_directory(tmp_path):
    for name in ("libcst", "json", "argparse", "tokenize", "dataclasses"):
        (tmp_path / f"{name}.py").write_text(f"open({str(tmp_path / (name + '.MARK'))!r}, 'w').close()\n")
    (tmp_path / "t.py").write_text(HEAD + BAD)
    done = subprocess.run([sys.executable, "-m", "torchtype_lint", "check", "--no-cache", "t.py"],
                          capture_output=True, timeout=120, cwd=tmp_path,
                          env={k: v for k, v in os.environ.items() if k != "PYTHONPATH"})
    assert b"TTL101" in done.stdout, done
    assert not list(tmp_path.glob("*.MARK"))
