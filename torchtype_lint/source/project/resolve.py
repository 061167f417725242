"""Which file an import statement of the user's code names: absolute imports against the import
roots (``roots.py``), relative imports inside packages, submodules of packages.

Only files are answered, never directories: ``pkg/mod.py`` or ``pkg/mod/__init__.py``. A name
that is not found is not an error: it is a library (or a module we cannot see), which the engine
treats as before. Every candidate file is asked of ``exists`` (``sources.py``), which refuses
symlinks and files outside the project and records the answer (a file created later changes
what the import means, so the cache must know it was looked for).
"""
from __future__ import annotations

import os
import sys
from typing import Callable, Optional

from .roots import ImportRoots, is_inside

#: Libraries the analyser knows by name: never looked up among the user's files (a project that
#: vendors a ``torch/`` directory still means the real one).
KNOWN_LIBRARIES = frozenset({
    "torch", "numpy", "jaxtyping", "torchtyping", "torchshapeflow", "typing_extensions", "__future__",
})
#: The standard library's top-level names (Python 3.10+; older Pythons: the common ones).
STDLIB = frozenset(getattr(sys, "stdlib_module_names", ())) or frozenset({
    "abc", "argparse", "collections", "contextlib", "copy", "dataclasses", "enum", "functools", "glob",
    "io", "itertools", "json", "logging", "math", "os", "pathlib", "pickle", "random", "re", "shutil",
    "string", "subprocess", "sys", "tempfile", "time", "typing", "unittest", "warnings",
})
#: Dotted names longer than this are not looked up (no real package nests deeper).
MAX_DOTTED_PARTS = 16


class ModuleResolver:
    def __init__(self, roots: ImportRoots, exists: Callable[[str], bool]):
        self.roots = roots
        self.exists = exists

    def absolute(self, dotted: str) -> Optional[str]:
        """The file of ``import dotted`` in the project, or None (a library, or not found)."""
        parts = dotted.split(".")
        if not _valid_parts(parts) or parts[0] in KNOWN_LIBRARIES or parts[0] in STDLIB:
            return None
        for directory in self.roots.search:
            found = self._module_file(directory, parts)
            if found is not None:
                return found
        return None

    def relative(self, importer: str, level: int, dotted: Optional[str]) -> Optional[str]:
        """The file of ``from <level dots><dotted> import ...`` written in the file ``importer``
        (the package itself when ``dotted`` is None); None outside the project."""
        directory = os.path.dirname(importer)
        for _ in range(level - 1):
            directory = os.path.dirname(directory)
        if not is_inside(directory, self.roots.project):
            return None  # ``from ... import`` climbing out of the project is never followed
        parts = dotted.split(".") if dotted else []
        if parts and not _valid_parts(parts):
            return None
        if not parts:
            init = os.path.join(directory, "__init__.py")
            return init if self.exists(init) else None
        return self._module_file(directory, parts)

    def submodule(self, module_file: str, name: str) -> Optional[str]:
        """The file of submodule ``name`` of the package whose ``__init__.py`` is ``module_file``."""
        if os.path.basename(module_file) != "__init__.py" or not _valid_parts([name]):
            return None
        return self._module_file(os.path.dirname(module_file), [name])

    def _module_file(self, directory: str, parts: list) -> Optional[str]:
        base = os.path.join(directory, *parts)
        # The package first, as Python's FileFinder: ``data/__init__.py`` wins over ``data.py``,
        # and asking for it first records it (absent) when only the module is there, so the
        # cache knows that a package appearing there changes what the import means.
        for candidate in (os.path.join(base, "__init__.py"), base + ".py"):
            if self.exists(candidate):
                return candidate
        return None


def _valid_parts(parts: list) -> bool:
    return 0 < len(parts) <= MAX_DOTTED_PARTS and all(p.isidentifier() for p in parts)
