"""Issue 25, "Precision": TTL301 only where a float64 tensor from numpy does harm, its strict
form as the opt-in TTL903, three corpus false alarms of the engine, and TTL602's arity-only
mismatches moved to the opt-in TTL904.

Every harmful use TTL301 keeps is checked against torch (one subprocess runs them all), and so
is every harmless use it drops: the harmless programs run and keep their float32 results.
"""
from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from typing import Dict, List, Tuple

import pytest

from knowledge_truth import contradiction, engine_globals, real_globals

from torchtype_lint.checker.check import Settings, check_source
from torchtype_lint.model.selection import Selection

HEADER = "import numpy as np\nimport torch\nimport torch.nn as nn\nimport torch.nn.functional as F\n"
HEADER_LINES = HEADER.count("\n")


def _program(body: str) -> str:
    return HEADER + textwrap.dedent(body).lstrip("\n")


def findings(body: str, *extra: str) -> List[Tuple[int, str]]:
    """(line in ``body``, code) of each finding, rules TTL plus ``extra`` selected."""
    settings = Settings(selection=Selection(select=["TTL"], extend_select=list(extra)))
    found = check_source(_program(body), "program.py", settings).findings
    return [(f.line - HEADER_LINES, f.code) for f in found]


def messages(body: str, *extra: str) -> List[str]:
    settings = Settings(selection=Selection(select=["TTL"], extend_select=list(extra)))
    return [f.message for f in check_source(_program(body), "program.py", settings).findings]


def _run_in_torch(programs: Dict[str, str]) -> Dict[str, Dict[str, str]]:
    """Each program run with real torch: {"raised": "RuntimeError: ..."} or {"dtype": str(out)}
    for programs that bind ``out``; all in one subprocess."""
    pytest.importorskip("torch")
    runner = textwrap.dedent("""
        import json, sys
        results = {}
        for name, source in json.loads(sys.stdin.read()).items():
            namespace = {}
            try:
                exec(compile(source, name, "exec"), namespace)
            except Exception as error:  # what torch raised is the result
                results[name] = {"raised": f"{type(error).__name__}: {error}"}
            else:
                out = namespace.get("out")
                results[name] = {"dtype": str(getattr(out, "dtype", out))}
        print(json.dumps(results))
    """)
    done = subprocess.run([sys.executable, "-c", runner], input=json.dumps(programs), capture_output=True,
                          text=True, timeout=300, check=True)
    return json.loads(done.stdout.splitlines()[-1])


# --------------------------------------------------------------------------- TTL301: harmless uses

#: A float64 tensor from numpy that nothing float32 is computed from: silent by default, each
#: still a conversion TTL903 (opt-in) flags unless a cast settles it; and the dtype torch gives
#: ``out``, the program's result (float32 data stays float32).
HARMLESS: Dict[str, Tuple[str, bool, str]] = {
    "param.data.copy_(t)": ("""
        layer = nn.Linear(3, 2)
        t = torch.from_numpy(np.random.rand(2, 3))
        layer.weight.data.copy_(t)
        out = layer(torch.randn(4, 3))
    """, True, "torch.float32"),
    "p.copy_(t) under no_grad": ("""
        layer = nn.Linear(3, 2)
        with torch.no_grad():
            for p in layer.parameters():
                p.copy_(torch.tensor(np.ones(tuple(p.shape))))
        out = layer.weight
    """, True, "torch.float32"),
    "load_state_dict({...: t})": ("""
        layer = nn.Linear(3, 2)
        state = {"weight": torch.from_numpy(np.random.rand(2, 3)), "bias": torch.tensor(np.zeros(2))}
        layer.load_state_dict(state)
        out = layer(torch.randn(4, 3))
    """, True, "torch.float32"),
    "cast later: .float(), .to(torch.float32), .type(...)": ("""
        a = torch.from_numpy(np.random.rand(4, 3))
        b = torch.tensor(np.random.rand(4, 3))
        c = torch.as_tensor(np.random.rand(4, 3))
        x = torch.randn(4, 3)
        out = x + a.float() + b.to(torch.float32) + c.type(torch.float32)
    """, False, "torch.float32"),
    "printed, compared in an assert and an if, item/tolist/numpy": ("""
        t = torch.from_numpy(np.linspace(0.0, 1.0, 5))
        print(t, t.shape)
        assert t.shape == (5,) and (t >= 0).all()
        if t.max() > 1:
            print("out of range")
        values, array, first = t.tolist(), t.numpy(), t[0].item()
        out = torch.linspace(0.0, 1.0, 5) > t
    """, True, "torch.bool"),
    "float64 everywhere": ("""
        t = torch.from_numpy(np.random.rand(4, 3))
        u = torch.tensor(np.ones((4, 3)))
        out = (t * u + 1.0).sum(dim=1) @ torch.as_tensor(np.ones(4))
    """, True, "torch.float64"),
    "passed to a function the analysis does not know": ("""
        import statistics
        t = torch.from_numpy(np.random.rand(4))
        out = statistics.fmean(t.tolist()) + torch.randn(3)
    """, True, "torch.float32"),
    "a 0-d float64 value scaling float32 data": ("""
        t = torch.from_numpy(np.random.rand(4, 3))
        out = torch.randn(4, 3) * t.mean()
    """, True, "torch.float32"),
    "comparisons with float32 data": ("""
        t = torch.from_numpy(np.random.rand(4, 3))
        x = torch.randn(4, 3)
        out = torch.where(x > t, x, torch.zeros_like(x))
        same = torch.equal(x, t)
    """, True, "torch.float32"),
    "in place into float32: x += t, x.add_(t)": ("""
        t = torch.from_numpy(np.random.rand(4, 3))
        out = torch.randn(4, 3)
        out += t
        out.add_(t)
    """, True, "torch.float32"),
}


@pytest.mark.parametrize("name", list(HARMLESS))
def test_harmless_use_is_not_ttl301(name):
    body, strict, _ = HARMLESS[name]
    assert findings(body) == []
    # The strict form still sees the conversion (a cast settles it for both).
    assert bool(findings(body, "TTL903")) == strict
    assert {code for _, code in findings(body, "TTL903")} <= {"TTL903"}


def test_harmless_uses_keep_float32_in_torch():
    results = _run_in_torch({name: _program(body) for name, (body, _, _) in HARMLESS.items()})
    assert results == {name: {"dtype": dtype} for name, (_, _, dtype) in HARMLESS.items()}


# --------------------------------------------------------------------------- TTL301: harmful uses

#: Uses that silently promote float32 data (``out`` turns float64) or raise; the line of the
#: conversion in the body, and what torch does.
HARMFUL: Dict[str, Tuple[str, int, str]] = {
    "operator with a float32 operand": ("""
        std = torch.from_numpy(np.random.rand(3))
        out = torch.randn(8, 3) / std
    """, 1, "torch.float64"),
    "tensor method": ("""
        t = torch.tensor(np.random.rand(8, 3))
        out = torch.randn(8, 3).mul(t)
    """, 1, "torch.float64"),
    "torch.cat": ("""
        extra = torch.as_tensor(np.zeros((2, 3)))
        out = torch.cat([torch.randn(4, 3), extra])
    """, 1, "torch.float64"),
    "torch.stack": ("""
        row = torch.from_numpy(np.ones(3))
        out = torch.stack((torch.randn(3), row))
    """, 1, "torch.float64"),
    "torch.where": ("""
        x = torch.randn(5, 3)
        fill = torch.from_numpy(np.random.rand(5, 3))
        out = torch.where(torch.isnan(x), fill, x)
    """, 2, "torch.float64"),
    "a float32 parameter promoted": ("""
        layer = nn.Linear(3, 2)
        scale = torch.from_numpy(np.random.rand(2, 3))
        out = layer.weight * scale
    """, 2, "torch.float64"),
    "torch.allclose against float32": ("""
        expected = torch.from_numpy(np.random.rand(3))
        out = torch.allclose(torch.randn(3), expected)
    """, 1, "RuntimeError: Float did not match Double"),
    "Tensor.isclose against float32": ("""
        expected = torch.from_numpy(np.random.rand(3))
        out = torch.randn(3).isclose(expected)
    """, 1, "RuntimeError: Float did not match Double"),
}


@pytest.mark.parametrize("name", list(HARMFUL))
def test_harmful_use_is_ttl301_at_the_conversion_naming_the_use(name):
    body, line, _ = HARMFUL[name]
    assert findings(body) == [(line, "TTL301")]
    [message] = messages(body)
    use = [text.strip() for text in textwrap.dedent(body).strip().splitlines()][-1]
    assert use.split(" = ", 1)[1][:30] in message, message
    # TTL903 selected too: one warning for the conversion, TTL301's
    assert findings(body, "TTL903") == [(line, "TTL301")]


def test_harmful_uses_do_what_ttl301_says_in_torch():
    results = _run_in_torch({name: _program(body) for name, (body, _, _) in HARMFUL.items()})
    for name, (_, _, effect) in HARMFUL.items():
        if effect.startswith("RuntimeError"):
            assert results[name].get("raised", "").startswith(effect), (name, results[name])
        else:
            assert results[name] == {"dtype": effect}, (name, results[name])


def test_a_failing_use_is_its_own_rules_error_and_ttl301_stays_silent():
    body = """
        x = torch.from_numpy(np.random.rand(4, 3))
        y = x * torch.randn(4, 3)
        out = nn.Linear(3, 2)(y)
    """
    # the promotion comes first, the failure explains the conversion: one report, the error
    assert findings(body) == [(3, "TTL401")]
    assert findings(body, "TTL903") == [(3, "TTL401")]


def test_ttl301_is_one_warning_per_conversion_at_its_first_harm():
    body = """
        t = torch.from_numpy(np.random.rand(4, 3))
        a = torch.randn(4, 3) + t
        b = torch.cat([torch.randn(4, 3), t])
    """
    assert findings(body) == [(1, "TTL301")]
    assert "`torch.randn(4, 3) + t`" in messages(body)[0]


def test_a_cast_settles_the_conversion_for_both_rules():
    body = """
        t = torch.from_numpy(np.random.rand(4, 3))
        t = t.float()
        a = torch.randn(4, 3) + t
    """
    assert findings(body, "TTL903") == []


def test_double_precision_files_stay_silent():
    body = """
        t = torch.from_numpy(np.random.rand(4, 3))
        a = torch.randn(4, 3) + t
        b = torch.zeros(3, dtype=torch.float64)
    """
    assert findings(body, "TTL903") == []


# --------------------------------------------------------------------------- (a) attribute rebuilt elsewhere

ATTENTION = """
    class Attention(nn.Module):
        def __init__(self, dim):
            super().__init__()
            self.linear_keys = nn.Linear(dim, dim)
            self.layer_cache = (False, {"keys": torch.tensor([]), "values": torch.tensor([])})

        def forward(self, query, step=0):
            key = self.linear_keys(query).unsqueeze(1)
            if step > 0:
                key = torch.cat((self.layer_cache[1]["keys"], key), dim=2)
                past = self.layer_cache[1]["keys"].transpose(1, 2)
            return key
"""

DECODER = """
    class Decoder(nn.Module):
        def __init__(self, dim):
            super().__init__()
            self.layers = nn.ModuleList([Attention(dim) for _ in range(2)])

        def _init_cache(self, x):
            for layer in self.layers:
                layer.layer_cache = (True, {"keys": torch.zeros(x.size(0), 1, 0, x.size(-1)),
                                            "values": torch.zeros(x.size(0), 1, 0, x.size(-1))})

        def forward(self, x, step=None):
            if step == 0:
                self._init_cache(x)
            for layer in self.layers:
                x = layer(x, step=step)
            return x
"""


def test_an_attribute_another_class_rebuilds_is_not_known_empty_in_a_method():
    # OpenNMT's shape: the attention's cache is made empty in __init__, and the decoder (another
    # class) rebuilds it before the attention's forward reads it
    assert findings(ATTENTION + DECODER) == []


def test_without_the_outside_store_the_empty_cache_is_still_known():
    assert [code for _, code in findings(ATTENTION)] == ["TTL517"]


def test_an_attribute_rebuilt_from_module_level_is_not_known_either():
    body = ATTENTION + """
    attn = Attention(8)
    attn.layer_cache = (True, {"keys": torch.zeros(2, 1, 0, 8), "values": torch.zeros(2, 1, 0, 8)})
    """
    assert findings(body) == []


# --------------------------------------------------------------------------- (b) store on a layer's attribute

WRAPPED_WEIGHT = """
    from thirdparty import QuantWeight


    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.linear = nn.Linear(4, 4)
            {store}

        def move(self):
            self.linear.weight.cuda()
            return self.linear.weight


    net = Net()
    net.move()
"""


def test_a_layer_attribute_replaced_by_a_third_party_object_is_no_known_tensor():
    body = WRAPPED_WEIGHT.replace("{store}", "self.linear.weight = QuantWeight(self.linear.weight)")
    assert findings(body) == []


def test_a_layer_attribute_replaced_on_one_branch_only_is_not_known_either():
    body = WRAPPED_WEIGHT.replace("{store}", "if torch.cuda.is_available():\n"
                                             "                self.linear.weight = QuantWeight(self.linear.weight)")
    assert findings(body) == []


def test_the_layer_weight_itself_still_gets_ttl101():
    body = WRAPPED_WEIGHT.replace("{store}", "self.scale = 2.0")
    assert [code for _, code in findings(body)] == ["TTL101"]


def test_other_attributes_stored_on_a_layer_read_back():
    source = ("import torch\nimport torch.nn as nn\nlayer = nn.Linear(4, 2)\nlayer.in_features = 8\n"
              "layer.mask = torch.ones(2, dtype=torch.bool)\nn = layer.in_features\nm = layer.mask\n"
              "layer.double()\nw = layer.mask\n")
    values = engine_globals(source)
    assert values["n"].const == 8 and values["m"].dtypes == frozenset({"bool"})
    assert values["w"].kind == "unknown"  # a cast may convert a stored tensor: forgotten


# --------------------------------------------------------------------------- (c) in-place ndarray methods

NDARRAY_IN_PLACE = """\
import numpy as np
n = int("6")
data = np.arange(6, dtype=np.float32)
data.resize((n, 1))
grid = np.zeros(12)
grid.resize(3, 4)
table = np.zeros(12, dtype=np.float32)
table.shape = (3, 4)
vals = np.ones((3, 4), dtype=np.float32)
vals.fill(2.0)
vals.sort()
ints = np.arange(4)
ints.astype(np.float32)
"""


@pytest.mark.parametrize("name, kind, dtype, shape", [
    ("data", "ndarray", "float32", (None, 1)),  # the new shape as far as it is known
    ("grid", "ndarray", "float64", (3, 4)),
    ("table", "ndarray", "float32", (3, 4)),
    ("vals", "ndarray", "float32", (3, 4)),  # fill and sort keep dtype and shape
    ("ints", "ndarray", "int64", (4,)),  # astype is not in place
])
def test_in_place_ndarray_methods_change_what_is_known_as_numpy_does(name, kind, dtype, shape):
    engine = engine_globals(NDARRAY_IN_PLACE)[name]
    assert contradiction(engine, real_globals(NDARRAY_IN_PLACE)[name]) is None
    assert (engine.kind, engine.dtype, engine.shape) == (kind, dtype, shape)


def test_a_resized_array_fed_to_a_layer_is_no_false_alarm():
    body = """
        n = 6
        data = np.arange(n, dtype=np.float32)
        data.resize((n, 1))
        out = nn.Linear(1, 2)(torch.from_numpy(data))
        table = np.zeros(12, dtype=np.float32)
        table.shape = (3, 4)
        out2 = nn.Linear(4, 2)(torch.from_numpy(table))
    """
    assert findings(body) == []


def test_an_array_attribute_reshaped_in_place_is_followed():
    body = """
        class Buffer:
            def __init__(self):
                self.data = np.zeros(12, dtype=np.float32)
                self.data.shape = (3, 4)
                self.extra = np.zeros(6, dtype=np.float32)
                self.extra.resize((2, 3))

        buffer = Buffer()
        out = nn.Linear(4, 2)(torch.from_numpy(buffer.data))
        wrong = nn.Linear(4, 2)(torch.from_numpy(buffer.extra))
    """
    assert findings(body) == [(10, "TTL502")]  # (2, 3) into in_features=4: still found


def test_fill_and_sort_keep_what_is_known():
    body = """
        vals = np.ones((3, 5), dtype=np.float32)
        vals.fill(2.0)
        vals.sort()
        out = nn.Linear(4, 2)(torch.from_numpy(vals))
    """
    assert findings(body) == [(4, "TTL502")]


# --------------------------------------------------------------------------- TTL602 / TTL904

def test_plain_tuple_annotation_of_another_length_is_ttl904_opt_in():
    body = """
        from typing import Tuple


        def encode(x: torch.Tensor) -> tuple[torch.Tensor]:
            hidden = x * 2
            return hidden, x.mean(0)


        def names() -> Tuple[str]:
            return "a", "b"
    """
    assert findings(body) == []
    assert findings(body, "TTL904") == [(6, "TTL904"), (10, "TTL904")]


def test_a_tuple_annotation_with_shapes_keeps_ttl602():
    body = """
        from typing import Tuple
        from jaxtyping import Float
        from torch import Tensor


        def f(x: Float[Tensor, "b d"]) -> Tuple[Float[Tensor, "b d"], torch.Tensor]:
            return x, x.sum(1), x
    """
    assert findings(body) == [(7, "TTL602")]
    assert findings(body, "TTL904") == [(7, "TTL602")]
