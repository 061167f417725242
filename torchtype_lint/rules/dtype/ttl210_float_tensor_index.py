"""TTL210 float-tensor-index: tensor indexed with a float tensor or a Python float."""
from __future__ import annotations

from typing import Any

import libcst as cst

from ...model.findings import Fix
from ...model.values import BOOL, INT32, INT64, UINT8, ScalarValue, TensorValue
from ..base import RuntimeClaim, register
from ..dtype_names import origin_note, show
from ..dtype_predicates import all_dtypes
from ..dtype_rule import DtypeRule
from ..source_edits import cast_expr, code
from ..context import RuleContext

_INDEXING_OK = (INT64, INT32, UINT8, BOOL)


@register
class FloatTensorIndex(DtypeRule):
    """
    ## What it does
    Flags indexing a tensor with a floating-point (or int8/int16) index tensor, or with a
    Python float: `x[idx]` where `idx` is float32, `x[i / 2]`.

    ## Why is this bad?
    Tensor indices must be int64, int32, uint8 or bool: `IndexError: tensors used as
    indices must be long, int, byte or bool tensors`, and Python floats are rejected with
    `IndexError: only integers, slices (`:`), ellipsis (`...`), None and long or byte
    Variables are valid indices (got float)`. Float indices usually come from true division
    (`/`), which always gives floats, or from `torch.tensor` of float literals.

    ## Example
    ```python
    x = torch.randn(10)
    idx = torch.arange(10) / 2
    picked = x[idx]
    ```

    ## Use instead
    ```python
    idx = torch.arange(10) // 2
    picked = x[idx]
    ```

    ## Fix safety
    Unsafe: the fix converts an index tensor with `.long()`, truncating fractions.
    """

    code = "TTL210"
    name = "float-tensor-index"
    summary = "tensor indexed with a float tensor or a Python float"
    severity = "error"
    listens = (cst.Subscript, cst.Assign)
    fix_safety = "unsafe"
    runtime = RuntimeClaim("IndexError", r"tensors used as indices must be long, int, byte or bool tensors|"
                                         r"are valid indices \(got float\)")

    def visit(self, node: Any, ctx: RuleContext) -> None:
        if isinstance(node, cst.Assign):
            for target in node.targets:
                if isinstance(target.target, cst.Subscript):
                    self._check(target.target, ctx, node)
            return
        self._check(node, ctx, node)

    def _check(self, sub: cst.Subscript, ctx: RuleContext, report_node: Any) -> None:
        container = ctx.value(sub.value)
        if not isinstance(container, TensorValue):
            return
        for element in sub.slice:
            if not isinstance(element.slice, cst.Index):
                continue
            index_node = element.slice.value
            index = ctx.value(index_node)
            if isinstance(index, ScalarValue) and index.pytype == "float" and _computed_float(index_node, index):
                self.flag(ctx, report_node,
                          f"indexing `{code(sub.value, 30)}` with the Python float `{code(index_node, 30)}` "
                          "raises IndexError (\"only integers, slices (`:`), ellipsis (`...`), None and long or "
                          f"byte Variables are valid indices (got float)\"); use an int: `int({code(index_node, 30)})` "
                          "or `//` instead of `/`")
                return
            if all_dtypes(index, lambda d: d not in _INDEXING_OK):
                fix = Fix(index_node, cast_expr(index_node, INT64), "Convert the index with `.long()`", safe=False)
                self.flag(ctx, report_node,
                          f"indexing `{code(sub.value, 30)}` with a {show(index)} tensor{origin_note(index)} "
                          "raises IndexError (\"tensors used as indices must be long, int, byte or bool "
                          f"tensors\"); use `{code(index_node, 30)}.long()`",
                          origin=index.origin, fix=fix)
                return


def _computed_float(node: Any, value: ScalarValue) -> bool:
    """A float the file computes here (`x[n / 2]`, `x[1.0]`), not one a parameter annotation
    promises (`i: float` is often a loose annotation of an int)."""
    return value.const is not None or (isinstance(node, cst.BinaryOperation)
                                       and isinstance(node.operator, cst.Divide))
