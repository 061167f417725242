"""Where a loop over a DataLoader assumes every batch is full.

A loader that keeps its last batch (``drop_last=False``, the default) yields ``N % B`` items
last. Code that writes the configured size ``B`` where the batch's own size belongs
(``x.view(batch_size, -1)``, ``torch.zeros(1, batch_size, hidden)`` meeting the batch) fails on
that batch. This module finds those places, syntactically, in the loop body and in the
``forward`` of a model the body calls with the batch; which expressions hold ``B`` the rule
asks the engine.
"""
from __future__ import annotations

from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Callable, Dict, FrozenSet, Iterator, List, Optional, Set, Tuple

import libcst as cst

#: Methods that give a tensor the shape their arguments spell.
RESHAPES = ("view", "reshape")
#: ``torch.<name>(*size)`` factories whose size may spell the batch.
FACTORIES = ("zeros", "ones", "randn", "rand", "empty", "full", "randint")
#: Words naming a helper that builds a recurrent state (``init_hidden``, ``initHidden``, ``zero_state``).
_STATE_WORDS = ("hidden", "state")
#: Concatenations: along dim 0 they take batches of any sizes.
_CONCATENATIONS = ("cat", "concat", "concatenate")
#: Calls whose arguments only show values: meeting the batch there is harmless.
_DISPLAY = ("print", "log", "info", "debug", "write", "format", "append")


@dataclass(frozen=True)
class FullBatchUse:
    """``node`` spells the configured batch size with ``size_node`` where the batch's own size
    belongs; ``what`` says how, for the message."""

    node: Any
    size_node: Any
    what: str
    #: The use reads a list of such tensors (``torch.cat(pooled, dim=1)``), for the message.
    many: bool = False


def batch_names(target: Any, enumerated: bool) -> Set[str]:
    """The names a loop target binds to the batch (not ``enumerate``'s counter)."""
    if enumerated:
        if not isinstance(target, (cst.Tuple, cst.List)) or len(target.elements) != 2:
            return set()
        target = target.elements[1].value
    return set(_names_in(target))


def _names_in(node: Any) -> Iterator[str]:
    for sub in walk(node):
        if isinstance(sub, cst.Name):
            yield sub.value


class SyntaxCache:
    """Each node's children and the names under it, computed once per analysis: libcst builds
    ``node.children`` anew on every access, and the loop scans revisit the same statements."""

    def __init__(self) -> None:
        # id -> (node, value): holding the node keeps its id from being reused
        self._children: Dict[int, Tuple[Any, Tuple[Any, ...]]] = {}
        self._names: Dict[int, Tuple[Any, FrozenSet[str]]] = {}
        self._statements: Dict[int, Tuple[Any, List[Any]]] = {}

    def children(self, node: Any) -> Tuple[Any, ...]:
        entry = self._children.get(id(node))
        if entry is None:
            entry = self._children[id(node)] = (node, tuple(node.children))
        return entry[1]

    def names(self, node: Any) -> FrozenSet[str]:
        entry = self._names.get(id(node))
        if entry is None:
            found = frozenset(sub.value for sub in walk(node) if isinstance(sub, cst.Name))
            entry = self._names[id(node)] = (node, found)
        return entry[1]


    def statements(self, node: Any) -> List[Any]:
        entry = self._statements.get(id(node))
        if entry is None:
            found = [sub for sub in walk(node) if isinstance(sub, cst.BaseSmallStatement)]
            entry = self._statements[id(node)] = (node, found)
        return entry[1]


#: The cache of the analysis whose rule is running (``using``), else None.
_cache: Optional[SyntaxCache] = None


@contextmanager
def using(cache: SyntaxCache) -> Iterator[None]:
    """Scan with ``cache`` (the analysis's own, from ``ctx.state``) while the block runs."""
    global _cache
    previous, _cache = _cache, cache
    try:
        yield
    finally:
        _cache = previous


def walk(node: Any, into_functions: bool = False) -> Iterator[Any]:
    """``node`` and everything under it (not into nested functions, lambdas or classes)."""
    cache = _cache
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        if current is not node and not into_functions and isinstance(
                current, (cst.FunctionDef, cst.Lambda, cst.ClassDef)):
            continue
        stack.extend(reversed(cache.children(current) if cache is not None else current.children))


def walk_children(node: Any) -> Tuple[Any, ...]:
    """``node.children``, from the analysis's cache while a rule scans with one."""
    return _cache.children(node) if _cache is not None else tuple(node.children)


def mentions(node: Any, names: Set[str]) -> bool:
    if _cache is not None:
        return not _cache.names(node).isdisjoint(names)
    return any(isinstance(sub, cst.Name) and sub.value in names for sub in walk(node))


def small_statements(body: Any) -> List[Any]:
    """Every small statement in ``body``, in order, at any depth (not in nested functions)."""
    if _cache is not None:
        return _cache.statements(body)
    out: List[Any] = []
    for sub in walk(body):
        if isinstance(sub, cst.BaseSmallStatement):
            out.append(sub)
    return out


def scope_statements(scope: Any) -> Iterator[Any]:
    """The small statements of a function or module body, through compound statements but not
    into expressions or nested definitions (cheaper than a full walk of the scope)."""
    stack = [scope]
    while stack:
        node = stack.pop()
        if isinstance(node, cst.SimpleStatementLine):
            yield from node.body
            continue
        if node is not scope and isinstance(node, (cst.FunctionDef, cst.ClassDef)):
            continue
        parts = []
        for attr in ("body", "orelse", "finalbody", "handlers"):
            part = getattr(node, attr, None)
            if isinstance(part, (list, tuple)):
                parts.extend(part)
            elif isinstance(part, cst.CSTNode):
                parts.append(part)
        stack.extend(reversed([p for p in parts if isinstance(p, (cst.BaseStatement, cst.BaseSuite, cst.Else,
                                                                  cst.Finally, cst.ExceptHandler))]))


def derived_names(body: Any, seeds: Set[str]) -> Set[str]:
    """``seeds`` and every name assigned from an expression that mentions one of them, in the
    statements of ``body`` (in order, twice, so a loop's later assignments feed earlier ones)."""
    names = set(seeds)
    statements = small_statements(body)
    for _ in range(2):
        for small in statements:
            value = getattr(small, "value", None)
            if isinstance(small, (cst.Assign, cst.AnnAssign, cst.AugAssign)) and value is not None \
                    and mentions(value, names) and not _is_size_of(value):
                targets = [t.target for t in small.targets] if isinstance(small, cst.Assign) else [small.target]
                for target in targets:
                    names.update(n for n in _names_in(target))
    return names


def _is_size_of(value: Any) -> bool:
    """``x.size(0)``, ``x.shape[0]``, ``len(x)``: a size (an int), not a tensor of the batch."""
    if isinstance(value, cst.Call) and isinstance(value.func, cst.Attribute) and value.func.attr.value == "size":
        return True
    if isinstance(value, cst.Subscript) and isinstance(value.value, cst.Attribute) and \
            value.value.attr.value == "shape":
        return True
    return isinstance(value, cst.Call) and isinstance(value.func, cst.Name) and value.func.value == "len"


def size_guarded(body: Any, names: Set[str]) -> bool:
    """Does the body test a batch's size (``if x.size(0) != batch_size: continue``)?"""
    for sub in walk(body):
        test = getattr(sub, "test", None) if isinstance(sub, (cst.If, cst.While, cst.IfExp, cst.Assert)) else None
        if test is not None and any(_is_size_of(part) and mentions(part, names) for part in walk(test)):
            return True
    return False


def full_batch_uses(body: Any, names: Set[str], is_full: Callable[[Any], bool],
                    carries: Optional[Callable[[Any], bool]] = None,
                    spelled: Optional[Callable[[Any], bool]] = None) -> Iterator[FullBatchUse]:
    """The places in ``body`` where an expression ``is_full`` says holds the configured batch
    size stands for the size of a tensor of the batch (one mentioning ``names``).

    ``carries(name)``: does the name just assigned hold a tensor with a dim of a multiple of
    the configured size (then a name assigned from an expression building such a tensor,
    ``labels = torch.cat([torch.arange(B) for _ in range(2)])``, and names computed from it
    carry that size on to where it meets the batch). ``spelled(size)``: is ``torch.arange``'s
    size written as the loader's own batch-size option (an arange's length is more often a
    sequence's)."""
    statements = small_statements(body)
    made: List[Tuple[str, FullBatchUse]] = []  # name = torch.zeros(batch_size, ...) seen so far
    for small in statements:
        target = _single_name(small)
        for call in (sub for sub in walk(small) if isinstance(sub, cst.Call)):
            use = _reshape_use(call, names, is_full) or factory_use(call, is_full, spelled) or \
                state_use(call, is_full)
            if use is None:
                continue
            if use.what == "reshape":
                yield use
            elif _meets_batch(small, call, names):
                yield use
            elif target is not None and (small.value is call or (carries is not None and carries(target))):
                made.append((target.value, use))
        if carries is not None and target is not None and not mentions(small.value, names) and \
                not _is_size_of(small.value):
            built_here = any(any(sub is u.node for sub in walk(small.value)) for n, u in made if n == target.value)
            inherited = None if built_here else next(
                (use for name, use in made if mentions(small.value, {name})), None)
            if inherited is not None and carries(target):
                # mask = torch.eye(labels.shape[0]), labels = labels[~mask]: the size carried on
                made = [(n, u) for n, u in made if n != target.value] + [(target.value, inherited)]
            elif not built_here:
                made = [(n, u) for n, u in made if n != target.value]  # rebound to something else
        for name, use in made:
            if small is not use_statement(statements, use) and _meets_batch(small, name, names | {name}) \
                    and mentions(small, {name}) and mentions(_without_targets(small), names):
                yield use
                made = [(n, u) for n, u in made if u is not use]
                break


def _single_name(small: Any) -> Optional[cst.Name]:
    """The name ``small`` assigns (``name = value``), else None."""
    if isinstance(small, cst.Assign) and len(small.targets) == 1 and isinstance(small.targets[0].target, cst.Name):
        return small.targets[0].target
    return None


def use_statement(statements: List[Any], use: FullBatchUse) -> Any:
    for small in statements:
        if any(sub is use.node for sub in walk(small)):
            return small
    return None


def _without_targets(small: Any) -> Any:
    """The part of a statement that reads values (an assignment's value)."""
    return getattr(small, "value", None) or small


def _reshape_use(call: cst.Call, names: Set[str], is_full: Callable[[Any], bool]) -> Optional[FullBatchUse]:
    func = call.func
    if not (isinstance(func, cst.Attribute) and func.attr.value in RESHAPES and call.args
            and mentions(func.value, names)):
        return None
    first = call.args[0].value
    if isinstance(first, (cst.Tuple, cst.List)) and first.elements:
        first = first.elements[0].value  # x.view((batch_size, -1))
    return FullBatchUse(call, first, "reshape") if _spelled_size(first) and is_full(first) else None


def factory_use(call: cst.Call, is_full: Callable[[Any], bool],
                spelled: Optional[Callable[[Any], bool]] = None) -> Optional[FullBatchUse]:
    func = call.func
    if not (isinstance(func, cst.Attribute) and func.attr.value in FACTORIES + ("arange",) and
            isinstance(func.value, cst.Name) and func.value.value == "torch" and call.args):
        return None
    sizes = [arg.value for arg in call.args if arg.keyword is None]
    if func.attr.value == "arange":
        # torch.arange(B) or torch.arange(0, B): B items, when B is spelled as the batch size
        if len(sizes) == 2 and isinstance(sizes[0], cst.Integer) and sizes[0].value == "0":
            sizes = sizes[1:]
        keywords = {arg.keyword.value for arg in call.args if arg.keyword is not None}
        if len(sizes) != 1 or not keywords <= {"dtype", "device", "requires_grad"} or \
                spelled is None or not spelled(sizes[0]) or not is_full(sizes[0]):
            return None
        return FullBatchUse(call, sizes[0], "factory")
    if func.attr.value in ("full", "randint"):
        sizes = sizes[-1:] if func.attr.value == "randint" else sizes[:1]  # randint(low, high, size)
    if len(sizes) == 1 and isinstance(sizes[0], (cst.Tuple, cst.List)):
        sizes = [e.value for e in sizes[0].elements]  # torch.zeros((batch_size, hidden))
    for size in sizes[:2]:  # the batch is first, or second for (num_layers, batch, hidden)
        if _spelled_size(size) and is_full(size):
            return FullBatchUse(call, size, "factory")
    return None


def state_use(call: cst.Call, is_full: Callable[[Any], bool]) -> Optional[FullBatchUse]:
    """``model.init_hidden(batch_size)``: a helper building a recurrent state for B items."""
    func = call.func
    if not (isinstance(func, cst.Attribute) and any(word in func.attr.value.lower() for word in _STATE_WORDS)):
        return None
    for arg in call.args:
        if arg.keyword is None and _spelled_size(arg.value) and is_full(arg.value):
            return FullBatchUse(call, arg.value, "factory")
    return None


def _spelled_size(node: Any) -> bool:
    """A size written as a name, an attribute (``args.batch_size``) or a literal."""
    return isinstance(node, (cst.Name, cst.Attribute, cst.Integer))


def _meets_batch(small: Any, target: Any, names: Set[str]) -> bool:
    """Does the statement combine (not only display, not stack along the batch) ``target`` (a
    factory call, or the name holding its tensor) with a tensor of the batch?"""
    if not mentions(_without_targets(small), names):
        return False
    for sub in walk(small):
        if isinstance(sub, cst.Call) and sub is not target and _holds_target(sub, target):
            func = sub.func
            name = func.attr.value if isinstance(func, cst.Attribute) else getattr(func, "value", "")
            if name in _DISPLAY:
                return False  # print(x, torch.zeros(batch_size)): shown, not combined
            if name in _CONCATENATIONS and _along_first_dim(sub):
                return False  # torch.cat([real, G(z)]): batches of any sizes stack along dim 0
    return True


def _holds_target(call: cst.Call, target: Any) -> bool:
    if isinstance(target, str):
        return any(isinstance(n, cst.Name) and n.value == target for n in walk(call))
    return any(n is target for n in walk(call))


def _along_first_dim(call: cst.Call) -> bool:
    dims = [a.value for a in call.args if a.keyword is not None and a.keyword.value in ("dim", "axis")]
    dims += [a.value for a in call.args[1:2] if a.keyword is None]
    return not dims or (isinstance(dims[0], cst.Integer) and dims[0].value == "0")
