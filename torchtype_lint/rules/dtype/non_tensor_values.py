"""Values that are certainly not tensors where torch takes only a Tensor (TTL216, TTL217): how a
message names them, and the one judgement both rules make of a call's tensor-only parameters."""
from __future__ import annotations

from typing import Any, Callable, FrozenSet, Optional, Tuple

import libcst as cst

from ...knowledge.named_tuples import type_name
from ...model.values import ArrayValue, ScalarValue, SequenceValue, TensorValue, Value
from ..context import RuleContext
from ..dtype_names import origin_note
from ..source_edits import code

#: The order parameters are judged in (torch checks them left to right).
_ORDER = ("input", "target", "other", "weight", "pos_weight")


def non_tensor(value: Value, numpy: bool) -> Optional[Tuple[str, str, str]]:
    """(how a message names ``value``, its Python type as torch names it, how to make it a
    tensor) when it is certainly no tensor: a tuple, list or dict, a Python int or float, or
    (``numpy``) a numpy array or scalar; else None."""
    if isinstance(value, SequenceValue) and value.container in ("tuple", "list", "dict"):
        named = type_name(value)
        if value.container == "dict":
            return "a dict", "dict", "pick the tensor it holds before the call"
        count = len(value.items) if value.items is not None else None
        tensors = bool(value.items) and all(isinstance(i, TensorValue) for i in value.items or ())
        what = (f"a namedtuple `{named}`" if named else f"a {value.container}") + (
            f" of {count} tensors" if tensors else (f" of {count} items" if count is not None else ""))
        return what, named or value.container, "pick the tensor it holds (or unpack it) before the call"
    if numpy and isinstance(value, ArrayValue):
        dtype = value.dtype
        kind = "scalar" if value.shape == () else "array"
        # a numpy scalar and a 0-d array look alike here: torch names either type
        return (f"a numpy {dtype + ' ' if dtype else ''}{kind}", "", "make it a tensor of the input's dtype "
                "(`torch.tensor(..., dtype=...)`)")
    if isinstance(value, ScalarValue) and value.pytype in ("int", "float"):
        return (f"a Python {value.pytype}", value.pytype,
                "make it a tensor of the input's dtype (`torch.tensor(..., dtype=...)`)")
    return None


def first_non_tensor(call: Any, params: FrozenSet[str], numpy: bool) -> Optional[Tuple[str, Any, Value,
                                                                                        Tuple[str, str, str]]]:
    """(parameter, argument node, value, description) of the first of ``params`` (in torch's
    order) whose argument is certainly no tensor, or None. An argument spread from a tuple or
    list of known items (``super().forward(*inputs)``) is judged too: its node is the ``*``
    argument."""
    for param in sorted(params, key=lambda p: _ORDER.index(p) if p in _ORDER else len(_ORDER)):
        argument = call.arg_node(param)
        if argument is None:
            argument = _spread_from(call, param)
        if argument is None:
            continue
        value = call.arg(param)
        found = non_tensor(value, numpy)
        if found is not None:
            return param, argument, value, found
    return None


def _spread_from(call: Any, param: str) -> Optional[cst.Arg]:
    """The ``*xs`` argument of the call that ``param``'s value came from, when the call spreads
    exactly one sequence of known items (the engine then binds its items one by one), else None."""
    node = call.node
    if not isinstance(node, cst.Call) or not call.has_arg(param):
        return None
    spread = [arg for arg in node.args if arg.star == "*"]
    if len(spread) != 1 or any(arg.star == "**" for arg in node.args):
        return None
    return spread[0]


def report_non_tensor(flag: Callable[..., None], ctx: RuleContext, node: Any, call: Any,
                      found: Tuple[str, Any, Value, Tuple[str, str, str]], says: Tuple[str, str]) -> None:
    """The report both rules make: what the op takes, what it got, what torch says (``says``:
    torch's words with the value's ``{type}``, and without it when the type is not known)."""
    param, argument, value, (what, python_type, advice) = found
    said = says[0].format(type=python_type) if python_type else says[1]
    given = f"the item of `{code(argument, 40)}` it gets" if isinstance(argument, cst.Arg) else f"`{code(argument, 40)}`"
    flag(ctx, node,
         f"`{call.label}` takes only a Tensor as its `{param}`, but {given} is {what}"
         f"{origin_note(value)}: torch raises {said}; {advice}",
         origin=value.origin)
