"""knowledge/float_only_ops.py against torch: every op raises on integer and bool tensors with
the message TTL211 quotes, and one mistake gives one finding (TTL211, not also TTL250)."""
from __future__ import annotations

import re

import pytest

from torchtype_lint.checker.check import Settings, check_source
from torchtype_lint.contracts import table
from torchtype_lint.knowledge.float_only_ops import FLOAT_ONLY, FUNCTIONAL, LINALG_NORMS, OP_NAMES, covered_names
from torchtype_lint.knowledge.ops import module_op
from torchtype_lint.model.selection import Selection

torch = pytest.importorskip("torch")
import torch.nn.functional as F  # noqa: E402

SCALAR_TYPE = {"int64": "Long", "int32": "Int", "uint8": "Byte", "bool": "Bool"}


def _call(op, x):
    if op in ("rand_like", "randn_like"):
        return getattr(torch, op)(x)
    if op in ("quantile", "nanquantile"):
        return getattr(torch, op)(x, 0.5)
    if op in ("softmax", "log_softmax"):
        return getattr(torch, op)(x, dim=-1)
    if op == "gelu":
        return F.gelu(x)
    return getattr(torch, op)(x)


@pytest.mark.parametrize("op", sorted(FLOAT_ONLY))
@pytest.mark.parametrize("dtype", sorted(SCALAR_TYPE))
def test_each_op_raises_the_quoted_message(op, dtype):
    x = torch.ones(2, 3).to(getattr(torch, dtype))
    expected = FLOAT_ONLY[op].format(d=SCALAR_TYPE[dtype])
    with pytest.raises((RuntimeError, NotImplementedError)) as raised:
        _call(op, x)
    assert str(raised.value).splitlines()[0] == expected or re.search(re.escape(expected), str(raised.value))


def test_every_spelling_exists_in_torch_and_is_covered():
    for name in FUNCTIONAL:
        assert hasattr(F, name)
    for cls in ("Softmax", "LogSoftmax", "GELU", "CrossEntropyLoss"):
        # module spellings reach TTL211 as their functional op
        assert hasattr(torch.nn, cls) and module_op(cls) in OP_NAMES
    for name in LINALG_NORMS:
        assert hasattr(torch.linalg, name.rsplit(".", 1)[1])
    # The contract table knows the names under which TTL250 would judge these calls.
    known = [name for name in covered_names() if table.contract(name) is not None]
    assert "torch.nn.functional.gelu" in known and "Tensor.mean" in known


@pytest.mark.parametrize("call", ["F.gelu(m)", "nn.GELU()(m)", "m.mean()", "torch.softmax(m, dim=0)",
                                  "F.normalize(m)", "torch.linalg.vector_norm(m)"])
@pytest.mark.parametrize("dtype", ["int64", "bool"])
def test_one_mistake_one_finding(call, dtype):
    # F.gelu on a bool tensor used to be reported twice (TTL211 and TTL250): the contract rule's
    # list of what TTL211 covers was a hand-made copy that said int only.
    source = (f"import torch\nimport torch.nn as nn\nimport torch.nn.functional as F\n"
              f"m = torch.ones(3, dtype=torch.{dtype})\ny = {call}\n")
    found = [f.code for f in check_source(source, "s.py", Settings(selection=Selection(select=["TTL"]))).findings]
    assert found == ["TTL211"]
