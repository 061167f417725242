"""TTL203 rnn-input-dtype: RNN/LSTM/GRU input dtype differs from the weight dtype."""
from __future__ import annotations


import libcst as cst

from ...model.findings import Fix
from ...model.values import FLOAT32, TensorValue
from ..base import RuntimeClaim, register
from ..dtype_names import one, origin_note, said, show, torch_name
from ..dtype_predicates import mismatch_kind
from ..dtype_rule import DtypeRule
from ..layers import RNN_LAYERS
from ..source_edits import cast_expr, cast_text, castable, code
from .layer_inputs import module_call
from ..context import RuleContext


@register
class RnnInputDtype(DtypeRule):
    """
    ## What it does
    Flags `nn.LSTM`, `nn.GRU` or `nn.RNN` called on an input whose dtype always differs
    from the weights' dtype: integer input, float64 input (numpy data), float16/bfloat16
    input into a float32 model, or float32 input after `model.double()`/`model.half()`.

    ## Why is this bad?
    torch 2.13 checks this before running the recurrence and raises `ValueError: RNN input
    dtype (torch.float64) does not match weight dtype (torch.float32)`. Outside an
    autocast region nothing converts the input for you.

    ## Example
    ```python
    rnn = nn.LSTM(3, 5)
    seq = torch.from_numpy(np.random.rand(4, 2, 3))
    out, _ = rnn(seq)
    ```

    ## Use instead
    ```python
    out, _ = rnn(seq.float())
    ```

    ## Fix safety
    Unsafe: the fix converts the input to the weights' dtype.
    """

    code = "TTL203"
    name = "rnn-input-dtype"
    summary = "RNN/LSTM/GRU input dtype differs from the weight dtype"
    severity = "error"
    listens = (cst.Call,)
    module_calls = True  # it judges calls of a layer only
    fix_safety = "unsafe"
    # torch 2.13's wording, then torch 2.4's for the same check.
    runtime = RuntimeClaim("ValueError", r"RNN input dtype \(torch\.\w+\) does not match weight dtype|"
                                         r"input must have the type torch\.\w+, got type torch\.\w+",
                           pattern_devices=("cpu",))

    def visit(self, node: cst.Call, ctx: RuleContext) -> None:
        found = module_call(ctx, node)
        if found is None:
            return
        layer, x, x_node, path, outer = found
        if layer.short_name not in RNN_LAYERS or not layer.param_dtypes:
            return
        weights = TensorValue(layer.param_dtypes)
        kind = mismatch_kind(x, weights)
        if kind is None or (kind == "precision" and ctx.in_autocast):
            return
        target = one(weights)
        x_dtype = one(x)
        blame_model = x_dtype == FLOAT32 and layer.dtype_origin is not layer.origin
        origin = layer.dtype_origin if blame_model else x.origin
        fix = None
        if castable(target) and x_node is not None and not blame_model:
            fix = Fix(x_node, cast_expr(x_node, target), f"Convert the input to {target}", safe=False)
        torch_says = (f"RNN input dtype ({torch_name(x_dtype)}) does not match weight dtype "
                      f"({torch_name(target)})") if x_dtype and target else "RNN input dtype does not match weight dtype"
        source = (f"the weights are {show(weights)}{origin_note(layer)}" if blame_model
                  else f"the input is {show(x)}{origin_note(x)}")
        self.flag(ctx, node,
                  f"`{layer.short_name}` has {show(weights)} weights but gets a {show(x)} input: torch "
                  f"raises ValueError ({said(torch_says)}); {source}; convert the input "
                  f"(`{cast_text(code(x_node, 30) if x_node is not None else 'x', target or FLOAT32)}`) "
                  f"or the model",
                  origin=origin, fix=fix)
