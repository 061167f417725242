"""Other spellings of an op: the one public name the op contract table knows them by.

torch's OpInfo table (``contracts/``) is keyed by function and method names (``torch.matmul``,
``Tensor.abs``, ``torch.nn.functional.mse_loss``). The same kernels are reached through
``nn`` module classes (``nn.MSELoss()(a, b)``) and Python operators (``a @ b``, ``~a``);
mapping those spellings here lets every fact of the table apply to them too. Each entry is
checked against torch by ``tests/test_op_spellings.py``: for every tracked dtype, the spelling
raises on CPU exactly when the named op does, with the same exception and message (so TTL250
may quote torch's words for it).
"""
from __future__ import annotations

from typing import Dict, Mapping

from .torch_api import LOSS_FUNCTIONALS

_F = "torch.nn.functional."

#: ``nn`` module classes whose ``forward(input, ...)`` is one functional op on the call's
#: tensors; their constructor arguments (``reduction=``, ``dim=``, ``negative_slope=``) choose
#: how it computes, never which dtypes it accepts. Modules with parameters are not here: their
#: weights take part in the op.
MODULE_OPS: Mapping[str, str] = {
    # activations
    "ReLU": _F + "relu", "ReLU6": _F + "relu6", "ELU": _F + "elu", "SELU": _F + "selu",
    "CELU": _F + "celu", "GELU": _F + "gelu", "SiLU": _F + "silu", "Mish": _F + "mish",
    "Sigmoid": _F + "sigmoid", "Tanh": _F + "tanh", "Softplus": _F + "softplus",
    "Softsign": _F + "softsign", "Hardtanh": _F + "hardtanh", "Hardsigmoid": _F + "hardsigmoid",
    "Hardswish": _F + "hardswish", "LeakyReLU": _F + "leaky_relu", "LogSigmoid": _F + "logsigmoid",
    "Tanhshrink": _F + "tanhshrink", "Softshrink": _F + "softshrink", "Hardshrink": _F + "hardshrink",
    "Softmax": _F + "softmax", "LogSoftmax": _F + "log_softmax", "Softmin": _F + "softmin",
    # losses of (input, target) the engine does not model (the rest come from its table below)
    "SoftMarginLoss": _F + "soft_margin_loss",
    "MultiLabelSoftMarginLoss": _F + "multilabel_soft_margin_loss",
    # Class-index losses are not here: their target is an integer tensor by design, which the
    # "one shared dtype" judgement of the contract table does not fit.
    **{cls: _F + function for cls, function in LOSS_FUNCTIONALS.items()
       if function not in ("cross_entropy", "nll_loss")},
}

#: Python binary operators on tensors (libcst operator class names). `-` is left to TTL2xx's
#: bool-subtraction rule, whose message says what torch suggests instead; `~` is not here:
#: on a float tensor it raises a TypeError of Python's operator protocol, not bitwise_not's
#: NotImplementedError.
OPERATOR_OPS: Mapping[str, str] = {
    "MatrixMultiply": "torch.matmul",
    "BitAnd": "torch.bitwise_and", "BitOr": "torch.bitwise_or", "BitXor": "torch.bitwise_xor",
    "LeftShift": "torch.bitwise_left_shift", "RightShift": "torch.bitwise_right_shift",
    "Modulo": "torch.remainder", "FloorDivide": "torch.floor_divide",
}

#: How each operator is shown in messages.
OPERATOR_SYMBOLS: Dict[str, str] = {
    "MatrixMultiply": "@", "BitAnd": "&", "BitOr": "|", "BitXor": "^", "LeftShift": "<<",
    "RightShift": ">>", "Modulo": "%", "FloorDivide": "//",
}
