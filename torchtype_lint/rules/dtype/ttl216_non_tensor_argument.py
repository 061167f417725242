"""TTL216 non-tensor-argument: a tuple, list, Python number or numpy value passed where torch
takes only a Tensor."""
from __future__ import annotations

from typing import Any

import libcst as cst

from ...knowledge.ops import FUNCTION, MODULE, module_op
from ...knowledge.tensor_arguments import FUNCTIONS, MESSAGE_PATTERN, MODULES
from ..base import RuntimeClaim, register
from ..context import RuleContext
from ..dtype_rule import DtypeRule
from .non_tensor_values import first_non_tensor, report_non_tensor

#: Every op name a listed entry is reached by (a module's: the op its call is).
_OPS = frozenset(FUNCTIONS) | frozenset(module_op(name) for name in MODULES)


@register
class NonTensorArgument(DtypeRule):
    """
    ## What it does
    Flags a call that passes a value which is certainly not a tensor -- a tuple, list or dict
    (a model's tuple of outputs, an `nn.LSTM`'s `(output, (h, c))`, a namedtuple), a numpy
    array or scalar (`numpy.float64` from array arithmetic), a Python number -- where torch
    takes only a Tensor: the input of activations, `nn.Linear`, convolutions, `nn.LayerNorm`,
    `nn.Embedding`, dropout and pooling layers, `torch.matmul`; the input and target of
    `cross_entropy` / `nll_loss` / `kl_div` (and their loss modules); the class `weight` of
    `cross_entropy`; `weight` and `pos_weight` of `binary_cross_entropy_with_logits`. The
    layers and losses that call a tensor method on the argument first (`nn.MSELoss`,
    `nn.BatchNorm2d`, `nn.LSTM`, `F.softmax`...) raise AttributeError instead: TTL217.

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
    summary = "tuple, list, dict, number or numpy value passed where torch takes only a Tensor"
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
        found = first_non_tensor(call, params, numpy=True)
        if found is not None:
            report_non_tensor(self.flag, ctx, node, call, found,
                              ('TypeError ("... must be Tensor, not {type}")', 'TypeError ("... must be Tensor")'))
