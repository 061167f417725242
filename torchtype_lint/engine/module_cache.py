"""A project module's body, run once per process instead of once per analysis, where that is sound.

``engine/modules.py`` runs an imported module's body in every analysis that loads it: a worker
checking the files of a package runs its ``utils.py`` once per file importing it. What the body
leaves (its globals, and the interpreter's tables about its functions: which module they run in,
their evaluated parameter defaults and return annotations) is kept here and installed in the
next analysis that loads the same module, when that cannot differ from running it again:

* it depends only on the module's bytes and the defaults it is imported under (the key: path,
  SHA-256, the default dtype and device state, and the import roots, which decide what every
  ``import`` in it finds): a body that imported any project module (its result then depends on
  that module's, on cycles through the analysed file, on lazily bound names) is not kept, nor
  one that changed the defaults, moved something to CUDA, or left anything else behind;
* no value can be changed by the analysis that reuses it: every global is immutable to the
  engine (tensors, arrays, scalars, strings, dtypes, functions, classes whose attributes are
  such values, containers of them), never an ``nn`` module or an instance, which the importer
  may cast or assign in place. Each reuse gets a new global scope holding the same values, so
  ``data.W = ...`` in one analysis is never seen by the next.

Bounded: ``MODULE_CACHE_SIZE`` modules a process, least recently used first out.
"""
from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Hashable, Optional, Tuple

from ..model.values import (
    TOP, ArrayValue, ClassValue, DeviceValue, DTypeValue, FunctionValue, NoneValue, ScalarValue,
    SequenceValue, StringValue, SymbolValue, TensorValue, Value,
)
from .runtime import Frame

if TYPE_CHECKING:
    from .interpreter import Interpreter
    from .modules import Home

#: Module bodies kept per process (a worker checks many files importing the same modules).
MODULE_CACHE_SIZE = 32
#: Values immutable by construction: frozen dataclasses holding no heap object.
_IMMUTABLE = (TensorValue, ArrayValue, ScalarValue, StringValue, NoneValue, DTypeValue, DeviceValue,
              SymbolValue, FunctionValue)
#: How deep classes and containers are looked into before a value counts as mutable.
MAX_DEPTH = 8


@dataclass(frozen=True)
class BodyResult:
    #: The syntax tree the kept values' nodes belong to (reused with them, never re-parsed).
    module: Any
    #: Its globals after the body ran.
    names: Tuple[Tuple[str, Value], ...]
    #: Nodes of the functions, classes and lambdas defined in it (they run in its globals).
    defined: Tuple[Any, ...]
    #: Module-level lambdas (their free names are its globals).
    lambdas: Tuple[Any, ...]
    param_defaults: Tuple[Tuple[Any, Value], ...]
    annotated_returns: Tuple[Tuple[Any, Value], ...]
    #: Its aliases for annotations, as the body left them.
    annotation_facts: Any


#: key -> what the body left; least recently used first.
_kept: "OrderedDict[Hashable, BodyResult]" = OrderedDict()


def body_key(interp: "Interpreter", path: str, defaults: Tuple[Any, ...]) -> Optional[Hashable]:
    """What the body's result may depend on; None when that is not known (no content hash)."""
    project = interp.project
    digest = getattr(project, "dependencies", {}).get(path)
    roots = getattr(project, "roots", None)
    if digest is None or roots is None:
        return None
    return path, digest, defaults, roots


def recall(interp: "Interpreter", key: Optional[Hashable], home_class: Any) -> Optional["Home"]:
    """A new ``Home`` holding what the kept body left, installed in ``interp``; None if none."""
    kept = _kept.get(key) if key is not None else None
    if kept is None:
        return None
    _kept.move_to_end(key)
    home = home_class(key[0], kept.module, Frame(dict(kept.names)))  # a new scope each time
    home.annotation_facts = kept.annotation_facts
    for node in kept.defined:
        interp.homes[node] = home
    for node in kept.lambdas:
        interp.closures[node] = home.frame
    interp.param_defaults.update(kept.param_defaults)
    interp.annotated_returns.update(kept.annotated_returns)
    return home


class BodyWatch:
    """What the interpreter held before a body ran, to tell what the body added."""

    def __init__(self, interp: "Interpreter"):
        self.sizes = _table_sizes(interp)
        self.flags = _flags(interp)


def remember(interp: "Interpreter", key: Optional[Hashable], home: "Home", watch: BodyWatch) -> None:
    """Keep what ``home``'s body left for the next analyses, if reusing it is sound."""
    if key is None or home.imports_project or _flags(interp) != watch.flags:
        return  # its result depends on another module, or it changed the whole analysis
    homes, closures, defaults, returns, owners, generators, standalone = watch.sizes
    if (len(interp.parameter_owners), len(interp._generators), len(interp._analysed_standalone)) \
            != (owners, generators, standalone):
        return  # it made nn parameters or analysed functions on their own: more than its names
    new_closures = list(interp.closures.items())[closures:]
    if any(frame is not home.frame for _, frame in new_closures):
        return  # a closure over a function's activation (a factory called at module level)
    new_defaults = tuple(list(interp.param_defaults.items())[defaults:])
    new_returns = tuple(list(interp.annotated_returns.items())[returns:])
    names = tuple(home.frame.vars.items())
    if not all(immutable(v) for _, v in names + new_defaults + new_returns):
        return
    defined = tuple(node for node, owner in list(interp.homes.items())[homes:] if owner is home)
    _kept[key] = BodyResult(home.module, names, defined, tuple(node for node, _ in new_closures),
                            new_defaults, new_returns, home.annotation_facts)
    while len(_kept) > MODULE_CACHE_SIZE:
        _kept.popitem(last=False)


def immutable(value: Any, depth: int = 0) -> bool:
    """Whether no analysis can change ``value`` in place (so analyses may share it)."""
    if depth > MAX_DEPTH:
        return False
    if value is TOP or isinstance(value, _IMMUTABLE):
        return True
    if isinstance(value, SequenceValue):
        items = value.items or ()
        return immutable(value.element, depth + 1) and all(immutable(i, depth + 1) for i in items)
    if isinstance(value, ClassValue):
        # Its methods and bases are fixed by its body; its attributes are values like any other.
        return all(immutable(v, depth + 1) for v in value.attrs.values()) and \
            all(immutable(b, depth + 1) for b in value.base_classes)
    return False  # nn modules, instances, namespaces, lazy names and anything new: not shared


def _table_sizes(interp: "Interpreter") -> Tuple[int, ...]:
    return (len(interp.homes), len(interp.closures), len(interp.param_defaults),
            len(interp.annotated_returns), len(interp.parameter_owners), len(interp._generators),
            len(interp._analysed_standalone))


def _flags(interp: "Interpreter") -> Tuple[Any, ...]:
    # What a body may change about the whole analysis (defaults, CUDA): such a body is rerun.
    return (interp.default_float, interp.uncertain_defaults, interp.default_device_unknown,
            interp.moves_to_cuda, interp.training_unknown)


def forget_all() -> None:
    """Drop every kept body (tests)."""
    _kept.clear()

