"""TTL215 empty-list-tensor-index: a tensor made from a list the data may leave empty is float32
then, and it is used as an index or a class target."""
from __future__ import annotations

from typing import Any, Optional

import libcst as cst

from ...model.values import TensorValue, Value, is_integral
from ..base import RuntimeClaim, register
from ..context import RuleContext
from ..dtype_predicates import all_dtypes
from ..dtype_rule import DtypeRule
from ..source_edits import code
from .losses import loss_call, loss_ops
from .maybe_empty_lists import EmptyPath, describe, empty_list_tensor

#: Losses whose target must hold class indices (int64) for a 2-D input.
_CLASS_LOSSES = ("cross_entropy", "nll_loss")


@register
class EmptyListTensorIndex(DtypeRule):
    """
    ## What it does
    Warns about `torch.tensor(lst)` without `dtype=` where `lst` is filled only under a
    condition (`if ...: lst.append(i)`, `[i for i in ... if ...]`) and the tensor is used as an
    index (`x[idx]`) or as the class target of `cross_entropy` / `nll_loss`.

    ## Why is this bad?
    torch infers the dtype from the elements: int64 for ints, but an empty list has none, and
    `torch.tensor([])` is float32. On the run where no item passes the condition (no box above
    the threshold, no sample of a class in the batch), indexing raises `IndexError: tensors
    used as indices must be long, int, byte or bool tensors` and the loss raises `RuntimeError:
    expected target dtype to be Long or Byte, but got Float` (torch 2.13; 2.11 words it
    `expected scalar type Long but found Float`), or, under torch 2.4, returns a NaN loss that
    poisons the weights. The warning names that path; a list that the code checks for
    emptiness (`if keep:`, `len(keep)`) before it becomes the tensor is not reported, and one
    the code tests for emptiness only after that (`max(len(keep), 1)`, `... if len(keep) else
    ...`) is: the code expects it may be empty, and nothing guards the index.

    ## Example
    ```python
    keep = []
    for i in range(len(scores)):
        if scores[i] > 0.5:
            keep.append(i)
    boxes = boxes[torch.tensor(keep)]
    ```

    ## Use instead
    ```python
    boxes = boxes[torch.tensor(keep, dtype=torch.long)]
    ```
    """

    code = "TTL215"
    name = "empty-list-tensor-index"
    summary = "index or class target made by torch.tensor of a list that may be empty (float32 then)"
    severity = "warning"
    listens = (cst.Subscript, cst.Call)
    #: Only calls of the class losses reach ``visit`` (subscripts all do).
    ops = loss_ops(_CLASS_LOSSES)
    # The bad target fixture asserts a finite loss: torch 2.4 returns NaN where later ones raise.
    runtime = RuntimeClaim("Exception", r"tensors used as indices must be long|expected target dtype to be Long|"
                                        r"expected scalar type Long|the loss of an empty batch is NaN")

    def visit(self, node: Any, ctx: RuleContext) -> None:
        if isinstance(node, cst.Subscript):
            if not isinstance(ctx.value(node.value), TensorValue):
                return
            for element in node.slice:
                if isinstance(element.slice, cst.Index):
                    index = ctx.value(element.slice.value)
                    path = _empty_path(index, ctx)
                    if path is not None:
                        self._warn(ctx, node, path, f"indexing `{code(node.value, 30)}` with it raises IndexError "
                                                    "(\"tensors used as indices must be long, int, byte or bool "
                                                    "tensors\")")
                        return
            return
        found = loss_call(ctx, node, _CLASS_LOSSES)
        if found is None:
            return
        _, shown, call = found
        path = _empty_path(call.arg("target"), ctx)
        if path is not None:
            self._warn(ctx, node, path, f"`{shown}` with it as the target raises RuntimeError (\"expected target "
                                        "dtype to be Long or Byte, but got Float\"; torch 2.4 returns NaN instead)")

    def _warn(self, ctx: RuleContext, node: Any, path: EmptyPath, failure: str) -> None:
        self.flag(ctx, node, f"{path.when}, `{describe(path)}` is float32 (an empty list has no ints to infer "
                             f"int64 from) and {failure}; give the dtype: `dtype=torch.long`")


def _empty_path(value: Value, ctx: RuleContext) -> Optional[EmptyPath]:
    """The empty-list path of an int tensor the engine knows, else None."""
    if not isinstance(value, TensorValue) or not all_dtypes(value, lambda d: is_integral(d, include_bool=False)):
        return None
    return empty_list_tensor(value.origin, ctx)
