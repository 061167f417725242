"""The project's own modules an analysed file imports, run by the same interpreter.

``from data import make_batch`` names a file of the user's project (found by the front end's
``project`` object: ``project/imports.py``; the engine only asks it for files and syntax trees).
The module's body runs once per analysis, the way Python runs it once per process, in its own
global scope (a ``Home``), with recording off: rules never see its nodes, only the values that
reach the analysed file (its own analysis reports its body; a body whose result cannot differ
is reused across analyses: ``module_cache.py``). Its top-level functions and classes become the
same ``FunctionValue`` and ``ClassValue`` as the file's own, so a call runs the body with the
caller's arguments (in the callee's module: ``run_function`` enters its home); while a call of
the analysed file runs it, rules judge its nodes, and what they report is that call's
(``running_call``, ``project/call_sites.py``). Values keep their ``Origin`` nodes, so
provenance points into the other file (``check.py`` finds which).

Loading is lazy: ``from data import make_batch`` binds a ``LazyName``, and ``data.py`` is parsed
and run when the name is first looked up by code that really runs (the module body, functions
it calls), in the state of defaults (``set_default_dtype``) its first import saw. In the
speculative analyses of functions nobody calls, a name whose module is not loaded yet is
unknown: library code imports many modules for functions only analysed that way, and parsing
them all would cost more than analysing the file.

Never executed for real, never imported: a file is read and parsed, nothing else. What cannot be
known stays unknown: a module that cannot be read, parsed or is too long, one being loaded
when it is imported again (a cycle), the analysed file itself, or modules beyond
``MAX_PROJECT_MODULES``.
"""
from __future__ import annotations

import os
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, Callable, Dict, Iterator, List, Optional, Tuple

import libcst as cst

from ..model.values import TOP, Value, join
from .module_cache import BodyWatch, body_key, recall, remember
from .runtime import Frame
from .syntax import dotted_name

if TYPE_CHECKING:
    from .interpreter import Interpreter

#: Project modules one analysis may load (each is read, parsed and its body run once).
MAX_PROJECT_MODULES = 32


class Home:
    """A module whose code the interpreter runs: the analysed file or an imported one."""

    __slots__ = ("path", "module", "frame", "annotation_facts", "loading", "submodules", "imports_project",
                 "calls_out")

    def __init__(self, path: Optional[str], module: Any, frame: Frame):
        self.path = path
        self.module = module
        #: Its global scope.
        self.frame = frame
        #: Its aliases for annotations (engine/annotations.py reads them once per module).
        self.annotation_facts: Any = None
        #: True while its body runs: importing it again then is a cycle (unknown names).
        self.loading = False
        #: Submodules bound as its attributes by imports (name -> their namespace).
        self.submodules: Dict[str, "ModuleNamespace"] = {}
        #: Whether its body imported a project module (its result then depends on that one's).
        self.imports_project = False
        #: The analysed file's calls now running code of other project modules, innermost last
        #: (kept on the analysed file's home only): a report made there belongs to the last.
        self.calls_out: List[Any] = []


class ModuleNamespace(Value):
    """A project module as a value (``import pkg.data as data``): its attributes are its globals.
    Loaded on first attribute access (``home`` None until then)."""

    __slots__ = ("path", "home", "submodules", "origin")
    kind = "module"

    def __init__(self, path: str, home: Optional[Home] = None):
        self.path = path
        self.home = home
        #: ``import a.b`` binds ``a`` with ``b`` as an attribute, whatever ``a`` defines.
        self.submodules: Dict[str, "ModuleNamespace"] = {}
        self.origin = None

    def describe(self) -> str:
        return f"module {os.path.basename(self.path)}"


class LazyName(Value):
    """A name imported from a project module, not looked up yet (see the module docstring).
    Frames keep this object; ``Interpreter.lookup`` gives what it resolves to."""

    __slots__ = ("module_path", "name", "submodule", "importer", "resolved", "origin")
    kind = "import"

    def __init__(self, module_path: Optional[str], name: str, submodule: Callable[[str], Optional[str]],
                 importer: Optional[str]):
        self.module_path = module_path
        self.name = name
        #: The module whose import statement this is: Python runs the imported module while the
        #: importer is still being imported, so a way back to it is a cycle.
        self.importer = importer
        #: The file of ``module.name`` as a submodule, asked only when the module lacks the name.
        self.submodule = submodule
        self.resolved: Optional[Value] = None
        self.origin = None

    def describe(self) -> str:
        return f"{self.name} (imported)"


def resolve_lazy(interp: "Interpreter", lazy: LazyName) -> Value:
    """What the imported name is; unknown in a speculative analysis while its module is not
    loaded, and for names that come back around a cycle of re-exports."""
    if lazy.resolved is not None:
        return lazy.resolved
    loaded = interp.loaded.get(lazy.module_path) if lazy.module_path is not None else None
    if interp._speculative and loaded is None:
        return TOP
    lazy.resolved = TOP  # re-entered through a cycle of re-exports: unknown
    added = lazy.importer is not None and lazy.importer not in interp.importing
    if added:
        interp.importing.add(lazy.importer)
    try:
        value = _imported_name(interp, load(interp, lazy.module_path), lazy.name, lazy.submodule)
        if isinstance(value, LazyName):
            value = resolve_lazy(interp, value)
    finally:
        if added:
            interp.importing.discard(lazy.importer)
    lazy.resolved = value
    return value


def namespace_attribute(interp: "Interpreter", namespace: ModuleNamespace, attr: str) -> Value:
    """``data.make_batch``: the module's global, or a submodule imported as its attribute."""
    if namespace.home is None and not (interp._speculative and namespace.path not in interp.loaded):
        namespace.home = load(interp, namespace.path)
    home = namespace.home
    if home is not None and attr in home.frame.vars:
        value = home.frame.vars[attr]
        return resolve_lazy(interp, value) if isinstance(value, LazyName) else value
    if attr in namespace.submodules:
        return namespace.submodules[attr]
    if home is not None and attr in home.submodules:
        return home.submodules[attr]
    return TOP


def assign_namespace_attribute(interp: "Interpreter", namespace: ModuleNamespace, attr: str,
                               value: Value) -> None:
    """``config.dtype = ...`` on a project module: its global changes (joined with the old value
    where the assignment may not happen: a branch, a speculative analysis)."""
    if namespace.home is None:
        namespace.home = load(interp, namespace.path)
    if namespace.home is None:
        return
    variables = namespace.home.frame.vars
    weak = interp.branch_depth or interp._conditional_calls or interp._speculative
    variables[attr] = join(variables[attr], value) if weak and attr in variables else value
    interp.heap_version += 1  # memoised calls that read the old value are stale


def home_of(interp: "Interpreter", fnode: Any) -> Home:
    """The module a function (or method) was defined in."""
    return interp.homes.get(fnode, interp.main_home)


@contextmanager
def running_call(interp: "Interpreter", fnode: Any, node: Any) -> Iterator[None]:
    """A call ``node`` of the analysed file (recording) to ``fnode``, a function of another
    project module: while it runs, rules see that function's nodes in the caller's context,
    and what they report is the call's (``project/call_sites.py``)."""
    main = interp.main_home
    outgoing = node is not None and interp.recording and interp.home is main and home_of(interp, fnode) is not main
    if outgoing:
        main.calls_out.append(node)
    try:
        yield
    finally:
        if outgoing:
            main.calls_out.pop()


@contextmanager
def entered(interp: "Interpreter", home: Home, body: bool = False) -> Iterator[None]:
    """Run code of ``home``: its globals, its module (for annotations). Code of another module
    is recorded (rules see it) only while a call of the analysed file runs it, never its body
    (``body``) nor a function analysed on its own: its own analysis reports those."""
    saved = (interp.home, interp.globals, interp.module, interp.annotation_facts, interp.recording)
    interp.home.annotation_facts = interp.annotation_facts
    interp.home, interp.globals, interp.module = home, home.frame, home.module
    interp.annotation_facts = home.annotation_facts
    interp.recording = interp.recording and not body and (home is interp.main_home or bool(interp.main_home.calls_out))
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
    current = _defaults(interp)
    at_import = interp.import_states.get(path, current)
    key = body_key(interp, path, at_import)
    kept = recall(interp, key, Home)
    if kept is not None:  # its body ran in an earlier analysis of this process, to the same end
        interp.loaded[path] = kept
        for lazy in interp.pending_lazy.pop(path, ()):
            resolve_lazy(interp, lazy)
        return kept
    module = interp.project.parse(path)
    if not isinstance(module, cst.Module):
        interp.loaded[path] = None
        return None
    home = Home(path, module, Frame({}))
    interp.loaded[path] = home
    home.loading = True
    # The body runs once, as at its first import (whatever the importing statement sits in: a
    # branch, a loop, a function): a fresh context and the defaults that import saw, restored
    # afterwards.
    saved = (interp.frame, interp.branch_depth, interp._conditional_calls, interp._speculative,
             interp.autocast_dtypes, interp.autocast_depth, interp.no_grad_depth, interp._call_stack,
             interp._unrolling)
    _set_defaults(interp, at_import)
    watch = BodyWatch(interp)
    pending = len(interp._pending_functions)
    interp.frame, interp.branch_depth, interp._conditional_calls, interp._speculative = home.frame, 0, 0, False
    interp.autocast_dtypes, interp.autocast_depth, interp.no_grad_depth = [], 0, 0
    interp._call_stack, interp._unrolling = [], 0
    try:
        with entered(interp, home, body=True):
            interp.exec_block([s for s in module.body if not _is_main_guard(s)])
        remember(interp, key, home, watch)  # for the next analyses in this process, if sound
    finally:
        # Its functions are analysed when the analysed file calls them, never on their own.
        del interp._pending_functions[pending:]
        (interp.frame, interp.branch_depth, interp._conditional_calls, interp._speculative,
         interp.autocast_dtypes, interp.autocast_depth, interp.no_grad_depth, interp._call_stack,
         interp._unrolling) = saved
        changed = _defaults(interp)
        _set_defaults(interp, current)
        if changed != at_import:
            # The module sets a default dtype or device: from when on, relative to the code
            # analysed so far, is not known here; values made by a default become unknown.
            interp.default_device_unknown = interp.default_device_unknown or changed[2]
            if changed[:2] != at_import[:2]:
                interp.uncertain_defaults = frozenset({current[0], changed[0]}) | (current[1] or frozenset()) \
                    | (changed[1] or frozenset())
        home.loading = False
    # Names imported before it was loaded get what its body left (Python binds them at import).
    for lazy in interp.pending_lazy.pop(path, ()):
        resolve_lazy(interp, lazy)
    return home


def _defaults(interp: "Interpreter") -> Tuple[str, Optional[frozenset], bool]:
    return interp.default_float, interp.uncertain_defaults, interp.default_device_unknown


def _set_defaults(interp: "Interpreter", state: Tuple[str, Optional[frozenset], bool]) -> None:
    interp.default_float, interp.uncertain_defaults, interp.default_device_unknown = state
    interp.tenv.default_float = state[0]


def _namespace(interp: "Interpreter", path: str) -> ModuleNamespace:
    """The module at ``path`` as a value, loaded when an attribute is first read."""
    interp.import_states.setdefault(path, _defaults(interp))
    return ModuleNamespace(path, interp.loaded.get(path))


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
    interp.home.imports_project = True
    if alias.asname is not None:
        if isinstance(alias.asname.name, cst.Name):
            interp.bind(alias.asname.name.value, _namespace(interp, path))
        return True
    # ``import a.b.c`` binds ``a``, with ``b`` and ``b.c`` as its attributes.
    parts = dotted.split(".")
    head_path = project.absolute(parts[0])
    head = _namespace(interp, head_path) if head_path is not None else None
    outer = head
    for i in range(1, len(parts)):
        inner_path = project.absolute(".".join(parts[:i + 1]))
        inner = _namespace(interp, inner_path) if inner_path is not None else None
        if outer is not None and inner is not None:
            outer.submodules[parts[i]] = inner
        outer = inner
    interp.bind(parts[0], head if head is not None else TOP)
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
    interp.home.imports_project = True
    if path is not None:
        interp.import_states.setdefault(path, _defaults(interp))
    if isinstance(stmt.names, cst.ImportStar):
        home = load(interp, path)  # which names it binds is known only once it ran
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
        interp.bind(local, _lazy_name(interp, path, name, submodule))
    return True


def _lazy_name(interp: "Interpreter", path: Optional[str], name: str,
               submodule: Callable[[str], Optional[str]]) -> Value:
    """The value to bind for ``from <path> import name``: at once when the module is loaded
    (or known not to be loadable), else a ``LazyName`` resolved on use or when it loads."""
    if path is not None and (path == interp.main_home.path or path in interp.importing):
        return TOP  # the analysed file, or a module whose import is under way, imported back: a cycle
    lazy = LazyName(path, name, submodule, interp.home.path)
    if path is None or path in interp.loaded:
        return resolve_lazy(interp, lazy)  # a cycle (being loaded) resolves to unknown
    interp.pending_lazy.setdefault(path, []).append(lazy)
    return lazy


def _imported_name(interp: "Interpreter", home: Optional[Home], name: str,
                   submodule: Callable[[str], Optional[str]]) -> Value:
    """Python's order: the module's attribute, else its submodule of that name."""
    if home is not None and name in home.frame.vars:
        return home.frame.vars[name]
    sub = submodule(name)
    if sub is not None:
        namespace = _namespace(interp, sub)
        if home is not None:
            home.submodules[name] = namespace
        return namespace
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
