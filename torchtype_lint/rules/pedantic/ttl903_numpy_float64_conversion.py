"""TTL903 numpy-float64-conversion: every float64 ndarray converted to a tensor without dtype= (opt-in)."""
from __future__ import annotations

from typing import Any

import libcst as cst

from ..base import RuntimeClaim, register
from ..context import RuleContext
from ..dtype_rule import DtypeRule
from ..numpy.float64_conversions import float64_conversion
from ..numpy.later_casts import mark_later_casts
from ..source_edits import code


@register
class NumpyFloat64Conversion(DtypeRule):
    """
    ## What it does
    Flags every `torch.from_numpy(a)`, `torch.tensor(a)` and `torch.as_tensor(a)` of a
    float64 ndarray without `dtype=`, whatever the tensor is used for -- the strict form
    of TTL301, which reports only conversions whose float64 tensor does harm. Not flagged:
    a conversion whose tensor is cast explicitly later on (`.float()`, `.to(torch.float32)`,
    even `.double()`: the dtype is then a choice), one whose failing use another rule
    reports (one report per root cause), one TTL301 reports itself, and files that work in
    double precision on purpose (`torch.set_default_dtype(torch.float64)`,
    `torch.float64`, `.double()`, complex numbers).

    ## Why is this bad?
    The tensor silently keeps numpy's float64 while `nn` layers and torch's defaults are
    float32. Where it is only copied into float32 parameters, printed or compared, nothing
    goes wrong, but the next change of code that feeds it to a layer fails with
    `RuntimeError: mat1 and mat2 must have the same dtype, but got Double and Float`.
    Teams that want every conversion's dtype written out select this rule. Opt-in.

    ## Example
    ```python
    features = np.random.rand(8, 3)
    x = torch.from_numpy(features)
    ```

    ## Use instead
    ```python
    x = torch.from_numpy(features).float()
    # or: torch.tensor(features, dtype=torch.float32)
    ```

    ## Fix safety
    Unsafe: `.float()` makes a copy (a `from_numpy` tensor shares memory with the array,
    the copy does not) and rounds the data to float32.
    """

    code = "TTL903"
    name = "numpy-float64-conversion"
    summary = "float64 ndarray converted to a tensor without dtype=, however it is used (opt-in)"
    severity = "warning"
    listens = (cst.Call,)
    default_enabled = False
    fix_safety = "unsafe"
    runtime = RuntimeClaim("AssertionError")
    # Dropped when an error explains the conversion, a later cast settles it, or TTL301 warns.
    warns_at_cause = True

    def visit(self, node: Any, ctx: RuleContext) -> None:
        conversion = float64_conversion(node, ctx)
        if conversion is None:
            mark_later_casts(node, ctx)
            return
        fix = conversion.fix()
        self.report(node,
                    f"`{code(node)}` creates a float64 tensor: {conversion.name} keeps the ndarray's "
                    f"dtype ({{origin}}), while nn layers and torch's default dtype are float32; state "
                    f"the dtype: `{code(fix.new)}`",
                    origin=conversion.origin, fix=fix, explains=node)
