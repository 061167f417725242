"""TTL401 precision-mismatch: float16/bfloat16/float64 meets float32 in a matmul or layer outside autocast."""
from __future__ import annotations

from typing import Any, Optional

import libcst as cst

from ...model.findings import Fix
from ...model.values import BFLOAT16, FLOAT16, FLOAT32, ModuleValue, TensorValue
from ..base import RuntimeClaim, register
from ..dtype.matmul_mismatch import matmul_operands
from ..dtype_names import one, origin_note, scalar_type_name, show
from ..dtype_predicates import dtypes_of, is_float, mismatch_kind, pairs
from ..dtype_rule import DtypeRule
from ..layers import MATMUL_LAYERS, NORM_LAYERS
from ...knowledge.nn_modules import WEIGHTED_LOSSES
from ..source_edits import cast_expr, cast_text, castable, code
from ..dtype.layer_inputs import conv_kernel_message, layer_message, module_call
from ..dtype.matmul_mismatch import MATMUL_PATTERN, report_mismatch
from ..torch_messages import TorchMessage
from ..context import RuleContext
from ...knowledge.ops import SAME_DTYPE_FIRST, SAME_DTYPE_OPERANDS


#: How torch's C++ side names float dtypes in "expected dtype double for `end`".
_CPP_DTYPE_NAMES = {"float64": "double", "float32": "float", "float16": "c10::Half", "bfloat16": "c10::BFloat16"}


def _quoted(torch_says: TorchMessage) -> str:
    return f" ({torch_says.quoted()})" if torch_says else ""


def _norm_rejects(x_dtype: str, p_dtype: str) -> bool:
    # CPU mixed-dtype norm kernels accept float16/bfloat16 input with float32 parameters;
    # every other difference raises "mixed dtype (CPU)".
    return x_dtype != p_dtype and not (p_dtype == FLOAT32 and x_dtype in (FLOAT16, BFLOAT16))


@register
class PrecisionMismatch(DtypeRule):
    """
    ## What it does
    Flags floating-point tensors of different widths meeting in an op that does not
    promote, outside a `torch.autocast` region: matrix products (`@`, `matmul`, `mm`,
    `bmm`, `einsum`, `F.linear`, ...) of float16/bfloat16/float64 with float32, and layers
    with float parameters (`nn.Linear`, convolutions, attention, transformer layers, RNN
    cells) called on input of another float dtype -- including a float32 input after
    `model.double()` or `model.half()` -- and other ops that do not promote: `lerp`/`lerp_`
    (an EMA model made `.double()` updated toward float32 weights), `torch.linalg.solve`,
    `torch.cholesky_solve`, `F.layer_norm` / `F.group_norm` with affine parameters of
    another precision, `F.conv1d`/`F.conv2d`/`F.conv3d` with a filter of another precision
    (a float32 `torch.eye` filter next to float16 activations), `F.cross_entropy` /
    `F.nll_loss` / `nn.CrossEntropyLoss` / `nn.NLLLoss` whose class `weight` has another
    precision than the logits (weights computed from numpy label counts are float64), and
    an `nn.GRU`/`nn.RNN` given an initial hidden state of another precision than its
    weights. Norm layers are flagged only for combinations torch rejects (float16/bfloat16
    input into float32 norms is accepted).

    ## Why is this bad?
    torch raises instead of promoting: `RuntimeError: mat1 and mat2 must have the same
    dtype, but got Double and Float`. float64 tensors typically come from numpy
    (`torch.from_numpy(np.random.rand(...))`), float16 from `.half()` data or models.
    Under `torch.autocast` the float16/bfloat16 cases are handled by autocast, so they are
    not flagged there.

    ## Example
    ```python
    model = nn.Linear(3, 1)
    model.double()
    y = model(torch.randn(4, 3))
    ```

    ## Use instead
    ```python
    y = model(torch.randn(4, 3, dtype=torch.float64))
    # or keep the model float32, or run under torch.autocast
    ```

    ## Fix safety
    Unsafe: the fix converts the input (or the matmul operand with the unusual dtype) to
    the other side's dtype, which changes the precision of the computation.
    """

    code = "TTL401"
    name = "precision-mismatch"
    summary = "float16/bfloat16/float64 meets float32 in a matmul or layer outside autocast"
    severity = "error"
    listens = (cst.Call, cst.BinaryOperation)
    fix_safety = "unsafe"
    runtime = RuntimeClaim("RuntimeError", MATMUL_PATTERN + r"|should be the same|mixed dtype|expected dtype \S+ for `"
                                           r"|to have the same dtype",
                           pattern_devices=("cpu",))
    #: TTL402 reports the operands that come out of an autocast region; TTL401 the others.
    autocast_escape = False

    def visit(self, node: Any, ctx: RuleContext) -> None:
        if ctx.in_autocast:
            return
        found = matmul_operands(node, ctx)
        if found is not None:
            op, label, a, b, a_node, b_node = found
            if mismatch_kind(a, b) == "precision":
                report_mismatch(self, ctx, node, op, label, a, b, a_node, b_node)
            return
        if isinstance(node, cst.Call):
            self._layer(node, ctx)
            self._same_dtype_operands(node, ctx)
            self._loss_weight(node, ctx)
            self._hidden_state(node, ctx)

    def _hidden_state(self, node: cst.Call, ctx: RuleContext) -> None:
        """``gru(x, h0)`` with an initial hidden state of another precision than the weights
        (``torch.tensor(np.random.randn(...))`` is float64): the input may be right, h0 not."""
        callee = ctx.callee(node)
        if callee is None or callee.kind != "module" or not isinstance(callee.receiver, ModuleValue) \
                or callee.args.has_star or callee.receiver.short_name not in ("GRU", "RNN"):
            return
        layer = callee.receiver
        if not layer.param_dtypes:
            return
        x, hx = callee.args.get(0, "input"), callee.args.get(1, "hx")
        weights = TensorValue(layer.param_dtypes)
        if not isinstance(hx, TensorValue) or mismatch_kind(hx, weights) != "precision" or (
                isinstance(x, TensorValue) and mismatch_kind(x, weights) is not None):
            return  # no initial state, or the input's own mismatch is what torch reports
        h_dtype, w_dtype = one(hx), one(weights)
        says = f"mat1 and mat2 must have the same dtype, but got {scalar_type_name(h_dtype)} and " \
               f"{scalar_type_name(w_dtype)}" if h_dtype and w_dtype else "mat1 and mat2 must have the same dtype"
        self.flag(ctx, node,
                  f"`{layer.short_name}` has {show(weights)} weights but its initial hidden state is "
                  f"{show(hx)}{origin_note(hx)}: torch raises RuntimeError (\"{says}\"); build the hidden "
                  f"state in the weights' dtype", origin=hx.origin)

    def _loss_weight(self, node: cst.Call, ctx: RuleContext) -> None:
        """``criterion(logits, y)`` of a ``CrossEntropyLoss(weight=w)`` whose class weights have
        another precision than the logits (numpy class statistics are float64)."""
        callee = ctx.callee(node)
        if callee is None or callee.kind != "module" or not isinstance(callee.receiver, ModuleValue) \
                or callee.args.has_star or callee.receiver.short_name not in WEIGHTED_LOSSES:
            return
        x, weight = callee.args.get(0, "input"), callee.receiver.stored.get("weight")
        if not isinstance(weight, TensorValue) or mismatch_kind(x, weight) != "precision":
            return
        x_dtype, w_dtype = one(x), one(weight)
        says = _same_dtype_message("torch.nn.functional.cross_entropy", "input", "weight", x_dtype, w_dtype)
        self.flag(ctx, node,
                  f"`{callee.receiver.short_name}` was built with class weights of {show(weight)}"
                  f"{origin_note(weight)} but gets {show(x)} input: torch raises RuntimeError "
                  f"(\"{says}\"); build the weights as {show(x)} (`torch.tensor(w, dtype=...)` or "
                  f"`.to(logits.dtype)`)", origin=weight.origin)

    def _same_dtype_operands(self, node: cst.Call, ctx: RuleContext) -> None:
        """``a.lerp_(b, w)`` and the other elementwise ops that refuse to promote."""
        call = ctx.op_call(node)
        if call is None or call.has_star or call.op not in SAME_DTYPE_OPERANDS:
            return
        first = SAME_DTYPE_FIRST.get(call.op, "input")
        x = call.arg(first)
        norm = call.op.endswith("_norm")
        for param in SAME_DTYPE_OPERANDS[call.op]:
            other, other_node = call.arg(param), call.arg_node(param)
            if other_node is None or not isinstance(other, TensorValue) or mismatch_kind(x, other) != "precision":
                continue
            if param == "weight" and not norm and other.shape == ():
                continue  # a 0-dim lerp weight takes part in promotion like a number
            if norm and not all(_norm_rejects(xd, pd) for xd, pd in pairs(x, other)):
                continue
            x_dtype, o_dtype = one(x), one(other)
            says = _same_dtype_message(call.op, first, param, x_dtype, o_dtype)
            if "conv" in call.op and call.arg_node("bias") is not None and x_dtype and o_dtype:
                # with a bias (of the filter's dtype) torch names the bias
                says = f"Input type ({_CPP_DTYPE_NAMES[x_dtype]}) and bias type ({_CPP_DTYPE_NAMES[o_dtype]}) " \
                       "should be the same"
            quoted = f' ("{says}")' if says else ""  # nothing where the CPU decides the wording
            fix = None
            if castable(x_dtype):
                fix = Fix(other_node, cast_expr(other_node, x_dtype), f"Convert `{param}` to {x_dtype}", safe=False)
            origin = _unusual_origin(x, other)
            x_note = origin_note(x) if origin is x.origin else ""
            other_note = origin_note(other) if origin is not x.origin else ""
            self.flag(ctx, node,
                      f"`{call.label}` does not promote: its `{first}` is {show(x)}{x_note} but `{param}` "
                      f"(`{code(other_node, 30)}`) is {show(other)}{other_note}: torch raises "
                      f"RuntimeError{quoted}; convert it: "
                      f"`{cast_text(code(other_node, 30), x_dtype) if x_dtype else code(other_node, 30)}`",
                      origin=origin, fix=fix)
            return

    def _layer(self, node: cst.Call, ctx: RuleContext) -> None:
        found = module_call(ctx, node)
        if found is None:
            return
        layer, x, x_node, path, outer = found
        params = layer.param_dtypes
        if not params or not all(is_float(p) for p in params):
            return
        weights = TensorValue(params)
        name = layer.short_name
        if name in MATMUL_LAYERS:
            if mismatch_kind(x, weights) != "precision":
                return
        elif name in NORM_LAYERS:
            xs = dtypes_of(x)
            if xs is None or not all(is_float(d) for d in xs) or not all(
                    _norm_rejects(xd, pd) for xd, pd in pairs(x, weights)):
                return
        else:
            return
        x_dtype, p_dtype = one(x), one(weights)
        blame_model = x_dtype == FLOAT32 and layer.dtype_origin is not layer.origin
        origin = layer.dtype_origin if blame_model else x.origin
        where = f"`{name}`" + (f" (layer {path} of the nn.Sequential)" if path else "")
        if blame_model:
            source = f"the parameters are {show(weights)}{origin_note(layer)}"
            hint = (f"convert the input (`{cast_text(code(x_node, 30), p_dtype)}`) or leave the model float32"
                    if p_dtype and x_node is not None else "convert the input or the model")
        else:
            source = f"the input is {show(x)}{origin_note(x)}"
            hint = (f"convert the input: `{cast_text(code(x_node, 30), p_dtype)}`"
                    if p_dtype and x_node is not None else "convert the input to the parameters' dtype")
        fix = None
        if castable(p_dtype) and x_node is not None and not blame_model:
            fix = Fix(x_node, cast_expr(x_node, p_dtype), f"Convert the input to {p_dtype}", safe=False)
        self.flag(ctx, node,
                  f"{where} has {show(weights)} parameters but gets a {show(x)} input: torch raises "
                  f"RuntimeError{_quoted(layer_message(layer, x_dtype, p_dtype))}; {source}; {hint}",
                  origin=origin, fix=fix)

    def flag(self, ctx: RuleContext, node: Any, message: str, origin: Any = None, fix: Any = None) -> None:
        # A low-precision operand that autocast produced is TTL402's report, not this one's.
        if _from_autocast(origin) != self.autocast_escape:
            return
        if self.autocast_escape:
            message += ("; it was computed inside a torch.autocast region and keeps autocast's dtype "
                        "after the region ends: convert it with `.float()` or move this op into the region")
        super().flag(ctx, node, message, origin, fix)


def _same_dtype_message(op: str, first: str, param: str, x_dtype: Any, o_dtype: Any) -> Optional[str]:
    """What torch says when ``param`` of ``op`` does not have ``first``'s dtype (CPU wording;
    cut before the dtype names when they are not single); None where the CPU decides the wording."""
    if op.endswith("_norm"):
        return "mixed dtype (CPU): all inputs must share same datatype."
    if x_dtype is None or o_dtype is None:
        return "to have the same dtype" if op != "torch.lerp" else "expected dtype"
    if "conv" in op:  # F.conv2d(x, w) without a bias: as the layer (with one, the caller names the bias)
        said = conv_kernel_message(x_dtype, o_dtype, transposed="transpose" in op)
        return said.variants[0] if said else None
    if op.endswith(("cross_entropy", "nll_loss")):
        return f"expected scalar type {scalar_type_name(x_dtype)} but found {scalar_type_name(o_dtype)}"
    if op == "torch.lerp":
        return f"expected dtype {_CPP_DTYPE_NAMES[x_dtype]} for `{param}` but got dtype {_CPP_DTYPE_NAMES[o_dtype]}"
    x_name, o_name = scalar_type_name(x_dtype), scalar_type_name(o_dtype)
    if op == "torch.linalg.solve":
        return f"Expected A and B to have the same dtype, but found A of type {x_name} and B of type {o_name}"
    # cholesky_solve(B, L): torch says b and A
    return f"Expected b and A to have the same dtype, but found b of type {x_name} and A of type {o_name}"


def _unusual_origin(a: TensorValue, b: TensorValue) -> Any:
    """The provenance of the operand that is not float32 (the odd one out), else of either."""
    first, second = (b, a) if one(a) == FLOAT32 else (a, b)
    return first.origin if first.origin is not None else second.origin


def _from_autocast(origin: Any) -> bool:
    link, seen = origin, 0
    while link is not None and seen < 12:
        if "computed under torch.autocast" in (link.note or ""):
            return True
        link, seen = link.parent, seen + 1
    return False
