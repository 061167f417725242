"""A module's state as a collection: ``model.state_dict()`` holds *every* parameter and buffer
(BatchNorm's int64 ``num_batches_tracked`` included), and so do the collections made from it
entry for entry: ``sd.values()`` / ``sd.items()``, ``list(...)`` / ``tuple(...)`` /
``sorted(...)`` / ``reversed(...)`` of those.

Such a collection carries a :class:`StateEntriesOrigin` naming the module; a loop over it
visits each entry, so what its body does unconditionally to the entry it also does to the
int64 counter (TTL214). A collection made any other way (a comprehension, which may filter, a
slice) is a new value without it.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Optional, Tuple

from ..model.values import TOP, InstanceValue, ModuleValue, Origin, SequenceValue, Value

#: What iterating a state collection gives: its keys (the dict itself), its entries
#: (``.values()``) or (key, entry) pairs (``.items()``).
KEYS, ENTRIES, PAIRS = "keys", "entries", "pairs"

#: How deep ``structure`` looks into nested modules.
_MAX_STRUCTURE_DEPTH = 8


@dataclass(frozen=True)
class StateEntriesOrigin(Origin):
    """The origin of a collection holding every state entry of ``module``; ``gives`` says
    what iterating it yields (KEYS, ENTRIES or PAIRS)."""

    module: Any = field(default=None, compare=False, hash=False, repr=False)
    gives: str = KEYS
    whole = True  # a join with another collection is not every entry any more


def state_dict_of(module: Value, node: Any) -> Value:
    """``module.state_dict()`` (no arguments) of a library or user module: a dict of unknown
    entries that remembers it holds them all."""
    return SequenceValue("dict", origin=StateEntriesOrigin(node, "model.state_dict()", None, module, KEYS))


def state_entries(value: Value) -> Optional[StateEntriesOrigin]:
    """The origin of ``value`` when it is a collection of every state entry of a module."""
    origin = value.origin if isinstance(value, SequenceValue) else None
    return origin if isinstance(origin, StateEntriesOrigin) else None


def entries_view(seq: SequenceValue, method: str) -> Optional[StateEntriesOrigin]:
    """The origin ``sd.values()`` / ``sd.items()`` / ``sd.keys()`` of a state dict keeps
    (None: ``seq`` is no state dict, or the method gives no collection of all its entries)."""
    origin = state_entries(seq)
    if origin is None or origin.gives != KEYS:
        return None
    gives = {"values": ENTRIES, "items": PAIRS, "keys": KEYS}.get(method)
    if gives is None:
        return None
    return StateEntriesOrigin(origin.node, f"model.state_dict().{method}()", origin.parent, origin.module, gives)


def same_entries(value: Value) -> Optional[StateEntriesOrigin]:
    """The origin ``list(x)`` / ``tuple(x)`` / ``sorted(x)`` / ``reversed(x)`` keeps: the same
    entries in another container (a dict gives its keys)."""
    return state_entries(value)


def structure(module: Value, depth: int = 0) -> Optional[Tuple[Any, ...]]:
    """What decides how many state entries ``module`` has and in what order, as a comparable
    key: the class and constructor arguments of each layer, the user class and its module
    attributes; None when a part is not known. Two modules with equal keys have state dicts of
    the same length (``zip`` over both visits every entry of each)."""
    if depth > _MAX_STRUCTURE_DEPTH:
        return None
    if isinstance(module, ModuleValue):
        parts = tuple(structure(child, depth + 1) for child in module.children)
        if any(part is None for part in parts):
            return None
        try:
            config = tuple(sorted((k, repr(v)) for k, v in module.config.items()))
        except TypeError:
            return None
        return (module.qualname, config, parts, tuple(sorted(module.stored)))
    if isinstance(module, InstanceValue):
        attrs = []
        for name, attr in module.attrs.items():
            if name == "training":
                continue  # the mode: no state entry
            if isinstance(attr, (ModuleValue, InstanceValue)):
                part = structure(attr, depth + 1)
                if part is None:
                    return None
                attrs.append((name, part))
            elif attr is TOP:
                return None  # may be a module with state of its own
            else:
                attrs.append((name, attr.kind))
        return (id(module.cls), tuple(attrs))
    return None
