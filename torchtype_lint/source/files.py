"""Which files a run checks: paths given, directories walked, default excludes and .gitignore
files applied."""
from __future__ import annotations

import fnmatch
import os
import re
from dataclasses import dataclass
from typing import Dict, Iterable, Iterator, List, Optional, Pattern, Sequence, Tuple

from .lines import source_lines

#: Directory names skipped while walking (like ruff's defaults).
DEFAULT_EXCLUDES = (
    ".git", ".hg", ".svn", ".venv", "venv", ".tox", ".nox", ".eggs", "*.egg-info", "__pycache__",
    "build", "dist", "node_modules", "site-packages", ".mypy_cache", ".pytest_cache",
    ".ruff_cache", ".torchtype_lint_cache", ".ipynb_checkpoints", "__pypackages__",
)
PYTHON_SUFFIXES = (".py", ".pyi")
#: Jupyter notebooks, checked through notebook.py (code cells only).
NOTEBOOK_SUFFIXES = (".ipynb",)


def is_excluded(path: str, patterns: Sequence[str]) -> bool:
    name = os.path.basename(os.path.normpath(path))
    norm = os.path.normpath(path).replace(os.sep, "/")
    for pattern in patterns:
        if fnmatch.fnmatch(name, pattern) or fnmatch.fnmatch(norm, pattern) or \
                fnmatch.fnmatch(norm, f"*/{pattern}") or fnmatch.fnmatch(norm, f"*/{pattern}/*"):
            return True
    return False


def discover(paths: Iterable[str], extra_excludes: Sequence[str] = (),
             suffixes: Sequence[str] = PYTHON_SUFFIXES + NOTEBOOK_SUFFIXES,
             respect_gitignore: bool = True) -> Iterator[str]:
    """Files to check, in a stable order. Explicitly named files are always checked; files
    found by walking a directory are skipped when excluded or ignored by git, or when they
    resolve outside their project (a committed symlink: ``boundary.py``)."""
    from .boundary import leaves_project

    for path in paths:
        if os.path.isdir(path):
            ignore = GitIgnore.for_directory(path) if respect_gitignore else None
            # os.walk does not enter linked directories: below the top, only a file itself can be a link.
            top_linked = os.path.realpath(path) != os.path.abspath(path)
            found: List[str] = []
            for root, dirs, files in os.walk(path):
                if ignore is not None:
                    ignore.load(root)
                # Default names apply below the directory asked for, not to its ancestors:
                # `check .../site-packages/torch/nn` or a project under ~/build must be walked.
                dirs[:] = sorted(d for d in dirs
                                 if not is_excluded(os.path.relpath(os.path.join(root, d), path), DEFAULT_EXCLUDES)
                                 and not is_excluded(os.path.join(root, d), extra_excludes)
                                 and not (ignore and ignore.ignored(os.path.join(root, d), True)))
                for f in files:
                    full = os.path.join(root, f)
                    if f.endswith(tuple(suffixes)) and not is_excluded(full, extra_excludes) \
                            and not (ignore and ignore.ignored(full, False)) \
                            and not ((top_linked or os.path.islink(full)) and leaves_project(full)):
                        found.append(full)
            yield from sorted(found)
        else:
            yield path


# --------------------------------------------------------------------------- .gitignore


@dataclass(frozen=True)
class _IgnoreRule:
    regex: Pattern[str]
    negated: bool
    dir_only: bool
    #: Matched against the path relative to the .gitignore's directory (else: the name only).
    anchored: bool


def _glob_to_regex(glob: str) -> Pattern[str]:
    """gitignore glob -> regex: ``*`` and ``?`` stay within a path component, ``**`` spans them."""
    out, i = "", 0
    while i < len(glob):
        if glob.startswith("**/", i):
            out, i = out + "(?:.*/)?", i + 3
        elif glob.startswith("**", i):
            out, i = out + ".*", i + 2
        elif glob[i] == "*":
            out, i = out + "[^/]*", i + 1
        elif glob[i] == "?":
            out, i = out + "[^/]", i + 1
        elif glob[i] == "[" and "]" in glob[i + 2:]:
            end = glob.index("]", i + 2)
            body = glob[i + 1:end]
            body = "^" + body[1:] if body.startswith("!") else body
            out, i = out + "[" + body.replace("\\", "\\\\") + "]", end + 1
        elif glob[i] == "\\" and i + 1 < len(glob):
            out, i = out + re.escape(glob[i + 1]), i + 2
        else:
            out, i = out + re.escape(glob[i]), i + 1
    return re.compile(out + r"\Z")


def parse_gitignore(text: str) -> List[_IgnoreRule]:
    rules = []
    # git ends a line at \n and \r\n, never at \f or \x1c (str.splitlines would cut a name there).
    for raw in source_lines(text):
        line = raw.rstrip()
        if raw.endswith("\\ "):
            line += " "  # an escaped trailing space is part of the pattern
        if not line or line.startswith("#"):
            continue
        negated = line.startswith("!")
        if negated:
            line = line[1:]
        elif line.startswith("\\!") or line.startswith("\\#"):
            line = line[1:]
        dir_only = line.endswith("/")
        line = line.rstrip("/")
        if not line:
            continue
        anchored = "/" in line
        rules.append(_IgnoreRule(_glob_to_regex(line.lstrip("/")), negated, dir_only, anchored))
    return rules


class GitIgnore:
    """The .gitignore files of one git work tree (and .git/info/exclude), as git reads them:
    each file's patterns apply below its directory, the last matching pattern wins, ``!``
    re-includes. Outside a git work tree nothing is ignored (like git and ruff)."""

    def __init__(self, git_root: str):
        self.git_root = os.path.abspath(git_root)
        self._rules: Dict[str, List[_IgnoreRule]] = {}
        self._read(self.git_root, os.path.join(self.git_root, ".git", "info", "exclude"))

    @classmethod
    def for_directory(cls, directory: str) -> Optional["GitIgnore"]:
        """The work tree around ``directory`` with the .gitignore files above it loaded."""
        start = os.path.abspath(directory)
        current = start
        while not os.path.exists(os.path.join(current, ".git")):
            parent = os.path.dirname(current)
            if parent == current:
                return None
            current = parent
        ignore = cls(current)
        chain = []
        while True:
            chain.append(start)
            if start == current:
                break
            start = os.path.dirname(start)
        for folder in reversed(chain[1:]):  # the walk loads the start directory itself
            ignore.load(folder)
        return ignore

    def load(self, directory: str) -> None:
        self._read(os.path.abspath(directory), os.path.join(directory, ".gitignore"))

    def _read(self, directory: str, path: str) -> None:
        try:
            with open(path, encoding="utf-8", errors="replace") as handle:
                rules = parse_gitignore(handle.read())
        except OSError:
            return
        self._rules.setdefault(directory, []).extend(rules)

    def ignored(self, path: str, is_dir: bool) -> bool:
        absolute = os.path.abspath(path)
        verdict = False
        for base, rules in self._applicable(absolute):
            rel = os.path.relpath(absolute, base).replace(os.sep, "/")
            name = rel.rsplit("/", 1)[-1]
            for rule in rules:
                if rule.dir_only and not is_dir:
                    continue
                if rule.regex.match(rel if rule.anchored else name):
                    verdict = not rule.negated
        return verdict

    def _applicable(self, absolute: str) -> List[Tuple[str, List[_IgnoreRule]]]:
        # Rule files from the work tree's root down to the path's own directory, in that order.
        out = []
        directory = os.path.dirname(absolute)
        while True:
            if directory in self._rules:
                out.append((directory, self._rules[directory]))
            if directory == self.git_root or len(directory) <= len(self.git_root):
                break
            directory = os.path.dirname(directory)
        return list(reversed(out))
