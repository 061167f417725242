"""The project's own modules an analysed file imports, run by the same interpreter.

``from data import make_batch`` names a file of the user's project (found by the front end's
``project`` object: ``project/imports.py``; the engine only asks it for files and syntax trees).
The module's body runs once per analysis, the way Python runs it once per process, in its own
global scope (a ``Home``), with recording off: rules never see its nodes, only the values that
reach the analysed file. Its top-level functions and classes become the same ``FunctionValue``
and ``ClassValue`` as the file's own, so a call runs the body with the caller's arguments (in
the callee's module: ``run_function`` enters its home). Values keep their ``Origin`` nodes, so
provenance points into the other file (``check.py`` finds which).

Never executed for real, never imported: a file is read and parsed, nothing else. What cannot be
known stays unknown: a module that cannot be read, parsed or is too long, one being loaded
when it is imported again (a cycle), the analysed file itself, or modules beyond
``MAX_PROJECT_MODULES``.
"""
from __future__ import annotations

import os
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, Callable, Dict, Iterator, Optional

import libcst as cst

from ..values import TOP, Value, join
from .runtime import Frame
from .syntax import dotted_name

if TYPE_CHECKING:
    from .interpreter import Interpreter

#: Project modules one analysis may load (each is read, parsed and its body run once).
MAX_PROJECT_MODULES = 32


class Home:
    """A module whose code the interpreter runs: the analysed file or an imported one."""

    __slots__ = ("path", "module", "frame", "annotation_facts", "loading", "submodules")

    def __init__(self, path: Optional[str], module: Any, frame: Frame):
        self.path = path
        self.module = module
        #: Its global scope.
        self.frame = frame
        #: Its aliases for annotations (engine/annotations.py reads them once per module).
        self.annotation_facts: Any = None
        #: True while its body runs: importing it again then is a cycle (unknown names).
        self.loading = False
        #: Submodules bound as its attributes by ``import pkg.sub`` (name -> Home).
        self.submodules: Dict[str, "Home"] = {}


class ModuleNamespace(Value):
    """A project module as a value (``import pkg.data as data``): its attributes are its globals."""

    __slots__ = ("home", "origin")
    kind = "module"

    def __init__(self, home: Home):
        self.home = home
        self.origin = None

    def describe(self) -> str:
        return f"module {os.path.basename(self.home.path or '?')}"


def namespace_attribute(namespace: ModuleNamespace, attr: str) -> Value:
    """``data.make_batch``: the module's global, or a submodule imported as its attribute."""
    home = namespace.home
    if attr in home.frame.vars:
        return home.frame.vars[attr]
    if attr in home.submodules:
        return ModuleNamespace(home.submodules[attr])
    return TOP


def assign_namespace_attribute(interp: "Interpreter", namespace: ModuleNamespace, attr: str,
                               value: Value) -> None:
    """``config.dtype = ...`` on a project module: its global changes (joined with the old value
    where the assignment may not happen: a branch, a speculative analysis)."""
    variables = namespace.home.frame.vars
    weak = interp.branch_depth or interp._conditional_calls or interp._speculative
    variables[attr] = join(variables[attr], value) if weak and attr in variables else value
    interp.heap_version += 1  # memoised calls that read the old value are stale


def home_of(interp: "Interpreter", fnode: Any) -> Home:
    """The module a function (or method) was defined in."""
    return interp.homes.get(fnode, interp.main_home)


@contextmanager
def entered(interp: "Interpreter", home: Home) -> Iterator[None]:
    """Run code of ``home``: its globals, its module (for annotations); outside the analysed
    file nothing is recorded, so rules and ``explain`` see only the analysed file's nodes."""
    saved = (interp.home, interp.globals, interp.module, interp.annotation_facts, interp.recording)
    interp.home.annotation_facts = interp.annotation_facts
    interp.home, interp.globals, interp.module = home, home.frame, home.module
    interp.annotation_facts = home.annotation_facts
    interp.recording = interp.recording and home is interp.main_home
    try:
        yield
    finally:
        home.annotation_facts = interp.annotation_facts
        (interp.home, interp.globals, interp.module, interp.annotation_facts, interp.recording) = saved


def load(interp: "Interpreter", path: Optional[str]) -> Optional[Home]:
    """The module at ``path``, its body run once in this analysis; None when it is unknown
    (unreadable, refused, a cycle, the analysed file itself, too many modules)."""
    if path is None or interp.project is None or path == interp.main_home.path:
        return None
    if path in interp.loaded:
        home = interp.loaded[path]
        return None if home is None or home.loading else home
    if len(interp.loaded) >= MAX_PROJECT_MODULES:
        return None
    interp.check_deadline()
    module = interp.project.parse(path)
    if not isinstance(module, cst.Module):
        interp.loaded[path] = None
        return None
    home = Home(path, module, Frame({}))
    interp.loaded[path] = home
    home.loading = True
    # The body runs once, at import, whatever the importing statement sits in (a branch, a
    # loop, a function analysed on its own): a fresh context, restored afterwards.
    saved = (interp.frame, interp.branch_depth, interp._conditional_calls, interp._speculative,
             interp.autocast_dtypes, interp.autocast_depth, interp.no_grad_depth, interp._call_stack,
             interp._unrolling)
    pending = len(interp._pending_functions)
    interp.frame, interp.branch_depth, interp._conditional_calls, interp._speculative = home.frame, 0, 0, False
    interp.autocast_dtypes, interp.autocast_depth, interp.no_grad_depth = [], 0, 0
    interp._call_stack, interp._unrolling = [], 0
    try:
        with entered(interp, home):
            interp.exec_block([s for s in module.body if not _is_main_guard(s)])
    finally:
        # Its functions are analysed when the analysed file calls them, never on their own.
        del interp._pending_functions[pending:]
        (interp.frame, interp.branch_depth, interp._conditional_calls, interp._speculative,
         interp.autocast_dtypes, interp.autocast_depth, interp.no_grad_depth, interp._call_stack,
         interp._unrolling) = saved
        home.loading = False
    return home


def import_module(interp: "Interpreter", alias: cst.ImportAlias) -> bool:
    """``import pkg.mod`` / ``import pkg.mod as m`` of a project module: bind it and return
    True; False when the name is not the project's (a library: the caller binds a symbol)."""
    project = interp.project
    dotted = dotted_name(alias.name)
    if project is None or dotted is None:
        return False
    path = project.absolute(dotted)
    if path is None:
        return False
    if alias.asname is not None:
        if isinstance(alias.asname.name, cst.Name):
            home = load(interp, path)
            interp.bind(alias.asname.name.value, ModuleNamespace(home) if home is not None else TOP)
        return True
    # ``import a.b.c`` binds ``a``, with ``b`` and ``b.c`` loaded as its attributes.
    parts = dotted.split(".")
    head = load(interp, project.absolute(parts[0]))
    outer = head
    for i in range(1, len(parts)):
        inner = load(interp, project.absolute(".".join(parts[:i + 1])))
        if outer is not None and inner is not None:
            outer.submodules[parts[i]] = inner
        outer = inner
    interp.bind(parts[0], ModuleNamespace(head) if head is not None else TOP)
    return True


def import_from(interp: "Interpreter", stmt: cst.ImportFrom) -> bool:
    """``from data import make_batch`` (or ``from .data import ...``) naming a project module:
    bind the names and return True; False when it is a library's (the caller's business)."""
    project = interp.project
    if project is None:
        return False
    base = dotted_name(stmt.module) if stmt.module is not None else None
    if stmt.module is not None and base is None:
        return False
    level = len(stmt.relative)
    importer = interp.home.path
    if level:
        path = project.relative(importer, level, base) if importer is not None else None
    else:
        path = project.absolute(base) if base is not None else None
    names = [] if isinstance(stmt.names, cst.ImportStar) else list(stmt.names)

    def submodule(name: str) -> Optional[str]:
        if level:
            return project.relative(importer, level, f"{base}.{name}" if base else name) \
                if importer is not None else None
        return project.absolute(f"{base}.{name}") if base else None

    if not level and path is None and not any(
            dotted_name(alias.name) is not None and submodule(dotted_name(alias.name)) for alias in names):
        return False  # not the project's (a namespace package's submodules excepted): a library
    home = load(interp, path)
    if isinstance(stmt.names, cst.ImportStar):
        if home is not None:
            for name, value in list(home.frame.vars.items()):
                if not name.startswith("_"):
                    interp.bind(name, value)
        return True
    for alias in names:
        name = dotted_name(alias.name)
        if name is None:
            continue
        local = alias.asname.name.value if alias.asname is not None and isinstance(
            alias.asname.name, cst.Name) else name
        interp.bind(local, _imported_name(interp, home, name, submodule))
    return True


def _imported_name(interp: "Interpreter", home: Optional[Home], name: str,
                   submodule: Callable[[str], Optional[str]]) -> Value:
    """Python's order: the module's attribute, else its submodule of that name."""
    if home is not None and name in home.frame.vars:
        return home.frame.vars[name]
    sub = load(interp, submodule(name))
    if sub is not None:
        if home is not None:
            home.submodules[name] = sub
        return ModuleNamespace(sub)
    return TOP


def _is_main_guard(stmt: Any) -> bool:
    """``if __name__ == "__main__":``: what a module runs as a script, never on import."""
    if not isinstance(stmt, cst.If) or not isinstance(stmt.test, cst.Comparison):
        return False
    test = stmt.test
    if len(test.comparisons) != 1 or not isinstance(test.comparisons[0].operator, cst.Equal):
        return False
    sides = [test.left, test.comparisons[0].comparator]
    names = [s for s in sides if isinstance(s, cst.Name) and s.value == "__name__"]
    strings = [s for s in sides if isinstance(s, cst.SimpleString) and s.evaluated_value == "__main__"]
    return len(names) == 1 and len(strings) == 1
