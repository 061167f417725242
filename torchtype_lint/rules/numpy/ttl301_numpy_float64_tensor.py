"""TTL301 numpy-float64-tensor: tensor created from a float64 ndarray without dtype=.

Policy, one root cause -> one report: a float64 conversion is reported at most once.
- If the float64 tensor later reaches an op that fails (a float32 layer, a matmul, a BCE or
  Huber loss...), the first such failure is reported where it happens, as an error of its
  own family (TTL401, TTL201, TTL208...), with the conversion in its provenance and message;
  neither the conversion nor later failing uses of the same conversion are reported again
  (torch stops at the first failure, and fixing the conversion fixes them all).
- If the tensor is converted later (`.float()`, `.to(torch.float32)`, even `.double()` as
  an explicit choice), nothing is reported.
- Otherwise the conversion gets one TTL301 warning.
That decision needs the whole file: TTL301 warns at each conversion as a ``warns_at_cause``
rule, and the checker drops the warning when an error explains the conversion or a later
cast settles it (``torchtype_lint/root_causes.py``).
"""
from __future__ import annotations

import re
from typing import Any, Optional

import libcst as cst

from ...findings import Fix
from ...values import FLOAT64, ArrayValue, Origin
from ..base import RuntimeClaim, register
from ..dtype_rule import DtypeRule
from ..numpy.conversions import conversion_name
from ..source_edits import code, dtype_attr, method_call, paren, torch_module_expr
from .later_casts import mark_later_casts
from ..context import RuleContext


def float64_conversion(node: cst.Call, ctx: RuleContext):
    """(name, array) when ``node`` converts a float64 ndarray without ``dtype=``."""
    name = conversion_name(node, ctx)
    if name is None:
        return None
    callee = ctx.callee(node)
    if "dtype" in callee.args.kw or callee.args.has_star:
        return None
    array = callee.args.get(0, "data" if name != "torch.from_numpy" else None)
    if not isinstance(array, ArrayValue) or not array.dtypes or any(d != FLOAT64 for d in array.dtypes):
        return None
    if array.shape == ():
        return None  # a 0-d value (a.mean()): torch treats it as a number, results stay float32
    return name, array


#: torch's double-precision dtypes, spelled as attributes (``torch.float64``, ``x.double()``).
_DOUBLE_NAMES = frozenset({"float64", "double", "complex128", "cdouble"})


class _DoublePrecisionFile:
    """Whether the file asks torch for double precision or complex numbers on purpose
    (``torch.float64``, ``.double()``, ``torch.complex128``, a ``1j`` literal, ``complex``):
    there a float64 tensor from numpy is the precision the code works in, not a slip (the
    float64 tensors of a numerical code meet float64 and complex128 values)."""

    def __init__(self) -> None:
        self._found: Optional[bool] = None

    def found(self, ctx: RuleContext) -> bool:
        if self._found is None:
            source = ctx.source
            if source is not None and not _DOUBLE_HINT.search(source):
                self._found = False  # none of the words: no need to walk the whole tree
            else:
                finder = _DoubleFinder()
                ctx.module.visit(finder)
                self._found = finder.found
        return self._found


#: Text every spelling _DoubleFinder looks for contains (a superset: the walk decides).
_DOUBLE_HINT = re.compile(r"float64|double|complex|cdouble|[0-9.][jJ]\b")


class _DoubleFinder(cst.CSTVisitor):
    def __init__(self) -> None:
        super().__init__()
        self.found = False

    def visit_Attribute(self, node: cst.Attribute) -> Optional[bool]:
        if node.attr.value in _DOUBLE_NAMES and (node.attr.value != "float64" or _is_torch(node.value)):
            self.found = True  # np.float64 alone is numpy's own business: only torch's counts
        return not self.found

    def visit_Imaginary(self, node: cst.Imaginary) -> Optional[bool]:
        self.found = True
        return False

    def visit_Name(self, node: cst.Name) -> Optional[bool]:
        if node.value == "complex":
            self.found = True
        return False


def _is_torch(node: Any) -> bool:
    return isinstance(node, cst.Name) and node.value == "torch"


def conversion_fix(node: cst.Call, name: str) -> Fix:
    """``torch.from_numpy(a).float()``, or ``dtype=torch.float32`` for tensor/as_tensor."""
    module_expr = torch_module_expr(node.func)
    if name != "torch.from_numpy" and module_expr is not None:
        args = list(node.args)
        args[-1] = args[-1].with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
        args.append(cst.Arg(value=dtype_attr(module_expr, "float32"), keyword=cst.Name("dtype"),
                            equal=cst.AssignEqual(whitespace_before=cst.SimpleWhitespace(""),
                                                  whitespace_after=cst.SimpleWhitespace(""))))
        new = node.with_changes(args=args)
        return Fix(node, new, "Create a float32 tensor: add `dtype=torch.float32`", safe=False)
    new_call = method_call(paren(node), "float")
    return Fix(node, new_call, f"Convert to float32: `{code(new_call)}`", safe=False)


@register
class NumpyFloat64Tensor(DtypeRule):
    """
    ## What it does
    Flags `torch.from_numpy(a)`, `torch.tensor(a)` and `torch.as_tensor(a)` of a float64
    ndarray (what `np.random.rand`, `np.zeros`, `np.array([1.0])`, `np.loadtxt` return)
    without `dtype=`, when the resulting float64 tensor is neither converted later nor
    reported at a failing use.

    ## Why is this bad?
    These conversions keep numpy's dtype, so the tensor is float64 while `nn` layers and
    `torch.randn` are float32. The first float32 layer or matmul it meets raises
    `RuntimeError: mat1 and mat2 must have the same dtype, but got Double and Float`;
    elementwise ops silently promote everything they touch to (slower) float64. When the
    engine can see that failure, it is reported there instead (one report per root
    cause); this warning covers the conversions whose float64 result flows on.
    (`torch.Tensor(a)` and `torch.FloatTensor(a)` convert to float32 and are not flagged,
    nor is anything when the file calls `torch.set_default_dtype(torch.float64)` or asks
    torch for double precision or complex numbers itself -- `torch.float64`, `.double()`,
    `torch.complex128`, `1j`, `complex`: numerical code that works in float64 on purpose.)

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

    code = "TTL301"
    name = "numpy-float64-tensor"
    summary = "tensor created from a float64 ndarray without dtype= (nn layers are float32)"
    severity = "warning"
    listens = (cst.Call,)
    fix_safety = "unsafe"
    runtime = RuntimeClaim("AssertionError")
    warns_at_cause = True

    def visit(self, node: Any, ctx: RuleContext) -> None:
        found = float64_conversion(node, ctx)
        if found is None or ctx.default_float == FLOAT64 or ctx.state(_DoublePrecisionFile).found(ctx):
            mark_later_casts(node, ctx)
            return
        name, array = found
        fix = conversion_fix(node, name)
        origin = Origin(node, f"{name} keeps the ndarray's dtype", array.origin)
        self.report(node,
                    f"`{code(node)}` creates a float64 tensor: {name} keeps the ndarray's dtype "
                    f"({{origin}}), while nn layers and torch's default dtype are float32, so it "
                    f"fails in the first float32 layer or matmul or silently turns later results "
                    f"float64; convert it: `{code(fix.new)}`",
                    origin=origin, fix=fix, explains=node)
