"""Importing this module registers every rule: each module under ``rules/`` (and its family
packages) is imported once, so adding a rule is adding a file; nothing here lists them."""
from __future__ import annotations

import importlib
import pkgutil

from .. import rules as _rules

for _found in sorted(pkgutil.walk_packages(_rules.__path__, _rules.__name__ + "."), key=lambda m: m.name):
    if not _found.name.endswith(".catalogue"):
        importlib.import_module(_found.name)
