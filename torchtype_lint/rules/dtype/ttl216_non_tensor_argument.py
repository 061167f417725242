"""TTL216 non-tensor-argument: a tuple, list, Python number or numpy value passed where torch
takes only a Tensor."""
from __future__ import annotations

from typing import Any, Optional, Tuple

import libcst as cst

from ...knowledge.named_tuples import type_name
from ...knowledge.ops import FUNCTION, MODULE, module_op
from ...knowledge.tensor_arguments import FUNCTIONS, MESSAGE_PATTERN, MODULES
from ...model.values import ArrayValue, ScalarValue, SequenceValue, TensorValue, Value
from ..base import RuntimeClaim, register
from ..context import RuleContext
from ..dtype_names import origin_note
from ..dtype_rule import DtypeRule
from ..source_edits import code

#: The order parameters are judged in (torch checks them left to right).
_ORDER = ("input", "target", "other", "weight", "pos_weight")
#: Every op name a listed entry is reached by (a module's: the op its call is).
_OPS = frozenset(FUNCTIONS) | frozenset(module_op(name) for name in MODULES)


def _what(value: Value) -> Optional[Tuple[str, str]]:
    """(how a message names ``value``, how to make it a tensor) when it is certainly no
    tensor: a tuple or list, a numpy array or scalar, a Python int or float; else None."""
    if isinstance(value, SequenceValue) and value.container in ("tuple", "list"):
        count = len(value.items) if value.items is not None else None
        tensors = value.items is not None and value.items and all(isinstance(i, TensorValue) for i in value.items)
        named = type_name(value)
        what = (f"a namedtuple `{named}`" if named else f"a {value.container}") + (
            f" of {count} tensors" if tensors else (f" of {count} items" if count is not None else ""))
        return what, "pick the tensor it holds (or unpack it) before the call"
    if isinstance(value, ArrayValue):
        dtype = value.dtype
        if value.shape == ():
            what = f"a numpy {dtype + ' ' if dtype else ''}scalar"
        else:
            what = f"a numpy {dtype + ' ' if dtype else ''}array"
        return what, "make it a tensor of the input's dtype (`torch.tensor(..., dtype=...)`)"
    if isinstance(value, ScalarValue) and value.pytype in ("int", "float"):
        return f"a Python {value.pytype}", "make it a tensor of the input's dtype (`torch.tensor(..., dtype=...)`)"
    return None


@register
class NonTensorArgument(DtypeRule):
    """
    ## What it does
    Flags a call that passes a value which is certainly not a tensor -- a tuple or list (a
    model's tuple of outputs, an `nn.LSTM`'s `(output, (h, c))`, a namedtuple), a numpy
    array or scalar (`numpy.float64` from array arithmetic), a Python number -- where torch
    takes only a Tensor: the input of activations, `nn.Linear`, convolutions, `nn.LayerNorm`,
    `nn.Embedding`, dropout and pooling layers, `torch.matmul`; the input and target of
    `cross_entropy` / `nll_loss` / `kl_div` (and their loss modules); the class `weight` of
    `cross_entropy`; `weight` and `pos_weight` of `binary_cross_entropy_with_logits`.

    ## Why is this bad?
    torch's argument parser accepts only a Tensor there and raises `TypeError: relu():
    argument 'input' (position 1) must be Tensor, not tuple` (a convolution: `conv2d()
    received an invalid combination of arguments`). The usual causes: a model that returns
    several outputs in training mode (Inception's auxiliary logits, deep supervision heads)
    passed on whole, and a statistic computed with numpy (`pos_weight = neg / adj.sum()` is a
    `numpy.float64`).

    ## Example
    ```python
    pos_weight = float(adj.size - adj.sum()) / adj.sum()
    loss = F.binary_cross_entropy_with_logits(logits, labels, pos_weight=pos_weight)
    ```

    ## Use instead
    ```python
    pos_weight = torch.tensor(float(adj.size - adj.sum()) / adj.sum(), dtype=logits.dtype)
    loss = F.binary_cross_entropy_with_logits(logits, labels, pos_weight=pos_weight)
    ```
    """

    code = "TTL216"
    name = "non-tensor-argument"
    summary = "tuple, list, number or numpy value passed where torch takes only a Tensor"
    severity = "error"
    listens = (cst.Call,)
    ops = _OPS
    runtime = RuntimeClaim("TypeError", MESSAGE_PATTERN)

    def visit(self, node: Any, ctx: RuleContext) -> None:
        call = ctx.op_call(node)
        if call is None or call.has_star:
            return
        # a module's call by its class (nn.Sigmoid raises TypeError, F.sigmoid does not)
        params = MODULES.get(call.written) if call.spelling == MODULE else (
            FUNCTIONS.get(call.op) if call.spelling == FUNCTION else None)
        if params is None:
            return
        for param in sorted(params, key=lambda p: _ORDER.index(p) if p in _ORDER else len(_ORDER)):
            argument = call.arg_node(param)
            if argument is None:
                continue
            value = call.arg(param)
            found = _what(value)
            if found is None:
                continue
            what, advice = found
            self.flag(ctx, node,
                      f"`{call.label}` takes only a Tensor as its `{param}`, but `{code(argument, 40)}` is {what}"
                      f"{origin_note(value)}: torch raises TypeError (\"... must be Tensor\"); {advice}",
                      origin=value.origin)
            return
