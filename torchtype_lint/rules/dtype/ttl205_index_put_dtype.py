"""TTL205 index-put-dtype: index/mask assignment or scatter with a source tensor of another dtype."""
from __future__ import annotations

from typing import Any

import libcst as cst

from ...model.findings import Fix
from ...model.values import ScalarValue, SequenceValue, TensorValue, Value, Category, category
from ..base import RuntimeClaim, register
from ..dtype_names import one, origin_note, said, scalar_type_name, show
from ..dtype_predicates import all_dtypes, never_equal, rank
from ..dtype_rule import DtypeRule
from ..source_edits import code
from ..context import RuleContext

_SCATTER_METHODS = {
    # method -> (source position, source keyword, torch message template)
    "index_add_": (2, "source", "index_add_(): self ({d}) and source ({s}) must have the same scalar type"),
    "index_add": (2, "source", "index_add_(): self ({d}) and source ({s}) must have the same scalar type"),
    "index_copy_": (2, "source", "index_copy_(): self and source expected to have the same dtype, but got (self) {d} and (source) {s}"),
    "index_copy": (2, "source", "index_copy_(): self and source expected to have the same dtype, but got (self) {d} and (source) {s}"),
    "scatter_": (2, "src", "scatter(): Expected self.dtype to be equal to src.dtype"),
    "scatter": (2, "src", "scatter(): Expected self.dtype to be equal to src.dtype"),
    "scatter_add_": (2, "src", "scatter(): Expected self.dtype to be equal to src.dtype"),
    "scatter_add": (2, "src", "scatter(): Expected self.dtype to be equal to src.dtype"),
    "masked_scatter_": (1, "source", "masked_scatter: expected self and source to have same dtypes but got{d} and {s}"),
    "masked_scatter": (1, "source", "masked_scatter: expected self and source to have same dtypes but got{d} and {s}"),
    "index_put_": (1, "values", "Index put requires the source and destination dtypes match, got {d} for the destination and {s} for the source."),
    "index_put": (1, "values", "Index put requires the source and destination dtypes match, got {d} for the destination and {s} for the source."),
}


def _fill(template: str, dest: Value, src: Value) -> str:
    d, s = one(dest), one(src)
    if d is None or s is None:
        return template.split(",")[0].replace("({d})", "").replace("({s})", "")
    return template.format(d=scalar_type_name(d), s=scalar_type_name(s))


@register
class IndexPutDtype(DtypeRule):
    """
    ## What it does
    Flags writes through an index tensor or mask whose source tensor has another dtype
    than the destination: `x[idx] = t`, `x[mask] = t`, `index_put_`, `index_add_`,
    `index_copy_`, `scatter_`, `scatter_add_`, `masked_scatter_`.

    ## Why is this bad?
    These ops require exactly matching dtypes, even float64 into float32: `RuntimeError:
    Index put requires the source and destination dtypes match, got Float for the
    destination and Double for the source`. (Basic slicing such as `x[0:2] = t` and
    scalar values cast silently and are not flagged.)

    ## Example
    ```python
    x = torch.zeros(3)
    x[torch.tensor([0, 1])] = torch.ones(2, dtype=torch.float64)
    ```

    ## Use instead
    ```python
    x[torch.tensor([0, 1])] = torch.ones(2, dtype=torch.float64).to(x.dtype)
    ```

    ## Fix safety
    Unsafe: `x[idx] = t` becomes `x[idx] = t.to(x.dtype)`, which may round or truncate the
    values of `t`.
    """

    code = "TTL205"
    name = "index-put-dtype"
    summary = "index/mask assignment or scatter with a source tensor of another dtype"
    severity = "error"
    listens = (cst.Assign, cst.Call)
    fix_safety = "unsafe"
    runtime = RuntimeClaim("RuntimeError", r"Index put requires the source and destination dtypes match|"
                                           r"must have the same scalar type|Expected self\.dtype to be equal to src\.dtype|"
                                           r"expected to have the same dtype|to have same dtypes")

    def visit(self, node: Any, ctx: RuleContext) -> None:
        if isinstance(node, cst.Assign):
            for target in node.targets:
                if isinstance(target.target, cst.Subscript):
                    self._assign(node, target.target, ctx)
            return
        callee = ctx.callee(node)
        if callee is None or callee.kind != "method" or callee.name not in _SCATTER_METHODS \
                or not isinstance(callee.receiver, TensorValue) or callee.args.has_star:
            return
        position, keyword, template = _SCATTER_METHODS[callee.name]
        src = callee.args.get(position, keyword)
        dest = callee.receiver
        if not never_equal(dest, src):
            return
        self.flag(ctx, node,
                  f"`.{callee.name}()` raises RuntimeError: the destination is {show(dest)} but the "
                  f"source is {show(src)}{origin_note(src)} (torch: {said(_fill(template, dest, src))}); "
                  f"convert the source with `.to({code(node.func.value, 20)}.dtype)`",
                  origin=src.origin)

    def _assign(self, stmt: cst.Assign, target: cst.Subscript, ctx: RuleContext) -> None:
        dest = ctx.value(target.value)
        src = ctx.value(stmt.value)
        if not isinstance(dest, TensorValue) or not never_equal(dest, src):
            return
        index_values = [ctx.value(el.slice.value) for el in target.slice if isinstance(el.slice, cst.Index)]
        tensors = [v for v in index_values if isinstance(v, TensorValue)]
        int_lists = [v for v in index_values if _is_int_list(v)]
        if not tensors and not int_lists:
            return  # basic indexing casts silently
        src_rank = rank(src)
        # A list of ints indexes like an int64 tensor (measured: even an empty list, even a 0-dim source).
        integer_index = all(all_dtypes(t, lambda d: category(d) == Category.INT) for t in tensors)
        if not (src_rank is not None and src_rank >= 1) and not integer_index:
            return  # a 0-dim source through a mask is filled (and cast) like a scalar
        d, s = one(dest), one(src)
        torch_says = (f"Index put requires the source and destination dtypes match, got "
                      f"{scalar_type_name(d)} for the destination and {scalar_type_name(s)} for the source."
                      if d and s else "Index put requires the source and destination dtypes match")
        new_value = cst.Call(func=cst.Attribute(value=_paren(stmt.value), attr=cst.Name("to")),
                             args=[cst.Arg(cst.Attribute(value=target.value, attr=cst.Name("dtype")))])
        fix = Fix(stmt.value, new_value, f"Convert the source: `{code(stmt.value, 30)}.to({code(target.value, 20)}.dtype)`",
                  safe=False)
        self.flag(ctx, stmt,
                  f"`{code(target)} = ...` raises RuntimeError: writing through an index tensor or mask "
                  f"needs the same dtype, but `{code(target.value, 30)}` is {show(dest)} and the value is "
                  f"{show(src)}{origin_note(src)} (torch: {said(torch_says)}); convert the value with "
                  f"`.to({code(target.value, 20)}.dtype)`",
                  origin=src.origin, fix=fix)


def _is_int_list(value: Value) -> bool:
    """A Python list that is empty or holds only ints (not bools: a bool list is a mask)."""
    if not isinstance(value, SequenceValue) or value.container != "list":
        return False
    if value.items == ():
        return True
    items = value.items if value.items is not None else (value.element,)
    return all(isinstance(v, ScalarValue) and v.pytype == "int" for v in items)


def _paren(node: Any) -> Any:
    from ..source_edits import paren
    return paren(node)
