"""Uses of a float64 tensor from numpy that do harm, as TTL301 judges them on their own.

A float64 tensor is harmless while it is only copied (``p.data.copy_(t)``: the destination
keeps its dtype), cast, printed, compared, turned back into Python or numpy, or computed with
other float64 values. It does harm where it meets float32 data:

- an op whose result torch promotes to float64 because of it, although a float32 operand with
  dimensions took part (``x + t``, ``torch.cat([x, t])``, ``torch.where(m, x, t)``): a float32
  computation silently turns float64 from there on (torch 2.13: ``(x + t).dtype`` is float64);
- a closeness check of float32 against it (``torch.allclose(x, t)``, ``x.isclose(t)``): torch
  raises ``RuntimeError: Float did not match Double``.

Uses that fail in a float32 layer, matmul, loss or index write are errors of their own rules
(TTL401, TTL205, TTL208...), which name the conversion as the root cause they explain; the
checker then drops TTL301's warning (one report per root cause: ``root_causes.py``).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Dict, Iterator, List, Optional, Tuple

import libcst as cst

from ...knowledge.ops import MODULE, SIZE_FACTORIES, OpCall
from ...model.values import FLOAT32, FLOAT64, SequenceValue, TensorValue, Value
from ..context import RuleContext
from ..source_edits import code
from .conversions import conversion_in_chain
from .float64_conversions import Float64Conversion


@dataclass(frozen=True)
class Harm:
    """A use of a conversion's float64 tensor that fails or silently changes a result."""

    conversion: Float64Conversion
    use: Any  # the call or operator node
    #: What the use does, to follow "`<use>` ...": "silently promotes the float32 `x` to float64".
    effect: str


class FlaggedConversions:
    """Per analysis (``ctx.state``): the float64 conversions seen so far, by call node, and
    those already reported (one warning per conversion, at its first harmful use)."""

    def __init__(self) -> None:
        self.made: Dict[Any, Float64Conversion] = {}
        self.reported: set = set()


#: Ops whose result takes a dtype the code chose (``x.to(t)``, ``x.new_tensor(t)``), or whose
#: tensor arguments are sizes or bounds: a float64 argument there is no promotion.
_CHOSEN_DTYPE = frozenset({"torch.to", "Tensor.to", "Tensor.type", "Tensor.type_as", "torch.type_as",
                           "torch.tensor", "torch.as_tensor", "torch.asarray"}) | SIZE_FACTORIES

#: Closeness checks that require both operands to have one dtype (torch 2.13, CPU and CUDA).
_SAME_DTYPE_CHECKS = frozenset({"torch.allclose", "torch.isclose", "Tensor.allclose", "Tensor.isclose"})


def harmful_use(node: Any, ctx: RuleContext) -> Optional[Harm]:
    """The harm the call or operator ``node`` does with a flagged conversion's tensor, if any."""
    made = ctx.state(FlaggedConversions).made
    if not made:
        return None  # no float64 conversion so far: nothing to look for
    call = ctx.op_call(node)
    if call is None or call.has_star or call.inplace or call.op in _CHOSEN_DTYPE \
            or call.written.startswith("new_"):
        return None  # in place, the destination keeps its dtype; a cast is the user's choice
    inputs = list(_tensor_inputs(call))
    found = _converted_input(inputs, made, ctx)
    if found is None:
        return None
    conversion, tensor = found
    other = next(((v, n) for v, n in inputs if v is not tensor and _float32(v)), None)
    if other is None:
        return None  # used only with float64 values, numbers or unknowns
    if call.op in _SAME_DTYPE_CHECKS:
        return Harm(conversion, node, f"raises RuntimeError (`Float did not match Double`): "
                                      f"`{call.label}` compares only tensors of one dtype")
    result = call.result
    if not (isinstance(result, TensorValue) and result.dtypes == frozenset({FLOAT64})):
        return None  # the result keeps float32 (or is no tensor): nothing changed
    if not _has_dims(other[0]):
        return None  # a 0-d float32 operand never decides the result: it was float64 anyway
    shown = f" `{code(other[1], 30)}`" if other[1] is not None else " operand"
    return Harm(conversion, node, f"silently promotes the float32{shown} to float64")


def _converted_input(inputs: List[Tuple[Value, Any]], made: Dict[Any, Float64Conversion],
                     ctx: RuleContext) -> Optional[Tuple[Float64Conversion, Value]]:
    """The first float64 input that a flagged conversion made, with that conversion."""
    for value, _ in inputs:
        if isinstance(value, TensorValue) and value.dtypes == frozenset({FLOAT64}):
            found = made.get(conversion_in_chain(value.origin, ctx))
            if found is not None:
                return found, value
    return None


def _tensor_inputs(call: OpCall) -> Iterator[Tuple[Value, Any]]:
    """(value, node) of each tensor the op reads: the receiver or left operand, the arguments,
    and the items of a list or tuple argument (``torch.cat([x, t])``); node None if unknown."""
    if call.spelling != MODULE:  # a module's receiver is the layer, not an input
        yield call.receiver, call.receiver_node
    args = call.args
    nodes = list(args.pos_nodes) + [None] * (len(args.pos) - len(args.pos_nodes))
    given = list(zip(args.pos, nodes)) + [(v, args.kw_nodes.get(k)) for k, v in args.kw.items()]
    for value, node in given:
        if isinstance(value, SequenceValue) and value.items is not None:
            literal = node if isinstance(node, (cst.List, cst.Tuple)) and len(node.elements) == len(
                value.items) else None  # a display shows each item; else the whole argument is named
            for index, item in enumerate(value.items):
                yield item, literal.elements[index].value if literal is not None else node
        else:
            yield value, node


def _float32(value: Value) -> bool:
    return isinstance(value, TensorValue) and value.dtypes == frozenset({FLOAT32})


def _has_dims(value: Value) -> bool:
    return isinstance(value, TensorValue) and value.shape is not None and len(value.shape) > 0
