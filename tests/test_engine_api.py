"""The interpreter's surface rules rely on: listeners, value(), joined_value(), callee()."""
from __future__ import annotations

import libcst as cst

from torchtype_lint.engine.interpreter import Interpreter
from torchtype_lint.model.values import TOP, ModuleValue, TensorValue


def _run(source, node_type=cst.Call):
    seen = []

    def listener(node, ev):
        seen.append((node, ev.value(node), ev.callee(node) if isinstance(node, cst.Call) else None))

    module = cst.parse_module(source)
    interp = Interpreter(module, {node_type: [listener]}).run()
    return interp, seen


def _code(node):
    return cst.Module([]).code_for_node(node)


def test_callee_kinds_and_qualified_names():
    source = (
        "import torch\nimport torch.nn.functional as F\nfrom torch import nn\n"
        "x = torch.ones(2, 3)\n"
        "y = F.linear(x, torch.ones(4, 3))\n"
        "z = x.float()\n"
        "layer = nn.Linear(3, 4)\n"
        "out = layer(x)\n"
        "def helper(t):\n    return t\n"
        "h = helper(x)\n"
        "u = mystery(x)\n"
    )
    _, seen = _run(source)
    by_code = {_code(node): (value, callee) for node, value, callee in seen}
    assert by_code["torch.ones(2, 3)"][1].kind == "symbol"
    assert by_code["torch.ones(2, 3)"][1].name == "torch.ones"
    assert by_code["F.linear(x, torch.ones(4, 3))"][1].name == "torch.nn.functional.linear"
    method = by_code["x.float()"][1]
    assert method.kind == "method" and method.name == "float"
    assert isinstance(method.receiver, TensorValue) and method.receiver.dtype == "float32"
    module_call = by_code["layer(x)"][1]
    assert module_call.kind == "module" and isinstance(module_call.receiver, ModuleValue)
    assert by_code["helper(x)"][1].kind == "user"
    assert by_code["mystery(x)"][1].kind == "unknown"
    assert by_code["mystery(x)"][0] is TOP
    assert by_code["layer(x)"][0].shape == (2, 4)


def test_listeners_see_loop_bodies_once_with_the_fixed_point():
    # A loop of unknown count (a loop over a few known items reports each iteration instead).
    source = (
        "import sys\nimport torch\n"
        "acc = torch.zeros(2)\n"
        "for i in range(len(sys.argv)):\n"
        "    acc = acc + torch.ones(2, dtype=torch.float64)\n"
    )
    _, seen = _run(source, cst.BinaryOperation)
    assert len(seen) == 1  # the silent iterations do not notify
    (_, value, _), = seen
    # at the loop head acc is float32 or float64; either way the sum is float64
    assert value.dtypes == frozenset({"float64"})


def test_value_is_per_context_and_joined_value_spans_contexts():
    source = (
        "import torch\n"
        "def scale(t):\n    return t * 2\n"
        "a = scale(torch.ones(2))\n"
        "b = scale(torch.ones(2, dtype=torch.float64))\n"
    )
    interp, seen = _run(source, cst.BinaryOperation)
    contexts = [value.dtypes for _, value, _ in seen if isinstance(value, TensorValue)]
    assert frozenset({"float32"}) in contexts and frozenset({"float64"}) in contexts
    node = seen[0][0]
    joined = interp.joined_value(node)
    # the standalone analysis (t unknown) joins in too, so the join is unknown here
    assert joined is TOP


def test_assignments_record_targets_and_parameters():
    source = "import torch\ndef f(t: torch.Tensor):\n    u = t\n    return u\nx = torch.zeros(1)\n"
    interp, _ = _run(source)
    names = [(a.name, a.is_parameter) for a in interp.assignments]
    assert ("x", False) in names and ("t", True) in names and ("u", False) in names


def test_a_default_dtype_that_may_change_makes_default_dtypes_unknown():
    source = (
        "import random\nimport torch\nimport torch.nn as nn\n"
        "before = torch.zeros(2)\n"
        "if random.random() > 0.5:\n    torch.set_default_dtype(torch.float64)\n"
        "after = torch.zeros(2)\nints = torch.arange(3)\nhalf = torch.zeros(2).half()\n"
        "layer = nn.Linear(2, 2)\n"
    )
    interp, _ = _run(source)
    env = interp.globals.vars
    assert env["before"].dtypes == frozenset({"float32"})
    assert env["after"].dtypes is None and env["after"].shape == (2,)
    assert env["ints"].dtypes == frozenset({"int64"})
    assert env["half"].dtypes == frozenset({"float16"})
    assert env["layer"].param_dtypes is None
    assert not interp.default_float_certain


def test_set_default_dtype_in_a_function_called_in_order_is_certain():
    source = ("import torch\ndef setup():\n    torch.set_default_dtype(torch.float64)\n"
              "setup()\nx = torch.zeros(2)\n")
    interp, _ = _run(source)
    assert interp.globals.vars["x"].dtypes == frozenset({"float64"})
    assert interp.default_float_certain


def test_set_default_device_makes_factory_devices_unknown():
    # After torch.set_default_device("cuda") a factory tensor is not known to be on CPU, so
    # CPU-only kernel rules (TTL250) must not treat it as a CPU tensor.
    source = (
        "import numpy as np\nimport torch\n"
        "before = torch.zeros(2)\n"
        "torch.set_default_device('cuda')\n"
        "after = torch.zeros(2)\n"
        "pinned = torch.zeros(2, device='cpu')\n"
        "bridged = torch.from_numpy(np.zeros(2))\n"
    )
    interp, _ = _run(source)
    values = {a.name: a.value for a in interp.assignments}
    assert values["before"].device == "cpu"
    assert values["after"].device is None
    assert values["pinned"].device == "cpu"
    assert values["bridged"].device == "cpu"
