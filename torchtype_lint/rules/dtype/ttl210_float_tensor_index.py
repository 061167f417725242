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
    Python float: `x[idx]` where `idx` is float32, `x[i / 2]`; and slicing it with a float bound:
    a one-element float tensor (`img[:, c[1] - h:c[1] + h]` of float landmarks) or a computed
    Python float (`x[n / 2:]`).

    ## Why is this bad?
    Tensor indices must be int64, int32, uint8 or bool: `IndexError: tensors used as
    indices must be long, int, byte or bool tensors`, and Python floats are rejected with
    `IndexError: only integers, slices (`:`), ellipsis (`...`), None and long or byte
    Variables are valid indices (got float)`; a float slice bound raises `TypeError: only integer
    tensors of a single element can be converted to an index` (a tensor) or `slice indices must
    be integers or None or have an __index__ method` (a float). Float indices usually come from true division
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
    runtime = RuntimeClaim("Exception", r"tensors used as indices must be long, int, byte or bool tensors|"
                                        r"are valid indices \(got float\)|"
                                        r"only integer tensors of a single element can be converted to an index|"
                                        r"slice indices must be integers")

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
            if isinstance(element.slice, cst.Slice):
                if self._slice_bound(sub, element.slice, ctx, report_node):
                    return
                continue
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


    def _slice_bound(self, sub: cst.Subscript, bounds: cst.Slice, ctx: RuleContext, report_node: Any) -> bool:
        """A slice bound that is a float: a one-element float tensor (``center[i, 1] - h`` of float
        landmarks) or a Python float the file computes (``n / 2``). True when reported."""
        for bound in (bounds.lower, bounds.upper, bounds.step):
            if bound is None:
                continue
            value = ctx.value(bound)
            if isinstance(value, TensorValue) and value.shape is not None and all(d == 1 for d in value.shape) \
                    and all_dtypes(value, lambda d: d not in (INT64, INT32, UINT8, BOOL, "int16", "int8")):
                self.flag(ctx, report_node,
                          f"slicing `{code(sub.value, 30)}` with the {show(value)} tensor `{code(bound, 30)}`"
                          f"{origin_note(value)} as a bound raises TypeError (\"only integer tensors of a single "
                          f"element can be converted to an index\"); use `int({code(bound, 30)})` or make it an "
                          "integer tensor", origin=value.origin)
                return True
            if isinstance(value, ScalarValue) and value.pytype == "float" and _computed_float(bound, value):
                self.flag(ctx, report_node,
                          f"slicing `{code(sub.value, 30)}` with the Python float `{code(bound, 30)}` as a bound "
                          "raises TypeError (\"slice indices must be integers or None or have an __index__ "
                          f"method\"); use an int: `int({code(bound, 30)})` or `//` instead of `/`")
                return True
        return False


def _computed_float(node: Any, value: ScalarValue) -> bool:
    """A float the file computes here (`x[n / 2]`, `x[1.0]`), not one a parameter annotation
    promises (`i: float` is often a loose annotation of an int)."""
    return value.const is not None or (isinstance(node, cst.BinaryOperation)
                                       and isinstance(node.operator, cst.Divide))
