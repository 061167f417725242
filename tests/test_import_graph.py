"""The package's import layering, read from the source with ``ast``.

Every ``import`` statement counts, wherever it stands: at module level, inside a function (a
lazy import still makes the modules depend on each other) or under ``if TYPE_CHECKING:``.
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
ACYCLIC = ("torchtype_lint.check", "torchtype_lint.notebook", "torchtype_lint.fix",
           "torchtype_lint.values", "torchtype_lint.knowledge.")


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


def import_graph() -> Dict[str, Set[str]]:
    """module -> the package's modules it imports, anywhere in its source."""
    sources = _sources()
    modules = set(sources)
    graph: Dict[str, Set[str]] = {}
    for module, path in sources.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        edges = graph.setdefault(module, set())
        for node in ast.walk(tree):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
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


def test_the_graph_sees_lazy_relative_and_submodule_imports():
    # Sanity checks of the reader itself, on imports that are known to exist.
    assert "torchtype_lint.settings" in GRAPH["torchtype_lint.runner"]  # module level, relative
    assert "torchtype_lint.check" in GRAPH["torchtype_lint.runner"]  # inside a function
    assert "torchtype_lint.knowledge.annotations" in GRAPH["torchtype_lint.engine.annotations"]  # `from .. import x`
    assert "torchtype_lint.values" in GRAPH["torchtype_lint.knowledge.dtypes"]  # `from ..values import X`


def test_cycle_finder_finds_a_cycle():
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_check_notebook_fix_values_and_knowledge_are_in_no_cycle():
    involved = [cycle for cycle in _cycles(GRAPH) if any(_watched(m) for m in cycle)]
    assert involved == []


def test_knowledge_imports_neither_the_engine_nor_the_rules():
    assert _offending(GRAPH, "torchtype_lint.knowledge", "torchtype_lint.engine") == []
    assert _offending(GRAPH, "torchtype_lint.knowledge", "torchtype_lint.rules") == []


def test_values_imports_nothing_from_knowledge():
    assert _offending(GRAPH, "torchtype_lint.values", "torchtype_lint.knowledge") == []


def test_the_engine_does_not_import_the_rules():
    assert _offending(GRAPH, "torchtype_lint.engine", "torchtype_lint.rules") == []
