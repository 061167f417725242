"""Which module-level names a top-level statement reads and binds, by Python's own scoping.

``symtable`` (CPython's compiler pass that decides, for every name in every scope, whether it
is local, free or global) answers it exactly and in C, so it costs little next to the parse.
A name a function reads without binding it is a global the function reads when it *runs*: the
statement that calls the function reads it too (``incremental/plan.py`` follows calls).
"""
from __future__ import annotations

import re
import symtable
import sys
from dataclasses import dataclass
from typing import FrozenSet, Iterator, Optional, Sequence

import libcst as cst

#: Names through which code can read or bind any global (``globals()["x"] = ...``, ``exec``):
#: a statement using one may touch every name, so it depends on and affects all others.
DYNAMIC_SCOPE_NAMES = frozenset({"globals", "locals", "vars", "exec", "eval", "__import__", "__builtins__"})
_STAR_IMPORT = re.compile(r"\bimport\s*\*")
#: Libraries whose module objects never hold the analysed program's values: a call through
#: them (``torch.manual_seed(0)``) changes nothing the analysis tracks by name. (Their global
#: switches, ``torch.set_default_dtype``, are tracked apart: incremental/session.py.)
_LIBRARIES = frozenset({
    "torch", "numpy", "jaxtyping", "torchtyping", "einops", "torchvision", "torchaudio", "torchtext",
    "scipy", "pandas", "sklearn", "matplotlib", "tqdm", "PIL", "cv2", "typing_extensions",
}) | frozenset(getattr(sys, "stdlib_module_names", ()))


@dataclass(frozen=True)
class StatementNames:
    #: Module-level names the statement binds (``global`` writes in its functions included).
    binds: FrozenSet[str]
    #: Module-level names it reads, at module level or inside its functions and classes.
    reads: FrozenSet[str]
    #: Names bound to a library module or to an object imported from one (``np``, ``F``).
    library: FrozenSet[str]
    #: It may read or bind any name (``exec``, ``globals()``, ``from m import *``).
    dynamic: bool


def statement_names(text: str, statements: Sequence[cst.CSTNode]) -> Optional[StatementNames]:
    """The names of the statements whose source is ``text``; None when Python's compiler
    refuses the text (the caller then analyses the whole file)."""
    try:
        table = symtable.symtable(text, "<statement>", "exec")
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    binds, reads = set(), set()
    for symbol in table.get_symbols():
        if symbol.is_assigned() or symbol.is_imported():
            binds.add(symbol.get_name())
        if symbol.is_referenced():
            reads.add(symbol.get_name())
    dynamic = bool(_STAR_IMPORT.search(text)) if "import" in text else False
    for scope in _nested(table):
        for symbol in scope.get_symbols():
            name = symbol.get_name()
            if symbol.is_declared_global() and symbol.is_assigned():
                binds.add(name)
            if symbol.is_global() and symbol.is_referenced():
                reads.add(name)
    dynamic = dynamic or bool(reads & DYNAMIC_SCOPE_NAMES)
    library = frozenset().union(*(_library_names(statement) for statement in statements))
    return StatementNames(frozenset(binds), frozenset(reads), library, dynamic)


def _nested(table: symtable.SymbolTable) -> Iterator[symtable.SymbolTable]:
    for child in table.get_children():
        yield child
        yield from _nested(child)


def _library_names(statement: cst.CSTNode) -> FrozenSet[str]:
    if not isinstance(statement, cst.SimpleStatementLine):
        return frozenset()
    names = set()
    for small in statement.body:
        if isinstance(small, cst.Import):
            for alias in small.names:
                dotted = _dotted(alias.name)
                if dotted.split(".")[0] in _LIBRARIES:
                    names.add(_bound_name(alias) or dotted.split(".")[0])
        elif isinstance(small, cst.ImportFrom) and not small.relative and small.module is not None \
                and _dotted(small.module).split(".")[0] in _LIBRARIES and not isinstance(small.names, cst.ImportStar):
            names.update(_bound_name(alias) or _dotted(alias.name) for alias in small.names)
    return frozenset(names)


def _bound_name(alias: cst.ImportAlias) -> Optional[str]:
    if alias.asname is not None and isinstance(alias.asname.name, cst.Name):
        return alias.asname.name.value
    return None


def _dotted(node: cst.BaseExpression) -> str:
    if isinstance(node, cst.Attribute):
        return _dotted(node.value) + "." + node.attr.value
    return node.value if isinstance(node, cst.Name) else ""
