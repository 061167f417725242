"""Python's ``math`` module as the engine meets it: which calls give a float (so that
``x / math.sqrt(d)`` stays a tensor of x's dtype), checked against Python in
``tests/test_reach_truth.py``."""
from __future__ import annotations

from typing import FrozenSet

#: ``math.<name>(...)`` returns a Python float for every argument it accepts.
FLOAT_FUNCTIONS: FrozenSet[str] = frozenset(f"math.{name}" for name in (
    "sqrt", "exp", "log", "log2", "log10", "log1p", "expm1", "sin", "cos", "tan", "tanh",
    "atan", "atan2", "pow", "fabs", "hypot", "radians", "degrees", "erf", "gamma", "lgamma"))
#: ``math.<name>`` constants that are floats.
FLOAT_CONSTANTS: FrozenSet[str] = frozenset({"math.pi", "math.e", "math.tau", "math.inf"})
