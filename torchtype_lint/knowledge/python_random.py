"""Python's ``random`` module as the engine meets it: the module-level functions and the
methods of a ``random.Random(seed)`` object draw Python floats or ints, so a list of
``rnd.random()`` draws given to ``torch.tensor`` makes a tensor of the default float dtype.

A generator object is the ``SymbolValue`` ``random.Random`` (as numpy's generators are): its
methods arrive as ``random.Random.<name>``. Checked against Python in
``tests/test_value_reach.py``.
"""
from __future__ import annotations

from typing import FrozenSet, Optional

from ..model.values import ScalarValue, SymbolValue, Value

#: The class a generator object's value is named after.
GENERATOR = "random.Random"
#: Calls that make a generator object (``SystemRandom`` has the same methods).
MAKERS: FrozenSet[str] = frozenset({"random.Random", "random.SystemRandom"})
#: Draws that are a Python float for every argument they accept.
FLOAT_DRAWS: FrozenSet[str] = frozenset({
    "random", "uniform", "triangular", "gauss", "normalvariate", "lognormvariate", "expovariate",
    "vonmisesvariate", "gammavariate", "betavariate", "paretovariate", "weibullvariate"})
#: Draws that are a Python int.
INT_DRAWS: FrozenSet[str] = frozenset({"randint", "randrange", "getrandbits"})


def random_call(qualname: str) -> Optional[Value]:
    """What ``random.<name>(...)`` or ``rnd.<name>(...)`` of a generator gives: a generator
    object, a float or an int draw; None for anything else (``choice``, ``sample``...)."""
    if qualname in MAKERS:
        return SymbolValue(GENERATOR)
    for owner in ("random.", GENERATOR + "."):
        if qualname.startswith(owner):
            name = qualname[len(owner):]
            if name in FLOAT_DRAWS:
                return ScalarValue("float")
            if name in INT_DRAWS:
                return ScalarValue("int")
    return None
