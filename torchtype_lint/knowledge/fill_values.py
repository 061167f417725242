"""Which Python numbers a tensor of each dtype can be filled with (torch 2.13).

A scalar given to ``masked_fill``, ``fill_``, ``index_fill``, ``torch.full``, ``clamp`` and the
like is converted to the tensor's dtype with a range check: a finite value beyond the dtype's
largest finite value raises ``RuntimeError: value cannot be converted to type c10::Half without
overflow`` on every device (the check is on the host, before any kernel). Infinities and NaN
pass for floating dtypes. Checked against torch in tests/test_fill_value_overflow.py.
"""
from __future__ import annotations

import math
from typing import Dict, Optional, Tuple

from ..model.values import BFLOAT16, FLOAT16, FLOAT32, INT8, INT16, INT32, UINT8

#: dtype -> (lowest, highest) finite value a scalar may have. float64 and int64 are left out:
#: a Python float is a float64 already, and an int beyond int64 is rare enough to ignore.
FINITE_RANGE: Dict[str, Tuple[float, float]] = {
    FLOAT16: (-65504.0, 65504.0),
    BFLOAT16: (-3.3895313892515355e38, 3.3895313892515355e38),
    FLOAT32: (-3.4028234663852886e38, 3.4028234663852886e38),
    UINT8: (-255, 255),  # torch lets -255..-1 wrap around (-1 fills 255); negative floats raise, unclaimed
    INT8: (-128, 127),
    INT16: (-32768, 32767),
    INT32: (-2147483648, 2147483647),
}

#: The words torch's message starts with (its C++ type name follows, and differs by version).
OVERFLOW_MESSAGE = "value cannot be converted to type"

#: Tensor methods that take one fill value: name -> (position, keyword) of the value.
FILL_METHODS: Dict[str, Tuple[int, str]] = {
    "masked_fill": (1, "value"), "masked_fill_": (1, "value"), "fill_": (0, "value"),
    "index_fill": (2, "value"), "index_fill_": (2, "value"),
}

#: Bounds methods: name -> the (position, keyword) of each bound.
CLAMP_METHODS: Dict[str, Tuple[Tuple[int, str], ...]] = {
    "clamp": ((0, "min"), (1, "max")), "clamp_": ((0, "min"), (1, "max")),
    "clip": ((0, "min"), (1, "max")), "clip_": ((0, "min"), (1, "max")),
    "clamp_min": ((0, "min"),), "clamp_min_": ((0, "min"),),
    "clamp_max": ((0, "max"),), "clamp_max_": ((0, "max"),),
}


def overflows(value: object, dtype: Optional[str]) -> bool:
    """Whether converting the Python number ``value`` to ``dtype`` raises: finite and beyond
    the dtype's range (an infinity or NaN fills a floating tensor; a bool is 0 or 1)."""
    if dtype not in FINITE_RANGE or isinstance(value, bool) or not isinstance(value, (int, float)):
        return False
    if isinstance(value, float) and (math.isinf(value) or math.isnan(value)):
        return dtype in (UINT8, INT8, INT16, INT32)  # an integer cannot hold inf or NaN at all
    low, high = FINITE_RANGE[dtype]
    return value < low or value > high
