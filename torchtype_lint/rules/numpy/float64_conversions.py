"""The numpy conversions that give a float64 tensor by accident: ``torch.from_numpy(a)``,
``torch.tensor(a)`` or ``torch.as_tensor(a)`` of a float64 ndarray without ``dtype=``, in a
file that works in float32. TTL301 (when a use of the tensor does harm) and TTL903 (every
such conversion, opt-in) judge the same conversions and offer the same fix."""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Optional

import libcst as cst

from ...model.findings import Fix
from ...model.values import FLOAT64, ArrayValue, Origin
from ..context import RuleContext
from ..source_edits import dtype_attr, method_call, paren, code, torch_module_expr
from .conversions import conversion_name


@dataclass(frozen=True)
class Float64Conversion:
    """A conversion that makes a float64 tensor nobody asked for."""

    node: cst.Call
    name: str  # torch.from_numpy, torch.tensor, ...
    array: ArrayValue
    origin: Origin  # the tensor's provenance: the conversion, then where the array came from

    def fix(self) -> Fix:
        """A fresh fix per report (the checker fills in where each one applies)."""
        return conversion_fix(self.node, self.name)


def float64_conversion(node: Any, ctx: RuleContext) -> Optional[Float64Conversion]:
    """The conversion ``node`` is, when it turns a float64 ndarray into a float64 tensor
    without ``dtype=`` in a file that does not work in double precision on purpose."""
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
    if ctx.default_float == FLOAT64 or ctx.state(_DoublePrecisionFile).found(ctx):
        return None  # float64 is the precision the code works in
    origin = Origin(node, f"{name} keeps the ndarray's dtype", array.origin)
    return Float64Conversion(node, name, array, origin)


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
