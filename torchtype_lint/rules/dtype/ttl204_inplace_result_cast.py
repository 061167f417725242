"""TTL204 inplace-result-cast: an in-place op whose result cannot be cast back to the int/bool tensor."""
from __future__ import annotations

from typing import Any, Optional

import libcst as cst

from ...model.findings import Fix
from ...knowledge import dtypes as D
from ...knowledge import torch_api as T
from ...model.values import ScalarValue, TensorValue, Value
from ..base import RuntimeClaim, register
from ..dtype_names import one, origin_note, said, scalar_type_name, show
from ..dtype_predicates import all_dtypes, dtypes_of, is_bool, is_float, is_int_or_bool
from ..dtype_rule import DtypeRule
from ..source_edits import code
from ..context import RuleContext

_AUG_OPS = {"AddAssign": "+", "SubtractAssign": "-", "MultiplyAssign": "*", "DivideAssign": "/",
            "ModuloAssign": "%", "PowerAssign": "**", "FloorDivideAssign": "//"}
_INPLACE_BINARY = {"add_": "+", "sub_": "-", "subtract_": "-", "mul_": "*", "multiply_": "*",
                   "div_": "/", "divide_": "/", "true_divide_": "/", "pow_": "**",
                   "remainder_": "%", "fmod_": "%"}
_INPLACE_UNARY = {f + "_" for f in T.FLOATING_UNARY}
_OUT_FUNCTIONS = {"add": "+", "sub": "-", "subtract": "-", "mul": "*", "multiply": "*",
                  "div": "/", "divide": "/", "true_divide": "/", "pow": "**", "remainder": "%"}


def _promoted_uncastable(ctx: RuleContext, dest: Value, other: Value, op: str, node: Any) -> Optional[str]:
    """The promoted result dtype of ``dest <op> other`` when, for every possible dtype of
    ``dest``, it cannot be cast back into ``dest`` (None otherwise)."""
    dtypes = dtypes_of(dest)
    if dtypes is None:
        return None
    results = set()
    for d in dtypes:
        res = T.binary_op(TensorValue(frozenset({d}), dest.shape), other, op, node, ctx.torch_env)
        rd = dtypes_of(res)
        if rd is None or any(D.can_cast(r, d) for r in rd):
            return None
        results |= rd
    return "/".join(sorted(results))


def _cast_error(result: str, dest: Value) -> str:
    d = one(dest)
    r = result if "/" not in result else None
    if d and r:
        return f"result type {scalar_type_name(r)} can't be cast to the desired output type {scalar_type_name(d)}"
    return "result type can't be cast to the desired output type"


@register
class InplaceResultCast(DtypeRule):
    """
    ## What it does
    Flags in-place operations on an integer or bool tensor whose promoted result is
    floating point (or, on a bool tensor, integer): `counts += 0.5`, `counts /= 2`,
    `x.mul_(0.5)`, `x.div_(2)`, `x.clamp_(min=0.5)`, `x.exp_()`, `x.sqrt_()`, `mask += 1`,
    and `torch.add(a, b, out=int_tensor)` with a float result.

    ## Why is this bad?
    An in-place op must write its result into the existing tensor, and torch refuses to
    cast a result to a lower category: `RuntimeError: result type Float can't be cast to
    the desired output type Long`. `/=` always fails on integers, even `x /= 2`, because
    true division gives a float. (Downcasts within a category, such as `f32 += f64`, are
    allowed and not flagged; neither is `//=`.)

    ## Example
    ```python
    total = torch.zeros(3, dtype=torch.long)
    total += torch.rand(3)
    ```

    ## Use instead
    ```python
    total = total + torch.rand(3)   # a new float tensor
    # or keep a float accumulator: torch.zeros(3)
    ```

    ## Fix safety
    Unsafe: for `x op= y` the fix rebinds `x = x op y`, which creates a new (float) tensor
    instead of updating the old one in place; other references to the old tensor no longer
    see the updates.
    """

    code = "TTL204"
    name = "inplace-result-cast"
    summary = "in-place op whose promoted result cannot be cast back to the integer/bool destination"
    severity = "error"
    listens = (cst.AugAssign, cst.Call)
    fix_safety = "unsafe"
    runtime = RuntimeClaim("RuntimeError", r"result type \w+ can't be cast to the desired output type")

    def visit(self, node: Any, ctx: RuleContext) -> None:
        if isinstance(node, cst.AugAssign):
            self._aug_assign(node, ctx)
        else:
            self._call(node, ctx)

    def _aug_assign(self, node: cst.AugAssign, ctx: RuleContext) -> None:
        op = _AUG_OPS.get(type(node.operator).__name__)
        dest = ctx.value(node.target)
        other = ctx.value(node.value)
        if op is None or not isinstance(dest, TensorValue):
            return
        if op == "-" and (all_dtypes(dest, is_bool) or all_dtypes(other, is_bool)):
            return  # bool subtraction raises a different error (TTL212)
        result = _promoted_uncastable(ctx, dest, other, op, node)
        if result is None:
            return
        fix = None
        if isinstance(node.target, (cst.Name, cst.Attribute)):
            binop = cst.BinaryOperation(left=node.target, operator=_BINARY_OPERATORS[op](),
                                        right=node.value)
            fix = Fix(node, cst.Assign(targets=[cst.AssignTarget(target=node.target)], value=binop),
                      f"Rebind instead of updating in place: `{code(node.target)} = {code(node.target)} "
                      f"{op} {code(node.value)}`", safe=False)
        target = code(node.target)
        self.flag(ctx, node,
                  f"`{code(node)}` raises RuntimeError: the result is {result} but `{target}` is "
                  f"{show(dest)}{origin_note(dest)}, and in-place ops cannot cast it back "
                  f"(torch: {said(_cast_error(result, dest))}); write `{target} = {target} {op} "
                  f"{code(node.value, 30)}` or make `{target}` a float tensor first",
                  origin=dest.origin, fix=fix)

    def _call(self, node: cst.Call, ctx: RuleContext) -> None:
        callee = ctx.callee(node)
        if callee is None or callee.args.has_star:
            return
        args = callee.args
        if callee.kind == "method" and isinstance(callee.receiver, TensorValue):
            dest, name = callee.receiver, callee.name
            result: Optional[str] = None
            if name in _INPLACE_BINARY and args.pos:
                if "alpha" in args.kw or "rounding_mode" in args.kw:
                    return
                op = _INPLACE_BINARY[name]
                result = _promoted_uncastable(ctx, dest, args.pos[0], op, node)
            elif name in _INPLACE_UNARY:
                if all_dtypes(dest, is_int_or_bool):
                    result = ctx.default_float
            elif name in ("clamp_", "clip_"):
                bounds = [args.get(0, "min"), args.get(1, "max")]
                if all_dtypes(dest, is_int_or_bool) and any(
                        (isinstance(v, ScalarValue) and v.pytype == "float") or all_dtypes(v, is_float)
                        for v in bounds):
                    result = ctx.default_float
            if result is None:
                return
            self.flag(ctx, node,
                      f"`{code(node)}` raises RuntimeError: the in-place result is {result} but the "
                      f"tensor is {show(dest)}{origin_note(dest)} (torch: {said(_cast_error(result, dest))}); "
                      f"use the out-of-place form and rebind (`x = x.{name[:-1]}(...)`), or convert "
                      f"the tensor to float first",
                      origin=dest.origin)
            return
        if callee.kind == "symbol" and callee.name.startswith("torch.") and "out" in args.kw:
            name = callee.name[6:]
            out = args.kw["out"]
            res = callee.result
            if name not in _OUT_FUNCTIONS and name not in T.FLOATING_UNARY:
                return
            rd, od = dtypes_of(res), dtypes_of(out)
            if rd is None or od is None or any(D.can_cast(r, o) for r in rd for o in od):
                return
            result = "/".join(sorted(rd))
            self.flag(ctx, node,
                      f"`torch.{name}(..., out=...)` raises RuntimeError: the result is {result} but "
                      f"`out` is {show(out)}{origin_note(out)} (torch: {said(_cast_error(result, out))}); "
                      f"pass an `out` tensor of dtype {result} or drop `out=`",
                      origin=out.origin)


_BINARY_OPERATORS = {"+": cst.Add, "-": cst.Subtract, "*": cst.Multiply, "/": cst.Divide,
                     "%": cst.Modulo, "**": cst.Power, "//": cst.FloorDivide}
