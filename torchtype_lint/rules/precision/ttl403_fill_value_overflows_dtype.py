"""TTL403 fill-value-overflows-dtype: a scalar fill or bound (``masked_fill(mask, -1e9)``,
``fill_``, ``torch.full``, ``clamp(min=...)``) beyond what the tensor's dtype can hold."""
from __future__ import annotations

from typing import Any, Optional, Tuple

import libcst as cst

from ...knowledge.fill_values import CLAMP_METHODS, FILL_METHODS, FINITE_RANGE, OVERFLOW_MESSAGE, overflows
from ...model.values import CallArgs, ScalarValue, TensorValue, Value
from ..base import Rule, RuntimeClaim, register
from ..context import RuleContext
from ..dtype_names import one, origin_note, said
from ..source_edits import code

#: torch functions that take the tensor first, then what its method takes.
_FUNCTION_FORMS = {f"torch.{name}": name for name in ("masked_fill", "index_fill", "clamp", "clip", "clamp_min",
                                                       "clamp_max")}

#: Constructors with a fill value: qualified name or method -> position of the value.
_CONSTRUCTORS = {"torch.full": 1, "torch.full_like": 1, "new_full": 1}


def _given(args: CallArgs, position: int, keyword: str) -> Tuple[Value, Any]:
    """The value (and its expression) passed at ``position`` or as ``keyword``."""
    if keyword in args.kw:
        return args.kw[keyword], args.kw_nodes.get(keyword)
    if len(args.pos) > position:
        return args.pos[position], args.pos_nodes[position]
    return ScalarValue("int"), None  # not given: nothing to judge


def _number(value: Value) -> Optional[object]:
    """The known Python number a value is (a bool is no fill value worth judging)."""
    if isinstance(value, ScalarValue) and value.pytype in ("int", "float") and value.const is not None:
        return value.const
    return None


@register
class FillValueOverflowsDtype(Rule):
    """
    ## What it does
    Flags a Python number given to `masked_fill`, `masked_fill_`, `fill_`, `index_fill`,
    `torch.full`, `torch.full_like`, `new_full` or as a bound of `clamp`/`clip`/`clamp_min`/
    `clamp_max` that the tensor's dtype cannot hold: beyond ±65504 for float16 (`-1e9`,
    `torch.finfo(torch.float32).min`), beyond ±3.39e38 for bfloat16, outside 0..255 for uint8,
    and so on; an infinity or NaN for an integer tensor.

    ## Why is this bad?
    Torch converts the number to the tensor's dtype with a range check and raises `RuntimeError:
    value cannot be converted to type c10::Half without overflow`. The classic case is an
    attention mask filled with `-1e9` or `-1e10`: fine in float32, a crash as soon as the model
    runs in half precision (`model.half()`, `--fp16`, autocast).

    ## Example
    ```python
    scores = (q @ k.transpose(-2, -1)).half()
    scores = scores.masked_fill(~mask, -1e9)
    ```

    ## Use instead
    ```python
    scores = scores.masked_fill(~mask, torch.finfo(scores.dtype).min)  # or float("-inf")
    ```
    """

    code = "TTL403"
    name = "fill-value-overflows-dtype"
    summary = "a fill value or bound beyond the range of the tensor's dtype (-1e9 in float16)"
    severity = "error"
    listens = (cst.Call,)
    runtime = RuntimeClaim("RuntimeError", r"value cannot be converted to type .* without overflow",
                           pattern_devices=("cpu",))

    def visit(self, node: cst.Call, ctx: RuleContext) -> None:
        callee = ctx.callee(node)
        if callee is None or callee.args.has_star:
            return
        if callee.kind == "method" and isinstance(callee.receiver, TensorValue):
            self._judge(node, ctx, callee.name, callee.receiver, callee.args, callee.result)
        elif callee.kind == "symbol" and callee.name in _FUNCTION_FORMS and callee.args.pos:
            rest = CallArgs(callee.args.pos[1:], callee.args.kw, callee.args.pos_nodes[1:], callee.args.kw_nodes)
            tensor = callee.args.pos[0]
            if isinstance(tensor, TensorValue):
                self._judge(node, ctx, _FUNCTION_FORMS[callee.name], tensor, rest, callee.result)
        elif callee.kind == "symbol" and callee.name in _CONSTRUCTORS:
            self._constructed(node, ctx, callee.name, callee.args, callee.result)

    def _judge(self, node: cst.Call, ctx: RuleContext, method: str, tensor: TensorValue, args: CallArgs,
               result: Value) -> None:
        if method in FILL_METHODS:
            bounds: Tuple[Tuple[int, str], ...] = (FILL_METHODS[method],)
        elif method in CLAMP_METHODS:
            bounds = CLAMP_METHODS[method]
        elif method in _CONSTRUCTORS:
            self._constructed(node, ctx, method, args, result)
            return
        else:
            return
        dtype = one(tensor)
        for position, keyword in bounds:
            value, value_node = _given(args, position, keyword)
            number = _number(value)
            if number is not None and overflows(number, dtype):
                self._flag(node, ctx, value_node, number, dtype, tensor)
                return

    def _constructed(self, node: cst.Call, ctx: RuleContext, name: str, args: CallArgs, result: Value) -> None:
        """``torch.full(size, v, dtype=...)``, ``torch.full_like(x, v)``, ``x.new_full(size, v)``: the
        dtype is the made tensor's."""
        if not isinstance(result, TensorValue):
            return
        value, value_node = _given(args, _CONSTRUCTORS[name], "fill_value")
        number = _number(value)
        dtype = one(result)
        if number is not None and overflows(number, dtype):
            self._flag(node, ctx, value_node, number, dtype, result)

    def _flag(self, node: cst.Call, ctx: RuleContext, value_node: Any, number: object, dtype: Optional[str],
              tensor: TensorValue) -> None:
        low, high = FINITE_RANGE[dtype]  # type: ignore[index]
        floating = dtype in ("float16", "bfloat16", "float32")
        reach = f"±{high:g}" if floating else f"{max(low, 0) if dtype == 'uint8' else low} to {high}"
        advice = "`torch.finfo(x.dtype).min` or minus infinity" if dtype in ("float16", "bfloat16", "float32") \
            else "a value in range"
        if isinstance(value_node, (cst.Float, cst.Integer, cst.UnaryOperation)):
            said_value = f"`{code(value_node, 30)}`"  # the literal says its value
        elif isinstance(value_node, (cst.Name, cst.Attribute)):
            said_value = f"`{code(value_node, 30)}` ({number!r})"  # NEG_INF (-1e9)
        else:
            said_value = repr(number)  # float("inf"): its quotes would read as torch's
        article = "an" if dtype.startswith(("int", "uint")) else "a"  # type: ignore[union-attr]
        self.report(node, f"{said_value} is beyond what {article} {dtype} tensor{origin_note(tensor)} can hold "
                          f"({reach}): torch raises RuntimeError ({said(OVERFLOW_MESSAGE)}); use {advice}",
                    origin=tensor.origin)
