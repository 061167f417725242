"""TTL202 layer-integer-input: nn layer with float parameters called on an integer or bool tensor."""
from __future__ import annotations


import libcst as cst

from ...model.findings import Fix
from ...model.values import TensorValue
from ..base import RuntimeClaim, register
from ..dtype_names import one, origin_note, show
from ..dtype_predicates import all_dtypes, is_float, is_int_or_bool
from ..dtype_rule import DtypeRule
from ..layers import MATMUL_LAYERS, NORM_LAYERS
from ..source_edits import cast_expr, cast_text, castable, code
from .layer_inputs import layer_message, module_call
from ..context import RuleContext


@register
class LayerIntegerInput(DtypeRule):
    """
    ## What it does
    Flags an nn layer with floating-point parameters (`nn.Linear`, `nn.Conv*d`,
    `nn.ConvTranspose*d`, `nn.Bilinear`, RNN cells, `nn.MultiheadAttention`, transformer
    layers, batch/layer/group/instance norms) called on an integer or bool tensor,
    directly or as the first layer of an `nn.Sequential`.

    ## Why is this bad?
    Layers do not convert their input: torch raises `RuntimeError: mat1 and mat2 must have
    the same dtype, but got Long and Float` (Linear), `Input type (long int) and bias type
    (float) should be the same` (conv), `"batch_norm" not implemented for 'Long'` (norms).
    Typical sources are `torch.tensor` of Python ints, uint8 images, `F.one_hot` and numpy
    integer arrays.

    ## Example
    ```python
    layer = nn.Linear(3, 2)
    x = torch.tensor([[1, 2, 3]])
    y = layer(x)
    ```

    ## Use instead
    ```python
    y = layer(x.float())
    ```

    ## Fix safety
    Unsafe: the fix converts the input with `.float()` (or the parameters' dtype); for uint8
    images you may also want to scale to [0, 1].
    """

    code = "TTL202"
    name = "layer-integer-input"
    summary = "nn layer with float parameters called on an integer or bool tensor"
    severity = "error"
    listens = (cst.Call,)
    module_calls = True  # it judges calls of a layer only
    fix_safety = "unsafe"
    runtime = RuntimeClaim("RuntimeError", r"same dtype|should be the same|not implemented for|"
                                           r"mixed dtype|expected scalar type", pattern_devices=("cpu",))

    def visit(self, node: cst.Call, ctx: RuleContext) -> None:
        found = module_call(ctx, node)
        if found is None:
            return
        layer, x, x_node, path, outer = found
        if layer.short_name not in MATMUL_LAYERS and layer.short_name not in NORM_LAYERS:
            return
        params = layer.param_dtypes
        if not params or not all(is_float(p) for p in params) or not all_dtypes(x, is_int_or_bool):
            return
        target = one(TensorValue(params))
        fix = None
        hint = "convert the input: `x.float()`"
        if castable(target) and x_node is not None:
            hint = f"convert the input: `{cast_text(code(x_node, 30), target)}`"
            fix = Fix(x_node, cast_expr(x_node, target), f"Convert the input to {target}", safe=False)
        where = f"`{layer.short_name}`" + (f" (layer {path} of the nn.Sequential)" if path else "")
        torch_says = layer_message(layer, one(x), target)
        exception = ("NotImplementedError" if any("not implemented" in v for v in torch_says.variants)
                     else "RuntimeError")
        quoted = f" ({torch_says.quoted()})" if torch_says else ""
        self.flag(ctx, node,
                  f"{where} has {'/'.join(sorted(params))} parameters but gets a {show(x)} input"
                  f"{origin_note(x)}: torch raises {exception}{quoted}; {hint}",
                  origin=x.origin, fix=fix)
