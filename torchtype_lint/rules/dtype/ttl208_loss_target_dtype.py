"""TTL208 loss-target-dtype: BCE / BCEWithLogits / Huber loss target of a dtype torch rejects."""
from __future__ import annotations


import libcst as cst

from ...model.findings import Fix
from ...model.values import FLOAT32, Value
from ..base import RuntimeClaim, register
from ..dtype_names import one, origin_note, said, scalar_type_name, show
from ..dtype_predicates import all_dtypes, dtypes_of, is_bool, is_float, is_int_or_bool, never_equal
from ..dtype_rule import DtypeRule
from ..source_edits import cast_expr, cast_text, code
from .losses import loss_call, loss_ops
from ..context import RuleContext

_BINARY_LOSSES = ("binary_cross_entropy", "binary_cross_entropy_with_logits", "huber_loss")


@register
class LossTargetDtype(DtypeRule):
    """
    ## What it does
    Flags loss targets whose dtype torch rejects for that loss:
    `F.binary_cross_entropy` / `nn.BCELoss` with a target dtype different from the input's
    (int64 labels, or float64 labels from numpy against float32 predictions);
    `F.binary_cross_entropy_with_logits` / `nn.BCEWithLogitsLoss` with integer or bool
    targets (both BCE losses reject those whatever the input's dtype, so the input's dtype
    need not be known); `F.huber_loss` / `nn.HuberLoss` with input and target of different dtypes
    (outside `torch.no_grad()`).

    ## Why is this bad?
    `BCELoss` raises `RuntimeError: Found dtype Long but expected Float` in the forward
    pass; `BCEWithLogitsLoss` raises `result type Float can't be cast to the desired output
    type Long` for integer targets. `huber_loss` computes the forward pass, then
    `backward()` raises `Found dtype Double but expected Float`. (MSE, L1, smooth L1 and
    BCE-with-logits accept a float64 target in torch 2.13 and are not flagged.)

    ## Example
    ```python
    probs = torch.sigmoid(model(x))          # float32
    labels = torch.randint(0, 2, (4, 1))     # int64
    loss = F.binary_cross_entropy(probs, labels)
    ```

    ## Use instead
    ```python
    loss = F.binary_cross_entropy(probs, labels.float())
    ```

    ## Fix safety
    Unsafe: the fix converts the target with `.float()` when the input is float32.
    """

    code = "TTL208"
    name = "loss-target-dtype"
    summary = "BCE / BCEWithLogits / Huber loss target of a dtype torch rejects"
    severity = "error"
    listens = (cst.Call,)
    ops = loss_ops(_BINARY_LOSSES)
    fix_safety = "unsafe"
    runtime = RuntimeClaim("RuntimeError", r"Found dtype \w+ but expected \w+|result type \w+ can't be cast|"
                                           r"Subtraction, the `-` operator, with two bool tensors",
                           pattern_devices=("cpu",))

    def visit(self, node: cst.Call, ctx: RuleContext) -> None:
        found = loss_call(ctx, node, _BINARY_LOSSES)
        if found is None:
            return
        name, shown, call = found
        pred, target = call.arg("input"), call.arg("target")
        target_node = call.arg_node("target")
        if dtypes_of(target) is None or (dtypes_of(pred) is not None and not all_dtypes(pred, is_float)):
            return  # an integer or bool input fails first, in its own kernel: TTL250's finding
        if all_dtypes(target, is_int_or_bool) and name != "huber_loss":
            # Both BCE losses reject integer and bool targets whatever the input's dtype (the
            # input's dtype only changes which message torch prints), so the input may be unknown.
            message = _integer_target_message(name, pred, target)
            when = "raises RuntimeError"
        elif dtypes_of(pred) is None:
            return
        elif name == "huber_loss":
            if not never_equal(pred, target) or ctx.in_no_grad:
                return
            p, t = one(pred), one(target)
            when = "computes the loss, but `backward()` raises RuntimeError"
            message = (f"Found dtype {scalar_type_name(t)} but expected {scalar_type_name(p)}"
                       if t and p else "Found dtype ... but expected ...")
        elif name == "binary_cross_entropy" and one(pred) is not None and never_equal(pred, target):
            t = one(target)
            message = (f"Found dtype {scalar_type_name(t)} but expected {scalar_type_name(one(pred))}" if t
                       else f"Found dtype ... but expected {scalar_type_name(one(pred))}")
            when = "raises RuntimeError"
        else:
            return
        p = one(pred)
        if message is None:
            return
        fix = None
        if p == FLOAT32 and target_node is not None:
            fix = Fix(target_node, cast_expr(target_node, FLOAT32), "Convert the target with `.float()`",
                      safe=False)
        target_text = code(target_node, 30) if target_node is not None else "target"
        described = (f"a {show(pred)} input and a {show(target)} target" if dtypes_of(pred) is not None
                     else f"a {show(target)} target (whatever the input's dtype)")
        self.flag(ctx, node,
                  f"`{shown}` with {described}{origin_note(target)} "
                  f"{when} (torch: {said(message)}); convert the target: "
                  f"`{cast_text(target_text, p if p is not None and is_float(p) else FLOAT32)}`",
                  origin=target.origin, fix=fix)


def _integer_target_message(name: str, pred: Value, target: Value) -> str:
    """What torch says for an integer or bool target of a BCE loss with a float (or unknown) input."""
    p, t = one(pred), one(target)
    if name == "binary_cross_entropy":
        # torch names the input's dtype last: quote up to there when it is unknown
        return f"Found dtype {scalar_type_name(t) if t else '...'} but expected" + (
            f" {scalar_type_name(p)}" if p else "")
    if all_dtypes(target, is_bool):
        return "Subtraction, the `-` operator, with two bool tensors is not supported"
    return f"result type Float can't be cast to the desired output type {scalar_type_name(t) if t else 'Long'}"
