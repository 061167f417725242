"""libcst nodes hashed and compared by identity in C rather than in Python.

libcst gives every node class identity semantics as two Python functions (``__eq__``:
``self is other``; ``__hash__``: ``id(self)``), copied into each class. The engine keys its
tables by node, so a 1,000-line file makes about 110,000 calls to them. ``object``'s own
``__eq__`` and ``__hash__`` mean the same (equal only to itself; a hash fixed for the node's
life) and run in C. Only a class that still carries libcst's two functions is changed, once,
when this module is imported; a node class defined later keeps libcst's (same meaning, slower).
"""
from __future__ import annotations

from typing import List

from libcst._nodes.base import CSTNode


def _node_classes() -> List[type]:
    seen, order, stack = set(), [], [CSTNode]
    while stack:
        cls = stack.pop()
        if cls not in seen:  # a class with two node bases is reached twice
            seen.add(cls)
            order.append(cls)
            stack.extend(cls.__subclasses__())
    return order


#: libcst's own two functions, as CSTNode has them before this module changes it.
_LIBCST_EQ, _LIBCST_HASH = CSTNode.__dict__["__eq__"], CSTNode.__dict__["__hash__"]


def use_identity_slots() -> int:
    """Give every node class that has libcst's identity functions ``object``'s; how many changed."""
    libcst_eq, libcst_hash = _LIBCST_EQ, _LIBCST_HASH
    if libcst_hash is object.__hash__:
        return 0  # this module was imported again after its first import had changed CSTNode
    changed = 0
    for cls in _node_classes():
        if cls.__dict__.get("__hash__") is libcst_hash and cls.__dict__.get("__eq__") is libcst_eq:
            cls.__hash__ = object.__hash__  # type: ignore[method-assign]
            cls.__eq__ = object.__eq__  # type: ignore[method-assign]
            changed += 1
    return changed


use_identity_slots()
