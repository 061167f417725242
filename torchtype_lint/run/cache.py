"""Content-hash cache of per-file findings, so that re-checking an unchanged file costs a hash.

Each file has at most one entry per settings: the entry's name is a hash of the displayed path,
the tool's version, a fingerprint of the installed tool's own files (so editing a rule
invalidates old entries even when the version string did not change) and the analysis settings
(selection, noqa, budget...); the entry holds the SHA-256 of the file's bytes, the findings as
JSON and the project modules the analysis read (``dependencies``: each one's SHA-256, or null for
a file it looked for and did not find), and answers only for those bytes while every dependency
is unchanged: editing ``data.py`` re-analyses the ``train.py`` that imports it. Editing a file overwrites its entry instead of adding
one, so the cache does not grow with edits.

Entries of other settings or tool versions are pruned by age: at most once a day
(``PRUNE_EVERY``), on the first write of a run, entries not used for ``MAX_AGE`` are removed,
then the oldest beyond ``MAX_ENTRIES``. A warm run (no writes) never scans the directory; a hit
refreshes its entry's time only when it is older than ``TOUCH_AFTER``.

Entries are written to a temporary file in the same directory and renamed into place, so
concurrent runs (a pre-commit hook beside an editor, or two CI jobs sharing a directory) and
killed runs never leave a half-written entry. Everything read back is validated field by field
(types, ranges, the code among the rules', the fix's shape) and against the file in hand (no line
past its end, no notebook cell in a ``.py`` file); a corrupt, truncated, ill-typed or impossible
entry is a miss, and the fresh analysis overwrites it.

The directory may have been planted by a pull request (docs/security.md, Promise 3): a path
through a symbolic link inside the project is refused (``cache_location.py``), and inside the
cache no link is followed (``nofollow.py``): an entry is read only from a regular file, without
blocking, at most ``MAX_ENTRY_BYTES``; pruning removes only regular files named as the cache names
its own. The slot also names the file's project root and import search path, so two projects
sharing a directory, or a new ``__init__.py``, marker or ``src/`` that changes what an import
means, are misses.

This module must stay cheap to import: a fully warm run never imports libcst or the engine.
"""
from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import re
import stat
import time
from dataclasses import dataclass
from typing import Any, Dict, FrozenSet, List, Optional, Tuple, Union

from .. import __version__
from .cache_location import locate
from ..model.findings import Finding, Fix, Location, ProvenanceStep
from .nofollow import Directory
from ..source.project.imports import NOTEBOOK_SUFFIX
from ..source.project.roots import import_roots
from ..source.project.sources import dependency_hash
from ..model.rule_codes import known_codes

DEFAULT_CACHE_DIR = ".torchtype_lint_cache"
#: Bumped whenever the entry format changes (2: one entry per path, holding the content hash).
FORMAT_VERSION = 3
#: Codes whose findings depend on the run, not on the file (time budget, unreadable file).
UNCACHEABLE_CODES = frozenset({"TTL000"})
#: Seconds between two prunings of one cache directory.
PRUNE_EVERY = 24 * 3600
#: Entries not written or used for this long are removed by a pruning.
MAX_AGE = 30 * 24 * 3600
#: A hit refreshes its entry's time once it is this old (a cheap, rare write on a warm run).
TOUCH_AFTER = 7 * 24 * 3600
#: After pruning by age, the oldest entries beyond this many are removed too.
MAX_ENTRIES = 50_000
#: An entry bigger than this is not read (no real file has that many findings).
MAX_ENTRY_BYTES = 32 * 1024 * 1024
#: Temporary files of killed writers are removed once this old.
STALE_TMP_AGE = 3600
#: The entries directory of this format, and what the cache names the files it writes.
ENTRIES = f"v{FORMAT_VERSION}"
STAMP = "last-prune"
_ENTRY_NAME = re.compile(r"[0-9a-f]{64}\.json\Z")
_TMP_NAME = re.compile(r"\.tmp-[0-9a-z_]+\Z")  # ours, and mkstemp's of earlier versions
_SHARD_NAME = re.compile(r"[0-9a-f]{2}\Z")
_FORMAT_NAME = re.compile(r"v\d+\Z")
_MARKERS = ((".gitignore", "# Created by torchtype-lint\n*\n"),
            ("CACHEDIR.TAG", "Signature: 8a477f597d28d172789f06886806bc55\n"
                             "# This is a cache directory created by torchtype-lint.\n"))

_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # the whole package
_code_fingerprint: Optional[str] = None


def code_fingerprint() -> str:
    """Identity of the tool's own source and data files (path, size, mtime), computed once."""
    global _code_fingerprint
    if _code_fingerprint is None:
        digest = hashlib.sha256(__version__.encode())
        for root, dirs, files in os.walk(_PACKAGE_DIR):
            dirs[:] = sorted(d for d in dirs if d != "__pycache__")
            for name in sorted(files):
                if not name.endswith((".py", ".json", ".txt", ".yaml", ".toml")):
                    continue
                full = os.path.join(root, name)
                try:
                    st = os.stat(full)
                except OSError:
                    continue
                rel = os.path.relpath(full, _PACKAGE_DIR)
                digest.update(f"{rel}\0{st.st_size}\0{st.st_mtime_ns}\n".encode())
        _code_fingerprint = digest.hexdigest()
    return _code_fingerprint


def settings_fingerprint(settings: Any) -> str:
    """A stable text for everything in the settings that can change the findings."""
    if dataclasses.is_dataclass(settings):
        data = dataclasses.asdict(settings)
    else:
        data = vars(settings)
    return json.dumps(data, sort_keys=True, default=repr)


@dataclass(frozen=True)
class FileBounds:
    """What the analysed file's bytes allow a finding to say about it (checked on every hit)."""
    #: Lines as Python's tokenizer counts them.
    lines: int
    #: Bytes: no column lies further right than the file is long (a character takes a byte at least).
    size: int
    #: Whether the file is a notebook: only then may a finding name a cell.
    notebook: bool
    #: Cells a notebook has at most: each is a JSON object, so one ``{`` at least.
    cells: int


def count_lines(text: Union[bytes, str]) -> int:
    """Lines as Python's tokenizer ends them: at ``\\n``, ``\\r\\n`` or ``\\r`` only
    (``splitlines`` also ends them at ``\\f``, ``\\v``, ``\\x1c``-``\\x1e``, ``\\x85``...)."""
    lf, cr = ("\n", "\r") if isinstance(text, str) else (b"\n", b"\r")
    ends = text.count(lf) + text.count(cr) - text.count(cr + lf)  # three C loops, no copy
    return ends + (1 if text and not text.endswith((lf, cr)) else 0)  # an unterminated last line


def file_bounds(data: bytes, notebook: bool) -> FileBounds:
    return FileBounds(count_lines(data), len(data), notebook, data.count(b"{") if notebook else 0)


@dataclass(frozen=True)
class CacheKey:
    #: Names the one entry of this path, in this project, under these settings and this tool.
    slot: str
    #: SHA-256 of the file's bytes: the entry answers only for these bytes.
    content: str
    #: What those bytes allow an entry to say (a line past the end makes it a miss).
    bounds: FileBounds


class Cache:
    """Findings per (path, settings), valid for one file content, under ``directory``.

    ``refusal`` says why a cache may not be used (a symbolic link inside the project on its
    path, ``cache_location.py``); such a cache answers nothing and stores nothing."""

    def __init__(self, directory: str = DEFAULT_CACHE_DIR, settings: Any = None):
        self.directory = directory
        self.entries_dir = os.path.join(directory, ENTRIES)
        location = locate(directory, ENTRIES)
        #: Why this cache is off for the run (None: it is on), as a warning would say it.
        self.refusal: Optional[str] = location.refusal
        #: The directory with no link on its path (None when refused).
        self._path = location.path
        self._salt = hashlib.sha256(
            f"{__version__}\0{code_fingerprint()}\0{settings_fingerprint(settings)}".encode()).digest()
        #: Configured ``src`` directories: they are part of how imports resolve (roots.py).
        self._source_roots = tuple(getattr(settings, "source_roots", ()) or ())
        #: Every rule code: an entry naming another is not ours (one listing, before any read).
        self._codes: FrozenSet[str] = known_codes()
        self._prepared = False
        self.hits = 0
        self.misses = 0
        #: Dependency path -> its hash now, computed once per run (many files import one module).
        self._current: Dict[str, Optional[str]] = {}
        #: (directory as named, a linked file's target directory, notebook?) -> the import roots
        #: there, as the slot spells them: computed once per directory.
        self._roots: Dict[Tuple[str, Optional[str], bool], bytes] = {}
        #: The cache directory and its entries directory, opened once without following links.
        self._root: Optional[Directory] = None
        self._entries: Optional[Directory] = None

    def key(self, data: bytes, path: str) -> CacheKey:
        slot = hashlib.sha256(self._salt)
        slot.update(path.encode("utf-8", "surrogateescape"))
        # Where the file's imports resolve: two projects sharing this directory, and a file that
        # moves the root or the search path (an __init__.py, a marker, src/), name other entries.
        slot.update(b"\0" + self._roots_of(path))
        return CacheKey(slot.hexdigest(), hashlib.sha256(data).hexdigest(),
                        file_bounds(data, path.endswith(NOTEBOOK_SUFFIX)))

    def _roots_of(self, path: str) -> bytes:
        """The project root and import search path the analysis of ``path`` will use: the same
        call as ``project/imports.py``'s ``ProjectImports``, made once per directory."""
        named = os.path.abspath(path)  # the root is found from where the file is named (roots.py)
        target = _link_target(named)  # a linked file's directory is its target's (own_directory)
        notebook = (target or named).endswith(NOTEBOOK_SUFFIX)  # its own directory comes first
        memo = (os.path.dirname(named), target and os.path.dirname(target), notebook)
        if memo not in self._roots:
            roots = import_roots(named, self._source_roots, directory_first=notebook)
            self._roots[memo] = "\0".join((roots.project,) + roots.search).encode("utf-8", "surrogateescape")
        return self._roots[memo]

    def _entry_path(self, key: CacheKey) -> str:
        """Where the entry of ``key`` is (for tests and messages: reads and writes go by descriptor)."""
        return os.path.join(self.entries_dir, key.slot[:2], key.slot + ".json")

    def get(self, key: CacheKey, path: str) -> Optional[List[Finding]]:
        """The cached findings for this content, or None (absent, stale, corrupt, impossible)."""
        found = None
        entries = self._open_entries(create=False)
        if entries is not None:
            try:
                with entries.child(key.slot[:2]) as shard:
                    found = self._answer(shard, key, path)
            except OSError:
                pass  # no such shard yet, or something that is not a directory (a link)
        if found is None:
            self.misses += 1
            return None
        self.hits += 1
        return found

    def _answer(self, shard: Directory, key: CacheKey, path: str) -> Optional[List[Finding]]:
        name = key.slot + ".json"
        try:
            # A regular file only, never through a link, never blocking, at most the cap.
            raw, info = shard.read(name, MAX_ENTRY_BYTES)
            entry = _DECODER.decode(raw.decode("utf-8"))
        except (OSError, ValueError, RecursionError):  # RecursionError: absurdly nested JSON
            return None
        if not valid_entry(entry, key, self._codes) or not self._dependencies_unchanged(entry):
            return None
        if time.time() - info.st_mtime > TOUCH_AFTER:
            try:
                shard.refresh(name)  # still in use: keep it from being pruned by age
            except OSError:
                pass
        return [finding_from_dict(d, path) for d in entry["findings"]]

    def _dependencies_unchanged(self, entry: Dict[str, Any]) -> bool:
        for path, recorded in entry.get("dependencies", {}).items():
            if path not in self._current:
                self._current[path] = dependency_hash(path)
            if self._current[path] != recorded:
                return False
        return True

    def put(self, key: CacheKey, findings: List[Finding],
            dependencies: Optional[Dict[str, Optional[str]]] = None) -> bool:
        """Store the findings unless one of them depends on the run; never raises."""
        if any(f.code in UNCACHEABLE_CODES for f in findings):
            return False
        return self.put_dicts(key, [finding_to_dict(f) for f in findings], dependencies)

    def put_dicts(self, key: CacheKey, findings: List[Dict[str, Any]],
                  dependencies: Optional[Dict[str, Optional[str]]] = None) -> bool:
        if any(d["code"] in UNCACHEABLE_CODES for d in findings):
            return False
        entry: Dict[str, Any] = {"content": key.content, "findings": findings}
        if dependencies:
            entry["dependencies"] = dependencies
        try:
            entries = self._prepare()
            if entries is None:
                return False
            with entries.child(key.slot[:2], create=True) as shard:
                _write_atomically(shard, key.slot + ".json", entry)
        except OSError:
            return False  # a read-only or full disk, or a link in the way, must not fail the lint run
        return True

    def _open_entries(self, create: bool) -> Optional[Directory]:
        """The entries directory, opened once (made first when ``create``); None when there is
        none yet, or the cache is refused, or a link or a file stands where a directory should."""
        if self._entries is not None or self.refusal is not None or self._path is None:
            return self._entries
        try:
            if create:
                os.makedirs(self._path, exist_ok=True)  # no link on this path: cache_location.py
            root = Directory.open(self._path)
        except OSError:
            return None
        try:
            self._entries = root.child(ENTRIES, create=create)
        except OSError:
            root.close()
            return None
        self._root = root
        return self._entries

    def _prepare(self) -> Optional[Directory]:
        """The entries directory for a write: on the first write of a run, made with its markers,
        and pruned when due."""
        entries = self._open_entries(create=True)
        if entries is None or self._prepared:
            return entries
        self._prepared = True
        if self._root is not None:  # always: opened with the entries directory
            # Like ruff's cache: keep it out of git and out of backups without touching user files.
            for name, text in _MARKERS:
                try:
                    fd = self._root.create(name, 0o644)  # only when nothing (a link too) is there
                except OSError:
                    continue
                with os.fdopen(fd, "w", encoding="utf-8") as handle:
                    handle.write(text)
            self._maybe_prune(self._root, entries)
        return entries

    def _maybe_prune(self, root: Directory, entries: Directory) -> None:
        """Prune when the last pruning of this directory is older than ``PRUNE_EVERY``."""
        now = time.time()
        try:
            if now - entries.lstat(STAMP).st_mtime < PRUNE_EVERY:
                return
        except OSError:
            pass  # never pruned
        try:
            entries.touch(STAMP)  # first: a concurrent run sees a fresh stamp and does not prune as well
        except OSError:
            return  # a link or a pipe planted as the stamp: no pruning rather than following it
        _prune(root, now)

    def close(self) -> None:
        # getattr: __del__ runs this on an object whose __init__ may have stopped early.
        for directory in (getattr(self, "_entries", None), getattr(self, "_root", None)):
            if directory is not None:
                directory.close()
        self._entries = self._root = None

    def __del__(self) -> None:
        self.close()

    def __getstate__(self) -> Dict[str, Any]:
        # A spawned worker gets no descriptors: it opens the directories again by the checked path.
        return {**self.__dict__, "_root": None, "_entries": None}


def _link_target(path: str) -> Optional[str]:
    """Where ``path`` leads when it is itself a symbolic link (resolved), else None."""
    try:
        if stat.S_ISLNK(os.lstat(path).st_mode):
            return os.path.realpath(path)
    except OSError:
        pass  # gone since it was read: the slot is never used for a hit then anyway
    return None


def _write_atomically(shard: Directory, name: str, entry: Dict[str, Any]) -> None:
    """Write ``entry`` as ``name`` in ``shard`` through a temporary file renamed into place:
    readers see the old entry or the new, never half of one."""
    tmp = ".tmp-" + os.urandom(8).hex()
    fd = shard.create(tmp)  # O_EXCL | O_NOFOLLOW: a new file of ours, never a planted one
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            json.dump(entry, handle, separators=(",", ":"))
        shard.replace(tmp, name)
    except BaseException:
        try:
            shard.unlink(tmp)
        except OSError:
            pass
        raise


def prune(directory: str, now: Optional[float] = None) -> int:
    """Remove entries unused for ``MAX_AGE``, then the oldest beyond ``MAX_ENTRIES``, stale
    temporary files and the entries of older formats. Returns how many entries went.

    Only what the cache writes goes: regular files named as it names them, in directories named
    as it names them, none reached through a link (``directory`` itself must not be one)."""
    try:
        root = Directory.open(directory)
    except OSError:
        return 0  # absent, not a directory, or a link: nothing of ours to prune
    with root:
        return _prune(root, time.time() if now is None else now)


def _prune(root: Directory, now: float) -> int:
    for name, info in root.entries():
        if _FORMAT_NAME.match(name) and name != ENTRIES and stat.S_ISDIR(info.st_mode):
            _remove_old_format(root, name)
    try:
        entries = root.child(ENTRIES)
    except OSError:
        return 0
    removed = 0
    kept: List[Tuple[float, str, str]] = []
    with entries:
        for shard_name, info in entries.entries():
            if not (_SHARD_NAME.match(shard_name) and stat.S_ISDIR(info.st_mode)):
                continue  # a link or anything else not ours
            try:
                shard = entries.child(shard_name)
            except OSError:
                continue  # replaced by a link since listed
            with shard:
                for name, info in shard.entries():
                    if not stat.S_ISREG(info.st_mode):
                        continue  # never a link, a pipe or a directory: the cache writes none
                    if _TMP_NAME.match(name):
                        if now - info.st_mtime > STALE_TMP_AGE:
                            _remove(shard, name)  # not an entry: what a killed writer left
                    elif not (_ENTRY_NAME.match(name) and name.startswith(shard_name)):
                        continue
                    elif now - info.st_mtime > MAX_AGE:
                        removed += _remove(shard, name)
                    else:
                        kept.append((info.st_mtime, shard_name, name))
        if len(kept) > MAX_ENTRIES:
            kept.sort()
            for _, shard_name, name in kept[:len(kept) - MAX_ENTRIES]:
                try:
                    with entries.child(shard_name) as shard:
                        removed += _remove(shard, name)
                except OSError:
                    continue
    return removed


def _remove_old_format(root: Directory, name: str) -> None:
    """Remove an older format's entries, then its directories if nothing else is left in them."""
    try:
        old = root.child(name)
    except OSError:
        return
    with old:
        for shard_name, info in old.entries():
            if shard_name == STAMP and stat.S_ISREG(info.st_mode):
                _remove(old, shard_name)
            elif _SHARD_NAME.match(shard_name) and stat.S_ISDIR(info.st_mode):
                try:
                    shard = old.child(shard_name)
                except OSError:
                    continue
                with shard:
                    for entry, entry_info in shard.entries():
                        if stat.S_ISREG(entry_info.st_mode) and (_ENTRY_NAME.match(entry) or _TMP_NAME.match(entry)):
                            _remove(shard, entry)
                _remove_directory(old, shard_name)
    _remove_directory(root, name)


def _remove(directory: Directory, name: str) -> int:
    try:
        directory.unlink(name)
    except OSError:
        return 0  # gone already (a concurrent pruning) or not ours to remove
    return 1


def _remove_directory(directory: Directory, name: str) -> None:
    try:
        directory.rmdir(name)
    except OSError:
        pass  # something not ours is left in it: it stays


# ---------------------------------------------------------------------- validation
# A cache entry is data from disk: anything may be in it (another tool's file, a torn write, a
# hand edit). It becomes findings only if every field has the type and range a real one has, and
# every position lies in the file in hand: a hit costs a few comparisons, never a parse.

_SEVERITIES = frozenset({"error", "warning"})
#: Lines, columns and cell numbers above this are nonsense, not a real file.
MAX_POSITION = 10 ** 9
_FINDING_KEYS = frozenset({"code", "message", "severity", "location", "provenance", "fix",
                           "cell", "cell_source", "provenance_cells"})
_FIX_KEYS = frozenset({"description", "safe", "location", "new_text"})


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} in a cache entry")  # NaN, Infinity: never written by us


#: One decoder for every entry (``json.loads`` with options builds a new one per call).
_DECODER = json.JSONDecoder(parse_constant=_reject_constant)


def _text(value: Any) -> bool:
    if type(value) is not str:
        return False
    if value.isascii():  # the usual case, and O(1): CPython knows it from the string's kind
        return True
    try:
        value.encode("utf-8")  # a lone surrogate would crash printing the finding
    except UnicodeEncodeError:
        return False
    return True


def _count(value: Any, least: int, most: int = MAX_POSITION) -> bool:
    # bool is an int subclass: ``true`` is not a line number.
    return type(value) is int and least <= value <= most


def _valid_location(value: Any, last_line: int, last_column: int) -> bool:
    """Four counts, within the file (``last_line``, ``last_column``), the end not before the start."""
    if type(value) is not list or len(value) != 4:
        return False
    line, column, end_line, end_column = value
    return (_count(line, 1, last_line) and _count(column, 0, last_column) and _count(end_line, 1, last_line)
            and _count(end_column, 0, last_column) and (line, column) <= (end_line, end_column))


def _valid_step(value: Any, last_line: int) -> bool:
    # [line, column, snippet, note], then the file of a step in an imported module (relative to
    # the finding's file), whose lines are that file's: only the steps in this file are held to
    # its length; then, from entries that have it, where the expression ends (line, column, not
    # before its start). Lengths 4 and 5 are entries written before steps had an end.
    if type(value) is not list or len(value) not in (4, 5, 6, 7):
        return False
    elsewhere = len(value) in (5, 7)
    lines = MAX_POSITION if elsewhere else last_line
    if not (_count(value[0], 0, lines) and _count(value[1], 0) and _text(value[2]) and _text(value[3])
            and (not elsewhere or _text(value[4]))):
        return False
    if len(value) < 6:
        return True
    end_line, end_column = value[-2], value[-1]
    return (_count(end_line, 0, lines) and _count(end_column, 0)
            and (value[0], value[1]) <= (end_line, end_column))


def _step_to_list(s: ProvenanceStep) -> List[Any]:
    """[line, column, snippet, note] + [path] for a step in another file + [end line, end column]
    when the end is known (``_valid_step`` reads the length)."""
    return ([s.line, s.column, s.snippet, s.note] + ([s.path] if s.path else [])
            + ([s.end_line, s.end_column] if s.end_line is not None and s.end_column is not None else []))


def _step_from_list(items: List[Any]) -> ProvenanceStep:
    line, column, snippet, note = items[:4]
    path = items[4] if len(items) in (5, 7) else None
    end_line, end_column = (items[-2], items[-1]) if len(items) >= 6 else (None, None)
    return ProvenanceStep(line, column, snippet, note, path, end_line, end_column)


def _valid_dependencies(value: Any) -> bool:
    return type(value) is dict and all(
        _text(path) and (digest is None or (_text(digest) and len(digest) == 64))
        for path, digest in value.items())


def _valid_fix(value: Any, last_line: int, last_column: int) -> bool:
    if value is None:
        return True
    return (type(value) is dict and set(value) <= _FIX_KEYS and _text(value.get("description"))
            and type(value.get("safe")) is bool
            and (value.get("location") is None or _valid_location(value["location"], last_line, last_column))
            and (value.get("new_text") is None or _text(value["new_text"])))


def _valid_finding(d: Any, bounds: FileBounds, codes: FrozenSet[str]) -> bool:
    if type(d) is not dict or not set(d) <= _FINDING_KEYS:
        return False
    code = d.get("code")
    if not (_text(code) and code in codes and code not in UNCACHEABLE_CODES and _text(d.get("message"))
            and _text(d.get("severity")) and d["severity"] in _SEVERITIES):  # a list is unhashable
        return False
    # +1: a parser reports an error at the end of the file on the line after the last one.
    last_line = bounds.lines + 1
    if "cell" in d:
        # A notebook's finding: its lines are its cell's, a cell among the notebook's.
        cell_source, cells = d.get("cell_source"), d.get("provenance_cells", [])
        if not (bounds.notebook and _count(d["cell"], 1, bounds.cells) and _text(cell_source)
                and type(cells) is list and all(_count(c, 0, bounds.cells) for c in cells)):
            return False
        last_line = count_lines(cell_source) + 1
        step_line = MAX_POSITION  # a step's line is in its own cell, whose text the entry does not hold
    elif {"cell_source", "provenance_cells"} & set(d):
        return False
    else:
        step_line = last_line
    if not _valid_location(d.get("location"), last_line, bounds.size):
        return False
    steps = d.get("provenance", [])
    if type(steps) is not list or not all(_valid_step(s, step_line) for s in steps):
        return False
    return _valid_fix(d.get("fix"), last_line, bounds.size)


def valid_entry(entry: Any, key: CacheKey, codes: FrozenSet[str]) -> bool:
    """Whether ``entry`` (parsed JSON) is a well-formed entry for the file of ``key`` whose
    findings all name one of ``codes`` and lie inside that file."""
    return (type(entry) is dict and set(entry) - {"dependencies"} == {"content", "findings"}
            and entry["content"] == key.content
            and _valid_dependencies(entry.get("dependencies", {}))
            and type(entry["findings"]) is list
            and all(_valid_finding(d, key.bounds, codes) for d in entry["findings"]))


# ---------------------------------------------------------------------- (de)serialisation
# Findings travel as plain dicts between pool workers and into the cache. The libcst nodes of
# a finding (node, origin, fix.old / fix.new) do not survive; the fix keeps its span and text.


def _location_to_list(loc: Optional[Location]) -> Optional[List[int]]:
    return None if loc is None else [loc.line, loc.column, loc.end_line, loc.end_column]


def finding_to_dict(f: Finding) -> Dict[str, Any]:
    out: Dict[str, Any] = {
        "code": f.code,
        "message": f.message,
        "severity": f.severity,
        "location": _location_to_list(f.location),
        "provenance": [_step_to_list(s) for s in f.provenance],
    }
    if f.fix is not None:
        out["fix"] = {"description": f.fix.description, "safe": f.fix.safe,
                      "location": _location_to_list(f.fix.location), "new_text": f.fix.new_text}
    if getattr(f, "cell", None):  # notebook findings: cell number and cell text
        from ..checker.notebooks import notebook_fields

        out.update(notebook_fields(f))
    return out


def finding_from_dict(d: Dict[str, Any], path: str) -> Finding:
    fix = None
    if d.get("fix") is not None:
        fd = d["fix"]
        loc = fd.get("location")
        fix = Fix(None, None, fd["description"], bool(fd["safe"]),
                  Location(*loc) if loc else None, fd.get("new_text"))
    finding = Finding(d["code"], d["message"], d["severity"], path, Location(*d["location"]),
                      tuple(_step_from_list(s) for s in d.get("provenance", ())), fix)
    if d.get("cell"):  # imported only for notebooks: a warm run of .py files stays light
        from ..checker.notebooks import with_notebook_fields

        finding = with_notebook_fields(finding, d)
    return finding
