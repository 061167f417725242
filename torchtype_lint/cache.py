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
(types, ranges, the code pattern, the fix's shape); a corrupt, truncated or ill-typed entry is a
miss, and the fresh analysis overwrites it.

This module must stay cheap to import: a fully warm run never imports libcst or the engine.
"""
from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import re
import time
from dataclasses import dataclass
from typing import Any, Dict, List, Optional

from . import __version__
from .findings import Finding, Fix, Location, ProvenanceStep
from .project.sources import dependency_hash

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

_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__))
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
class CacheKey:
    #: Names the one entry of this path under these settings and this tool.
    slot: str
    #: SHA-256 of the file's bytes: the entry answers only for these bytes.
    content: str


class Cache:
    """Findings per (path, settings), valid for one file content, under ``directory``."""

    def __init__(self, directory: str = DEFAULT_CACHE_DIR, settings: Any = None):
        self.directory = directory
        self.entries_dir = os.path.join(directory, f"v{FORMAT_VERSION}")
        self._salt = hashlib.sha256(
            f"{__version__}\0{code_fingerprint()}\0{settings_fingerprint(settings)}".encode()).digest()
        self._prepared = False
        self.hits = 0
        self.misses = 0
        #: Dependency path -> its hash now, computed once per run (many files import one module).
        self._current: Dict[str, Optional[str]] = {}

    def key(self, data: bytes, path: str) -> CacheKey:
        slot = hashlib.sha256(self._salt)
        slot.update(path.encode("utf-8", "surrogateescape"))
        return CacheKey(slot.hexdigest(), hashlib.sha256(data).hexdigest())

    def _entry_path(self, key: CacheKey) -> str:
        return os.path.join(self.entries_dir, key.slot[:2], key.slot + ".json")

    def get(self, key: CacheKey, path: str) -> Optional[List[Finding]]:
        """The cached findings for this content, or None (absent, stale, corrupt, ill-typed)."""
        entry_path = self._entry_path(key)
        try:
            with open(entry_path, "rb") as handle:
                info = os.fstat(handle.fileno())
                # read(n) would allocate n bytes up front: check the size, then read it all.
                raw = handle.read() if info.st_size <= MAX_ENTRY_BYTES else b""
            age = time.time() - info.st_mtime
            entry = _DECODER.decode(raw.decode("utf-8"))
        except (OSError, ValueError, RecursionError):  # RecursionError: absurdly nested JSON
            entry = None
        if not valid_entry(entry, key.content) or not self._dependencies_unchanged(entry):
            self.misses += 1
            return None
        if age > TOUCH_AFTER:
            try:
                os.utime(entry_path)  # still in use: keep it from being pruned by age
            except OSError:
                pass
        self.hits += 1
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
        target = self._entry_path(key)
        try:
            self._prepare()
            os.makedirs(os.path.dirname(target), exist_ok=True)
            import tempfile  # only writers need it; a warm run only reads

            fd, tmp = tempfile.mkstemp(prefix=".tmp-", dir=os.path.dirname(target))
            try:
                with os.fdopen(fd, "w", encoding="utf-8") as handle:
                    entry: Dict[str, Any] = {"content": key.content, "findings": findings}
                    if dependencies:
                        entry["dependencies"] = dependencies
                    json.dump(entry, handle, separators=(",", ":"))
                os.replace(tmp, target)  # atomic: readers see the old entry or the new, never half
            except BaseException:
                try:
                    os.unlink(tmp)
                except OSError:
                    pass
                raise
        except OSError:
            return False  # a read-only or full disk must not fail the lint run
        return True

    def _prepare(self) -> None:
        if self._prepared:
            return
        os.makedirs(self.entries_dir, exist_ok=True)
        # Like ruff's cache: keep it out of git and out of backups without touching user files.
        for name, text in ((".gitignore", "# Created by torchtype-lint\n*\n"),
                           ("CACHEDIR.TAG", "Signature: 8a477f597d28d172789f06886806bc55\n"
                                            "# This is a cache directory created by torchtype-lint.\n")):
            marker = os.path.join(self.directory, name)
            if not os.path.exists(marker):
                try:
                    with open(marker, "w", encoding="utf-8") as handle:
                        handle.write(text)
                except OSError:
                    pass
        self._prepared = True
        self._maybe_prune()

    def _maybe_prune(self) -> None:
        """Prune when the last pruning of this directory is older than ``PRUNE_EVERY``."""
        stamp = os.path.join(self.entries_dir, "last-prune")
        now = time.time()
        try:
            if now - os.stat(stamp).st_mtime < PRUNE_EVERY:
                return
        except OSError:
            pass  # never pruned
        try:
            with open(stamp, "w", encoding="utf-8"):
                pass  # first: a concurrent run sees a fresh stamp and does not prune as well
        except OSError:
            return
        prune(self.directory, now)


def prune(directory: str, now: Optional[float] = None) -> int:
    """Remove entries unused for ``MAX_AGE``, then the oldest beyond ``MAX_ENTRIES``, stale
    temporary files and the directories of older entry formats. Returns how many entries went."""
    import shutil  # pruning is rare: keep the import off the warm path

    now = time.time() if now is None else now
    current = f"v{FORMAT_VERSION}"
    removed = 0
    try:
        names = os.listdir(directory)
    except OSError:
        return 0
    for name in names:
        if re.fullmatch(r"v\d+", name) and name != current:
            shutil.rmtree(os.path.join(directory, name), ignore_errors=True)  # an older format
    kept = []
    for shard in _scandir(os.path.join(directory, current)):
        if not shard.is_dir(follow_symlinks=False):
            continue
        for entry in _scandir(shard.path):
            try:
                mtime = entry.stat(follow_symlinks=False).st_mtime
            except OSError:
                continue
            if entry.name.startswith(".tmp-"):
                if now - mtime > STALE_TMP_AGE:
                    _remove(entry.path)  # not an entry: what a killed writer left
            elif not entry.name.endswith(".json"):
                continue
            elif now - mtime > MAX_AGE:
                removed += _remove(entry.path)
            else:
                kept.append((mtime, entry.path))
    if len(kept) > MAX_ENTRIES:
        kept.sort()
        for _, path in kept[:len(kept) - MAX_ENTRIES]:
            removed += _remove(path)
    return removed


def _scandir(path: str) -> List[Any]:
    try:
        with os.scandir(path) as it:
            return list(it)
    except OSError:
        return []


def _remove(path: str) -> int:
    try:
        os.unlink(path)
    except OSError:
        return 0  # gone already (a concurrent pruning) or not ours to remove
    return 1


# ---------------------------------------------------------------------- validation
# A cache entry is data from disk: anything may be in it (another tool's file, a torn write, a
# hand edit). It becomes findings only if every field has the type and range a real one has.

_CODE = re.compile(r"TTL\d{3}\Z")
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


def _count(value: Any, least: int) -> bool:
    # bool is an int subclass: ``true`` is not a line number.
    return type(value) is int and least <= value <= MAX_POSITION


def _valid_location(value: Any) -> bool:
    if type(value) is not list or len(value) != 4:
        return False
    line, column, end_line, end_column = value
    return (_count(line, 1) and _count(column, 0) and _count(end_line, line)
            and _count(end_column, 0))


def _valid_step(value: Any) -> bool:
    # A fifth item: the file of a step in an imported module (relative to the finding's file).
    return (type(value) is list and len(value) in (4, 5) and _count(value[0], 0) and _count(value[1], 0)
            and _text(value[2]) and _text(value[3]) and (len(value) == 4 or _text(value[4])))


def _valid_dependencies(value: Any) -> bool:
    return type(value) is dict and all(
        _text(path) and (digest is None or (_text(digest) and len(digest) == 64))
        for path, digest in value.items())


def _valid_fix(value: Any) -> bool:
    if value is None:
        return True
    return (type(value) is dict and set(value) <= _FIX_KEYS and _text(value.get("description"))
            and type(value.get("safe")) is bool
            and (value.get("location") is None or _valid_location(value["location"]))
            and (value.get("new_text") is None or _text(value["new_text"])))


def _valid_finding(d: Any) -> bool:
    if type(d) is not dict or not set(d) <= _FINDING_KEYS:
        return False
    code = d.get("code")
    if not (_text(code) and _CODE.match(code) and _text(d.get("message"))
            and _text(d.get("severity")) and d["severity"] in _SEVERITIES  # a list is unhashable
            and _valid_location(d.get("location"))):
        return False
    steps = d.get("provenance", [])
    if type(steps) is not list or not all(_valid_step(s) for s in steps):
        return False
    if not _valid_fix(d.get("fix")):
        return False
    if "cell" not in d:  # a .py file's finding
        return not ({"cell_source", "provenance_cells"} & set(d))
    cells = d.get("provenance_cells", [])
    return (_count(d["cell"], 1) and _text(d.get("cell_source", ""))
            and type(cells) is list and all(_count(c, 0) for c in cells))


def valid_entry(entry: Any, content: str) -> bool:
    """Whether ``entry`` (parsed JSON) is a well-formed entry for the file content ``content``."""
    return (type(entry) is dict and set(entry) - {"dependencies"} == {"content", "findings"}
            and entry["content"] == content
            and _valid_dependencies(entry.get("dependencies", {}))
            and type(entry["findings"]) is list
            and all(_valid_finding(d) and d["code"] not in UNCACHEABLE_CODES for d in entry["findings"]))


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
        "provenance": [[s.line, s.column, s.snippet, s.note] + ([s.path] if s.path else [])
                       for s in f.provenance],
    }
    if f.fix is not None:
        out["fix"] = {"description": f.fix.description, "safe": f.fix.safe,
                      "location": _location_to_list(f.fix.location), "new_text": f.fix.new_text}
    if getattr(f, "cell", None):  # notebook findings: cell number and cell text
        from .notebook import notebook_fields

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
                      tuple(ProvenanceStep(*s) for s in d.get("provenance", ())), fix)
    if d.get("cell"):  # imported only for notebooks: a warm run of .py files stays light
        from .notebook import with_notebook_fields

        finding = with_notebook_fields(finding, d)
    return finding
