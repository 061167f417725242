"""The findings cache, attacked (issue 23): a checked-out pull request controls the working
directory, so a committed ``.torchtype_lint_cache`` (or a directory on a configured cache path)
may be a symbolic link, and anything inside a cache may be a link, a pipe or a lie.

* Nothing outside the cache is ever deleted or written: a cache path through a link inside the
  project is refused with one warning, links inside the cache are never followed, pruning
  removes only regular files named as the cache names its own.
* An entry answers only for its own project: two projects sharing a directory, or a file that
  appears and changes what an import means, are misses.
* An entry is read without blocking and without following a link, at most a capped size.
* An entry that is well formed but impossible for the file in hand (a code no rule has, a line
  past its end, a notebook cell in a ``.py`` file) is a miss.
"""
from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
import textwrap
import time

import pytest

from torchtype_lint.run import cache as cache_module
from torchtype_lint.run import runner
from torchtype_lint.run.cache import Cache, prune
from torchtype_lint.checker.check import Settings

# TTL101 with a fix and TTL207 with provenance: every field of an entry is there.
BAD = textwrap.dedent("""\
    import torch
    import torch.nn.functional as F
    x = torch.ones(3, dtype=torch.int64)
    x.float()
    logits = torch.randn(4, 10)
    target = torch.zeros(4, dtype=torch.float16)
    loss = F.cross_entropy(logits, target)
    """)
VERSION_DIR = f"v{cache_module.FORMAT_VERSION}"
CLI = [sys.executable, "-m", "torchtype_lint"]
needs_symlinks = pytest.mark.skipif(not hasattr(os, "symlink") or sys.platform == "win32",
                                    reason="needs POSIX symbolic links")


def _shown(results):
    return [[(f.path, f.code, f.line, f.column, f.message, f.provenance,
              None if f.fix is None else (f.fix.new_text, f.fix.location)) for f in r.findings]
            for r in results]


def _age(path, days):
    then = time.time() - days * 24 * 3600
    os.utime(path, (then, then), follow_symlinks=False)


def _hex_name(shard, fill="0"):
    return shard + fill * 62 + ".json"  # named exactly as the cache names an entry


def _victim(tmp_path):
    """A directory outside the cache holding what an old pruning removed or overwrote: a ``v1``
    directory, entry-like and temporary-like files 60 days old, a file named ``last-prune``."""
    victim = tmp_path / "victim"
    (victim / "v1" / "ab").mkdir(parents=True)
    (victim / "v1" / "ab" / _hex_name("ab")).write_text("precious")
    for shard in ("cd", VERSION_DIR + "/cd"):
        (victim / shard).mkdir(parents=True, exist_ok=True)
        (victim / shard / _hex_name("cd", "1")).write_text("precious")
        (victim / shard / ".tmp-precious").write_text("precious")
    (victim / "notes.json").write_text("precious")
    (victim / "last-prune").write_text("precious")
    for root, dirs, files in os.walk(victim):
        for name in files + dirs:
            _age(os.path.join(root, name), 60)
    return victim


def _snapshot(directory):
    """Every path under ``directory`` with its kind, bytes and modification time (no link followed)."""
    seen = {}
    for root, dirs, files in os.walk(directory):
        for name in dirs + files:
            path = os.path.join(root, name)
            info = os.lstat(path)
            data = open(path, "rb").read() if stat.S_ISREG(info.st_mode) else None
            seen[os.path.relpath(path, directory)] = (stat.S_IFMT(info.st_mode), data, info.st_mtime_ns)
    return seen


def _project(tmp_path, name="proj"):
    """A checkout: a ``.git`` directory marks it, two files configured differently (two settings
    groups, so two caches are made in one run)."""
    project = tmp_path / name
    (project / ".git").mkdir(parents=True)
    (project / "sub").mkdir()
    (project / "pyproject.toml").write_text("[tool.torchtype-lint]\n")
    (project / "sub" / "pyproject.toml").write_text('[tool.torchtype-lint]\nignore = ["TTL207"]\n')
    (project / "m.py").write_text(BAD)
    (project / "sub" / "n.py").write_text(BAD)
    return project


def _cli(project, *extra, env_cache=None):
    env = {k: v for k, v in os.environ.items() if k != "TORCHTYPE_LINT_CACHE_DIR"}
    if env_cache is not None:
        env["TORCHTYPE_LINT_CACHE_DIR"] = env_cache
    return subprocess.run(CLI + ["check", "-j1", *extra, "."], capture_output=True, text=True,
                          cwd=str(project), env=env, timeout=300)


def _warnings(stderr):
    return [line for line in stderr.splitlines() if line.startswith("torchtype-lint: warning:")]


# ---------------------------------------------------------------------- 1: links around and in the cache


@needs_symlinks
def test_a_committed_cache_link_is_refused_with_one_warning_and_its_target_is_untouched(tmp_path):
    project, victim = _project(tmp_path), _victim(tmp_path)
    os.symlink(victim, project / ".torchtype_lint_cache")
    before = _snapshot(victim)
    expected = _cli(project, "--no-cache")
    got = _cli(project)
    assert (got.returncode, got.stdout) == (expected.returncode, expected.stdout) and "TTL101" in got.stdout
    [warning] = _warnings(got.stderr)  # one, though two settings groups each wanted a cache
    assert ".torchtype_lint_cache" in warning and "symbolic link" in warning
    assert _snapshot(victim) == before  # no v1 removed, no entry pruned, no marker or entry written


@needs_symlinks
def test_a_configured_cache_path_through_a_link_inside_the_project_is_refused(tmp_path):
    project, victim = _project(tmp_path), _victim(tmp_path)
    os.symlink(victim, project / "build")  # committed: build -> somewhere else
    before = _snapshot(victim)
    for extra, env_cache in ((["--cache-dir", "build/cache"], None), ([], str(project / "build" / "cache"))):
        got = _cli(project, *extra, env_cache=env_cache)
        assert got.returncode == 1 and "TTL101" in got.stdout
        [warning] = _warnings(got.stderr)
        assert "symbolic link" in warning
    assert _snapshot(victim) == before


@needs_symlinks
def test_a_configured_cache_path_through_a_link_outside_the_project_is_used(tmp_path):
    """The user's own configuration is trusted: ``~/.cache`` may well be a link to another disk."""
    project = _project(tmp_path)
    (tmp_path / "disk").mkdir()
    os.symlink(tmp_path / "disk", tmp_path / "home-cache")
    got = _cli(project, env_cache=str(tmp_path / "home-cache" / "ttl"))
    assert got.returncode == 1 and not _warnings(got.stderr)
    assert list((tmp_path / "disk" / "ttl" / VERSION_DIR).rglob("*.json"))


def _cache_with_entry(tmp_path):
    """A real cache holding the entry of ``m.py``; returns the file, the cache, its entry's path."""
    path = tmp_path / "m.py"
    path.write_text(BAD)
    cache_dir = tmp_path / "cache"
    runner.run_files([str(path)], Settings(), cache=Cache(str(cache_dir), Settings()))
    cache = Cache(str(cache_dir), Settings())
    entry = cache._entry_path(cache.key(path.read_bytes(), str(path)))
    assert os.path.isfile(entry)
    return str(path), cache_dir, entry


def _due(cache_dir):
    """Make the next writing run prune (the last pruning is two days old)."""
    stamp = cache_dir / VERSION_DIR / "last-prune"
    if os.path.lexists(stamp) and not os.path.islink(stamp):
        _age(stamp, 2)


@needs_symlinks
def test_a_linked_entries_directory_is_not_followed(tmp_path):
    path, cache_dir, _ = _cache_with_entry(tmp_path)
    victim = _victim(tmp_path)
    os.rename(cache_dir / VERSION_DIR, tmp_path / "old-entries")
    os.symlink(victim, cache_dir / VERSION_DIR)
    before = _snapshot(victim)
    truth = _shown(runner.run_files([path], Settings()))
    cache = Cache(str(cache_dir), Settings())
    assert _shown(runner.run_files([path], Settings(), cache=cache)) == truth
    prune(str(cache_dir), time.time() + 90 * 24 * 3600)
    assert _snapshot(victim) == before


@needs_symlinks
def test_a_linked_shard_is_neither_read_nor_written_nor_pruned(tmp_path):
    path, cache_dir, entry = _cache_with_entry(tmp_path)
    victim = _victim(tmp_path)
    shard = os.path.dirname(entry)
    # The victim holds a valid-looking entry under the slot's own name: never served from there.
    good = json.loads(open(entry).read())
    good["findings"][0]["message"] = "served from outside the cache"
    (victim / os.path.basename(entry)).write_text(json.dumps(good))
    _age(victim / os.path.basename(entry), 60)
    os.rename(shard, tmp_path / "old-shard")
    os.symlink(victim, shard)
    before = _snapshot(victim)
    truth = _shown(runner.run_files([path], Settings()))
    cache = Cache(str(cache_dir), Settings())
    assert _shown(runner.run_files([path], Settings(), cache=cache)) == truth
    assert cache.hits == 0
    _due(cache_dir)
    with open(path, "a") as handle:
        handle.write("# edited\n")  # a write: this run prunes
    runner.run_files([path], Settings(), cache=Cache(str(cache_dir), Settings()))
    prune(str(cache_dir), time.time() + 90 * 24 * 3600)
    assert _snapshot(victim) == before


@needs_symlinks
def test_a_linked_entry_is_a_miss_and_its_target_is_untouched(tmp_path):
    path, cache_dir, entry = _cache_with_entry(tmp_path)
    outside = tmp_path / "outside.json"
    good = json.loads(open(entry).read())
    good["findings"][0]["message"] = "served from outside the cache"
    outside.write_text(json.dumps(good))
    os.unlink(entry)
    os.symlink(outside, entry)
    before = outside.read_bytes()
    truth = _shown(runner.run_files([path], Settings()))
    cache = Cache(str(cache_dir), Settings())
    assert _shown(runner.run_files([path], Settings(), cache=cache)) == truth
    assert (cache.hits, cache.misses) == (0, 1)
    assert outside.read_bytes() == before


@needs_symlinks
def test_links_where_the_cache_writes_its_own_files_are_not_followed(tmp_path):
    path, cache_dir, _ = _cache_with_entry(tmp_path)
    victim = tmp_path / "victim"
    victim.mkdir()
    (victim / "stamp").write_text("precious")
    os.unlink(cache_dir / VERSION_DIR / "last-prune")
    os.symlink(victim / "stamp", cache_dir / VERSION_DIR / "last-prune")  # opening it "w" truncated the target
    os.unlink(cache_dir / ".gitignore")
    os.symlink(victim / "created", cache_dir / ".gitignore")  # dangling: writing it created the target
    with open(path, "a") as handle:
        handle.write("# edited\n")
    cache = Cache(str(cache_dir), Settings())
    runner.run_files([path], Settings(), cache=cache)
    assert sorted(os.listdir(victim)) == ["stamp"] and (victim / "stamp").read_text() == "precious"


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs named pipes")
def test_pruning_removes_only_regular_files_named_as_the_cache_names_them(tmp_path):
    cache_dir = tmp_path / "cache"
    cache = Cache(str(cache_dir), Settings())
    key = cache.key(b"x = 1\n", "a.py")
    assert cache.put_dicts(key, [])
    entries = cache_dir / VERSION_DIR
    shard = entries / "ab"
    shard.mkdir(exist_ok=True)
    ours = [shard / _hex_name("ab"), shard / _hex_name("ab", "2"), shard / ".tmp-killed"]
    theirs = [shard / "notes.json", shard / "README", entries / "notes.json", cache_dir / "v7" / "keep.txt",
              cache_dir / "v7" / "ab" / "keep.json"]
    for path in ours + theirs:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("{}")
    old_format_entry = cache_dir / "v7" / "ab" / _hex_name("ab")
    old_format_entry.write_text("{}")
    os.mkfifo(shard / _hex_name("ab", "3"))  # named like an entry, but not a file the cache wrote
    for root, dirs, files in os.walk(cache_dir):
        for name in files + dirs:
            _age(os.path.join(root, name), 60)
    prune(str(cache_dir))
    assert not any(os.path.lexists(p) for p in ours + [old_format_entry])
    assert all(p.exists() for p in theirs) and stat.S_ISFIFO(os.lstat(shard / _hex_name("ab", "3")).st_mode)


# ---------------------------------------------------------------------- 6: an entry answers for its own project

TRAIN = "import torch\nfrom data import make\nx = make()\nx.float()\n"
INT64 = "import torch\ndef make():\n    return torch.ones(3, dtype=torch.int64)\n"
FLOAT32 = "import torch\ndef make():\n    return torch.ones(3)\n"


def _write_files(root, files):
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def _warm_equals_fresh(target, cache_dir):
    """Run ``target`` (a path as typed) through the cache; the result must be a fresh analysis's."""
    fresh = _shown(runner.run_files([target], Settings()))
    warm = _shown(runner.run_files([target], Settings(), cache=Cache(str(cache_dir), Settings())))
    assert warm == fresh
    return fresh


def test_two_projects_sharing_a_cache_directory_get_their_own_findings(tmp_path, monkeypatch):
    cache_dir = tmp_path / "shared-cache"
    messages = []
    for name, data in (("a", INT64), ("b", FLOAT32)):
        project = tmp_path / name
        (project / ".git").mkdir(parents=True)
        _write_files(project, {"train.py": TRAIN, "data.py": data})
        monkeypatch.chdir(project)  # both are checked as "train.py": the same shown path and bytes
        messages.append(_warm_equals_fresh("train.py", cache_dir)[0][0][4])
    assert "int64" in messages[0] and "float32" in messages[1]


# (files first, the change, what the import should then mean): each change makes Python import
# another data.py (or none), by way of a file the old entry had no record of.
RESOLUTION_CHANGES = {
    # pkg/train.py was a script (its directory first on sys.path); now it is a package's module.
    "init-file-makes-a-package": ({"pyproject.toml": "", "pkg/train.py": TRAIN, "pkg/data.py": INT64,
                                   "data.py": FLOAT32}, {"pkg/__init__.py": ""}, "pkg/train.py"),
    # A marker in sub/ makes sub/ the project root: the root's data.py is beyond it.
    "marker-moves-the-root": ({".git/HEAD": "", "sub/train.py": TRAIN, "data.py": INT64},
                              {"sub/setup.py": ""}, "sub/train.py"),
    # src/ appears: absolute imports are looked up there too.
    "src-directory-appears": ({".git/HEAD": "", "train.py": TRAIN}, {"src/data.py": INT64}, "train.py"),
    # A package beside a module of the same name: Python imports the package.
    "package-beside-module": ({".git/HEAD": "", "train.py": TRAIN, "data.py": INT64},
                              {"data/__init__.py": FLOAT32}, "train.py"),
}


@pytest.mark.parametrize("name", sorted(RESOLUTION_CHANGES))
def test_a_file_that_changes_import_resolution_invalidates_the_entry(tmp_path, monkeypatch, name):
    before, change, target = RESOLUTION_CHANGES[name]
    project = tmp_path / "p"
    _write_files(project, before)
    monkeypatch.chdir(project)
    cache_dir = tmp_path / "cache"
    first = _warm_equals_fresh(target, cache_dir)
    _write_files(project, change)
    assert _warm_equals_fresh(target, cache_dir) != first  # the change changed the findings


def test_a_package_beside_a_module_is_what_python_imports(tmp_path):
    project = tmp_path / "p"
    _write_files(project, {".git/HEAD": "", "train.py": TRAIN, "data.py": INT64, "data/__init__.py": FLOAT32,
                           "run.py": "import sys\nsys.path.insert(0, '.')\nimport data\nprint(data.__file__)\n"})
    shown = subprocess.run([sys.executable, "-I", "run.py"], cwd=str(project), capture_output=True, text=True)
    assert shown.stdout.strip().endswith(os.path.join("data", "__init__.py"))  # Python's own answer
    [[finding]] = _shown(runner.run_files([str(project / "train.py")], Settings()))
    assert "float32" in finding[4] and "__init__.py" in finding[4]


# ---------------------------------------------------------------------- 8: reading an entry is bounded

_READ_ENTRY = """
import os, resource, sys
resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))  # an unbounded read ends in MemoryError, fast
from torchtype_lint.run.cache import Cache
from torchtype_lint.model.settings import Settings
cache_dir, path, what = sys.argv[1:]
cache = Cache(cache_dir, Settings())
key = cache.key(open(path, "rb").read(), path)
assert cache.put_dicts(key, [])
entry = cache._entry_path(key)
os.unlink(entry)
if what == "fifo":
    os.mkfifo(entry)
else:
    os.symlink(what, entry)
print(cache.get(key, path), cache.misses)
"""


@pytest.mark.skipif(not hasattr(os, "mkfifo") or not os.path.exists("/dev/zero"), reason="needs POSIX")
@pytest.mark.parametrize("what", ["fifo", "/dev/zero"])
def test_an_entry_that_is_a_pipe_or_a_device_is_a_quick_miss(tmp_path, what):
    path = tmp_path / "m.py"
    path.write_text(BAD)
    try:
        done = subprocess.run([sys.executable, "-c", _READ_ENTRY, str(tmp_path / "cache"), str(path), what],
                              capture_output=True, text=True, timeout=60, cwd=str(tmp_path))
    except subprocess.TimeoutExpired:
        pytest.fail("reading a cache entry blocked")
    assert (done.returncode, done.stdout.strip()) == (0, "None 1"), done.stderr[-2000:]


def test_an_entry_over_the_cap_is_a_miss_and_is_not_read_whole(tmp_path, monkeypatch):
    path, cache_dir, entry = _cache_with_entry(tmp_path)
    text = open(entry).read()
    monkeypatch.setattr(cache_module, "MAX_ENTRY_BYTES", len(text) + 10)
    cache = Cache(str(cache_dir), Settings())
    assert cache.get(cache.key(open(path, "rb").read(), path), path) is not None
    with open(entry, "w") as handle:
        handle.write(text + " " * 11)  # one byte over: still valid JSON, but not read
    cache = Cache(str(cache_dir), Settings())
    assert cache.get(cache.key(open(path, "rb").read(), path), path) is None


# ---------------------------------------------------------------------- 9: impossible entries are misses


@pytest.fixture
def primed(tmp_path):
    path, cache_dir, entry = _cache_with_entry(tmp_path)
    return path, str(cache_dir), entry, _shown(runner.run_files([path], Settings()))


def _finding(change):
    def mutate(entry):
        change(entry["findings"][0])  # the TTL101 finding, with a fix, on line 4 of 7
    return mutate


IMPOSSIBLE = {
    "code-no-rule-has": _finding(lambda d: d.__setitem__("code", "TTL999")),
    "line-a-billion": _finding(lambda d: d.__setitem__("location", [10 ** 9, 0, 10 ** 9, 0])),
    "line-past-the-end": _finding(lambda d: d.__setitem__("location", [20, 0, 20, 4])),
    "end-before-start-on-one-line": _finding(lambda d: d.__setitem__("location", [4, 9, 4, 0])),
    "column-past-the-file": _finding(lambda d: d.__setitem__("location", [4, 0, 4, 10 ** 6])),
    "notebook-cell-on-a-py-file": _finding(lambda d: d.update(cell=1, cell_source=BAD, provenance_cells=[])),
    "fix-past-the-end": _finding(lambda d: d["fix"].__setitem__("location", [40, 0, 40, 9])),
    "provenance-past-the-end": lambda e: e["findings"][1]["provenance"][0].__setitem__(0, 80),
}


@pytest.mark.parametrize("name", sorted(IMPOSSIBLE))
def test_an_impossible_entry_is_a_miss(primed, name):
    path, cache_dir, entry, truth = primed
    data = json.loads(open(entry).read())
    assert [d["code"] for d in data["findings"]] == ["TTL101", "TTL207"]
    IMPOSSIBLE[name](data)
    with open(entry, "w") as handle:
        json.dump(data, handle)
    cache = Cache(cache_dir, Settings())
    assert _shown(runner.run_files([path], Settings(), cache=cache)) == truth
    assert (cache.hits, cache.misses) == (0, 1)


def _notebook(path, *sources):
    cells = [{"cell_type": "markdown", "metadata": {}, "source": ["# notes\n"]}]
    cells += [{"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [],
               "source": source.splitlines(keepends=True)} for source in sources]
    path.write_text(json.dumps({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}, indent=1))


NOTEBOOK_IMPOSSIBLE = {
    "cell-past-the-last": lambda d: d.__setitem__("cell", 40),
    "line-past-the-cell": lambda d: d.__setitem__("location", [9, 0, 9, 4]),
    "no-cell-source": lambda d: d.pop("cell_source"),
}


@pytest.mark.parametrize("name", sorted(NOTEBOOK_IMPOSSIBLE))
def test_an_impossible_notebook_entry_is_a_miss(tmp_path, name):
    path = tmp_path / "explore.ipynb"
    _notebook(path, "import torch\n", "x = torch.ones(3, dtype=torch.int64)\nx.float()\nprint(x)\n")
    cache_dir = str(tmp_path / "cache")
    truth = _shown(runner.run_files([str(path)], Settings()))
    assert _shown(runner.run_files([str(path)], Settings(), cache=Cache(cache_dir, Settings()))) == truth
    cache = Cache(cache_dir, Settings())
    entry = cache._entry_path(cache.key(path.read_bytes(), str(path)))
    data = json.loads(open(entry).read())
    assert [(d["code"], d["cell"], d["location"][0]) for d in data["findings"]] == [("TTL101", 3, 2)]
    NOTEBOOK_IMPOSSIBLE[name](data["findings"][0])
    with open(entry, "w") as handle:
        json.dump(data, handle)
    cache = Cache(cache_dir, Settings())
    assert _shown(runner.run_files([str(path)], Settings(), cache=cache)) == truth
    assert (cache.hits, cache.misses) == (0, 1)


# Files whose findings sit at the edges of what the checks allow: they must stay hits.
EDGES = {
    "cr-only.py": b"import torch\rx = torch.ones(3, dtype=torch.int64)\rx.float()\r",
    "crlf.py": b"import torch\r\nx = torch.ones(3, dtype=torch.int64)\r\nx.float()",
    "form-feed.py": b"import torch\n\x0c\nx = torch.ones(3, dtype=torch.int64)\n\x0cx.float()\n",
    "eof-error.py": b"import torch\nx = (",
    "eof-indent.py": b"import torch\nif x:",
    "undecodable.py": b"import torch\nx = 1\n\xff",
    "empty-lines.py": b"import torch\n" + b"\n" * 50 + b"x = torch.ones(3, dtype=torch.int64)\nx.float()\n",
}


def test_real_entries_at_the_edges_stay_hits(tmp_path):
    paths = []
    for name, data in EDGES.items():
        paths.append(str(tmp_path / name))
        with open(paths[-1], "wb") as handle:
            handle.write(data)
    notebook = tmp_path / "edge.ipynb"
    _notebook(notebook, "import torch", "x = torch.ones(3, dtype=torch.int64)\nx.float()\nx")
    paths.append(str(notebook))
    cache_dir = str(tmp_path / "cache")
    cold = _shown(runner.run_files(paths, Settings(), cache=Cache(cache_dir, Settings())))
    assert all(cold) and len(cold) == len(EDGES) + 1  # every file has a finding to check
    cache = Cache(cache_dir, Settings())
    assert _shown(runner.run_files(paths, Settings(), cache=cache)) == cold
    assert (cache.hits, cache.misses) == (len(paths), 0)
