"""Which calls the op contract table can judge (TTL250/TTL251), and the texts of their reports.

The hand-written TTL2xx rules cover the famous cases with tailored messages; these two cover
the long tail with the generated table (``torchtype_lint/contracts``): ~1,100 public names
(``torch.X``, ``Tensor.X``, ``Tensor.X_``, ``torch.nn.functional.X``, ``torch.linalg.X``...).

On CUDA only observed facts count: a pair the table records as failing on a real GPU
(``Contract.fails_on_cuda``); a pair OpInfo merely declares without a CUDA kernel, or that no
GPU run could exercise, is silent.

A call is judged only when the table's dtype sets mean something for it: every tensor input
has a known dtype and they all share it, no argument could change the computation dtype
(``dtype=``, ``out=``, a Python scalar of a higher category, an unknown value), and every
possible dtype is unsupported.
"""
from __future__ import annotations

from typing import Any, FrozenSet, List, Optional, Tuple

from ...contracts import table
from ...knowledge.float_only_ops import covered_names
from ...knowledge.op_spellings import MODULE_OPS, OPERATOR_OPS
from ...knowledge.ops import FUNCTION, METHOD, MODULE, OPERATOR, SIZE_FACTORIES, OpCall
from ...model.values import (
    ArrayValue, DeviceValue, DTypeValue, NoneValue, ScalarValue, SequenceValue,
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
    would not apply. Every spelling of an op ends up under the name the table knows it by
    (``OpCall.table_name``): ``nn.MSELoss()(a, b)`` is judged as ``F.mse_loss``, ``a @ b``
    as ``torch.matmul``, ``a.abs_()`` as ``Tensor.abs_``."""
    call = ctx.op_call(node)
    if call is None or call.has_star or not _judged_spelling(call):
        return None
    if call.spelling == OPERATOR:
        keyed = [(None, call.receiver, call.receiver_node), (None, call.args.pos[0], call.args.pos_nodes[0])]
        return _judged(call.op, call.label, keyed, [])
    args = call.args
    tensors: List[Tuple[Any, TensorValue]] = []
    if call.spelling == METHOD:
        tensors.append((call.receiver_node, call.receiver))
    label = f"{call.label}()(...)" if call.spelling == MODULE else call.label
    name = call.table_name
    if "dtype" in args.kw or "out" in args.kw or table.contract(name) is None:
        return None
    keyed = [(None, v, n) for v, n in zip(args.pos, args.pos_nodes)] + [
        (k, v, args.kw_nodes.get(k)) for k, v in args.kw.items()]
    return _judged(name, label, keyed, tensors)


def _judged_spelling(call: OpCall) -> bool:
    """Spellings whose dtype behaviour is the table's (``knowledge/op_spellings.py``)."""
    if call.spelling == FUNCTION:
        return call.op.startswith("torch.") and not call.op.startswith("torch.Tensor.") \
            and call.op not in SIZE_FACTORIES  # their tensors are sizes, not inputs
    if call.spelling == METHOD:
        return call.receiver_node is not None
    if call.spelling == MODULE:
        return call.written in MODULE_OPS
    return call.written in OPERATOR_OPS


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
        if dtype in contract.cpu_declared and contract.runs_on_cuda(dtype):
            return f"; convert the input first, e.g. `{subject}{method}`"
    return ""


def observed_on_gpu() -> str:
    """The GPU run behind the table's CUDA failures, as a message shows it."""
    run = table.cuda_provenance()
    if not run:
        return "on a GPU"
    return f"on an {run['gpu']} with torch {run['torch']}"


def subject_text(call: _Call) -> str:
    return expr_text(call.subject) if call.subject is not None else "the input"


def origin_note(call: _Call) -> str:
    """`` ({origin})`` unless the input is itself the origin (``torch.det(torch.tensor(...))``)."""
    origin = call.subject_value.origin
    if origin is None or origin.root().node is call.subject:
        return ""
    return " ({origin})"
