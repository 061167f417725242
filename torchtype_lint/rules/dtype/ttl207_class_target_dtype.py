"""TTL207 class-target-dtype: cross_entropy/nll_loss target of the wrong dtype (class indices are int64)."""
from __future__ import annotations

from typing import Any

import libcst as cst

from ...model.findings import Fix
from ...model.values import FLOAT32, INT64, UINT8, TensorValue, Value, Category, category
from ..torch_messages import TorchMessage
from ..base import RuntimeClaim, register
from ..dtype_names import one, origin_note, said, scalar_type_name, show
from ..dtype_predicates import all_dtypes, dtypes_of, is_float, rank
from ..dtype_rule import DtypeRule
from ..source_edits import cast_expr, cast_text, code
from .losses import loss_call, loss_ops
from ..context import RuleContext

_CLASS_LOSSES = ("cross_entropy", "nll_loss")


@register
class ClassTargetDtype(DtypeRule):
    """
    ## What it does
    Flags class-index targets of `F.cross_entropy`, `F.nll_loss`, `nn.CrossEntropyLoss` and
    `nn.NLLLoss` that have the wrong dtype: float targets of class indices (one dimension
    fewer than the input), int32/int16/int8/bool targets, and int64 one-hot targets of the
    input's shape given to cross-entropy.

    ## Why is this bad?
    Class indices must be int64 (or uint8): `RuntimeError: expected target dtype to be Long
    or Byte, but got Float` (or `... but got Int` for int32, a common result of numpy
    `astype(np.int32)` or `dtype=torch.int`). A target with the input's shape is read as
    class *probabilities*, which must be floating point: `Expected floating point type for
    target with class probabilities, got Long`.

    ## Example
    ```python
    logits = model(x)                     # (N, C) float32
    labels = torch.tensor([0., 2., 1.])   # float class indices
    loss = F.cross_entropy(logits, labels)
    ```

    ## Use instead
    ```python
    loss = F.cross_entropy(logits, labels.long())
    ```

    ## Fix safety
    Unsafe: the fix converts the target (`.long()` for class indices, `.float()` for
    one-hot targets); float class labels that are not whole numbers get truncated.
    """

    code = "TTL207"
    name = "class-target-dtype"
    summary = "cross_entropy/nll_loss target of the wrong dtype (class indices must be int64)"
    severity = "error"
    listens = (cst.Call,)
    ops = loss_ops(_CLASS_LOSSES)
    fix_safety = "unsafe"
    # torch 2.13's wording, then torch 2.11's (and older) for the same check.
    runtime = RuntimeClaim("RuntimeError", r"expected target dtype to be Long or Byte|"
                                           r"Expected floating point type for target with class probabilities|"
                                           r"expected scalar type Long but found \w+",
                           pattern_devices=("cpu",))

    def visit(self, node: cst.Call, ctx: RuleContext) -> None:
        found = loss_call(ctx, node, _CLASS_LOSSES)
        if found is None:
            return
        name, shown, call = found
        logits, target = call.arg("input"), call.arg("target")
        target_node = call.arg_node("target")
        dtypes = dtypes_of(target)
        if dtypes is None:
            return
        unknown_input = dtypes_of(logits) is None or (all_dtypes(logits, is_float) and rank(logits) is None)
        if name == "nll_loss" and unknown_input and \
                all(d not in (INT64, UINT8) and category(d) <= Category.FLOAT for d in dtypes):
            # nll_loss takes class indices only (no probabilities): any other target dtype fails
            # whatever the input is, which may then be unknown
            self._report(ctx, node, shown, target, target_node, INT64,
                         "expected target dtype to be Long or Byte, but got "
                         f"{scalar_type_name(one(target)) if one(target) else '...'}")
            return
        if name == "cross_entropy" and unknown_input and \
                all(category(d) <= Category.INT and d not in (INT64, UINT8) for d in dtypes):
            # an int32/int16/int8/bool target fails whatever the input: torch reads it as class
            # indices (Long or Byte only) or, with the input's shape, as probabilities (float only)
            t = one(target)
            got = scalar_type_name(t) if t else None
            wordings = TorchMessage.of(
                "expected target dtype to be Long or Byte" + (f", but got {got}" if got else ""),
                "Expected floating point type for target with class probabilities" + (f", got {got}" if got else ""))
            self._report(ctx, node, shown, target, target_node, INT64, "", quoted=wordings.quoted())
            return
        if not isinstance(logits, TensorValue) or not all_dtypes(logits, is_float):
            return
        lr, tr = rank(logits), rank(target)
        cross_entropy = name == "cross_entropy"
        message, want = None, None
        if cross_entropy and all(category(d) <= Category.INT and d not in (INT64, UINT8) for d in dtypes) and \
                lr is not None and tr == lr and lr >= 1:
            # Same shape as the input: read as class probabilities, which must be float.
            t = one(target)
            message = ("Expected floating point type for target with class probabilities, got "
                       f"{scalar_type_name(t) if t else 'Int'}")
            want = FLOAT32
        elif all(category(d) <= Category.INT and d not in (INT64, UINT8) for d in dtypes):
            t = one(target)
            message = (f"expected target dtype to be Long or Byte, but got {scalar_type_name(t)}" if t
                       else "expected target dtype to be Long or Byte")
            want = INT64
        elif all(is_float(d) for d in dtypes) and lr is not None and tr is not None and tr == lr - 1:
            t = one(target)
            message = f"expected target dtype to be Long or Byte, but got {scalar_type_name(t) if t else 'Float'}"
            want = INT64
        elif cross_entropy and all(d in (INT64, UINT8) for d in dtypes) and lr is not None and tr == lr \
                and lr >= 1 and _same_class_dim(logits, target):
            message = ("Expected floating point type for target with class probabilities, got "
                       f"{scalar_type_name(one(target)) if one(target) else 'Long'}")
            want = FLOAT32
        if message is None:
            return
        self._report(ctx, node, shown, target, target_node, want, message)

    def _report(self, ctx: RuleContext, node: cst.Call, shown: str, target: Value, target_node: Any,
                want: str, message: str, quoted: str = "") -> None:
        fix = None
        if target_node is not None:
            fix = Fix(target_node, cast_expr(target_node, want),
                      f"Convert the target: `{cast_text(code(target_node, 30), want)}`", safe=False)
        meaning = ("class indices must be int64" if want == INT64
                   else "a target of the input's shape holds class probabilities, which must be float")
        self.flag(ctx, node,
                  f"`{shown}` target is {show(target)}{origin_note(target)} but {meaning}: torch raises "
                  f"RuntimeError ({quoted or said(message)}); use "
                  f"`{cast_text(code(target_node, 30) if target_node is not None else 'target', want)}`",
                  origin=target.origin, fix=fix)


def _same_class_dim(a: Value, b: Value) -> bool:
    """An int64 target of the logits' rank is read as class probabilities only when its class
    dimension is known to equal the logits'; an (N, 1) target of (N, C) logits, or of logits
    whose C is unknown, fails as a class-index column instead (torch: "0D or 1D target tensor
    expected", TTL512's case), so which message torch prints is not known here."""
    if not isinstance(a, TensorValue) or not isinstance(b, TensorValue) or a.shape is None or b.shape is None:
        return False
    if len(a.shape) != len(b.shape) or not a.shape:
        return False
    axis = 1 if len(a.shape) >= 2 else 0  # (N, C, ...) or unbatched (C,)
    ca, cb = a.shape[axis], b.shape[axis]
    if not (isinstance(ca, int) and isinstance(cb, int) and ca == cb):
        return False
    return not any(isinstance(x, int) and isinstance(y, int) and x != y for x, y in zip(a.shape, b.shape))
