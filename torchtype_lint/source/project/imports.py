"""What the engine may ask about the analysed file's imports (``engine/modules.py``): which
project file a name means, and that file's syntax tree. One object per analysed file; what it
read is its ``dependencies`` (the cache's validity, see ``cache.py``).

A notebook (``.ipynb``, its code cells analysed as one program) imports like a script run from its
own directory, where Jupyter starts the kernel; it is no module of a package, so its own relative
imports fail under Python and are never followed.
"""
from __future__ import annotations

import os
from typing import Any, Dict, Mapping, Optional, Sequence

from .resolve import ModuleResolver
from .roots import import_roots
from .sources import ProjectSources

#: Paths that name no file on disk: a text from stdin or an unsaved editor buffer.
NOT_A_FILE = ("<stdin>", "-", "stdin", "<warm-up>")
#: Notebooks import from their own directory and have no package (the module docstring).
NOTEBOOK_SUFFIX = ".ipynb"


class ProjectImports:
    def __init__(self, path: str, source_roots: Sequence[str] = (),
                 overlay: Optional[Mapping[str, str]] = None):
        #: The analysed file, resolved: importing it from another module is a cycle.
        self.path = os.path.realpath(os.path.abspath(path))
        self.is_notebook = self.path.endswith(NOTEBOOK_SUFFIX)
        # The roots come from where the file is named: a link to another project's file must
        # not make that project's modules readable.
        self.roots = import_roots(os.path.abspath(path), source_roots, directory_first=self.is_notebook)
        self.sources = ProjectSources(self.roots, overlay)
        self.resolver = ModuleResolver(self.roots, self.sources.exists)

    def absolute(self, dotted: str) -> Optional[str]:
        return self.resolver.absolute(dotted)

    def relative(self, importer: str, level: int, dotted: Optional[str]) -> Optional[str]:
        if self.is_notebook and importer == self.path:
            return None  # a notebook's kernel has no parent package: Python raises ImportError
        return self.resolver.relative(importer, level, dotted)

    def parse(self, path: str) -> Any:
        return self.sources.parse(path)

    @property
    def dependencies(self) -> Dict[str, Optional[str]]:
        """Every file looked for -> SHA-256 of its bytes (None: it does not exist)."""
        return self.sources.dependencies

    def shown_path(self, module_path: str, display_path: str) -> str:
        """``module_path`` as the analysed file's findings should name it: beside the file's
        displayed path (``src/pkg/train.py`` -> ``src/pkg/data.py``)."""
        relative = os.path.relpath(module_path, os.path.dirname(self.path))
        return os.path.normpath(os.path.join(os.path.dirname(display_path), relative))


def project_imports(path: str, source_roots: Sequence[str] = (),
                    overlay: Optional[Mapping[str, str]] = None) -> Optional[ProjectImports]:
    """The project view for the file at ``path``; None for a text that is no file."""
    if not path or path in NOT_A_FILE or path.startswith("<"):
        return None
    return ProjectImports(path, source_roots, overlay)
