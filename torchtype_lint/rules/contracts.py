"""TTL250/TTL251: ops called on a dtype they have no kernel for, from torch's own OpInfo table.

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

from ..contracts import table
from ..knowledge.float_only_ops import covered_names
from ..knowledge.op_spellings import MODULE_OPS, OPERATOR_OPS, OPERATOR_SYMBOLS
from ..values import (
    ArrayValue, DeviceValue, DTypeValue, ModuleValue, NoneValue, ScalarValue, SequenceValue,
    StringValue, TensorValue, Value, Category, category, describe_dtypes,
)
from .base import Rule, RuntimeClaim, expr_text, register

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


def judged_call(node: Any, ev: Any) -> Optional[_Call]:
    """The call, module call or operator as the table sees it, or None when its dtype sets
    would not apply. Every spelling of an op ends up under the one name the table knows
    (``knowledge/op_spellings.py``): ``nn.MSELoss()(a, b)`` is judged as ``F.mse_loss``."""
    if isinstance(node, cst.BinaryOperation):
        return _judged_operator(node, ev)
    callee = ev.callee(node)
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


def _judged_operator(node: cst.BinaryOperation, ev: Any) -> Optional[_Call]:
    """``a @ b``, ``a & b``, ``a // b``...: the operator's function, on the operands' values."""
    kind = type(node.operator).__name__
    name = OPERATOR_OPS.get(kind)
    if name is None:
        return None
    keyed = [(None, ev.value(operand), operand) for operand in (node.left, node.right)]
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


def _handled_elsewhere(call: _Call) -> bool:
    return call.name in COVERED_BY_TTL211 and all(category(d) < Category.FLOAT for d in call.dtypes)


def _suggestion(contract: table.Contract, subject: str, dtypes: FrozenSet[str]) -> str:
    if any(category(d) == Category.COMPLEX for d in dtypes):
        return ""  # converting complex to a real dtype drops the imaginary part: no advice
    for dtype, method in _FIX_METHODS:
        if dtype in contract.cpu_declared and dtype in contract.cuda:
            return f"; convert the input first, e.g. `{subject}{method}`"
    return ""


def _subject_text(call: _Call) -> str:
    return expr_text(call.subject) if call.subject is not None else "the input"


def _origin_note(call: _Call) -> str:
    """`` ({origin})`` unless the input is itself the origin (``torch.det(torch.tensor(...))``)."""
    origin = call.subject_value.origin
    if origin is None or origin.root().node is call.subject:
        return ""
    return " ({origin})"


@register
class OpDtypeUnsupported(Rule):
    """
    ## What it does
    Flags a call of a torch operator on tensors of a dtype the operator has no kernel for,
    using a table generated from torch's own operator database (OpInfo): about 1,100
    public names such as `torch.cholesky`, `torch.bitwise_and`, `Tensor.abs`,
    `torch.nn.functional.relu`, `torch.linalg.svd`, with their supported dtypes on CPU and
    on CUDA. On CPU every reported gap was observed by running the operator; on CUDA the
    table repeats torch's declarations (see docs/contracts.md).

    It reports when the call fails on the device the tensors are known to be on, or on
    every device when the device is not known: for example integer `torch.matmul` on a
    tensor known to be on CUDA, `torch.linalg.inv` on an integer tensor anywhere.

    Every spelling of an op is judged by the same facts: the function, the method, the
    `nn` module class (`nn.MSELoss()(a, b)` as `F.mse_loss`, `nn.Hardsigmoid()(x)` as
    `F.hardsigmoid`) and the Python operator (`a & b` as `torch.bitwise_and`, `a @ b`,
    `a // b`...), each mapping checked against torch.

    ## Why is this bad?
    The call raises as soon as it runs: `NotImplementedError: "cholesky_cpu" not
    implemented for 'Long'`, `RuntimeError: linalg.svd: Expected a floating point or
    complex tensor as input. Got Long`, `NotImplementedError: "bitwise_and_cpu" not
    implemented for 'Float'`. torch does not convert the input for you.

    Calls are judged only when every tensor input has the same known dtype and nothing
    in the call changes the dtype the operator computes in (`dtype=`, `out=`, a float
    scalar next to an integer tensor): mixed-dtype calls are the business of type
    promotion and of the hand-written rules (TTL201, TTL211...), which also take
    precedence where they report the same call.

    ## Example
    ```python
    counts = torch.tensor([[2, 1], [1, 2]])
    inverse = torch.linalg.inv(counts)
    ```

    ## Use instead
    ```python
    counts = torch.tensor([[2, 1], [1, 2]])
    inverse = torch.linalg.inv(counts.float())
    ```

    ## Fix safety
    No fix: which dtype the computation should run in (float32, float64, or rather an
    integer-friendly operator) is the author's decision.
    """

    code = "TTL250"
    name = "op-dtype-unsupported"
    summary = "operator called on a dtype it has no kernel for (from torch's OpInfo table)"
    severity = "error"
    listens = (cst.Call, cst.BinaryOperation)
    fix_safety = "none"
    # NotImplementedError ("... not implemented for 'Long'") is a RuntimeError subclass.
    runtime = RuntimeClaim("RuntimeError", r"not implemented for|not supported|does not support|"
                                           r"only supports?|Expected a floating point|expected .* dtype")

    def visit(self, node: Any, ev: Any) -> None:
        call = judged_call(node, ev)
        if call is None or _handled_elsewhere(call):
            return
        contract = table.contract(call.name)
        if contract is None:
            return
        dtypes = call.dtypes
        if call.device == "cuda":
            if not all(d not in contract.cuda and (contract.fails_on_cpu(d) or d in contract.cpu_declared)
                       for d in dtypes):
                return
        else:
            if not all(contract.fails_on_cpu(d) for d in dtypes):
                return
            if call.device != "cpu" and not all(d not in contract.cuda for d in dtypes):
                return  # fails on CPU only, and the tensor may be on a GPU
        # Texts only once the call is reported: printing the subject costs O(its size), which
        # made long method chains (`x.abs().abs()...`) quadratic.
        shown = describe_dtypes(dtypes)
        subject = _subject_text(call)
        origin = _origin_note(call)
        if call.device == "cuda":
            where = "on CUDA" if not all(contract.fails_on_cpu(d) for d in dtypes) else "on CPU or CUDA"
            message = (f"`{call.label}` is not implemented for {shown} tensors {where} "
                       f"(torch's OpInfo declares no CUDA kernel for {shown}); `{subject}` is "
                       f"{shown} on cuda{origin}{_suggestion(contract, subject, call.dtypes)}")
        else:
            single = next(iter(dtypes)) if len(dtypes) == 1 else None
            torch_says = contract.cpu_message(single) if single else None
            said = f": torch raises `{torch_says}`" if torch_says else ""
            where = "" if call.device == "cpu" else " (on CPU or CUDA)"
            message = (f"`{call.label}` is not implemented for {shown} tensors{where}{said}; "
                       f"`{subject}` is {shown}{origin}{_suggestion(contract, subject, call.dtypes)}")
        self.report(node, message, origin=call.subject_value.origin)


@register
class OpDtypeUnsupportedOnCuda(Rule):
    """
    ## What it does
    Flags a call that works on CPU but has no CUDA kernel for its input dtype, in a file
    that moves tensors or models to CUDA (`.cuda()`, `.to("cuda")`, `device="cuda"`)
    while the tensor's own device is not known. The classic case is integer matrix
    multiplication: `torch.matmul` of two int64 tensors works on CPU and raises
    `RuntimeError: "addmm_cuda" not implemented for 'Long'` on a GPU.

    The CUDA facts come from torch's OpInfo declarations (`dtypesIfCUDA`), which torch's
    CI checks on GPUs; they were not re-run by this project (see docs/contracts.md). When
    the tensor is known to be on CUDA, TTL250 reports the call as an error instead.

    ## Why is this bad?
    The code passes every CPU test and fails the first time it runs on a GPU.

    ## Example
    ```python
    device = "cuda" if torch.cuda.is_available() else "cpu"
    counts = torch.tensor([[1, 2], [3, 4]])
    pairs = torch.matmul(counts, counts)
    ```

    ## Use instead
    ```python
    device = "cuda" if torch.cuda.is_available() else "cpu"
    counts = torch.tensor([[1, 2], [3, 4]])
    pairs = torch.matmul(counts.float(), counts.float())
    ```

    ## Fix safety
    No fix: converting changes the result dtype (and, past 2**24, float32 loses integer
    precision), which the author has to accept.
    """

    code = "TTL251"
    name = "op-dtype-unsupported-on-cuda"
    summary = "operator has no CUDA kernel for the input dtype, in a file that uses CUDA"
    severity = "warning"
    listens = (cst.Call, cst.BinaryOperation)
    fix_safety = "none"
    runtime = RuntimeClaim("RuntimeError", r"not implemented for", ("cuda",))

    def visit(self, node: Any, ev: Any) -> None:
        if not getattr(ev, "moves_to_cuda", False):
            return
        call = judged_call(node, ev)
        if call is None or call.device is not None or _handled_elsewhere(call):
            return
        contract = table.contract(call.name)
        if contract is None or not all(contract.cuda_only_gap(d) for d in call.dtypes):
            return
        shown = describe_dtypes(call.dtypes)
        subject = _subject_text(call)
        origin = _origin_note(call)
        self.report(
            node,
            f"`{call.label}` on {shown} tensors works on CPU but is not implemented on CUDA "
            f"(torch's OpInfo declares no CUDA kernel for {shown}), and this file moves "
            f"tensors to CUDA; `{subject}` is {shown}{origin}{_suggestion(contract, subject, call.dtypes)}",
            origin=call.subject_value.origin)
