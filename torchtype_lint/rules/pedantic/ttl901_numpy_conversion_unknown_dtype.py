"""TTL901 numpy-conversion-unknown-dtype: ndarray of unknown dtype converted to a tensor without dtype= (opt-in)."""
from __future__ import annotations

from typing import Any

import libcst as cst

from ...model.values import TOP, ArrayValue
from ..base import RuntimeClaim, register
from ..dtype_rule import DtypeRule
from ..numpy.conversions import conversion_name
from ..source_edits import code
from ..numpy.later_casts import mark_later_casts
from ..context import RuleContext


@register
class NumpyConversionUnknownDtype(DtypeRule):
    """
    ## What it does
    Flags `torch.from_numpy(a)`, `torch.tensor(a)` and `torch.as_tensor(a)` without
    `dtype=` when `a` is an ndarray whose dtype the analysis cannot determine (for
    `from_numpy`, any argument of unknown dtype, e.g. `np.load(...)` or `df.values`).

    ## Why is this bad?
    The tensor silently takes whatever dtype the array has: float64 for most numpy
    computations and loaders, int64 for integer data, object arrays fail. Saying
    `dtype=torch.float32` (or `.float()`) makes the intent explicit and the code
    independent of how the data was produced. Opt-in because many such conversions are
    fine.

    ## Example
    ```python
    x = torch.from_numpy(np.load(path))
    ```

    ## Use instead
    ```python
    x = torch.from_numpy(np.load(path)).float()
    ```

    ## Fix safety
    No fix: the intended dtype is not known.
    """

    code = "TTL901"
    name = "numpy-conversion-unknown-dtype"
    summary = "ndarray of unknown dtype converted to a tensor without dtype= (opt-in)"
    severity = "warning"
    listens = (cst.Call,)
    default_enabled = False
    runtime = RuntimeClaim("AssertionError")
    # Unless the tensor is cast explicitly later on (the checker drops the warning then).
    warns_at_cause = True

    def visit(self, node: Any, ctx: RuleContext) -> None:
        mark_later_casts(node, ctx)
        name = conversion_name(node, ctx)
        if name is None:
            return
        callee = ctx.callee(node)
        if "dtype" in callee.args.kw or callee.args.has_star:
            return
        first = callee.args.pos_nodes[0] if callee.args.pos_nodes else None
        if isinstance(first, cst.Call) and (
                (isinstance(first.func, cst.Attribute) and first.func.attr.value == "astype" and first.args)
                or any(arg.keyword is not None and arg.keyword.value == "dtype" for arg in first.args)):
            return  # `a.astype(np.uint8)`, `s.to_numpy(dtype=bool)`: the dtype is written right there
        data = callee.args.get(0, "data" if name != "torch.from_numpy" else None)
        if isinstance(data, ArrayValue):
            if data.dtypes is not None:
                return  # known dtype: TTL301 handles float64, the rest is explicit enough
        elif name != "torch.from_numpy" or data is not TOP:
            return  # torch.tensor(x) of an unknown x may be a list of Python numbers
        self.report(node,
                    f"`{code(node)}` converts an ndarray of unknown dtype: the tensor keeps it "
                    f"(float64 for most numpy data, while nn layers are float32); state it: "
                    f"`dtype=torch.float32` or `.float()`", explains=node)
