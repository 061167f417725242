"""Python's ``math`` module as the engine meets it: which calls give a float (so that
``x / math.sqrt(d)`` stays a tensor of x's dtype), checked against Python in
``tests/test_reach_truth.py``."""
from __future__ import annotations

import math
from typing import Callable, Dict, FrozenSet

from ..model.values import CallArgs, TOP, ScalarValue, Value

#: ``math.<name>(...)`` returns a Python float for every argument it accepts.
FLOAT_FUNCTIONS: FrozenSet[str] = frozenset(f"math.{name}" for name in (
    "sqrt", "exp", "log", "log2", "log10", "log1p", "expm1", "sin", "cos", "tan", "tanh",
    "atan", "atan2", "pow", "fabs", "hypot", "radians", "degrees", "erf", "gamma", "lgamma"))
#: ``math.<name>`` constants that are floats.
FLOAT_CONSTANTS: FrozenSet[str] = frozenset({"math.pi", "math.e", "math.tau", "math.inf"})

#: ``math.<name>(x)`` of a real number is an int (Python 3; ``inf`` and ``nan`` raise).
INT_FUNCTIONS: Dict[str, Callable[[float], int]] = {
    "math.ceil": math.ceil, "math.floor": math.floor, "math.trunc": math.trunc}


def int_function(qualname: str, args: CallArgs) -> Value:
    """``math.ceil(h / patch)``: an int, its value when the argument's is known (a grid of
    ``ceil(134 / 4) = 34`` patches); unknown for anything but one Python number."""
    if len(args.pos) != 1 or args.kw or args.has_star:
        return TOP
    x = args.pos[0]
    if not isinstance(x, ScalarValue) or x.pytype not in ("int", "float", "bool"):
        return TOP  # a tensor or an ndarray defines its own __ceil__
    const = x.const
    if isinstance(const, (int, float)) and math.isfinite(const):
        return ScalarValue("int", INT_FUNCTIONS[qualname](const))
    return ScalarValue("int")
