"""Joining environments where control flow meets: after an ``if``, at a loop head, after a
``try``. Pure functions over ``{name: Value}`` dicts, kept apart from the statements that use
them because their cost decides how the engine scales on long modules.
"""
from __future__ import annotations

from itertools import compress
from operator import is_not
from typing import Dict

from ..model.values import TOP, TensorValue, Value, join


def join_envs(a: Dict[str, Value], b: Dict[str, Value]) -> Dict[str, Value]:
    """The environment where two paths meet: values joined, names bound on one path unknown."""
    out = dict(a)
    # Both sides are copies of one environment, so most values are the very same objects:
    # find the names whose values differ at C speed, join only those (a Python loop over every
    # name made each `if` cost O(names): quadratic on long modules).
    names = list(b)
    for name in compress(names, map(is_not, map(a.get, names), map(b.get, names))):
        prev = a.get(name)
        value = b[name]
        out[name] = value if prev is None else join(prev, value)
    for name in a.keys() - b.keys():
        out[name] = TOP  # bound on one path only: maybe unbound on the other
    return out


def envs_equal(a: Dict[str, Value], b: Dict[str, Value]) -> bool:
    """Has a loop reached its fixed point? (Tensors compare by dtypes, shape and device.)"""
    if a.keys() != b.keys():
        return False
    for name, value in a.items():
        other = b[name]
        if value is other:
            continue
        if type(value) is not type(other):
            return False
        if isinstance(value, TensorValue):
            if (value.dtypes, value.shape, value.device) != (other.dtypes, other.shape, other.device):  # type: ignore[union-attr]
                return False
        elif value != other:
            return False
    return True


def widen(old: Dict[str, Value], new: Dict[str, Value]) -> Dict[str, Value]:
    """Names whose value still changes after the iteration cap become TOP: loops terminate."""
    out = {}
    for name, value in new.items():
        out[name] = value if name in old and envs_equal({name: old[name]}, {name: value}) else TOP
    return out
