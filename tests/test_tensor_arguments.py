"""knowledge/tensor_arguments.py against torch: every listed parameter, given a tuple, a
list, a Python number or a numpy array or scalar, makes torch raise TypeError with a message
MESSAGE_PATTERN matches, through every spelling the table names; a tensor there runs."""
from __future__ import annotations

import re

import pytest

torch = pytest.importorskip("torch")
np = pytest.importorskip("numpy")

from torchtype_lint.knowledge.tensor_arguments import FUNCTIONS, MESSAGE_PATTERN, MODULES  # noqa: E402

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

BAD_VALUES = {
    "tuple": lambda: (_x(), _x()), "list": lambda: [_x(), _x()], "float": lambda: 2.0, "int": lambda: 2,
    "numpy.float64": lambda: np.float64(2.0), "numpy.float32": lambda: np.float32(2.0),
    "ndarray": lambda: np.ones((2, 4)),
}


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
