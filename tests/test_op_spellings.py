"""The other spellings of an op (knowledge/op_spellings.py), checked against torch and the linter.

For every mapped ``nn`` module class and Python operator, and every dtype the contract table
tracks, the spelling must raise on CPU exactly when the named op raises: only then may TTL250
apply the table's facts to it. Then the linter is run on each spelling.
"""
from __future__ import annotations

import pytest

from torchtype_lint.checker.check import Settings, check_source
from torchtype_lint.contracts import table
from torchtype_lint.knowledge.nn_modules import ELEMENTWISE
from torchtype_lint.knowledge.op_spellings import MODULE_OPS, OPERATOR_OPS, OPERATOR_SYMBOLS
from torchtype_lint.model.selection import Selection

torch = pytest.importorskip("torch")
import torch.nn.functional as F  # noqa: E402

DTYPES = sorted(table.TRACKED_DTYPES)
BINARY = {"MatrixMultiply": lambda a, b: a @ b, "BitAnd": lambda a, b: a & b, "BitOr": lambda a, b: a | b,
          "BitXor": lambda a, b: a ^ b, "LeftShift": lambda a, b: a << b, "RightShift": lambda a, b: a >> b,
          "Modulo": lambda a, b: a % b, "FloorDivide": lambda a, b: a // b}


def _tensor(dtype):
    made = torch.ones(2, 2).to(getattr(torch, dtype))
    return made


def _raises(thunk):
    """None when ``thunk`` runs, else the exception's type and first line: TTL250 quotes it."""
    try:
        thunk()
    except (RuntimeError, TypeError, ValueError) as exc:
        return type(exc).__name__, str(exc).splitlines()[0]
    return None


def _named(name):
    module, _, attr = name.rpartition(".")
    return getattr({"torch": torch, "torch.nn.functional": F}[module], attr)


def _module_call(cls, x):
    module = getattr(torch.nn, cls)(**({"dim": -1} if cls in ("Softmax", "LogSoftmax", "Softmin") else {}))
    return module(x) if "Loss" not in cls else module(x, x)


def _functional_call(cls, name, x):
    fn = _named(name)
    if cls in ("Softmax", "LogSoftmax", "Softmin"):
        return fn(x, dim=-1)
    return fn(x) if "Loss" not in cls else fn(x, x)


def test_every_spelling_names_an_op_the_table_knows():
    for name in list(MODULE_OPS.values()) + list(OPERATOR_OPS.values()):
        assert table.contract(name) is not None, name
    assert set(OPERATOR_SYMBOLS) == set(OPERATOR_OPS)


@pytest.mark.parametrize("cls", sorted(MODULE_OPS))
def test_module_spelling_fails_exactly_when_its_functional_does(cls):
    for dtype in DTYPES:
        x = _tensor(dtype)
        spelled = _raises(lambda: _module_call(cls, x))
        named = _raises(lambda: _functional_call(cls, MODULE_OPS[cls], x))
        assert spelled == named, (cls, dtype, spelled, named)


@pytest.mark.parametrize("operator", sorted(OPERATOR_OPS))
def test_operator_spelling_fails_exactly_when_its_function_does(operator):
    fn = _named(OPERATOR_OPS[operator])
    for dtype in DTYPES:
        x = _tensor(dtype)
        spelled, named = _raises(lambda: BINARY[operator](x, x)), _raises(lambda: fn(x, x))
        assert spelled == named, (operator, dtype, spelled, named)


def test_bitwise_not_is_not_spelled_by_the_operator():
    # Why `~` is not in OPERATOR_OPS: the operator raises Python's TypeError, not the kernel's.
    x = torch.ones(2)
    assert _raises(lambda: ~x)[0] == "TypeError"
    assert _raises(lambda: torch.bitwise_not(x))[0] == "NotImplementedError"


@pytest.mark.parametrize("cls", sorted(set(MODULE_OPS) & ELEMENTWISE))
def test_elementwise_modules_keep_dtype_and_shape(cls):
    # What the engine assumes of every module in nn_modules.ELEMENTWISE.
    for dtype in ("float32", "float64", "bfloat16"):
        x = torch.rand(2, 3).to(getattr(torch, dtype))
        y = _module_call(cls, x)
        assert (y.dtype, y.shape) == (x.dtype, x.shape), cls


ALL = Settings(selection=Selection(select=["TTL"]))


def _codes(source):
    return [f.code for f in check_source("import torch\nimport torch.nn as nn\n" + source, "s.py", ALL).findings]


@pytest.mark.parametrize("source, expected", [
    # the example: the functional spelling was caught, the module spelling was not
    ("a = torch.ones(3, dtype=torch.int64)\nloss = nn.MSELoss()(a, a)\n", ["TTL250"]),
    ("a = torch.ones(3, dtype=torch.int64)\nloss = nn.BCEWithLogitsLoss()(a, a)\n", ["TTL250"]),
    ("a = torch.ones(3, dtype=torch.int64)\ny = nn.Hardsigmoid()(a)\n", ["TTL250"]),
    # one mistake, one finding: TTL211's tailored message wins where it reports the same call
    ("a = torch.ones(3, dtype=torch.int64)\ny = nn.GELU()(a)\n", ["TTL211"]),
    ("a = torch.ones(3)\nloss = nn.MSELoss()(a, a)\n", []),
    ("m = torch.ones(3)\nk = ~m\n", []),
    ("m = torch.ones(3)\nk = m & m\n", ["TTL250"]),
    ("m = torch.ones(3, dtype=torch.int64)\nk = ~m & m\n", []),
    ("m = torch.ones(3)\nk = m % 2\n", []),
    ("m = torch.ones(3, dtype=torch.bool)\nk = m // m\n", ["TTL250"]),
    # mixed dtypes are the promotion rules' business, unknown values stay silent
    ("m = torch.ones(3)\nk = m & torch.ones(3, dtype=torch.int64)\n", []),
    ("def f(m):\n    return ~m\n", []),
])
def test_the_linter_judges_every_spelling(source, expected):
    assert _codes(source) == expected
