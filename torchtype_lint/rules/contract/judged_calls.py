"""Which calls the op contract table can judge (TTL250/TTL251), and the texts of their reports.

The hand-written TTL2xx rules cover the famous cases with tailored messages; these two cover
the long tail with the generated table (``torchtype_lint/contracts``): ~1,100 public names
(``torch.X``, ``Tensor.X``, ``Tensor.X_``, ``torch.nn.functional.X``, ``torch.linalg.X``...).

A call is judged only when the table's dtype sets mean something for it: every tensor input
has a known dtype and they all share it, no argument could change the computation dtype
(``dtype=``, ``out=``, a Python scalar of a higher category, an unknown value), and every
possible dtype is unsupported.
"""
from __future__ import annotations

from typing import Any, FrozenSet, List, Optional, Tuple

import libcst as cst

from ...contracts import table
from ...knowledge.float_only_ops import covered_names
from ...knowledge.op_spellings import MODULE_OPS, OPERATOR_OPS, OPERATOR_SYMBOLS
from ...values import (
    ArrayValue, DeviceValue, DTypeValue, ModuleValue, NoneValue, ScalarValue, SequenceValue,
    StringValue, TensorValue, Value, Category, category,
)
from ..base import expr_text
from ..context import RuleContext

#: Names whose int/bool cases TTL211 reports with a tailored message and fix; for those dtypes
#: the contract rules stay silent so one mistake gives one finding.
COVERED_BY_TTL211 = covered_names()

#: Keyword arguments that only pick dimensions or flags: an unknown value there cannot change
#: the dtype the op computes in.
STRUCTURAL_KEYWORDS = frozenset({
    "dim", "dims", "keepdim", "axis", "inplace", "training", "descending", "stable", "largest",
    "sorted", "upper", "lower", "unbiased", "correction", "diagonal", "offset", "start_dim",
    "end_dim", "align_corners", "mode", "reduction", "return_counts", "return_inverse",
    "return_indices", "ceil_mode", "count_include_pad", "padding", "stride", "dilation",
    "kernel_size", "groups", "output_size", "size", "shape", "k", "n",
})

_FIX_METHODS = (("float32", ".float()"), ("float64", ".double()"), ("int64", ".long()"),
                ("bool", ".bool()"))


class _Call:
    """A call the contract table can judge: its public name and shared input dtypes."""

    def __init__(self, name: str, label: str, dtypes: FrozenSet[str], device: Optional[str],
                 subject: Any, subject_value: TensorValue):
        self.name = name
        self.label = label
        self.dtypes = dtypes
        self.device = device
        self.subject = subject            # the node of the first tensor input, for messages
        self.subject_value = subject_value


def judged_call(node: Any, ctx: RuleContext) -> Optional[_Call]:
    """The call, module call or operator as the table sees it, or None when its dtype sets
    would not apply. Every spelling of an op ends up under the one name the table knows
    (``knowledge/op_spellings.py``): ``nn.MSELoss()(a, b)`` is judged as ``F.mse_loss``."""
    if isinstance(node, cst.BinaryOperation):
        return _judged_operator(node, ctx)
    callee = ctx.callee(node)
    if callee is None or callee.args.has_star:
        return None
    args = callee.args
    tensors: List[Tuple[Any, TensorValue]] = []
    if callee.kind == "symbol" and callee.name.startswith("torch.") and not callee.name.startswith("torch.Tensor."):
        name, label = callee.name, callee.name
    elif callee.kind == "method" and isinstance(callee.receiver, TensorValue) \
            and isinstance(node.func, cst.Attribute):
        name, label = "Tensor." + callee.name, f".{callee.name}()"
        tensors.append((node.func.value, callee.receiver))
    elif callee.kind == "module" and isinstance(callee.receiver, ModuleValue) \
            and callee.receiver.short_name in MODULE_OPS:
        name, label = MODULE_OPS[callee.receiver.short_name], f"nn.{callee.receiver.short_name}()(...)"
    else:
        return None
    if "dtype" in args.kw or "out" in args.kw or table.contract(name) is None:
        return None
    keyed = [(None, v, n) for v, n in zip(args.pos, args.pos_nodes)] + [
        (k, v, args.kw_nodes.get(k)) for k, v in args.kw.items()]
    return _judged(name, label, keyed, tensors)


def _judged_operator(node: cst.BinaryOperation, ctx: RuleContext) -> Optional[_Call]:
    """``a @ b``, ``a & b``, ``a // b``...: the operator's function, on the operands' values."""
    kind = type(node.operator).__name__
    name = OPERATOR_OPS.get(kind)
    if name is None:
        return None
    keyed = [(None, ctx.value(operand), operand) for operand in (node.left, node.right)]
    if not any(isinstance(value, TensorValue) for _, value, _ in keyed):
        return None  # ints and bools: Python's own operators, not torch's
    return _judged(name, f"{OPERATOR_SYMBOLS[kind]}", keyed, [])


def _judged(name: str, label: str, keyed: List[Tuple[Optional[str], Value, Any]],
            tensors: List[Tuple[Any, TensorValue]]) -> Optional[_Call]:
    """The shared dtype of the tensor inputs, unless an argument could change what the op
    computes in (mixed dtypes, a scalar of a higher kind, an unknown value)."""
    scalars: List[ScalarValue] = []
    for keyword, value, value_node in keyed:
        if not _collect(value, value_node, tensors, scalars, keyword):
            return None
    if not tensors:
        return None
    first = tensors[0][1].dtypes
    if not first:
        return None
    if len(tensors) > 1 and (len(first) != 1 or any(t.dtypes != first for _, t in tensors)):
        return None  # mixed (or possibly mixed) dtypes: promotion rules, not this table
    if not first <= table.TRACKED_DTYPES:
        return None
    lowest = min(category(d) for d in first)
    if any(category(_scalar_dtype_class(s)) > lowest for s in scalars):
        return None  # a Python scalar of a higher kind promotes the computation
    devices = {t.device for _, t in tensors}
    device = "cuda" if "cuda" in devices else (devices.pop() if len(devices) == 1 else None)
    return _Call(name, label, first, device, tensors[0][0], tensors[0][1])


def _scalar_dtype_class(scalar: ScalarValue) -> str:
    return {"bool": "bool", "int": "int64", "float": "float32", "complex": "complex64"}.get(
        scalar.pytype, "complex64")


def _collect(value: Value, node: Any, tensors: list, scalars: list, keyword: Optional[str]) -> bool:
    """Sort one argument; False when it makes the call unjudgeable."""
    if isinstance(value, TensorValue):
        tensors.append((node, value))
        return True
    if isinstance(value, ScalarValue):
        scalars.append(value)
        return True
    if isinstance(value, (StringValue, NoneValue, DeviceValue)):
        return True
    if isinstance(value, SequenceValue):
        items = value.items if value.items is not None else (value.element,)
        return all(_collect(item, None, tensors, scalars, keyword) for item in items)
    if isinstance(value, (DTypeValue, ArrayValue)):
        return False
    # Unknown: harmless only where the argument is structural (dims, flags).
    return keyword in STRUCTURAL_KEYWORDS


def handled_elsewhere(call: _Call) -> bool:
    return call.name in COVERED_BY_TTL211 and all(category(d) < Category.FLOAT for d in call.dtypes)


def suggestion(contract: table.Contract, subject: str, dtypes: FrozenSet[str]) -> str:
    if any(category(d) == Category.COMPLEX for d in dtypes):
        return ""  # converting complex to a real dtype drops the imaginary part: no advice
    for dtype, method in _FIX_METHODS:
        if dtype in contract.cpu_declared and dtype in contract.cuda:
            return f"; convert the input first, e.g. `{subject}{method}`"
    return ""


def subject_text(call: _Call) -> str:
    return expr_text(call.subject) if call.subject is not None else "the input"


def origin_note(call: _Call) -> str:
    """`` ({origin})`` unless the input is itself the origin (``torch.det(torch.tensor(...))``)."""
    origin = call.subject_value.origin
    if origin is None or origin.root().node is call.subject:
        return ""
    return " ({origin})"
