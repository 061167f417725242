"""Reading the dims and sizes a shape op was given: ``x.permute(2, 0, 1)`` and
``torch.permute(x, (2, 0, 1))`` name the same dims, ``x.expand(4, 3)`` and ``x.expand((4, 3))``
the same sizes."""
from __future__ import annotations

from typing import Any, List, Optional, Tuple

from ...knowledge.ops import METHOD, SIGNATURES, OpCall
from ...knowledge.torch_api import int_const
from ...model.values import TOP, NoneValue, ScalarValue, SequenceValue, Value

#: Parameters a tensor method takes as ``*args`` (``x.permute(2, 0, 1)``) as well as one tuple.
_VARARG_PARAMETERS = {"torch.permute": "dims"}


def tensor_argument(call: OpCall) -> Tuple[Value, Any]:
    """The tensor the op works on (the receiver of a method) and its node."""
    first = SIGNATURES.get(call.op, ("input",))[0]
    return call.arg(first), call.arg_node(first)


def ints_of(value: Value) -> Optional[List[Optional[int]]]:
    """An int or a tuple/list of ints as a list (an item not known is None); None when the
    value is neither (unknown: a variable could hold an int or a tuple)."""
    if isinstance(value, ScalarValue) and value.pytype == "int":
        return [int_const(value)]
    if isinstance(value, SequenceValue) and value.container in ("tuple", "list") and value.items is not None:
        return [int_const(v) for v in value.items]
    return None


def _spread_ints(values: List[Value]) -> Optional[List[Optional[int]]]:
    """``f(2, 0, n)``: each argument one int (an unknown one None); None when one is
    something else (a float, a tuple)."""
    if not all(v is TOP or (isinstance(v, ScalarValue) and v.pytype == "int") for v in values):
        return None
    return [int_const(v) for v in values]


def dims_given(call: OpCall, param: str) -> Optional[List[Optional[int]]]:
    """The dims bound to ``param``: a list (unknown items None), ``[]`` when the parameter is
    not given or is None (the op's default applies), None when they cannot be known."""
    if call.has_star:
        return None
    if _VARARG_PARAMETERS.get(call.op) == param and call.spelling == METHOD and param not in call.args.kw \
            and len(call.args.pos) != 1:
        return _spread_ints(list(call.args.pos))
    if not call.has_arg(param):
        return []
    value = call.arg(param)
    if isinstance(value, NoneValue):
        return []
    return ints_of(value)


def sizes_given(call: OpCall) -> Optional[List[Optional[int]]]:
    """The sizes of ``x.expand(4, 3)`` / ``x.expand((4, 3))`` / ``x.expand(size=(4, 3))``,
    ``x.repeat(...)`` and ``x.view(...)`` (unknown items None); None when unknowable."""
    args = call.args
    if args.has_star:
        return None
    keyword = next((k for k in ("size", "sizes", "repeats", "shape") if k in args.kw), None)
    if keyword is not None:
        return None if args.pos else ints_of(args.kw[keyword])
    if len(args.pos) == 1 and not isinstance(args.pos[0], ScalarValue):
        return ints_of(args.pos[0])
    return _spread_ints(list(args.pos))
