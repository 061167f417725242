"""``[tool.torchtype-lint]`` in ``pyproject.toml``: read, validate, and turn into per-file settings.

The closest ``pyproject.toml`` *with a ``[tool.torchtype-lint]`` table* above a file configures
it (like ruff: no merging between files; a pyproject without the table is skipped). Command line
options override the file: ``--select`` replaces ``select``; ``--extend-select``, ``--ignore`` and
``--exclude`` add to the configured lists.

Example::

    [tool.torchtype-lint]
    select = ["TTL"]
    extend-select = ["TTL9"]
    ignore = ["TTL4"]
    exclude = ["generated", "legacy/*.py"]
    src = ["src", "scripts"]   # where `import pkg` of the project's own modules is looked up

    [tool.torchtype-lint.per-file-ignores]
    "tests/*" = ["TTL101"]
"""
from __future__ import annotations

import errno
import fnmatch
import os
import stat
from dataclasses import dataclass, field
from typing import Any, Dict, Iterable, Iterator, List, Optional, Sequence, Tuple

from ..model.settings import DEFAULT_TIME_BUDGET, Settings
from ..source.files import DEFAULT_EXCLUDES, discover
from ..model.selection import Selection, SelectionError, validate_prefixes


def _tomllib() -> Any:
    """The TOML reader, imported only when a configuration file is read (not in --isolated runs)."""
    try:
        import tomllib
    except ImportError:  # Python < 3.11
        import tomli as tomllib  # type: ignore[no-redef]
    return tomllib


SECTION = "torchtype-lint"
#: Bytes of a pyproject.toml read at most: real ones are a few KB, and a 50 MB one must not be
#: read and parsed (seconds, hundreds of MB) to configure a lint run.
MAX_CONFIG_BYTES = 1024 * 1024
KNOWN_KEYS = ("select", "extend-select", "ignore", "per-file-ignores", "exclude", "extend-exclude",
              "respect-gitignore", "src")


class ConfigError(ValueError):
    """The configuration is invalid; the message names the file and the key."""


@dataclass
class Config:
    #: Directory of the pyproject.toml; relative patterns are matched from here.
    root: str
    path: Optional[str] = None
    select: Optional[List[str]] = None
    extend_select: List[str] = field(default_factory=list)
    ignore: List[str] = field(default_factory=list)
    per_file_ignores: List[Tuple[str, List[str]]] = field(default_factory=list)
    exclude: List[str] = field(default_factory=list)
    #: Skip what the .gitignore files of the git work tree ignore when walking directories.
    respect_gitignore: bool = True
    #: Directories (absolute) the project's own absolute imports are looked up in, like ruff's
    #: ``src``; empty: the project root and its ``src/`` (project/roots.py).
    src: List[str] = field(default_factory=list)

    def excludes(self, path: str) -> bool:
        return bool(self.exclude) and path_matches(self._relative(path), self.exclude)

    def ignored_codes(self, path: str) -> List[str]:
        rel = self._relative(path)
        out: List[str] = []
        for pattern, codes in self.per_file_ignores:
            if path_matches(rel, [pattern]):
                out.extend(codes)
        return out

    def _relative(self, path: str) -> str:
        absolute = os.path.abspath(path)
        try:
            rel = os.path.relpath(absolute, self.root)
        except ValueError:  # another drive on Windows
            rel = absolute
        if rel.startswith(".."):
            rel = absolute
        return rel.replace(os.sep, "/")


def path_matches(rel_path: str, patterns: Sequence[str]) -> bool:
    """Does a (root-relative, ``/``-separated) path, or any directory above it, match a glob?

    ``"generated"`` matches ``generated/x.py`` and ``a/generated/y.py``; ``"legacy/*.py"``
    matches files directly in ``legacy``; ``"*.pyi"`` matches stubs anywhere.
    """
    parts = [p for p in rel_path.split("/") if p not in ("", ".")]
    candidates = {"/".join(parts[:i]) for i in range(1, len(parts) + 1)}
    candidates.update(parts)
    for pattern in patterns:
        pat = pattern.strip().rstrip("/")
        if pat.startswith("./"):
            pat = pat[2:]
        if any(fnmatch.fnmatchcase(c, pat) for c in candidates):
            return True
    return False


# --------------------------------------------------------------------------- reading files


def find_config_file(start: str) -> Optional[str]:
    """The closest pyproject.toml at or above ``start`` that has a [tool.torchtype-lint] table."""
    directory = os.path.abspath(start if os.path.isdir(start) else os.path.dirname(start) or ".")
    while True:
        candidate = os.path.join(directory, "pyproject.toml")
        if os.path.isfile(candidate) and _has_section(candidate):
            return candidate
        parent = os.path.dirname(directory)
        if parent == directory:
            return None
        directory = parent


def _read_config_bytes(path: str) -> bytes:
    """The bytes of a configuration file: ``OSError`` when it cannot be read or is no regular
    file (a FIFO would block), ``ConfigError`` beyond ``MAX_CONFIG_BYTES`` (the rest unread)."""
    # O_NONBLOCK: opening a FIFO named pyproject.toml returns at once instead of waiting for a writer.
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    with os.fdopen(fd, "rb") as handle:
        if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode):
            raise OSError(errno.EINVAL, "not a regular file")
        data = handle.read(MAX_CONFIG_BYTES + 1)  # one byte more tells "at the cap" from "beyond it"
    if len(data) > MAX_CONFIG_BYTES:
        raise ConfigError(f"{path}: too large to be a configuration file: more than {MAX_CONFIG_BYTES:,} "
                          "bytes (torchtype-lint's limit)")
    return data


def _read_toml(path: str, data: Optional[bytes] = None) -> Dict[str, Any]:
    """The parsed file (``data``: its bytes, when already read); any problem is a ``ConfigError``."""
    tomllib = _tomllib()
    try:
        text = (_read_config_bytes(path) if data is None else data).decode("utf-8")
        return tomllib.loads(text)
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read: {exc.strerror or exc}") from None
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{path}: invalid TOML: not UTF-8 ({exc.reason} at byte {exc.start})") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: invalid TOML: {exc}") from None
    except RecursionError:  # tomllib parses nested arrays and inline tables recursively
        raise ConfigError(f"{path}: invalid TOML: arrays or tables nested too deeply") from None


def _has_section(path: str) -> bool:
    try:
        data = _read_config_bytes(path)
    except OSError:
        return False
    if SECTION.encode() not in data:
        return False  # cheap: most pyproject files never mention us
    return SECTION in _read_toml(path, data).get("tool", {})


def load_config(path: str) -> Config:
    """Read and validate the [tool.torchtype-lint] table of ``path`` (a missing table is empty)."""
    table = _read_toml(path).get("tool", {}).get(SECTION, {})
    where = f"{path}: [tool.{SECTION}]"
    if not isinstance(table, dict):
        raise ConfigError(f"{where} must be a table")
    return config_from_table(table, os.path.dirname(os.path.abspath(path)), path, where)


def config_from_table(table: Dict[str, Any], root: str, path: Optional[str] = None,
                      where: str = f"[tool.{SECTION}]") -> Config:
    for key in table:
        if key not in KNOWN_KEYS:
            import difflib  # only to word this error

            close = difflib.get_close_matches(key, KNOWN_KEYS, n=1)
            hint = f"; did you mean {close[0]!r}?" if close else f" (known keys: {', '.join(KNOWN_KEYS)})"
            raise ConfigError(f"{where}: unknown key {key!r}{hint}")
    config = Config(root=root, path=path)
    if "select" in table:
        config.select = _codes(table["select"], "select", where)
    config.extend_select = _codes(table.get("extend-select", []), "extend-select", where)
    config.ignore = _codes(table.get("ignore", []), "ignore", where)
    config.exclude = _strings(table.get("exclude", []), "exclude", where) + \
        _strings(table.get("extend-exclude", []), "extend-exclude", where)
    respect = table.get("respect-gitignore", True)
    if not isinstance(respect, bool):
        raise ConfigError(f"{where}: 'respect-gitignore' must be true or false, got {respect!r}")
    config.respect_gitignore = respect
    config.src = [os.path.normpath(os.path.join(root, d)) for d in _strings(table.get("src", []), "src", where)]
    per_file = table.get("per-file-ignores", {})
    if not isinstance(per_file, dict):
        raise ConfigError(f"{where}: 'per-file-ignores' must be a table of glob = [codes], "
                          f"got {type(per_file).__name__}")
    for pattern, codes in per_file.items():
        config.per_file_ignores.append((pattern, _codes(codes, f"per-file-ignores.{pattern!r}", where)))
    return config


def _strings(value: Any, key: str, where: str) -> List[str]:
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ConfigError(f"{where}: {key!r} must be a list of strings, got {value!r}")
    return list(value)


def _codes(value: Any, key: str, where: str) -> List[str]:
    if not isinstance(value, list):
        # A string is not taken for a one-code list: `select = "TTL1,TTL2"` would then be one
        # bad code while `select = "TTL1"` worked (ruff rejects both).
        raise ConfigError(f"{where}: {key!r} must be a list of rule codes such as [\"TTL1\"], got {value!r}")
    try:
        return validate_prefixes(_strings(value, key, where), f"{where}: {key!r}")
    except SelectionError as exc:
        raise ConfigError(str(exc)) from None


def parse_per_file_ignores(values: Sequence[str]) -> List[Tuple[str, List[str]]]:
    """``--per-file-ignores PATTERN:CODES``, comma separated (``"tests/*:TTL101,TTL102,gen/*:TTL5"``:
    a part without a colon is one more code for the pattern before it), like ruff's option."""
    out: List[Tuple[str, List[str]]] = []
    for value in values:
        for part in (p.strip() for p in value.split(",")):
            if not part:
                continue
            pattern, colon, code = part.rpartition(":")
            if colon and pattern:
                out.append((pattern, []))
            elif not out:
                raise ConfigError(f"--per-file-ignores: expected PATTERN:CODES such as 'tests/*:TTL101', got {part!r}")
            out[-1][1].extend(validate_prefixes([code], f"--per-file-ignores {out[-1][0]!r}"))
    return out


# --------------------------------------------------------------------------- one run's plan


@dataclass
class RunPlan:
    """Command line options plus the configuration files they meet, resolved per file."""

    select: Optional[List[str]] = None
    extend_select: List[str] = field(default_factory=list)
    ignore: List[str] = field(default_factory=list)
    exclude: List[str] = field(default_factory=list)
    config_path: Optional[str] = None
    isolated: bool = False
    force_exclude: bool = False
    #: False: --no-respect-gitignore (otherwise the configuration decides, default true).
    respect_gitignore: bool = True
    time_budget: float = DEFAULT_TIME_BUDGET
    #: --per-file-ignores: replaces the configured table; patterns relative to the working directory.
    per_file_ignores: Optional[List[Tuple[str, List[str]]]] = None
    _by_directory: Dict[str, Optional[Config]] = field(default_factory=dict, repr=False)
    _by_file: Dict[str, Config] = field(default_factory=dict, repr=False)

    @classmethod
    def from_args(cls, select: Optional[Sequence[str]], extend_select: Sequence[str] = (),
                  ignore: Sequence[str] = (), exclude: Sequence[str] = (), config_path: Optional[str] = None,
                  isolated: bool = False, force_exclude: bool = False, time_budget: float = DEFAULT_TIME_BUDGET,
                  respect_gitignore: bool = True,
                  per_file_ignores: Optional[Sequence[str]] = None) -> "RunPlan":
        plan = cls(
            select=validate_prefixes(select, "--select") if select is not None else None,
            extend_select=validate_prefixes(extend_select, "--extend-select"),
            ignore=validate_prefixes(ignore, "--ignore"),
            exclude=list(exclude), config_path=config_path, isolated=isolated,
            force_exclude=force_exclude, time_budget=time_budget, respect_gitignore=respect_gitignore,
            per_file_ignores=parse_per_file_ignores(per_file_ignores) if per_file_ignores is not None else None,
        )
        if config_path is not None:
            if not os.path.isfile(config_path):
                raise ConfigError(f"--config: no such file: {config_path}")
            plan._by_file[config_path] = load_config(config_path)
        return plan

    def config_for(self, path: str) -> Optional[Config]:
        if self.isolated:
            return None
        if self.config_path is not None:
            return self._by_file[self.config_path]
        directory = os.path.dirname(os.path.abspath(path))
        if directory not in self._by_directory:
            found = find_config_file(directory)
            if found is None:
                self._by_directory[directory] = None
            else:
                if found not in self._by_file:
                    self._by_file[found] = load_config(found)
                self._by_directory[directory] = self._by_file[found]
        return self._by_directory[directory]

    def settings_for(self, path: str) -> Settings:
        config = self.config_for(path)
        select = self.select if self.select is not None else (
            config.select if config is not None and config.select is not None else ["TTL"])
        extend = (config.extend_select if config else []) + self.extend_select
        ignore = (config.ignore if config else []) + self.ignore
        return Settings(selection=Selection(select=list(select), extend_select=extend, ignore=ignore),
                        time_budget=self.time_budget, source_roots=tuple(config.src) if config else ())

    def is_excluded(self, path: str) -> bool:
        config = self.config_for(path)
        if config is not None and config.excludes(path):
            return True
        return bool(self.exclude) and path_matches(os.path.normpath(path).replace(os.sep, "/"), self.exclude)

    def files(self, paths: Iterable[str]) -> Iterator[str]:
        """Files to check. Named files are checked even when excluded, unless force_exclude."""
        for path in paths:
            if os.path.isdir(path):
                config = self.config_for(os.path.join(path, "x.py"))
                gitignore = self.respect_gitignore and (config is None or config.respect_gitignore)
                for found in discover([path], self.exclude, respect_gitignore=gitignore):
                    if not self.is_excluded(found):
                        yield found
            elif not (self.force_exclude and (self.is_excluded(path) or
                                              path_matches(path.replace(os.sep, "/"), DEFAULT_EXCLUDES))):
                yield path

    def groups(self, paths: Iterable[str]) -> List[Tuple[Settings, List[str]]]:
        """The files to check, grouped by the configuration that applies to them (in order)."""
        groups: Dict[Optional[str], Tuple[Settings, List[str]]] = {}
        for path in self.files(paths):
            config = self.config_for(path)
            key = config.path if config is not None else None
            if key not in groups:
                groups[key] = (self.settings_for(path), [])
            groups[key][1].append(path)
        return list(groups.values())

    def ignored_codes(self, path: str) -> List[str]:
        if self.per_file_ignores is not None:
            return Config(root=os.getcwd(), per_file_ignores=self.per_file_ignores).ignored_codes(path)
        config = self.config_for(path)
        return config.ignored_codes(path) if config is not None else []

    def apply_per_file_ignores(self, findings: List[Any]) -> List[Any]:
        out = []
        for finding in findings:
            ignored = self.ignored_codes(finding.path)
            if not any(finding.code.startswith(code) for code in ignored):
                out.append(finding)
        return out
