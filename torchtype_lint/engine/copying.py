"""``copy.deepcopy(x)``: a new abstract heap object for every mutable one inside ``x``.

Modules and instances of the file's classes are mutable to the engine (``model.double()``
acts in place), so a deep copy must not share them: casting the copy (an EMA model made
``.double()``) leaves the original's dtype alone, as it does in Python. Immutable values
(tensors, arrays, scalars) are shared as they are.
"""
from __future__ import annotations

from typing import Callable, Dict

from ..model.values import InstanceValue, ModuleValue, SequenceValue, Value


def deep_copied(value: Value, note_fresh: Callable[[Value], Value], memo: Dict[int, Value] = None) -> Value:
    """The value of ``copy.deepcopy(value)``; ``note_fresh`` registers each new heap object
    with the interpreter (a fresh object is certainly changed by what follows)."""
    memo = {} if memo is None else memo
    if id(value) in memo:
        return memo[id(value)]  # shared sub-objects stay shared in the copy, cycles end
    if isinstance(value, ModuleValue):
        module = ModuleValue(value.qualname, value.config, value.param_dtypes, value.origin, (), value.device)
        module.dtype_origin = value.dtype_origin
        memo[id(value)] = module
        module.children = tuple(deep_copied(child, note_fresh, memo) for child in value.children)
        module.stored = {name: deep_copied(attr, note_fresh, memo) for name, attr in value.stored.items()}
        return note_fresh(module)
    if isinstance(value, InstanceValue):
        instance = InstanceValue(value.cls, value.origin)
        memo[id(value)] = instance
        instance.attrs = {name: deep_copied(attr, note_fresh, memo) for name, attr in value.attrs.items()}
        instance.cast_attrs = set(value.cast_attrs)
        return note_fresh(instance)
    if isinstance(value, SequenceValue):
        items = None if value.items is None else tuple(deep_copied(i, note_fresh, memo) for i in value.items)
        return SequenceValue(value.container, deep_copied(value.element, note_fresh, memo), items,
                             value.origin, value.keys)
    return value
