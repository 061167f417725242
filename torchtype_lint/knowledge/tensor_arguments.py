"""Parameters torch takes only as a Tensor: given a tuple, list or dict (a model's tuple of
outputs, an LSTM's ``(output, (h, c))``), a Python number or a numpy array or scalar
(``numpy.float64`` from array arithmetic), torch raises ``TypeError`` (``relu(): argument
'input' (position 1) must be Tensor, not tuple``; a convolution says ``conv2d() received an
invalid combination of arguments``).

Functions are keyed by the op names of ``knowledge/ops.py``, the calls of ``nn`` modules by
their class. Only (op, parameter) pairs where every one of those kinds of value
raises ``TypeError``, whichever spelling reaches the op, are listed there; the ops that call a
tensor method on the argument first (``F.mse_loss`` calls ``input.size()``, ``F.sigmoid``
``input.sigmoid()``) raise ``AttributeError`` (``'tuple' object has no attribute 'size'``)
and are listed apart. Each entry is run in torch by ``tests/test_tensor_arguments.py``.
"""
from __future__ import annotations

from typing import FrozenSet, Mapping, Tuple

_F = "torch.nn.functional."

#: function op -> the parameters that take only a Tensor.
FUNCTIONS: Mapping[str, FrozenSet[str]] = {
    # activations and dropout
    **{_F + name: frozenset({"input"}) for name in (
        "relu", "relu6", "gelu", "silu", "elu", "leaky_relu", "dropout", "hardtanh")},
    **{"torch." + name: frozenset({"input"}) for name in ("relu", "sigmoid", "tanh", "exp", "softmax")},
    _F + "linear": frozenset({"input"}),
    "torch.matmul": frozenset({"input", "other"}),
    # losses
    _F + "cross_entropy": frozenset({"input", "target", "weight"}),
    _F + "nll_loss": frozenset({"input", "target"}),
    _F + "kl_div": frozenset({"input", "target"}),
    _F + "binary_cross_entropy_with_logits": frozenset({"weight", "pos_weight"}),
}

#: nn module class -> the parameters of its call that take only a Tensor (by class: nn.Sigmoid
#: calls torch.sigmoid, which raises TypeError, where F.sigmoid raises AttributeError).
MODULES: Mapping[str, FrozenSet[str]] = {
    **{name: frozenset({"input"}) for name in (
        "Linear", "Conv1d", "Conv2d", "Conv3d", "LayerNorm", "Embedding", "Dropout",
        "MaxPool1d", "MaxPool2d", "AdaptiveAvgPool1d", "Sigmoid", "Tanh", "ReLU", "GELU", "SiLU", "ELU",
        "LeakyReLU")},
    **{name: frozenset({"input", "target"}) for name in ("CrossEntropyLoss", "NLLLoss", "KLDivLoss")},
}

#: A regular expression every message of those TypeErrors matches.
MESSAGE_PATTERN = r"must be Tensor, not|received an invalid combination of arguments"

# --------------------------------------------------------------------------- AttributeError

#: Functions that call a tensor method on the argument first (``input.size()``, ``.dim()``,
#: ``.softmax()``): a tuple, list, dict or Python number there raises ``AttributeError``
#: (``'tuple' object has no attribute 'size'``). op -> (parameters, whether a numpy array or
#: scalar raises AttributeError too: the losses pass it to torch's parser, a TypeError).
ATTRIBUTE_FUNCTIONS: Mapping[str, Tuple[FrozenSet[str], bool]] = {
    **{_F + name: (frozenset({"input", "target"}), False) for name in (
        "mse_loss", "l1_loss", "smooth_l1_loss", "huber_loss", "binary_cross_entropy",
        "binary_cross_entropy_with_logits")},
    **{_F + name: (frozenset({"input"}), True) for name in ("sigmoid", "tanh", "softmax", "log_softmax")},
}

#: The same for ``nn`` module calls, by class.
ATTRIBUTE_MODULES: Mapping[str, Tuple[FrozenSet[str], bool]] = {
    **{name: (frozenset({"input", "target"}), False) for name in (
        "MSELoss", "L1Loss", "SmoothL1Loss", "HuberLoss", "BCELoss", "BCEWithLogitsLoss")},
    **{name: (frozenset({"input"}), True) for name in (
        "Softmax", "LogSoftmax", "BatchNorm1d", "BatchNorm2d", "BatchNorm3d", "LSTM", "GRU", "RNN")},
    **{name: (frozenset({"input"}), False) for name in ("Flatten", "AdaptiveAvgPool2d")},
}

#: A regular expression every message of those AttributeErrors matches.
ATTRIBUTE_PATTERN = r"object has no attribute"


#: Tensor methods and attributes that neither a tuple, a list nor a namedtuple has, so reading
#: one on them raises AttributeError (TTL218). tests/test_container_used_as_tensor.py checks each
#: name against dir(torch.Tensor), dir(tuple) and dir(list). ``values``/``indices`` are left out:
#: they are fields of torch.return_types namedtuples; ``numel``: a shape (torch.Size) has it.
TENSOR_ONLY_ATTRIBUTES = frozenset({
    "size", "shape", "dim", "ndim", "dtype", "device", "view", "reshape", "squeeze", "unsqueeze",
    "permute", "transpose", "contiguous", "flatten", "expand", "float", "double", "half", "long", "int",
    "bool", "to", "cuda", "cpu", "detach", "numpy", "item", "tolist", "clone", "mean", "sum", "argmax",
    "argmin", "softmax", "log_softmax", "sigmoid", "exp", "log", "eq", "ne", "gt", "lt", "masked_fill",
    "requires_grad", "backward", "data", "grad", "chunk", "split", "t", "type_as", "view_as", "new_zeros",
})
