"""TTL301 numpy-float64-tensor: float64 tensor from numpy (no dtype=) meets float32 data.

Policy, one root cause -> one report, and only where the float64 does harm:
- a conversion of a float64 ndarray without ``dtype=`` is remembered, nothing is reported there;
- a use of its tensor that silently changes a float32 result (torch promotes ``x + t`` to
  float64) or fails where no other rule judges it (``torch.allclose(x, t)``) gets TTL301, once
  per conversion, placed at the conversion (the fix goes there), naming the use
  (``rules/numpy/harmful_uses.py``);
- a use that fails in a float32 layer, matmul, loss or index write is an error of its own rule
  (TTL401, TTL205, TTL208...) explaining the conversion: the checker drops TTL301's warning
  then, as it does when the code casts the tensor explicitly later on (``later_casts.py``,
  ``torchtype_lint/checker/root_causes.py``);
- copies (``p.data.copy_(t)``, ``load_state_dict``), casts, prints, comparisons and float64-only
  arithmetic are no harm: nothing is reported (TTL903, opt-in, flags every such conversion).
"""
from __future__ import annotations

from typing import Any

import libcst as cst

from ..base import RuntimeClaim, register
from ..context import RuleContext
from ..dtype_rule import DtypeRule
from ..source_edits import code
from .float64_conversions import float64_conversion
from .harmful_uses import FlaggedConversions, harmful_use
from .later_casts import mark_later_casts


@register
class NumpyFloat64Tensor(DtypeRule):
    """
    ## What it does
    Flags `torch.from_numpy(a)`, `torch.tensor(a)` and `torch.as_tensor(a)` of a float64
    ndarray (what `np.random.rand`, `np.zeros`, `np.array([1.0])`, `np.loadtxt` return)
    without `dtype=`, when a use of the resulting float64 tensor silently changes a float32
    result: an op with a float32 operand that torch promotes to float64 (`x + t`,
    `torch.cat([x, t])`, `torch.where(mask, x, t)`), or a closeness check against float32
    (`torch.allclose(x, t)`), which raises. The finding is placed at the conversion and
    names that use.

    A use that fails -- the tensor reaches a float32 layer, a matmul, a loss or an index
    write into a float32 tensor -- is reported where it fails, by its own rule (TTL401,
    TTL205, TTL208...), which names the conversion; this rule then stays silent. So does
    it when the tensor is only copied (`param.data.copy_(t)`, `load_state_dict`), cast
    (`t.float()`, `.to(torch.float32)`), printed, compared, turned back into Python or
    numpy (`.item()`, `.tolist()`, `.numpy()`), passed to a function the analysis does not
    know, or computed with float64 values only. TTL903 (opt-in) flags every such
    conversion, harmful or not.

    ## Why is this bad?
    These conversions keep numpy's dtype, so the tensor is float64 while `nn` layers and
    `torch.randn` are float32. Meeting float32 data, it promotes the result to float64:
    everything computed from there on is float64 (slower, twice the memory) and fails in
    the first float32 layer or matmul with `RuntimeError: mat1 and mat2 must have the same
    dtype, but got Double and Float`. (`torch.Tensor(a)` and `torch.FloatTensor(a)` convert
    to float32 and are not flagged, nor is anything when the file calls
    `torch.set_default_dtype(torch.float64)` or asks torch for double precision or complex
    numbers itself -- `torch.float64`, `.double()`, `torch.complex128`, `1j`, `complex`:
    numerical code that works in float64 on purpose.)

    ## Example
    ```python
    std = torch.from_numpy(np.std(features, axis=0))
    x = torch.randn(8, 3) / std   # float64 now
    ```

    ## Use instead
    ```python
    std = torch.from_numpy(np.std(features, axis=0)).float()
    # or: torch.tensor(np.std(features, axis=0), dtype=torch.float32)
    ```

    ## Fix safety
    Unsafe: `.float()` makes a copy (a `from_numpy` tensor shares memory with the array,
    the copy does not) and rounds the data to float32.
    """

    code = "TTL301"
    name = "numpy-float64-tensor"
    summary = "float64 tensor from numpy without dtype= silently promotes float32 data"
    severity = "warning"
    listens = (cst.Call, cst.BinaryOperation)
    fix_safety = "unsafe"
    runtime = RuntimeClaim("AssertionError")
    # Dropped when an error explains the conversion or a later explicit cast settles it.
    warns_at_cause = True

    def visit(self, node: Any, ctx: RuleContext) -> None:
        flagged = ctx.state(FlaggedConversions)
        if isinstance(node, cst.Call):
            conversion = float64_conversion(node, ctx)
            if conversion is not None:
                flagged.made[node] = conversion  # judged at its uses
                return
            mark_later_casts(node, ctx)
        harm = harmful_use(node, ctx)
        if harm is None or harm.conversion.node in flagged.reported:
            return
        flagged.reported.add(harm.conversion.node)  # one warning per conversion: its first harm
        conversion = harm.conversion
        fix = conversion.fix()
        self.report(conversion.node,
                    f"`{code(conversion.node)}` creates a float64 tensor: {conversion.name} keeps the "
                    f"ndarray's dtype ({{origin}}), and `{code(harm.use, 40)}` {harm.effect}; convert "
                    f"it: `{code(fix.new)}`",
                    origin=conversion.origin, fix=fix, explains=conversion.node)
