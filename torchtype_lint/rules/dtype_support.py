"""Shared helpers of the dtype rule families (TTL1xx-TTL4xx, TTL9xx).

Precision first: every predicate here answers "yes" only when *every* dtype the engine
considers possible satisfies it; an unknown dtype set (``None``) or a non-tensor value
answers "no", so rules built on these helpers stay silent on what the engine cannot prove.

A use-site error whose value came through a ``torch.from_numpy`` / ``torch.tensor``
conversion names that conversion as the root cause it explains; the checker then keeps one
report per root cause (``torchtype_lint/root_causes.py``).
"""
from __future__ import annotations

import re
from typing import Any, Callable, Iterable, Optional, Tuple

import libcst as cst

from ..findings import Fix
from ..knowledge import dtypes as D
from ..knowledge.ops import FUNCTION, MATRIX_PRODUCTS
from ..values import (
    BOOL, ModuleValue, Origin, TensorValue, Value, category,
    describe_dtypes, short_dtype,
)
from .base import Rule
from .context import RuleContext

FLOATING = 2


# --------------------------------------------------------------------------- dtype predicates


def dtypes_of(value: Value) -> Optional[frozenset]:
    """The known, non-empty dtype set of a tensor value, else None.

    A tensor the engine believes empty (a 0 in its shape) counts as unknown: its dtype then
    usually comes from ``torch.tensor([])`` of a container the engine thinks is still empty
    although it was filled through an alias (``d.setdefault(k, []).append(i)``).
    """
    if isinstance(value, TensorValue) and value.dtypes:
        if value.shape is not None and 0 in value.shape:
            return None
        return value.dtypes
    return None


def all_dtypes(value: Value, predicate: Callable[[str], bool]) -> bool:
    """True when ``value`` is a tensor whose every possible dtype satisfies ``predicate``."""
    dtypes = dtypes_of(value)
    return dtypes is not None and all(predicate(d) for d in dtypes)


def is_int_or_bool(dtype: str) -> bool:
    return category(dtype) < FLOATING


def is_float(dtype: str) -> bool:
    return category(dtype) == FLOATING


def is_bool(dtype: str) -> bool:
    return dtype == BOOL


def never_equal(a: Value, b: Value) -> bool:
    """Both operands are tensors with known dtypes and no dtype of one equals one of the other."""
    da, db = dtypes_of(a), dtypes_of(b)
    return da is not None and db is not None and not (da & db)


def pairs(a: Value, b: Value) -> Iterable[Tuple[str, str]]:
    for x in dtypes_of(a) or ():
        for y in dtypes_of(b) or ():
            yield x, y


def mismatch_kind(a: Value, b: Value) -> Optional[str]:
    """How two operands of a non-promoting op (matmul, layer) mismatch, if they always do.

    "precision": both sides floating point of different widths (float16/bfloat16/float64 vs
    float32) -- TTL4xx; "mixing": any combination involving an integer or bool dtype
    (int vs float, int32 vs int64) -- TTL2xx; None when some combination matches or a
    dtype is unknown.
    """
    if not never_equal(a, b):
        return None
    if all(is_float(x) and is_float(y) for x, y in pairs(a, b)):
        return "precision"
    return "mixing"


# --------------------------------------------------------------------------- names torch prints


def torch_name(dtype: str) -> str:
    """``torch.float32``."""
    return f"torch.{dtype}"


def scalar_type_name(dtype: str) -> str:
    """The capitalised scalar type of ``expected scalar type Float but found Double``."""
    return short_dtype(dtype)


_C10_NAMES = {
    "float32": "float", "float64": "double", "float16": "c10::Half", "bfloat16": "c10::BFloat16",
    "int64": "long int", "int32": "int", "int16": "short int", "int8": "signed char",
    "uint8": "unsigned char", "bool": "bool", "complex64": "c10::complex<float>",
    "complex128": "c10::complex<double>",
}


def c10_name(dtype: str) -> str:
    """The C++ type name of ``expected m1 and m2 to have the same dtype, but got: float != double``."""
    return _C10_NAMES.get(dtype, dtype)


def show(value: Value) -> str:
    """The dtype(s) of a tensor value for a message: ``float64`` or ``{int32, int64}``."""
    return describe_dtypes(dtypes_of(value))


def one(value: Value) -> Optional[str]:
    dtypes = dtypes_of(value)
    return next(iter(dtypes)) if dtypes is not None and len(dtypes) == 1 else None


# --------------------------------------------------------------------------- source helpers

_EMPTY = cst.Module(body=[])


def code(node: Any, limit: int = 60) -> str:
    """Short source text of a node, for messages."""
    try:
        text = " ".join(_EMPTY.code_for_node(node).split())
    except Exception:  # noqa: BLE001 - messages never crash a rule
        return "?"
    return text if len(text) <= limit else text[: limit - 3] + "..."


def torch_module_expr(func: Any) -> Optional[Any]:
    """For ``torch.tensor`` / ``th.from_numpy`` the expression naming torch (``torch``/``th``)."""
    if isinstance(func, cst.Attribute):
        return func.value
    return None


def dtype_attr(module_expr: Any, dtype: str) -> cst.Attribute:
    """``<module_expr>.<dtype>`` as a node (``torch.float32``)."""
    return cst.Attribute(value=module_expr, attr=cst.Name(dtype))


def method_call(receiver: Any, method: str) -> cst.Call:
    """``receiver.method()`` as a node."""
    return cst.Call(func=cst.Attribute(value=receiver, attr=cst.Name(method)))


# --------------------------------------------------------------------------- callees

def matmul_operands(node: Any, ctx: RuleContext) -> Optional[Tuple[str, str, Value, Value, Any, Any]]:
    """(op, how it reads, left, right, left node, right node) when ``node`` is a matrix
    product, however it is spelled (``torch.mm(a, b)``, ``a.mm(b)``, ``a @ b``...)."""
    call = ctx.op_call(node)
    if call is None or call.has_star or call.op not in MATRIX_PRODUCTS:
        return None
    if call.op == "torch.einsum":
        args = call.args
        if call.spelling != FUNCTION or len(args.pos) != 3:
            return None
        return call.op, call.label, args.pos[1], args.pos[2], args.pos_nodes[1], args.pos_nodes[2]
    left, right = MATRIX_PRODUCTS[call.op]
    return (call.op, call.label, call.arg(left), call.arg(right), call.arg_node(left),
            call.arg_node(right))


def matmul_message(op: str, a: str, b: str, a_rank: Optional[int], b_rank: Optional[int]) -> str:
    """The first line torch 2.13 prints for matrix product ``op`` of dtypes ``a`` and ``b`` (CPU)."""
    if op in ("torch.bmm", "torch.einsum", "torch.baddbmm", "torch.cdist"):
        return f"expected scalar type {scalar_type_name(a)} but found {scalar_type_name(b)}"
    if op in ("torch.tensordot", "torch.inner"):
        return "both inputs should have same dtype"
    if op == "torch.dot" or (a_rank == 1 and b_rank == 1 and op == "torch.matmul"):
        return (f"dot : expected both vectors to have same dtype, but found "
                f"{scalar_type_name(a)} and {scalar_type_name(b)}")
    if op in ("torch.mv", "torch.addmv"):
        return "addmv input tensors must have the same dtype"
    if op in ("torch.addmm", "torch.addbmm"):
        return "self and mat2 must have the same dtype"
    return f"expected m1 and m2 to have the same dtype, but got: {c10_name(a)} != {c10_name(b)}"


def rank(value: Value) -> Optional[int]:
    if isinstance(value, TensorValue) and value.shape is not None:
        return len(value.shape)
    return None


# --------------------------------------------------------------------------- nn modules

#: Layers whose forward multiplies the input with float parameters (input dtype must match).
MATMUL_LAYERS = {
    "Linear", "Bilinear", "Conv1d", "Conv2d", "Conv3d", "ConvTranspose1d", "ConvTranspose2d",
    "ConvTranspose3d", "LSTMCell", "GRUCell", "RNNCell", "MultiheadAttention",
    "TransformerEncoderLayer", "TransformerDecoderLayer", "Transformer", "TransformerEncoder",
}
RNN_LAYERS = {"LSTM", "GRU", "RNN"}
#: Norm layers: float16/bfloat16 input with float32 params is accepted (mixed-dtype kernels).
NORM_LAYERS = {"BatchNorm1d", "BatchNorm2d", "BatchNorm3d", "LayerNorm", "GroupNorm",
               "InstanceNorm1d", "InstanceNorm2d", "InstanceNorm3d"}
#: Layers that pass the input dtype through, so a Sequential's first real layer sees it.
#: Only layers verified to keep every dtype, integers included (Sigmoid/Tanh turn ints into
#: float32, Dropout and LeakyReLU reject ints with errors of their own).
PASS_THROUGH = {"ReLU", "ReLU6", "Identity", "Flatten", "Unflatten", "MaxPool1d", "MaxPool2d",
                "MaxPool3d"}


def first_layer(module: Value, x: Value) -> Optional[Tuple[ModuleValue, Value, str]]:
    """The layer of ``module`` that first consumes ``x``, with the input it sees there.

    For an ``nn.Sequential`` this walks past dtype-preserving layers (ReLU, Dropout,
    Flatten, pools); returns (layer, input, path) or None when the walk meets something it
    does not know.
    """
    path = ""
    while isinstance(module, ModuleValue) and module.short_name == "Sequential":
        nxt = None
        for i, child in enumerate(module.children):
            if not isinstance(child, ModuleValue):
                return None
            if child.short_name in PASS_THROUGH:
                continue
            nxt = child
            path += f"[{i}]"
            break
        if nxt is None:
            return None
        module = nxt
    if not isinstance(module, ModuleValue):
        return None
    return module, x, path


def module_dtype_changed(module: ModuleValue) -> bool:
    """True when a cast such as ``model.double()`` set the parameter dtype (not the default)."""
    return module.dtype_origin is not None and module.dtype_origin is not module.origin


# --------------------------------------------------------------------------- numpy conversions

CONVERSIONS = {"torch.from_numpy", "torch.tensor", "torch.as_tensor", "torch.asarray"}


def conversion_name(call: Any, ctx: RuleContext) -> Optional[str]:
    """``torch.from_numpy`` / ``torch.tensor`` / ``torch.as_tensor`` when ``call`` is one."""
    if not isinstance(call, cst.Call):
        return None
    callee = ctx.callee(call)
    if callee is None or callee.kind != "symbol" or callee.name not in CONVERSIONS:
        return None
    return callee.name


def conversion_in_chain(origin: Optional[Origin], ctx: RuleContext) -> Optional[Any]:
    """The ``torch.from_numpy(...)``-style call node in a provenance chain, if any."""
    link = origin
    seen = 0
    while link is not None and seen < 12:
        if conversion_name(link.node, ctx) is not None and (
                "ndarray" in (link.note or "") or "from_numpy" in (link.note or "")):
            return link.node
        link = link.parent
        seen += 1
    return None


def can_cast(src: str, dst: str) -> bool:
    return D.can_cast(src, dst)


# --------------------------------------------------------------------------- rule base


def paren(node: Any) -> Any:
    """``node`` wrapped in parentheses when a method call on it would bind wrongly."""
    if isinstance(node, (cst.Name, cst.Attribute, cst.Call, cst.Subscript)) or node.lpar:
        return node
    return node.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])


_CAST_FOR = {"float32": "float", "float64": "double", "float16": "half", "bfloat16": "bfloat16",
             "int64": "long", "int32": "int", "bool": "bool", "uint8": "byte"}


def castable(dtype: Optional[str]) -> bool:
    """A dtype with a cast method (`.float()`, `.long()`...) that fixes can write."""
    return dtype in _CAST_FOR


def cast_expr(node: Any, dtype: str) -> cst.Call:
    """``node.float()`` (or the cast method for ``dtype``) as a node."""
    return method_call(paren(node), _CAST_FOR[dtype])


def cast_text(text: str, dtype: str) -> str:
    method = _CAST_FOR.get(dtype)
    return f"{text}.{method}()" if method else f"{text}.to(torch.{dtype})"


class DtypeRule(Rule):
    """A rule of the dtype families: a report whose value came through a numpy conversion
    says so, and names that conversion as the root cause it explains."""

    def flag(self, ctx: RuleContext, node: Any, message: str, origin: Optional[Origin] = None,
             fix: Optional[Fix] = None) -> None:
        conversion = conversion_in_chain(origin, ctx)
        if conversion is not None:
            note = f"; converted by `{code(conversion)}`, which keeps numpy's dtype"
            if "{origin}" in message:
                message = message.replace("{origin}", "{origin}" + note, 1)
            else:
                message += f" ({note[2:]})"
        self.report(node, _articles(message), origin=origin, fix=fix, explains=conversion)


def _articles(message: str) -> str:
    """``a int64`` -> ``an int64`` (dtype names are filled into ``a {dtype}`` templates)."""
    return re.sub(r"\ba ((?:int|{int)\w*)", r"an \1", message)


def said(message: str) -> str:
    """A torch message quoted for ours: double quotes unless it contains some."""
    return f"'{message}'" if '"' in message else f'"{message}"'


def origin_note(value: Value) -> str:
    """`` ({origin})`` when the value has a provenance to show, else nothing."""
    return " ({origin})" if getattr(value, "origin", None) is not None else ""
