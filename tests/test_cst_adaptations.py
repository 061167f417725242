"""The two ways the linter speeds libcst up change nothing libcst's users can observe.

``source/cst_parse.py`` skips the per-node validation for text CPython accepted;
``source/cst_identity.py`` gives node classes ``object``'s identity ``__eq__``/``__hash__``.
"""
from __future__ import annotations

import libcst as cst
import pytest
from libcst._nodes.base import CSTNode

from torchtype_lint.source import cst_identity
from torchtype_lint.source.cst_parse import parse_module
from torchtype_lint.source.screen import screen_for_parse

PROGRAM = '''\
import torch
from torch import nn


class Net(nn.Module):
    def __init__(self, width: int = 4) -> None:
        super().__init__()
        self.fc = nn.Linear(width, 2)

    async def run(self, x, *args, key=None, **kwargs):
        async with lock:
            y = [v ** 2 for v in x if v] or {k: v for k, v in kwargs.items()}
        return (lambda z: z @ self.fc.weight.T)(y)[..., ::2] if key is not None else f"{x!r:>10}"


match command:
    case [1, *rest] | {"a": 2, **more}:
        pass
'''


def test_the_unvalidated_parse_builds_the_same_tree_and_puts_validation_back():
    rejected, python_accepts = screen_for_parse(PROGRAM)
    assert rejected is None and python_accepts
    fast = parse_module(PROGRAM, python_accepts=True)
    assert fast.deep_equals(cst.parse_module(PROGRAM))
    assert fast.code == PROGRAM
    # Validation is on again for nodes built afterwards (a fix's replacement node).
    with pytest.raises(cst.CSTValidationError):
        cst.Name("not a name")


def test_code_python_refuses_is_still_validated():
    # libcst's grammar takes a positional argument after a keyword; only validation refuses it.
    source = "f(a=1, b)\n"
    assert screen_for_parse(source) == (None, False)
    with pytest.raises(Exception) as raised:
        parse_module(source, python_accepts=False)
    with pytest.raises(type(raised.value)):
        cst.parse_module(source)


def test_nodes_hash_and_compare_by_identity_in_c():
    module = cst.parse_module("x = 1\nx = 1\n")
    first, second = module.body
    assert first.deep_equals(second)  # the same code...
    assert first != second and not first == second  # ...two nodes, as libcst says
    assert first == first and first == module.body[0]
    assert len({first, second, module.body[0]}) == 2
    assert hash(first) == hash(module.body[0])
    # Every node class libcst defines has object's slots (C), none kept libcst's Python functions.
    classes = cst_identity._node_classes()
    assert len(classes) > 200
    assert all(cls.__dict__.get("__hash__", object.__hash__) is object.__hash__ for cls in classes)
    assert all(cls.__dict__.get("__eq__", object.__eq__) is object.__eq__ for cls in classes)
    # Importing it again changes nothing more.
    assert cst_identity.use_identity_slots() == 0
    assert CSTNode.__hash__ is object.__hash__
