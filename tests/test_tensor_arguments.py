"""knowledge/tensor_arguments.py against torch: every listed parameter, given a tuple, a
list, a Python number or a numpy array or scalar, makes torch raise TypeError with a message
MESSAGE_PATTERN matches, through every spelling the table names; a tensor there runs."""
from __future__ import annotations

import re

import pytest

torch = pytest.importorskip("torch")
np = pytest.importorskip("numpy")

from torchtype_lint.knowledge.tensor_arguments import (  # noqa: E402
    ATTRIBUTE_FUNCTIONS, ATTRIBUTE_MODULES, ATTRIBUTE_PATTERN, FUNCTIONS, MESSAGE_PATTERN, MODULES,
)

TENSOR_ONLY = {**FUNCTIONS, **{"torch.nn." + name: params for name, params in MODULES.items()}}

F = torch.nn.functional
nn = torch.nn


def _x():
    return torch.randn(2, 4)


def _target():
    return torch.tensor([1, 3])


#: How each entry is called with ``value`` in parameter ``param`` (the others valid).
def _function(fn, defaults, extra=None):
    def call(param, value):
        kwargs = dict(defaults)
        kwargs[param] = value
        return fn(**kwargs, **(extra or {}))
    return call


def _module(build, defaults):
    def call(param, value):
        args = dict(defaults)
        args[param] = value
        return build()(*args.values())
    return call


CALLS = {
    **{f"torch.nn.functional.{name}": _function(getattr(F, name), {"input": _x()}) for name in (
        "relu", "relu6", "gelu", "silu", "elu", "leaky_relu", "dropout", "hardtanh")},
    **{f"torch.{name}": _function(getattr(torch, name), {"input": _x()}) for name in ("relu", "sigmoid", "tanh", "exp")},
    "torch.softmax": _function(torch.softmax, {"input": _x()}, {"dim": 1}),
    "torch.nn.Linear": _module(lambda: nn.Linear(4, 3), {"input": _x()}),
    "torch.nn.Conv1d": _module(lambda: nn.Conv1d(2, 3, 1), {"input": _x()}),
    "torch.nn.Conv2d": _module(lambda: nn.Conv2d(2, 3, 1), {"input": torch.randn(1, 2, 4, 4)}),
    "torch.nn.Conv3d": _module(lambda: nn.Conv3d(2, 3, 1), {"input": torch.randn(1, 2, 2, 4, 4)}),
    "torch.nn.LayerNorm": _module(lambda: nn.LayerNorm(4), {"input": _x()}),
    "torch.nn.Embedding": _module(lambda: nn.Embedding(4, 3), {"input": _target()}),
    "torch.nn.Dropout": _module(lambda: nn.Dropout(0.5), {"input": _x()}),
    "torch.nn.MaxPool1d": _module(lambda: nn.MaxPool1d(2), {"input": _x()}),
    "torch.nn.MaxPool2d": _module(lambda: nn.MaxPool2d(2), {"input": torch.randn(1, 2, 4, 4)}),
    "torch.nn.AdaptiveAvgPool1d": _module(lambda: nn.AdaptiveAvgPool1d(1), {"input": torch.randn(1, 2, 4)}),
    **{f"torch.nn.{name}": _module(getattr(nn, name), {"input": _x()}) for name in (
        "Sigmoid", "Tanh", "ReLU", "GELU", "SiLU", "ELU", "LeakyReLU")},
    "torch.nn.CrossEntropyLoss": _module(nn.CrossEntropyLoss, {"input": _x(), "target": _target()}),
    "torch.nn.NLLLoss": _module(nn.NLLLoss, {"input": _x(), "target": _target()}),
    "torch.nn.KLDivLoss": _module(lambda: nn.KLDivLoss(reduction="batchmean"), {"input": _x(), "target": _x()}),
    "torch.nn.functional.linear": _function(F.linear, {"input": _x(), "weight": torch.randn(3, 4)}),
    "torch.matmul": _function(torch.matmul, {"input": _x(), "other": torch.randn(4, 3)}),
    "torch.nn.functional.cross_entropy": _function(F.cross_entropy, {"input": _x(), "target": _target()}),
    "torch.nn.functional.nll_loss": _function(F.nll_loss, {"input": _x(), "target": _target()}),
    "torch.nn.functional.kl_div": _function(F.kl_div, {"input": _x(), "target": _x()}, {"reduction": "batchmean"}),
    "torch.nn.functional.binary_cross_entropy_with_logits": _function(
        F.binary_cross_entropy_with_logits, {"input": _x(), "target": torch.rand(2, 4)}),
}

PYTHON_VALUES = {
    "tuple": lambda: (_x(), _x()), "list": lambda: [_x(), _x()], "dict": lambda: {"logits": _x()},
    "float": lambda: 2.0, "int": lambda: 2,
}
NUMPY_VALUES = {
    "numpy.float64": lambda: np.float64(2.0), "numpy.float32": lambda: np.float32(2.0),
    "ndarray": lambda: np.ones((2, 4)),
}
BAD_VALUES = {**PYTHON_VALUES, **NUMPY_VALUES}


def test_every_entry_is_called_here():
    assert set(CALLS) == set(TENSOR_ONLY)


@pytest.mark.parametrize("op", sorted(TENSOR_ONLY))
def test_a_non_tensor_raises_type_error(op):
    for param in sorted(TENSOR_ONLY[op]):
        for kind, make in BAD_VALUES.items():
            with pytest.raises(TypeError) as raised:
                CALLS[op](param, make())
            assert re.search(MESSAGE_PATTERN, str(raised.value)), (op, param, kind, str(raised.value))


@pytest.mark.parametrize("op", sorted(TENSOR_ONLY))
def test_a_tensor_runs(op):
    defaults = {"weight": torch.ones(4), "pos_weight": torch.ones(4)}
    for param in sorted(TENSOR_ONLY[op]):
        if param in defaults:
            CALLS[op](param, defaults[param])


ATTRIBUTE_CALLS = {
    **{f"torch.nn.functional.{name}": _function(getattr(F, name), {"input": _x().sigmoid(), "target": _x().sigmoid()})
       for name in ("mse_loss", "l1_loss", "smooth_l1_loss", "huber_loss", "binary_cross_entropy",
                    "binary_cross_entropy_with_logits")},
    **{f"torch.nn.functional.{name}": _function(getattr(F, name), {"input": _x()}, {"dim": 1} if "softmax" in name else {})
       for name in ("sigmoid", "tanh", "softmax", "log_softmax")},
    **{f"torch.nn.{name}": _module(getattr(nn, name), {"input": _x().sigmoid(), "target": _x().sigmoid()})
       for name in ("MSELoss", "L1Loss", "SmoothL1Loss", "HuberLoss", "BCELoss", "BCEWithLogitsLoss")},
    "torch.nn.Softmax": _module(lambda: nn.Softmax(1), {"input": _x()}),
    "torch.nn.LogSoftmax": _module(lambda: nn.LogSoftmax(1), {"input": _x()}),
    "torch.nn.BatchNorm1d": _module(lambda: nn.BatchNorm1d(4), {"input": _x()}),
    "torch.nn.BatchNorm2d": _module(lambda: nn.BatchNorm2d(2), {"input": torch.randn(2, 2, 3, 3)}),
    "torch.nn.BatchNorm3d": _module(lambda: nn.BatchNorm3d(2), {"input": torch.randn(2, 2, 2, 3, 3)}),
    "torch.nn.LSTM": _module(lambda: nn.LSTM(4, 3), {"input": torch.randn(5, 2, 4)}),
    "torch.nn.GRU": _module(lambda: nn.GRU(4, 3), {"input": torch.randn(5, 2, 4)}),
    "torch.nn.RNN": _module(lambda: nn.RNN(4, 3), {"input": torch.randn(5, 2, 4)}),
    "torch.nn.Flatten": _module(nn.Flatten, {"input": _x()}),
    "torch.nn.AdaptiveAvgPool2d": _module(lambda: nn.AdaptiveAvgPool2d(1), {"input": torch.randn(1, 2, 4, 4)}),
}
ATTRIBUTE_ONLY = {**ATTRIBUTE_FUNCTIONS, **{"torch.nn." + name: entry for name, entry in ATTRIBUTE_MODULES.items()}}


def test_every_attribute_entry_is_called_here():
    assert set(ATTRIBUTE_CALLS) == set(ATTRIBUTE_ONLY)


@pytest.mark.parametrize("op", sorted(ATTRIBUTE_ONLY))
def test_a_python_object_raises_attribute_error(op):
    params, numpy_too = ATTRIBUTE_ONLY[op]
    for param in sorted(params):
        for kind, make in {**PYTHON_VALUES, **(NUMPY_VALUES if numpy_too else {})}.items():
            with pytest.raises(AttributeError) as raised:
                ATTRIBUTE_CALLS[op](param, make())
            assert re.search(ATTRIBUTE_PATTERN, str(raised.value)), (op, param, kind, str(raised.value))
