"""``torch.finfo(dtype)`` and ``torch.iinfo(dtype)``: the limits of each dtype (torch 2.13).

``torch.finfo(torch.float32).min`` given to a float16 tensor's ``masked_fill`` overflows it
(rules/precision/ttl403); the engine reads these attributes as the constants below. The table
is checked against torch in tests/test_fill_value_overflow.py.
"""
from __future__ import annotations

from typing import Any, Dict, Optional

from ..model.values import (
    BFLOAT16, FLOAT16, FLOAT32, FLOAT64, INT8, INT16, INT32, INT64, UINT8, CallArgs, ScalarValue, SequenceValue,
    Value, TOP,
)
from .named_tuples import NamedTupleOrigin
from .torch_api import dtype_of_arg

#: dtype -> the attributes of its torch.finfo.
FINFO: Dict[str, Dict[str, Any]] = {
    FLOAT16: {"bits": 16, "eps": 0.0009765625, "max": 65504.0, "min": -65504.0, "tiny": 6.103515625e-05},
    BFLOAT16: {"bits": 16, "eps": 0.0078125, "max": 3.3895313892515355e+38, "min": -3.3895313892515355e+38,
               "tiny": 1.1754943508222875e-38},
    FLOAT32: {"bits": 32, "eps": 1.1920928955078125e-07, "max": 3.4028234663852886e+38,
              "min": -3.4028234663852886e+38, "tiny": 1.1754943508222875e-38},
    FLOAT64: {"bits": 64, "eps": 2.220446049250313e-16, "max": 1.7976931348623157e+308,
              "min": -1.7976931348623157e+308, "tiny": 2.2250738585072014e-308},
}
#: dtype -> the attributes of its torch.iinfo.
IINFO: Dict[str, Dict[str, Any]] = {
    UINT8: {"bits": 8, "max": 255, "min": 0}, INT8: {"bits": 8, "max": 127, "min": -128},
    INT16: {"bits": 16, "max": 32767, "min": -32768},
    INT32: {"bits": 32, "max": 2147483647, "min": -2147483648},
    INT64: {"bits": 64, "max": 9223372036854775807, "min": -9223372036854775808},
}


def dtype_info(qualname: str, args: CallArgs, node: Any, default_float: str) -> Value:
    """``torch.finfo(dtype)`` / ``torch.iinfo(dtype)`` of a known dtype (``finfo()``: the default
    float dtype) as a record of constants (``.min``, ``.max``, ``.eps``, ``.tiny``, ``.bits``)."""
    table = FINFO if qualname == "torch.finfo" else IINFO
    if args.has_star or args.kw or len(args.pos) > 1:
        return TOP
    dtype: Optional[str] = dtype_of_arg(args.pos[0]) if args.pos else (
        default_float if qualname == "torch.finfo" else None)
    if dtype not in table:
        return TOP
    limits = table[dtype]  # type: ignore[index]
    fields = tuple(sorted(limits))
    items = tuple(ScalarValue(type(limits[f]).__name__, limits[f]) for f in fields)
    return SequenceValue("tuple", TOP, items, NamedTupleOrigin(node, f"{qualname}({dtype})",
                                                               type_name=qualname[6:], fields=fields))
