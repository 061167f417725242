"""TTL208 loss-target-dtype: BCE / BCEWithLogits / Huber loss target of a dtype torch rejects."""
from __future__ import annotations


import libcst as cst

from ...findings import Fix
from ...values import FLOAT32, Category, category
from ..base import RuntimeClaim, register
from ..dtype_names import one, origin_note, said, scalar_type_name, show
from ..dtype_predicates import all_dtypes, dtypes_of, is_bool, is_float, never_equal
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
    targets; `F.huber_loss` / `nn.HuberLoss` with input and target of different dtypes
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
        if not all_dtypes(pred, is_float) or dtypes_of(target) is None:
            return
        p, t = one(pred), one(target)
        message = None
        when = "raises RuntimeError"
        if name == "binary_cross_entropy":
            if p is not None and never_equal(pred, target):
                message = (f"Found dtype {scalar_type_name(t)} but expected {scalar_type_name(p)}" if t
                           else f"Found dtype ... but expected {scalar_type_name(p)}")
        elif name == "binary_cross_entropy_with_logits":
            if all_dtypes(target, lambda d: category(d) == Category.INT):
                message = (f"result type Float can't be cast to the desired output type "
                           f"{scalar_type_name(t) if t else 'Long'}")
            elif all_dtypes(target, is_bool):
                message = "Subtraction, the `-` operator, with two bool tensors is not supported"
        else:
            if never_equal(pred, target) and not ctx.in_no_grad:
                when = "computes the loss, but `backward()` raises RuntimeError"
                message = (f"Found dtype {scalar_type_name(t)} but expected {scalar_type_name(p)}"
                           if t and p else "Found dtype ... but expected ...")
        if message is None:
            return
        fix = None
        if p == FLOAT32 and target_node is not None:
            fix = Fix(target_node, cast_expr(target_node, FLOAT32), "Convert the target with `.float()`",
                      safe=False)
        target_text = code(target_node, 30) if target_node is not None else "target"
        self.flag(ctx, node,
                  f"`{shown}` with a {show(pred)} input and a {show(target)} target{origin_note(target)} "
                  f"{when} (torch: {said(message)}); convert the target: "
                  f"`{cast_text(target_text, p or FLOAT32)}`",
                  origin=target.origin, fix=fix)
