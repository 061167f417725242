"""What the engine may ask about the analysed file's imports (``engine/modules.py``): which
project file a name means, and that file's syntax tree. One object per analysed file; what it
read is its ``dependencies`` (the cache's validity, see ``cache.py``).
"""
from __future__ import annotations

import os
from typing import Any, Dict, Mapping, Optional, Sequence

from .resolve import ModuleResolver
from .roots import import_roots
from .sources import ProjectSources

#: Paths that name no file on disk: a text from stdin or an unsaved editor buffer.
NOT_A_FILE = ("<stdin>", "-", "stdin", "<warm-up>")


class ProjectImports:
    def __init__(self, path: str, source_roots: Sequence[str] = (),
                 overlay: Optional[Mapping[str, str]] = None):
        #: The analysed file, resolved: importing it from another module is a cycle.
        self.path = os.path.realpath(os.path.abspath(path))
        self.roots = import_roots(self.path, source_roots)
        self.sources = ProjectSources(self.roots, overlay)
        self.resolver = ModuleResolver(self.roots, self.sources.exists)

    def absolute(self, dotted: str) -> Optional[str]:
        return self.resolver.absolute(dotted)

    def relative(self, importer: str, level: int, dotted: Optional[str]) -> Optional[str]:
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
    if not path or path in NOT_A_FILE or path.startswith("<") or path.endswith(".ipynb"):
        return None
    return ProjectImports(path, source_roots, overlay)
