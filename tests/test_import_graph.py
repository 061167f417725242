"""The package's import layering, read from the source with ``ast``.

Every ``import`` statement counts, wherever it stands: at module level, inside a function (a
lazy import still makes the modules depend on each other) or under ``if TYPE_CHECKING:`` (the
*runtime* graph leaves those out: they name a type for a checker and load nothing).
Relative imports are resolved; ``from .pkg import name`` is an edge to ``pkg.name`` when that
is a module, else to ``pkg``. Importing a module also runs its packages' ``__init__`` files;
those hold no imports here, so they are left out of the graph.
"""
from __future__ import annotations

import ast
from pathlib import Path
from typing import Dict, Iterator, List, Set, Tuple

import pytest

PACKAGE = "torchtype_lint"
ROOT = Path(__file__).resolve().parent.parent / PACKAGE

#: Modules that must not take part in any import cycle.
ACYCLIC = ("torchtype_lint.checker.check", "torchtype_lint.source.notebook", "torchtype_lint.edit.fix",
           "torchtype_lint.model.values", "torchtype_lint.knowledge.")


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _sources() -> Dict[str, Path]:
    return {_module_name(path): path for path in sorted(ROOT.rglob("*.py"))}


def _imported(node: ast.AST, module: str, is_package: bool, modules: Set[str]) -> Iterator[str]:
    """The package's modules that one import statement loads."""
    if isinstance(node, ast.Import):
        for alias in node.names:
            yield alias.name
        return
    assert isinstance(node, ast.ImportFrom)
    if node.level:
        # ``from .x`` counts from the module's package; a package's own __init__ is that package.
        base = module.split(".") if is_package else module.split(".")[:-1]
        base = base[:len(base) - (node.level - 1)]
        target = ".".join(base + ([node.module] if node.module else []))
    else:
        target = node.module or ""
    for alias in node.names:
        submodule = f"{target}.{alias.name}"
        yield submodule if submodule in modules else target


def _type_checking_imports(tree: ast.AST) -> Set[int]:
    """ids of the import statements under ``if TYPE_CHECKING:``."""
    out: Set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            out.update(id(inner) for stmt in node.body for inner in ast.walk(stmt))
    return out


def import_graph(runtime_only: bool = False) -> Dict[str, Set[str]]:
    """module -> the package's modules it imports, anywhere in its source (``runtime_only``:
    leaving out the imports under ``if TYPE_CHECKING:``)."""
    sources = _sources()
    modules = set(sources)
    graph: Dict[str, Set[str]] = {}
    for module, path in sources.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        typing_only = _type_checking_imports(tree) if runtime_only else set()
        edges = graph.setdefault(module, set())
        for node in ast.walk(tree):
            if isinstance(node, (ast.Import, ast.ImportFrom)) and id(node) not in typing_only:
                edges.update(t for t in _imported(node, module, path.name == "__init__.py", modules)
                             if t in modules and t != module)
    return graph


def _cycles(graph: Dict[str, Set[str]]) -> List[List[str]]:
    """The strongly connected components with more than one module (Tarjan's algorithm)."""
    index: Dict[str, int] = {}
    low: Dict[str, int] = {}
    stack: List[str] = []
    on_stack: Set[str] = set()
    found: List[List[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for successor in sorted(graph.get(node, ())):
            if successor not in index:
                visit(successor)
                low[node] = min(low[node], low[successor])
            elif successor in on_stack:
                low[node] = min(low[node], index[successor])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def _watched(module: str) -> bool:
    return any(module == m or (m.endswith(".") and module.startswith(m)) for m in ACYCLIC)


def _offending(graph: Dict[str, Set[str]], importer: str, imported: str) -> List[Tuple[str, str]]:
    return sorted((source, target) for source, targets in graph.items() for target in targets
                  if source.startswith(importer) and target.startswith(imported))


GRAPH = import_graph()
RUNTIME = import_graph(runtime_only=True)

#: The pipeline's stages, from the bottom: a module may import its own stage's modules and those
#: of the stages below it, never one above (docs/architecture.md draws them).
STAGES: Tuple[Tuple[str, ...], ...] = (
    ("model",),  # the vocabulary: values, findings, settings, selection
    ("source",),  # files, reading, decoding, screen, lines, noqa, notebooks, the project's modules
    ("knowledge",),  # what torch and numpy do (the library answers, the engine asks)
    ("contracts",),  # the op-contract table
    ("engine",),  # the interpreter
    ("rules",),  # the checks
    ("checker",),  # one file in, its findings out
    ("report", "run"),  # output formats | many files: runner, bounds, cache, incremental
    ("edit",),  # --fix, --add-noqa
    ("harness",),  # the torch runtime harness (confirm)
    ("cli",),  # the command line
    ("frontends",),  # flake8, the language server
)


def _stage(module: str) -> int:
    parts = module.split(".")
    if len(parts) < 2 or parts[1] in ("__main__",):
        return len(STAGES)  # the package's face and ``python -m``: above everything
    for index, folders in enumerate(STAGES):
        if parts[1] in folders:
            return index
    raise AssertionError(f"{module} belongs to no stage: add its folder to STAGES (and docs/architecture.md)")


def test_the_graph_sees_lazy_relative_and_submodule_imports():
    # Sanity checks of the reader itself, on imports that are known to exist.
    assert "torchtype_lint.model.settings" in GRAPH["torchtype_lint.run.runner"]  # module level, relative
    assert "torchtype_lint.checker.check" in GRAPH["torchtype_lint.run.runner"]  # inside a function
    assert "torchtype_lint.knowledge.annotations" in GRAPH["torchtype_lint.engine.annotations"]  # `from .. import x`
    assert "torchtype_lint.model.values" in GRAPH["torchtype_lint.knowledge.dtypes"]  # `from ..values import X`


def test_cycle_finder_finds_a_cycle():
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_check_notebook_fix_values_and_knowledge_are_in_no_cycle():
    involved = [cycle for cycle in _cycles(GRAPH) if any(_watched(m) for m in cycle)]
    assert involved == []


def test_knowledge_imports_neither_the_engine_nor_the_rules():
    assert _offending(GRAPH, "torchtype_lint.knowledge", "torchtype_lint.engine") == []
    assert _offending(GRAPH, "torchtype_lint.knowledge", "torchtype_lint.rules") == []


def test_values_imports_nothing_from_knowledge():
    assert _offending(GRAPH, "torchtype_lint.model.values", "torchtype_lint.knowledge") == []


def test_the_engine_does_not_import_the_rules():
    assert _offending(GRAPH, "torchtype_lint.engine", "torchtype_lint.rules") == []


def test_every_module_lives_in_a_stage_folder():
    flat = sorted(m for m in GRAPH if m.count(".") == 1 and not (ROOT / m.split(".")[1]).is_dir()
                  and m != "torchtype_lint.__main__")
    assert flat == []  # no module is left at the package's top
    for module in GRAPH:
        _stage(module)


def test_each_stage_imports_only_its_own_and_the_stages_below():
    upward = sorted((source, target) for source, targets in GRAPH.items() for target in targets
                    if target != PACKAGE and _stage(target) > _stage(source))
    assert upward == []


def test_stages_in_one_row_do_not_import_each_other():
    # report and run stand side by side: neither may need the other.
    assert _offending(GRAPH, "torchtype_lint.report", "torchtype_lint.run") == []
    assert _offending(GRAPH, "torchtype_lint.run", "torchtype_lint.report") == []


def test_no_import_cycle_at_run_time():
    assert _cycles(RUNTIME) == []


def test_the_only_typing_cycle_is_the_engine_naming_its_interpreter():
    # The engine's helpers (calls, builtins, functions, ...) take the interpreter as an argument and
    # name its class in annotations only; interpreter.py is the one module that imports them.
    for cycle in _cycles(GRAPH):
        assert all(m.startswith("torchtype_lint.engine.") for m in cycle), cycle
    importers = sorted(m for m, targets in RUNTIME.items() if "torchtype_lint.engine.interpreter" in targets
                       and m.startswith("torchtype_lint.engine."))
    assert importers == []


def test_a_notebook_is_a_source_the_checker_receives():
    # source/notebook.py joins cells and maps lines; it never calls back up into the checker.
    assert _offending(GRAPH, "torchtype_lint.source", "torchtype_lint.checker") == []
    assert _offending(GRAPH, "torchtype_lint.source", "torchtype_lint.model.findings") == []
