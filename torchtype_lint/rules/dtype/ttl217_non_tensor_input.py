"""TTL217 non-tensor-input: a tuple, list, dict or Python number passed to a layer or loss that
calls a tensor method on it (AttributeError)."""
from __future__ import annotations

from typing import Any

import libcst as cst

from ...knowledge.ops import FUNCTION, MODULE, module_op
from ...knowledge.tensor_arguments import ATTRIBUTE_FUNCTIONS, ATTRIBUTE_MODULES, ATTRIBUTE_PATTERN
from ..base import RuntimeClaim, register
from ..context import RuleContext
from ..dtype_rule import DtypeRule
from .non_tensor_values import first_non_tensor, report_non_tensor

#: Every op name a listed entry is reached by (a module's: the op its call is).
_OPS = frozenset(ATTRIBUTE_FUNCTIONS) | frozenset(module_op(name) for name in ATTRIBUTE_MODULES)


@register
class NonTensorInput(DtypeRule):
    """
    ## What it does
    Flags a tuple, list or dict (a model's tuple of outputs, a VAE's `(recon, mu, logvar)`, an
    `nn.LSTM`'s `(output, (h, c))`, a namedtuple) or a Python number passed as the input or
    target of a layer or loss that calls a tensor method on it first: `nn.MSELoss`,
    `nn.L1Loss`, `nn.SmoothL1Loss`, `nn.HuberLoss`, `nn.BCELoss`, `nn.BCEWithLogitsLoss` and
    their functions, `nn.BatchNorm1d/2d/3d`, `nn.LSTM`/`nn.GRU`/`nn.RNN`, `nn.Softmax`,
    `nn.LogSoftmax`, `F.softmax`, `F.log_softmax`, `F.sigmoid`, `F.tanh`, `nn.Flatten`,
    `nn.AdaptiveAvgPool2d` (and a numpy array or scalar where that raises AttributeError too).

    ## Why is this bad?
    The layer asks the argument for its size or dims before anything else, and a Python
    object has none: `AttributeError: 'tuple' object has no attribute 'size'`. The usual cause
    is a model that returns several outputs (`return recon, mu, logvar`, a backbone with
    auxiliary heads) whose result is passed on whole. The layers that hand the argument to
    torch's own parser raise TypeError instead: TTL216.

    ## Example
    ```python
    recon = vae(x)
    loss = F.mse_loss(recon, x)
    ```

    ## Use instead
    ```python
    recon, mu, logvar = vae(x)
    loss = F.mse_loss(recon, x)
    ```
    """

    code = "TTL217"
    name = "non-tensor-input"
    summary = "tuple, list, dict or number given to a layer or loss that calls tensor methods on it"
    severity = "error"
    listens = (cst.Call,)
    ops = _OPS
    runtime = RuntimeClaim("AttributeError", ATTRIBUTE_PATTERN)

    def visit(self, node: Any, ctx: RuleContext) -> None:
        call = ctx.op_call(node)
        if call is None or call.has_star:
            return
        entry = ATTRIBUTE_MODULES.get(call.written) if call.spelling == MODULE else (
            ATTRIBUTE_FUNCTIONS.get(call.op) if call.spelling == FUNCTION else None)
        if entry is None:
            return
        params, numpy_too = entry
        found = first_non_tensor(call, params, numpy=numpy_too)
        if found is not None:
            report_non_tensor(self.flag, ctx, node, call, found,
                              ("AttributeError (\"'{type}' object has no attribute ...\")",
                               'AttributeError ("... object has no attribute ...")'))
