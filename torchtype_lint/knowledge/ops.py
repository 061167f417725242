"""Which op a call is: every spelling of an op resolved to one name, arguments bound by name.

torch reaches one kernel through several spellings: a function (``torch.mm(a, b)``), a tensor
method (``a.mm(b)``), its in-place variant (``a.add_(b)``), a Python operator (``a @ b``) and
an ``nn`` module (``nn.MSELoss()(a, b)`` is ``F.mse_loss``). Rules that ask "is this a matrix
product?" used to match each spelling by hand, so one spelling was covered and another was
not. Here each call becomes an ``OpCall``: the op's one public name, how it was spelled, and
its arguments bound to the op's parameter names (the receiver of a method, or the left operand
of an operator, is the first parameter). Parameter names are torch's own, checked against
torch's signatures by ``tests/test_ops.py``.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, FrozenSet, Mapping, Optional, Tuple

from ..model.values import TOP, CallArgs, Callee, ModuleValue, TensorValue, Value
from .float_only_ops import FLOAT_ONLY
from .op_spellings import MODULE_OPS, OPERATOR_OPS, OPERATOR_SYMBOLS
from .torch_api import LOSS_FUNCTIONALS, TENSOR_OPS_ALSO_FUNCTIONS

FUNCTION, METHOD, MODULE, OPERATOR = "function", "method", "module", "operator"

_F = "torch.nn.functional."

#: Positional parameters of the ops rules bind arguments of, in torch 2.13's order. An op not
#: listed binds only keywords, and its first argument (or receiver) as ``input``.
SIGNATURES: Mapping[str, Tuple[str, ...]] = {
    # matrix products
    "torch.matmul": ("input", "other"), "torch.mm": ("input", "mat2"),
    "torch.bmm": ("input", "mat2"), "torch.mv": ("input", "vec"),
    "torch.dot": ("input", "tensor"), "torch.inner": ("input", "other"),
    "torch.tensordot": ("a", "b", "dims"), "torch.addmm": ("input", "mat1", "mat2"),
    "torch.baddbmm": ("input", "batch1", "batch2"), "torch.addbmm": ("input", "batch1", "batch2"),
    "torch.addmv": ("input", "mat", "vec"), "torch.cdist": ("x1", "x2", "p"),
    "torch.linalg.matmul": ("input", "other"), _F + "linear": ("input", "weight", "bias"),
    # losses
    _F + "cross_entropy": ("input", "target", "weight"), _F + "nll_loss": ("input", "target", "weight"),
    _F + "binary_cross_entropy": ("input", "target", "weight"),
    _F + "binary_cross_entropy_with_logits": ("input", "target", "weight"),
    _F + "mse_loss": ("input", "target"), _F + "l1_loss": ("input", "target"),
    _F + "smooth_l1_loss": ("input", "target"), _F + "huber_loss": ("input", "target"),
    _F + "kl_div": ("input", "target"),
    # indexing and joining
    _F + "embedding": ("input", "weight"), "torch.cat": ("tensors", "dim"),
    "torch.stack": ("tensors", "dim"), "torch.index_select": ("input", "dim", "index"),
    "torch.gather": ("input", "dim", "index"), "torch.masked_fill": ("input", "mask", "value"),
    "torch.where": ("condition", "input", "other"), "torch.masked_select": ("input", "mask"),
    "torch.masked_scatter": ("input", "mask", "source"),
    # shape ops whose dims the shape rules check (knowledge/dim_args.py)
    "torch.chunk": ("input", "chunks", "dim"), "torch.split": ("tensor", "split_size_or_sections", "dim"),
    "torch.unbind": ("input", "dim"), "torch.movedim": ("input", "source", "destination"),
    "torch.moveaxis": ("input", "source", "destination"), "torch.transpose": ("input", "dim0", "dim1"),
    "torch.swapdims": ("input", "dim0", "dim1"), "torch.swapaxes": ("input", "axis0", "axis1"),
    "torch.permute": ("input", "dims"), "torch.squeeze": ("input", "dim"), "torch.unsqueeze": ("input", "dim"),
    "torch.flatten": ("input", "start_dim", "end_dim"), "torch.unflatten": ("input", "dim", "sizes"),
    "torch.reshape": ("input", "shape"),
    # elementwise arithmetic (the operators' functions)
    "torch.add": ("input", "other"), "torch.sub": ("input", "other"), "torch.mul": ("input", "other"),
    "torch.div": ("input", "other"), "torch.pow": ("input", "exponent"),
    "torch.lerp": ("input", "end", "weight"),
    "torch.linalg.solve": ("A", "B"), "torch.cholesky_solve": ("B", "L", "upper"),
    _F + "layer_norm": ("input", "normalized_shape", "weight", "bias", "eps"),
    _F + "group_norm": ("input", "num_groups", "weight", "bias", "eps"),
    **{_F + f"conv{d}d": ("input", "weight", "bias", "stride", "padding", "dilation", "groups") for d in (1, 2, 3)},
}

#: Elementwise ops that do not promote: each listed operand must have the input's dtype
#: (``ema.lerp_(p, 0.01)`` of float64 and float32 raises "expected dtype double for `end`").
SAME_DTYPE_OPERANDS: Mapping[str, Tuple[str, ...]] = {
    "torch.lerp": ("end", "weight"),
    "torch.linalg.solve": ("B",),
    "torch.cholesky_solve": ("L",),
    # the affine parameters of the functional norms (float16/bfloat16 input with float32
    # parameters is accepted on CPU, as the norm layers accept it)
    _F + "layer_norm": ("weight", "bias"),
    _F + "group_norm": ("weight", "bias"),
    # a functional convolution's filter (a bias of the filter's dtype changes only the wording)
    **{_F + f"conv{d}d": ("weight",) for d in (1, 2, 3)},
    # class weights (from numpy statistics: float64) must have the logits' dtype
    _F + "cross_entropy": ("weight",), _F + "nll_loss": ("weight",),
}
#: The operand the others are compared with, where it is not ``input``.
SAME_DTYPE_FIRST: Mapping[str, str] = {"torch.linalg.solve": "A", "torch.cholesky_solve": "B"}

#: The matrix products, with the parameters of their two matrix operands: none of them
#: promotes dtypes (``torch.einsum``'s operands are its 2nd and 3rd positional arguments).
MATRIX_PRODUCTS: Mapping[str, Tuple[str, str]] = {
    "torch.matmul": ("input", "other"), "torch.mm": ("input", "mat2"), "torch.bmm": ("input", "mat2"),
    "torch.mv": ("input", "vec"), "torch.dot": ("input", "tensor"), "torch.inner": ("input", "other"),
    "torch.tensordot": ("a", "b"), "torch.addmm": ("mat1", "mat2"),
    "torch.baddbmm": ("batch1", "batch2"), "torch.addbmm": ("batch1", "batch2"),
    "torch.addmv": ("mat", "vec"), "torch.cdist": ("x1", "x2"),
    "torch.linalg.matmul": ("input", "other"), _F + "linear": ("input", "weight"),
    "torch.einsum": ("", ""),
}

#: Factories: a tensor among their arguments is a size or a bound read as a Python number
#: (``torch.randn(b, lengths.max(), d)``), never an input whose dtype the op computes in.
SIZE_FACTORIES: FrozenSet[str] = frozenset("torch." + name for name in (
    "zeros", "ones", "empty", "rand", "randn", "full", "randint", "arange", "linspace",
    "logspace", "eye", "randperm", "tril_indices", "triu_indices"))

#: Python operators whose op is one torch function, beyond those the contract table judges.
_ARITHMETIC_OPERATORS: Mapping[str, str] = {
    "Add": "torch.add", "Subtract": "torch.sub", "Multiply": "torch.mul", "Divide": "torch.div",
    "Power": "torch.pow",
}
_SYMBOLS: Mapping[str, str] = {**OPERATOR_SYMBOLS, "Add": "+", "Subtract": "-", "Multiply": "*",
                               "Divide": "/", "Power": "**"}

#: Tensor methods that are the same op as a ``torch.X`` function.
_FUNCTION_TWINS: FrozenSet[str] = frozenset(TENSOR_OPS_ALSO_FUNCTIONS) | frozenset(FLOAT_ONLY) | frozenset(
    name[len("torch."):] for name in SIGNATURES
    if name.startswith("torch.") and "." not in name[len("torch."):])

#: Every nn module class whose call is one functional op (class-index losses included).
_MODULE_FUNCTIONS: Mapping[str, str] = {
    **{cls: _F + function for cls, function in LOSS_FUNCTIONALS.items()}, **MODULE_OPS}


@dataclass(frozen=True)
class OpCall:
    """One evaluated call (or operator) as the op it is."""

    node: Any
    #: The op's public name: ``torch.matmul``, ``torch.nn.functional.mse_loss``,
    #: ``Tensor.view`` (a method with no function twin), ``torch.nn.Linear`` (a layer).
    op: str
    #: FUNCTION, METHOD, MODULE or OPERATOR.
    spelling: str
    #: How the call reads in a message: ``torch.mm``, ``.mm()``, ``@``, ``nn.MSELoss``.
    label: str
    #: Arguments as written; for a method or operator, without the receiver / left operand.
    args: CallArgs
    #: The tensor a method was called on, the left operand, or the module called; else TOP.
    receiver: Value = TOP
    receiver_node: Any = None
    result: Value = TOP
    #: ``a.add_(b)``: the in-place variant of ``torch.add``.
    inplace: bool = False
    #: The name as written: the function's qualified name, the method's name, the module's
    #: class name, the operator's symbol.
    written: str = ""

    @property
    def table_name(self) -> str:
        """The name the op contract table (``contracts/``) keys this spelling by: methods
        are ``Tensor.X`` / ``Tensor.X_`` there, every other spelling is the op."""
        return "Tensor." + self.written if self.spelling == METHOD else self.op

    @property
    def has_star(self) -> bool:
        """``*args`` or ``**kwargs`` at the call: positions are unknowable."""
        return self.args.has_star

    def arg(self, name: str) -> Value:
        """The value bound to parameter ``name`` (TOP when not given or not knowable)."""
        found = self._locate(name)
        if found is None:
            return TOP
        where, index = found
        return self.receiver if where == "receiver" else self.args.get(index, name)

    def arg_node(self, name: str) -> Any:
        """The expression bound to parameter ``name``, if written."""
        found = self._locate(name)
        if found is None:
            return None
        where, index = found
        return self.receiver_node if where == "receiver" else self.args.node(index, name)

    def has_arg(self, name: str) -> bool:
        found = self._locate(name)
        return found is not None and (found[0] == "receiver" or self.args.has(found[1], name))

    def _locate(self, name: str) -> Optional[Tuple[str, Optional[int]]]:
        params = SIGNATURES.get(self.op, ("input",))
        bound_receiver = self.spelling in (METHOD, OPERATOR)
        if name in self.args.kw:
            return "args", None
        if name not in params:
            return None
        position = params.index(name)
        if bound_receiver:
            if position == 0:
                return "receiver", None
            position -= 1
        return "args", position


def op_call(node: Any, callee: Callee, receiver_node: Any = None) -> Optional[OpCall]:
    """The op a resolved call is, or None for calls that are no torch op (user functions,
    unknown callees, methods of other objects)."""
    if callee.kind == "symbol":
        label = "F." + callee.name[len(_F):] if callee.name.startswith(_F) else callee.name
        return OpCall(node, callee.name, FUNCTION, label, callee.args, result=callee.result,
                      written=callee.name)
    if callee.kind == "method" and isinstance(callee.receiver, TensorValue):
        op, inplace = method_op(callee.name)
        return OpCall(node, op, METHOD, f".{callee.name}()", callee.args, callee.receiver,
                      receiver_node, callee.result, inplace, callee.name)
    if callee.kind == "module" and isinstance(callee.receiver, ModuleValue):
        short = callee.receiver.short_name
        return OpCall(node, module_op(short), MODULE, f"nn.{short}", callee.args, callee.receiver,
                      receiver_node, callee.result, written=short)
    return None


def operator_call(node: Any, operator: str, left: Value, right: Value, result: Value) -> Optional[OpCall]:
    """``a @ b`` and friends as the op of their torch function (``operator``: libcst's class
    name of the operator). Only when an operand is a tensor: on Python numbers the operator is
    Python's."""
    op = OPERATOR_OPS.get(operator) or _ARITHMETIC_OPERATORS.get(operator)
    if op is None or not (isinstance(left, TensorValue) or isinstance(right, TensorValue)):
        return None
    args = CallArgs([right], {}, [getattr(node, "right", None)])
    return OpCall(node, op, OPERATOR, _SYMBOLS[operator], args, left, getattr(node, "left", None), result,
                  written=operator)


def method_op(name: str) -> Tuple[str, bool]:
    """(op, in place) of tensor method ``name``: ``torch.X`` where a function twin exists."""
    if name.endswith("_") and not name.endswith("__") and name[:-1] in _FUNCTION_TWINS:
        return "torch." + name[:-1], True
    if name in _FUNCTION_TWINS:
        return "torch." + name, False
    return "Tensor." + name, name.endswith("_") and not name.endswith("__")


def module_op(short_name: str) -> str:
    """The op of calling an nn module: its functional twin, or the module class itself."""
    return _MODULE_FUNCTIONS.get(short_name, "torch.nn." + short_name)
