"""Content-hash cache of per-file findings, so that re-checking an unchanged file costs a hash.

An entry's key is the SHA-256 of: the file's bytes, its displayed path, the tool's version, a
fingerprint of the installed tool's own files (so editing a rule invalidates old entries even
when the version string did not change) and the analysis settings (selection, noqa, budget...).
The entry holds the findings as JSON. Entries are written to a temporary file in the same
directory and renamed into place, so concurrent runs (a pre-commit hook beside an editor, or
two CI jobs sharing a directory) never read a half-written entry; a corrupt or unreadable entry
is treated as a miss.

This module must stay cheap to import: a fully warm run never imports libcst or the engine.
"""
from __future__ import annotations

import dataclasses
import hashlib
import json
import os
from typing import Any, Dict, List, Optional

from . import __version__
from .findings import Finding, Fix, Location, ProvenanceStep

DEFAULT_CACHE_DIR = ".torchtype_lint_cache"
#: Bumped whenever the entry format changes.
FORMAT_VERSION = 1
#: Codes whose findings depend on the run, not on the file (time budget, unreadable file).
UNCACHEABLE_CODES = frozenset({"TTL000"})

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


class Cache:
    """Findings per (file content, path, settings) under ``directory``."""

    def __init__(self, directory: str = DEFAULT_CACHE_DIR, settings: Any = None):
        self.directory = directory
        self.entries_dir = os.path.join(directory, f"v{FORMAT_VERSION}")
        self._salt = hashlib.sha256(
            f"{__version__}\0{code_fingerprint()}\0{settings_fingerprint(settings)}".encode()).digest()
        self._prepared = False
        self.hits = 0
        self.misses = 0

    def key(self, data: bytes, path: str) -> str:
        digest = hashlib.sha256(self._salt)
        digest.update(path.encode("utf-8", "surrogateescape"))
        digest.update(b"\0")
        digest.update(data)
        return digest.hexdigest()

    def _entry_path(self, key: str) -> str:
        return os.path.join(self.entries_dir, key[:2], key + ".json")

    def get(self, key: str, path: str) -> Optional[List[Finding]]:
        try:
            with open(self._entry_path(key), "rb") as handle:
                entry = json.loads(handle.read())
            findings = [finding_from_dict(d, path) for d in entry["findings"]]
        except (OSError, ValueError, KeyError, TypeError):
            self.misses += 1
            return None
        self.hits += 1
        return findings

    def put(self, key: str, findings: List[Finding]) -> bool:
        """Store the findings unless one of them depends on the run; never raises."""
        if any(f.code in UNCACHEABLE_CODES for f in findings):
            return False
        return self.put_dicts(key, [finding_to_dict(f) for f in findings])

    def put_dicts(self, key: str, findings: List[Dict[str, Any]]) -> bool:
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
                    json.dump({"findings": findings}, handle, separators=(",", ":"))
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
        "provenance": [[s.line, s.column, s.snippet, s.note] for s in f.provenance],
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
