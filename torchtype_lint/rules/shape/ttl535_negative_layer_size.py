"""TTL535 negative-layer-size: a layer built with a size that is certainly negative
(``nn.Linear(-1, 10)`` meant as "infer it", a width computed as ``dims[i + 1] - dims[0]``)."""
from __future__ import annotations

import libcst as cst

from ...knowledge.nn_modules import negative_size
from ..base import Rule, RuntimeClaim, register
from ..context import RuleContext
from ..source_edits import code

#: Layers that raise ValueError for a size that is not positive.
_RECURRENT = frozenset({"LSTM", "GRU", "RNN", "LSTMCell", "GRUCell", "RNNCell"})
_PREFIX = "torch.nn."
#: Layers with a lazy twin (``nn.LazyLinear``) that infers the input size at the first call.
_LAZY = frozenset({"Linear", "BatchNorm1d", "BatchNorm2d", "BatchNorm3d",
                   *(f"Conv{d}d" for d in (1, 2, 3)), *(f"ConvTranspose{d}d" for d in (1, 2, 3))})


@register
class NegativeLayerSize(Rule):
    """
    ## What it does
    Flags an `nn` layer constructed with a size parameter that is certainly negative:
    `in_features`/`out_features` of `nn.Linear`, the channels of a convolution, the sizes of an
    embedding, `num_features` of a batch norm, `input_size`/`hidden_size` of a recurrent layer.
    The usual causes are `-1` written as if it meant "infer this size" (as in `view(-1)`) and
    a width computed from a configuration that comes out negative.

    ## Why is this bad?
    The layer allocates its weight at construction: torch raises `RuntimeError: Trying to create
    tensor with negative dimension -1: [10, -1]` (a recurrent layer: `ValueError: hidden_size must
    be greater than zero`) before any data flows. PyTorch layers never infer their input size
    (use `nn.LazyLinear` for that).

    ## Example
    ```python
    self.out = nn.Linear(-1, n_classes)
    ```

    ## Use instead
    ```python
    self.out = nn.LazyLinear(n_classes)  # or the input width itself: nn.Linear(hidden, n_classes)
    ```
    """

    code = "TTL535"
    name = "negative-layer-size"
    summary = "an nn layer built with a negative size (nn.Linear(-1, n) meant as 'infer it')"
    severity = "error"
    listens = (cst.Call,)
    runtime = RuntimeClaim("Exception", r"Trying to create tensor with negative dimension|must be greater than zero")

    def visit(self, node: cst.Call, ctx: RuleContext) -> None:
        callee = ctx.callee(node)
        if callee is None or callee.kind != "symbol" or not callee.name.startswith(_PREFIX) or callee.args.has_star:
            return
        layer = callee.name[len(_PREFIX):]
        found = negative_size(layer, callee.args)
        if found is None:
            return
        name, size, argument = found
        literal = isinstance(argument, cst.UnaryOperation) and isinstance(argument.expression, cst.Integer)
        if ctx.analysed_on_its_own and not literal:
            return  # a parameter's default stands for any value a caller could pass
        shown = code(argument, 30) if argument is not None else str(size)
        said = (f"ValueError (\"{name} must be greater than zero\")" if layer in _RECURRENT
                else f"RuntimeError (\"Trying to create tensor with negative dimension {size}\")")
        written = f" (`{shown}`)" if shown != str(size) else ""
        lazy = f" (or `nn.Lazy{layer}`, which infers its input size)" if layer in _LAZY else ""
        self.report(node, f"`nn.{layer}` gets {name}={size}{written}: a layer never infers a size, it "
                          f"allocates its weights now and torch raises {said}; give the real size{lazy}")
