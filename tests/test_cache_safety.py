"""The findings cache is data from disk: an ill-typed, corrupt or truncated entry is a miss that
the fresh analysis overwrites, never a crash or a made-up finding; the cache stays bounded (one
entry per file and settings, age and count pruning) without slowing a warm run."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from torchtype_lint.run import cache as cache_module
from torchtype_lint.run import runner
from torchtype_lint.run.cache import Cache, prune
from torchtype_lint.checker.check import Settings
from torchtype_lint.model.selection import Selection

# Two findings: one with a fix (TTL101) and one with provenance (TTL207), so every field is there.
BAD = textwrap.dedent("""\
    import torch
    import torch.nn.functional as F
    x = torch.ones(3, dtype=torch.int64)
    x.float()
    logits = torch.randn(4, 10)
    target = torch.zeros(4, dtype=torch.float16)
    loss = F.cross_entropy(logits, target)
    """)


def _shown(results):
    return [[(f.path, f.code, f.line, f.column, f.message, f.severity, f.provenance,
              None if f.fix is None else (f.fix.new_text, f.fix.location, f.fix.safe))
             for f in r.findings] for r in results]


@pytest.fixture
def primed(tmp_path):
    """A file, its cache entry (written by a real run) and what a fresh analysis reports."""
    path = tmp_path / "m.py"
    path.write_text(BAD, encoding="utf-8")
    cache_dir = str(tmp_path / "cache")
    truth = runner.run_files([str(path)], Settings())
    assert _shown(runner.run_files([str(path)], Settings(), cache=Cache(cache_dir, Settings()))) == _shown(truth)
    [entry] = _entries(cache_dir)
    findings = json.loads(open(entry, encoding="utf-8").read())["findings"]
    assert {d["code"] for d in findings} == {"TTL101", "TTL207"}
    assert findings[0].get("fix") and findings[0]["provenance"]
    return str(path), cache_dir, entry, _shown(truth)


def _entries(cache_dir):
    return sorted(os.path.join(root, name) for root, _, names in os.walk(cache_dir)
                  for name in names if name.endswith(".json"))


def _write(entry, text):
    with open(entry, "w", encoding="utf-8") as handle:
        handle.write(text)


def _rerun(path, cache_dir):
    cache = Cache(cache_dir, Settings())
    return cache, _shown(runner.run_files([path], Settings(), cache=cache))


def _mutate(entry_text, change):
    entry = json.loads(entry_text)
    change(entry)
    return json.dumps(entry, allow_nan=True)


def _field(name, value, index=0):
    def change(entry):
        entry["findings"][index][name] = value
    return change


def _fix_field(name, value):
    def change(entry):
        entry["findings"][0]["fix"][name] = value
    return change


def _with_provenance(value):
    def change(entry):
        entry["findings"][0]["provenance"] = value
    return change


ILL_TYPED = {
    "line-is-a-huge-float": _field("location", [1e308, 0, 1, 0]),
    "column-is-null": _field("location", [5, None, 5, 3]),
    "line-is-negative": _field("location", [-3, 0, 1, 0]),
    "line-is-zero": _field("location", [0, 0, 1, 0]),
    "line-is-huge": _field("location", [10 ** 30, 0, 10 ** 30, 0]),
    "line-is-a-bool": _field("location", [True, 0, 1, 0]),
    "location-too-short": _field("location", [1, 0]),
    "location-is-text": _field("location", "1:0"),
    "end-before-start": _field("location", [9, 0, 2, 0]),
    "code-is-a-number": _field("code", 5),
    "code-is-null": _field("code", None),
    "code-of-another-tool": _field("code", "E501"),
    "code-too-long": _field("code", "TTL1011"),
    "message-is-null": _field("message", None),
    "message-is-a-list": _field("message", ["x"]),
    "message-with-a-lone-surrogate": _field("message", "bad \ud800 text"),
    "severity-unknown": _field("severity", "fatal"),
    "unknown-key": _field("extra", 1),
    "cell-is-text": _field("cell", "3"),
    "cell-is-negative": _field("cell", -1),
    "provenance-is-text": _with_provenance("oops"),
    "provenance-snippet-null": _with_provenance([[3, 4, None, "note"]]),
    "provenance-step-short": _with_provenance([[3, 4]]),
    "provenance-step-too-long": _with_provenance([[3, 4, "x", "note", "data.py", 3, 9, 1]]),
    "provenance-end-before-start": _with_provenance([[3, 4, "x", "note", 2, 0]]),
    "provenance-end-past-the-file": _with_provenance([[3, 4, "x", "note", 80, 0]]),
    "provenance-end-column-null": _with_provenance([[3, 4, "x", "note", 3, None]]),
    "provenance-end-is-text": _with_provenance([[3, 4, "x", "note", "data.py", "3", 9]]),
    "fix-description-number": _fix_field("description", 1),
    "fix-safe-is-text": _fix_field("safe", "yes"),
    "fix-location-short": _fix_field("location", [1, 2]),
    "fix-new-text-number": _fix_field("new_text", 5),
    "fix-unknown-key": _fix_field("apply", True),
    "findings-is-a-dict": lambda e: e.__setitem__("findings", {}),
    "findings-hold-a-number": lambda e: e.__setitem__("findings", [1]),
    "findings-missing": lambda e: e.pop("findings"),
    "run-dependent-code": _field("code", "TTL000"),
    "content-of-other-bytes": lambda e: e.__setitem__("content", "0" * 64),
}


@pytest.mark.parametrize("name", sorted(ILL_TYPED))
def test_ill_typed_entry_is_a_miss_and_is_overwritten(primed, name):
    path, cache_dir, entry, truth = primed
    _write(entry, _mutate(open(entry, encoding="utf-8").read(), ILL_TYPED[name]))
    cache, shown = _rerun(path, cache_dir)
    assert shown == truth
    assert (cache.hits, cache.misses) == (0, 1)
    cache, shown = _rerun(path, cache_dir)  # the fresh analysis replaced the bad entry
    assert shown == truth and (cache.hits, cache.misses) == (1, 0)


def test_entry_written_before_steps_had_an_end_is_still_a_hit(primed):
    # Steps now end where their expression does ([line, column, snippet, note, end line, end
    # column]); an entry of four-item steps (no end) is still valid: its steps have a start only.
    path, cache_dir, entry, truth = primed
    data = json.loads(open(entry, encoding="utf-8").read())
    steps = [s for d in data["findings"] for s in d["provenance"]]
    assert steps and all(len(s) == 6 and (s[4], s[5]) >= (s[0], s[1]) for s in steps)
    for step in steps:
        del step[4:]
    _write(entry, json.dumps(data))
    cache = Cache(cache_dir, Settings())
    [result] = runner.run_files([path], Settings(), cache=cache)
    assert (cache.hits, cache.misses) == (1, 0)
    old = [s for f in result.findings for s in f.provenance]
    assert old and all(s.end_line is None and s.end == (s.line, s.column) for s in old)
    fresh = [s for r in runner.run_files([path], Settings()) for f in r.findings for s in f.provenance]
    assert [(s.line, s.column, s.snippet, s.note) for s in old] == [(s.line, s.column, s.snippet, s.note) for s in fresh]
    assert all(s.end_line is not None for s in fresh)


RAW = {
    "truncated": lambda text: text[: len(text) // 2],
    "empty": lambda text: "",
    "nan-line": lambda text: text.replace('"location":[', '"location":[NaN,', 1),
    "infinity-column": lambda text: text.replace('"location":[', '"location":[4,Infinity,', 1),
    "thousands-of-digits": lambda text: text.replace('"location":[', '"location":[' + "9" * 5000 + ",", 1),
    "deeply-nested": lambda text: "[" * 100_000 + "]" * 100_000,
    "not-utf8": lambda text: "\udcff" + text,
    "an-array": lambda text: "[]",
    "null": lambda text: "null",
}


@pytest.mark.parametrize("name", sorted(RAW))
def test_corrupt_entry_is_a_miss(primed, name):
    path, cache_dir, entry, truth = primed
    text = RAW[name](open(entry, encoding="utf-8").read())
    with open(entry, "wb") as handle:
        handle.write(text.encode("utf-8", "surrogateescape"))
    cache, shown = _rerun(path, cache_dir)
    assert shown == truth and (cache.hits, cache.misses) == (0, 1)


def _cli(path, cache_dir, *extra):
    return subprocess.run([sys.executable, "-m", "torchtype_lint", "check", "--isolated", "-j1", *extra,
                           path], capture_output=True, text=True, cwd=os.path.dirname(path),
                          env=dict(os.environ, TORCHTYPE_LINT_CACHE_DIR=cache_dir))


def test_bad_entries_through_the_real_cli(primed, tmp_path):
    path = primed[0]
    cache_dir = str(tmp_path / "cli-cache")  # the CLI's own entry: its process fingerprints the tool
    expected = _cli(path, cache_dir, "--no-cache")
    assert expected.returncode == 1 and "TTL101" in expected.stdout
    assert _cli(path, cache_dir).stdout == expected.stdout
    [entry] = _entries(cache_dir)
    good = open(entry, encoding="utf-8").read()
    for text in (_mutate(good, ILL_TYPED["column-is-null"]), _mutate(good, ILL_TYPED["line-is-a-huge-float"]),
                 RAW["nan-line"](good)):
        _write(entry, text)
        got = _cli(path, cache_dir)
        assert (got.returncode, got.stdout, got.stderr) == (1, expected.stdout, expected.stderr)


# ---------------------------------------------------------------------- fuzzing

_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True, allow_infinity=True) | st.text(max_size=6),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=6), children, max_size=4),
    max_leaves=10)
_NOT_TEXT = _JSON.filter(lambda v: not isinstance(v, str))
_NOT_INT = _JSON.filter(lambda v: type(v) is not int)
_BAD_COUNT = _NOT_INT | st.integers(max_value=-1) | st.integers(min_value=10 ** 9 + 1)
# (where in a finding, strategy of values that no real finding has there)
_WRONG = {
    ("code",): _NOT_TEXT | st.text(max_size=8).filter(lambda t: not (len(t) == 6 and t[:3] == "TTL" and t[3:].isdigit())),
    ("message",): _NOT_TEXT,
    ("severity",): _NOT_TEXT | st.text(max_size=8).filter(lambda t: t not in ("error", "warning")),
    ("location",): _JSON.filter(lambda v: not isinstance(v, list) or len(v) != 4),
    ("location", 0): _BAD_COUNT | st.just(0),
    ("location", 1): _BAD_COUNT,
    ("location", 3): _BAD_COUNT,
    ("provenance",): _JSON.filter(lambda v: not isinstance(v, list) or (v and not isinstance(v[0], list))),
    ("provenance", 0, 0): _BAD_COUNT,
    ("provenance", 0, 2): _NOT_TEXT,
    ("fix", "description"): _NOT_TEXT,
    ("fix", "safe"): _JSON.filter(lambda v: not isinstance(v, bool)),
    ("fix", "location"): _JSON.filter(lambda v: v is not None and (not isinstance(v, list) or len(v) != 4)),
    ("fix", "new_text"): _NOT_TEXT.filter(lambda v: v is not None),
    ("cell",): _BAD_COUNT | st.just(0),
}


@st.composite
def _wrong_entries(draw, good):
    entry = json.loads(good)
    where = draw(st.sampled_from(sorted(_WRONG, key=repr)))
    candidates = [d for d in entry["findings"]
                  if all(not isinstance(step, str) or step in d for step in where[:-1])
                  and (where[0] != "provenance" or len(where) == 1 or d["provenance"])]
    target = draw(st.sampled_from(candidates))
    for step in where[:-1]:
        target = target[step]
    target[where[-1]] = draw(_WRONG[where])
    return json.dumps(entry, allow_nan=True)


def test_fuzzed_entries_never_crash_and_never_become_findings(primed):
    path, cache_dir, entry, truth = primed
    good = open(entry, encoding="utf-8").read()

    @settings(max_examples=80, deadline=None, suppress_health_check=list(HealthCheck), database=None)
    @given(text=_wrong_entries(good) | _JSON.map(lambda v: json.dumps(v, allow_nan=True))
           | _JSON.filter(lambda v: v != []).map(  # [] is a real entry: a file without findings
               lambda v: json.dumps({"content": json.loads(good)["content"], "findings": v}, allow_nan=True)))
    def run(text):
        _write(entry, text)
        cache, shown = _rerun(path, cache_dir)
        assert shown == truth
        assert (cache.hits, cache.misses) == (0, 1)

    run()


# ---------------------------------------------------------------------- bounds and pruning


def test_two_hundred_edits_of_one_file_leave_one_entry(tmp_path):
    path = tmp_path / "m.py"
    cache_dir = str(tmp_path / "cache")
    # Through the runner (a few edits: each is a real analysis)...
    for i in range(5):
        path.write_text(f"{BAD}# edit {i}\n", encoding="utf-8")
        runner.run_files([str(path)], Settings(), cache=Cache(cache_dir, Settings()))
        assert len(_entries(cache_dir)) == 1
    # ... and 200 more through the cache alone, as that many runs would store them.
    findings = runner.run_files([str(path)], Settings())[0].findings
    for i in range(200):
        cache = Cache(cache_dir, Settings())
        data = f"{BAD}# cached edit {i}\n".encode()
        assert cache.get(cache.key(data, str(path)), str(path)) is None
        assert cache.put(cache.key(data, str(path)), findings)
        assert cache.get(cache.key(data, str(path)), str(path)) is not None
    assert len(_entries(cache_dir)) == 1
    path.write_bytes(data)
    # Other settings are another entry of the same file, not a replacement.
    other = Settings(selection=Selection(ignore=["TTL101"]))
    runner.run_files([str(path)], other, cache=Cache(cache_dir, other))
    assert len(_entries(cache_dir)) == 2
    cache, shown = _rerun(str(path), cache_dir)
    assert cache.hits == 1 and {row[1] for row in shown[0]} == {"TTL101", "TTL207"}


def _age(path, days):
    then = time.time() - days * 24 * 3600
    os.utime(path, (then, then))


def test_pruning_removes_unused_entries_old_formats_and_stale_temp_files(tmp_path):
    cache_dir = str(tmp_path / "cache")
    files = []
    for i in range(5):
        files.append(str(tmp_path / f"m{i}.py"))
        with open(files[-1], "w", encoding="utf-8") as handle:
            handle.write(f"{BAD}# {i}\n")
    runner.run_files(files, Settings(), cache=Cache(cache_dir, Settings()))
    cache = Cache(cache_dir, Settings())
    entry_of = {f: cache._entry_path(cache.key(open(f, "rb").read(), f)) for f in files}
    assert sorted(entry_of.values()) == _entries(cache_dir)
    for f in files[2:4]:
        _age(entry_of[f], 40)  # not used for 40 days
    old_format = os.path.join(cache_dir, "v1", "ab")
    os.makedirs(old_format)
    _write(os.path.join(old_format, "ab" + "12" * 31 + ".json"), "{}")  # named as every format named entries
    leftover = os.path.join(os.path.dirname(entry_of[files[4]]), ".tmp-killed")
    _write(leftover, '{"content": "')
    _age(leftover, 1)
    stamp = os.path.join(cache_dir, f"v{cache_module.FORMAT_VERSION}", "last-prune")
    # A pruning ran less than a day ago: a write does not scan.
    _age(stamp, 0.5)
    with open(files[0], "a", encoding="utf-8") as handle:
        handle.write("# changed\n")
    runner.run_files([files[0]], Settings(), cache=Cache(cache_dir, Settings()))
    assert len(_entries(os.path.join(cache_dir, f"v{cache_module.FORMAT_VERSION}"))) == 5  # m0 rewritten
    assert os.path.exists(os.path.join(cache_dir, "v1")) and os.path.exists(leftover)
    # A day later, the next writing run prunes once.
    _age(stamp, 2)
    with open(files[1], "a", encoding="utf-8") as handle:
        handle.write("# changed\n")
    runner.run_files([files[1]], Settings(), cache=Cache(cache_dir, Settings()))
    assert _entries(cache_dir) == sorted(entry_of[f] for f in (files[0], files[1], files[4]))
    assert not os.path.exists(os.path.join(cache_dir, "v1"))
    assert not os.path.exists(leftover)
    assert time.time() - os.stat(stamp).st_mtime < 60


def test_pruning_caps_the_number_of_entries(tmp_path, monkeypatch):
    cache_dir = str(tmp_path / "cache")
    cache = Cache(cache_dir, Settings())
    for i in range(6):
        key = cache.key(b"%d" % i, f"f{i}.py")
        assert cache.put_dicts(key, [])
        _age(cache._entry_path(key), 10 - i)  # f0 oldest, f5 newest
    monkeypatch.setattr(cache_module, "MAX_ENTRIES", 3)
    assert prune(cache_dir) == 3
    kept = Cache(cache_dir, Settings())
    assert [kept.get(kept.key(b"%d" % i, f"f{i}.py"), f"f{i}.py") is not None for i in range(6)] == [
        False, False, False, True, True, True]


def test_a_hit_keeps_a_used_entry_from_being_pruned(primed):
    path, cache_dir, entry, _ = primed
    _age(entry, 29)
    _rerun(path, cache_dir)
    assert time.time() - os.stat(entry).st_mtime < 60
    _age(entry, 3)
    _rerun(path, cache_dir)
    assert time.time() - os.stat(entry).st_mtime > 2 * 24 * 3600  # young entries are not touched


def test_a_warm_run_does_not_scan_the_cache(tmp_path, monkeypatch):
    paths = []
    for i in range(30):
        paths.append(str(tmp_path / f"m{i}.py"))
        with open(paths[-1], "w", encoding="utf-8") as handle:
            handle.write(f"{BAD}# {i}\n")
    cache_dir = str(tmp_path / "cache")
    runner.run_files(paths, Settings(), cache=Cache(cache_dir, Settings()))
    os.remove(os.path.join(cache_dir, f"v{cache_module.FORMAT_VERSION}", "last-prune"))  # due
    cache = Cache(cache_dir, Settings())

    def no_scan(*args, **kwargs):
        raise AssertionError("a warm run listed a directory")

    for name in ("scandir", "listdir", "walk"):
        monkeypatch.setattr(os, name, no_scan)
    runner.run_files(paths, Settings(), cache=cache)
    assert (cache.hits, cache.misses) == (30, 0)


_KILLED_WRITER = """
import json, os, signal, sys
import torchtype_lint.run.cache as cache_module
from torchtype_lint.run.cache import Cache
from torchtype_lint.checker.check import Settings

real_dump = json.dump
def dump_then_die(obj, handle, **kwargs):
    handle.write(json.dumps(obj)[:40])
    handle.flush()
    os.kill(os.getpid(), signal.SIGKILL)  # killed in the middle of writing the entry
json.dump = dump_then_die
cache_module._code_fingerprint = sys.argv[3]  # the test's tool identity, even if files change meanwhile
cache = Cache(sys.argv[1], Settings())
cache.put_dicts(cache.key(open(sys.argv[2], "rb").read(), sys.argv[2]), [])
"""


@pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="needs SIGKILL")
def test_a_killed_writer_leaves_no_truncated_entry(primed):
    path, cache_dir, entry, truth = primed
    before = open(entry, encoding="utf-8").read()
    done = subprocess.run([sys.executable, "-c", _KILLED_WRITER, cache_dir, path,
                           cache_module.code_fingerprint()], capture_output=True)
    assert done.returncode == -signal.SIGKILL
    assert open(entry, encoding="utf-8").read() == before  # the old entry is intact
    leftovers = [n for n in os.listdir(os.path.dirname(entry)) if n.startswith(".tmp-")]
    assert len(leftovers) == 1  # the killed writer's half file, under a name no reader opens
    cache, shown = _rerun(path, cache_dir)
    assert shown == truth and cache.hits == 1
    _age(os.path.join(os.path.dirname(entry), leftovers[0]), 1)
    prune(cache_dir)
    assert not [n for n in os.listdir(os.path.dirname(entry)) if n.startswith(".tmp-")]
