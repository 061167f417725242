"""Dtype rule families (TTL1xx-TTL4xx, TTL9xx) beyond the generic fixture test:
messages (what happens, torch's text, the fix), provenance, the one-report-per-root-cause
policy for numpy conversions, fixes applied, and the false-positive traps of the truth table.
Fixed programs are run with real torch, all in one subprocess. A finding's quote of torch is
checked against what the torch installed here raises, never against a literal: torch words a
dtype mismatch differently by CPU (oneDNN's kernels or the reference ones), device and version.
"""
from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from typing import Any, Dict, List, Optional

import pytest
from torch_runs import AsClaimed, quoted_wordings, quotes_what_torch_raised, raised_as_said, run_in_torch

from torchtype_lint.checker.check import Settings, check_source
from torchtype_lint.model.findings import Finding
from torchtype_lint.edit.fix import fix_source
from torchtype_lint.model.selection import Selection

HEADER = "import numpy as np\nimport torch\nimport torch.nn as nn\nimport torch.nn.functional as F\n"


def lint(body: str, *extra: str) -> List[Finding]:
    settings = Settings(selection=Selection(select=["TTL"], extend_select=list(extra)))
    return check_source(HEADER + textwrap.dedent(body), "snippet.py", settings).findings


def codes(body: str, *extra: str) -> List[str]:
    return [f.code for f in lint(body, *extra)]


def only(body: str, code: str, *extra: str) -> Finding:
    findings = lint(body, *extra)
    assert [f.code for f in findings] == [code], [f.concise() for f in findings]
    return findings[0]


def fixed(body: str, unsafe: bool = True, *extra: str) -> str:
    settings = Settings(selection=Selection(select=["TTL"], extend_select=list(extra)))
    new, _, _ = fix_source(HEADER + textwrap.dedent(body), "snippet.py", settings, unsafe=unsafe)
    return new[len(HEADER):]


# --------------------------------------------------------------------------- messages

IDS_MATMUL = """
    ids = torch.tensor([[1, 2, 3]])
    out = ids @ torch.randn(3, 2)
"""
INT_BMM = """
    a = torch.ones(2, 2, 3, dtype=torch.int32)
    b = torch.ones(2, 3, 2, dtype=torch.int64)
    c = torch.bmm(a, b)
"""
LONG_LINEAR = "y = nn.Linear(3, 2)(torch.tensor([[1, 2, 3]]))"
BYTE_CONV = "y = nn.Conv2d(3, 2, 3)(torch.zeros(1, 3, 5, 5, dtype=torch.uint8))"
LONG_NORM = "y = nn.BatchNorm1d(3)(torch.zeros(2, 3, dtype=torch.long))"
DOUBLE_MODEL = """
    model = nn.Sequential(nn.Linear(3, 2), nn.ReLU())
    model.double()
    y = model(torch.randn(4, 3))
"""


@pytest.fixture(scope="module")
def torch_raised() -> Dict[str, str]:
    """What the torch installed here raises running each program whose finding quotes it."""
    programs = (IDS_MATMUL, INT_BMM, LONG_LINEAR, BYTE_CONV, LONG_NORM, DOUBLE_MODEL)
    return run_in_torch({body: HEADER + textwrap.dedent(body) for body in programs})


def quotes_torch(f: Finding, body: str, torch_raised: Dict[str, str]) -> bool:
    """The program fails as the finding's rule claims, and the finding quotes what torch raised."""
    raised = torch_raised[body]
    return raised_as_said(f.code, AsClaimed("RuntimeError"), raised) and quotes_what_torch_raised(f.message, raised)


def test_matmul_message_quotes_torch_and_names_the_fix(torch_raised):
    f = only(IDS_MATMUL, "TTL201")
    assert quotes_torch(f, IDS_MATMUL, torch_raised), (f.message, torch_raised[IDS_MATMUL])
    assert "`ids` is int64" in f.message and "`ids.float()`" in f.message
    assert "since line 6: `torch.tensor([[1, 2, 3]])`" in f.message


def test_int32_vs_int64_is_a_mixing_error_and_bmm_message(torch_raised):
    f = only(INT_BMM, "TTL201")
    assert quotes_torch(f, INT_BMM, torch_raised), (f.message, torch_raised[INT_BMM])


@pytest.mark.parametrize("body", [LONG_LINEAR, BYTE_CONV, LONG_NORM])
def test_layer_message_for_linear_conv_and_norm(body, torch_raised):
    f = only(body, "TTL202")
    assert quotes_torch(f, body, torch_raised), (f.message, torch_raised[body])


def test_model_double_blames_the_model_cast(torch_raised):
    f = only(DOUBLE_MODEL, "TTL401")
    assert quotes_torch(f, DOUBLE_MODEL, torch_raised), (f.message, torch_raised[DOUBLE_MODEL])
    assert "layer [0] of the nn.Sequential" in f.message
    assert "since line 7: `model.double()`" in f.message


def test_inplace_messages():
    f = only("""
        x = torch.tensor([1, 2, 3])
        x /= 2
    """, "TTL204")
    assert "result type Float can't be cast to the desired output type Long" in f.message
    assert "`x = x / 2`" in f.message


def test_requires_grad_message_and_parameter():
    f = only("w = torch.arange(5, requires_grad=True)", "TTL206")
    assert "Only Tensors of floating point and complex dtype can require gradients" in f.message
    assert codes("p = nn.Parameter(torch.tensor([1, 2]))") == ["TTL206"]
    assert codes("p = nn.Parameter(torch.tensor([1, 2]), requires_grad=False)") == []
    assert codes("x = torch.tensor([1, 2])\nx.requires_grad = True") == ["TTL206"]


@pytest.mark.parametrize("target, expected", [
    ("torch.tensor([0, 1, 2, 0], dtype=torch.int32)", "but got Int"),
    ("torch.tensor([0., 1., 2., 0.])", "but got Float"),
    ("torch.tensor([True, False, True, False])", "but got Bool"),
    ("torch.zeros(4, 3, dtype=torch.long)", "class probabilities, got Long"),
])
def test_class_target_messages(target, expected):
    f = only(f"loss = F.cross_entropy(torch.randn(4, 3), {target})", "TTL207")
    assert expected in f.message


def test_huber_is_a_backward_failure_but_not_under_no_grad():
    f = only("loss = F.huber_loss(torch.randn(4), torch.randn(4, dtype=torch.float64))", "TTL208")
    assert "`backward()` raises" in f.message
    assert codes("""
        with torch.no_grad():
            loss = F.huber_loss(torch.randn(4), torch.randn(4, dtype=torch.float64))
    """) == []


# --------------------------------------------------------------------------- numpy: one root cause, one report


def test_numpy_float64_into_linear_is_one_error_with_the_conversion_in_provenance():
    findings = lint("""
        a = np.random.rand(4, 3)
        t = torch.from_numpy(a)
        h = t * 2
        y = nn.Linear(3, 1)(h)
        z = nn.Linear(3, 1)(h)
    """)
    # One report for the root cause: at the first failing use, not at the conversion and
    # not again at the second use (fixing the conversion fixes both).
    assert [f.code for f in findings] == ["TTL401"]
    first = findings[0]
    assert "converted by `torch.from_numpy(a)`, which keeps numpy's dtype" in first.message
    lines = [step.line for step in first.provenance]
    assert 7 in lines and 6 in lines  # the conversion and the ndarray's creation
    assert "np.random.rand gives float64" in first.message


def test_numpy_float64_without_failing_use_is_a_warning_with_unsafe_fix():
    # promoted silently by a float32 operand (a float64-only `t + 1` is TTL903's, opt-in:
    # tests/test_precision_harmless_uses.py)
    f = only("""
        a = np.zeros(3)
        t = torch.from_numpy(a)
        u = t + torch.randn(3)
    """, "TTL301")
    assert f.severity == "warning" and f.fix is not None and not f.fix.safe
    assert "since line 6: `np.zeros(3)`, np.zeros gives float64" in f.message


def test_numpy_conversion_cast_later_is_not_reported():
    assert codes("""
        t = torch.tensor(np.random.rand(3))
        t = t.to(torch.float32)
        s = torch.as_tensor(np.random.rand(3)).double()
    """) == []


def test_numpy_conversion_with_float64_default_is_not_reported():
    assert codes("""
        torch.set_default_dtype(torch.float64)
        t = torch.from_numpy(np.random.rand(3))
    """) == []


def test_numpy_float64_label_into_bce_is_reported_at_the_loss():
    findings = lint("""
        labels = torch.tensor(np.ones((4, 1)))
        loss = F.binary_cross_entropy(torch.rand(4, 1), labels)
    """)
    assert [f.code for f in findings] == ["TTL208"]
    assert "torch.tensor(np.ones((4, 1)))" in findings[0].message


def test_unknown_dtype_conversion_is_opt_in():
    body = """
        def load(path):
            return torch.from_numpy(np.load(path))
    """
    assert codes(body) == []
    assert codes(body, "TTL901") == ["TTL901"]


# --------------------------------------------------------------------------- fixes


def test_fix_discarded_cast_of_attribute_is_safe():
    out = fixed("""
        class M(nn.Module):
            def __init__(self):
                super().__init__()
                self.ids = torch.tensor([1, 2])

            def forward(self, x):
                self.ids.float()
                return x
    """, False)
    assert "self.ids = self.ids.float()" in out


def test_fix_mean_of_bool_is_safe():
    out = fixed("acc = (torch.tensor([1, 2]) == torch.tensor([1, 3])).mean()\n", False)
    assert out == "acc = (torch.tensor([1, 2]) == torch.tensor([1, 3])).float().mean()\n"


def test_fix_one_minus_mask_is_safe():
    out = fixed("mask = torch.tensor([1, 0]) > 0\npenalty = (1 - mask) * -1e9\n", False)
    assert "penalty = (1 - mask.long()) * -1e9" in out


@pytest.mark.parametrize("before, after", [
    ("t = torch.from_numpy(np.random.rand(3))\nu = t * torch.ones(3)\n",
     "t = torch.from_numpy(np.random.rand(3)).float()\nu = t * torch.ones(3)\n"),
    ("t = torch.tensor(np.random.rand(3))\nu = t * torch.ones(3)\n",
     "t = torch.tensor(np.random.rand(3), dtype=torch.float32)\nu = t * torch.ones(3)\n"),
    ("w = torch.tensor([1, 2], requires_grad=True)\n",
     "w = torch.tensor([1, 2], requires_grad=True, dtype=torch.float32)\n"),
    ("x = torch.zeros(3, dtype=torch.long)\nx += 0.5\n", "x = torch.zeros(3, dtype=torch.long)\nx = x + 0.5\n"),
    ("x = torch.randn(3)\nok = x.type() == torch.float32\n", "x = torch.randn(3)\nok = x.dtype == torch.float32\n"),
    ("x = torch.randn(3)\nok = x.dtype == 'float32'\n", "x = torch.randn(3)\nok = x.dtype == torch.float32\n"),
    ("y = nn.Linear(3, 2)(torch.tensor([[1, 2, 3]]))\n", "y = nn.Linear(3, 2)(torch.tensor([[1, 2, 3]]).float())\n"),
    ("loss = F.cross_entropy(torch.randn(2, 3), torch.tensor([0., 1.]))\n",
     "loss = F.cross_entropy(torch.randn(2, 3), torch.tensor([0., 1.]).long())\n"),
    ("x = torch.zeros(3)\nx[torch.tensor([0])] = torch.ones(1, dtype=torch.float64)\n",
     "x = torch.zeros(3)\nx[torch.tensor([0])] = torch.ones(1, dtype=torch.float64).to(x.dtype)\n"),
])
def test_unsafe_fixes(before, after):
    assert fixed(before) == after
    assert fixed(before, False) == before  # none of these is applied without --unsafe-fixes


FIXED_PROGRAMS = {
    "matmul": "ids = torch.tensor([[1, 2, 3]])\nout = ids @ torch.randn(3, 2)\n",
    "linear": "y = nn.Linear(3, 2)(torch.tensor([[1, 2, 3]]))\n",
    "inplace": "x = torch.tensor([1, 2, 3])\nx /= 2\n",
    "requires_grad": "w = torch.arange(5, requires_grad=True)\n",
    "target": "loss = F.cross_entropy(torch.randn(2, 3), torch.tensor([0., 1.]))\n",
    "bce": "loss = F.binary_cross_entropy(torch.rand(4), torch.tensor([1, 0, 1, 0]))\n",
    "index_put": "x = torch.zeros(3)\nx[torch.tensor([0])] = torch.ones(1, dtype=torch.float64)\n",
    "embedding": "v = nn.Embedding(5, 2)(torch.tensor([1.0, 2.0]))\n",
    "float_index": "x = torch.randn(5)\nv = x[torch.tensor([0.0, 1.0])]\n",
    "mean": "acc = (torch.tensor([1, 2]) == torch.tensor([1, 3])).mean()\n",
    "mask": "mask = torch.tensor([1, 0]) > 0\np = (1 - mask) * -1e9\n",
    "numpy": "y = nn.Linear(3, 1)(torch.tensor(np.random.rand(2, 3)).to(torch.float64) * 1)\n",
    "precision": "y = torch.matmul(torch.randn(2, 3), torch.randn(3, 2, dtype=torch.float64))\n",
}


def test_fixed_programs_run_with_torch():
    """Each program fails in torch as written; after --unsafe-fixes it runs."""
    programs = {name: (HEADER + body, HEADER + fixed(body)) for name, body in FIXED_PROGRAMS.items()}
    for name, (before, after) in programs.items():
        assert before != after, f"{name}: no fix applied"
    script = textwrap.dedent("""
        import json, sys
        out = {}
        for name, (before, after) in json.load(sys.stdin).items():
            result = []
            for source in (before, after):
                try:
                    exec(compile(source, name, "exec"), {})
                    result.append("ok")
                except Exception as exc:
                    result.append(type(exc).__name__ + ": " + str(exc).splitlines()[0])
            out[name] = result
        print(json.dumps(out))
    """)
    proc = subprocess.run([sys.executable, "-c", script], input=json.dumps(programs), capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    results = json.loads(proc.stdout.strip().splitlines()[-1])
    for name, (before, after) in results.items():
        assert before != "ok", f"{name}: the original program should fail in torch"
        assert after == "ok", f"{name}: the fixed program fails: {after}"


# --------------------------------------------------------------------------- precision traps (truth table section 3)


@pytest.mark.parametrize("body", [
    # elementwise ops, where/cat/stack promote
    "a = torch.tensor([1, 2]) + torch.randn(2)\nb = torch.tensor([1, 2]) / torch.tensor([2, 2])",
    "c = torch.where(torch.tensor([True, False]), torch.tensor([1, 2]), torch.randn(2))",
    "d = torch.cat([torch.tensor([1, 2]), torch.randn(2)])\ne = torch.stack([torch.randn(2), torch.randn(2).double()])",
    # same-category downcasts in place, //=, rebinding
    "x = torch.zeros(3)\nx += torch.ones(3, dtype=torch.float64)\ny = torch.tensor([4, 6])\ny //= 2\ny = y + 0.5",
    # float16 into float32 norm layers, half model with half input
    "n = nn.LayerNorm(3)(torch.randn(2, 3).half())\nm = nn.Linear(3, 2).half()\nh = m(torch.randn(2, 3).half())",
    # module conversions as statements, int32 indices, uint8 class targets
    "m = nn.Linear(3, 2)\nm.double()\nm.float()\ny = m(torch.randn(2, 3))",
    "e = nn.Embedding(5, 2)(torch.tensor([1, 2], dtype=torch.int32))\ng = torch.randn(2, 3).gather(1, torch.zeros(2, 1, dtype=torch.int32))",
    "l = F.cross_entropy(torch.randn(2, 3), torch.tensor([0, 1], dtype=torch.uint8))",
    # losses that accept float64 / int64 targets
    "l = nn.BCEWithLogitsLoss()(torch.randn(4), torch.ones(4, dtype=torch.float64))\n"
    "k = F.mse_loss(torch.randn(4), torch.ones(4, dtype=torch.float64))\nj = F.l1_loss(torch.randn(4), torch.ones(4, dtype=torch.long))",
    # integer matmul, reductions that exist for ints
    "p = torch.ones(2, 2, dtype=torch.long) @ torch.ones(2, 2, dtype=torch.long)\ns = torch.tensor([1, 2]).sum()\nq = torch.tensor([1, 2]).max()",
    # autocast handles float16/bfloat16 operands
    "with torch.autocast('cpu', dtype=torch.bfloat16):\n    r = torch.randn(2, 3) @ torch.randn(3, 2).bfloat16()",
    # numpy arrays compare with strings fine; x.type() with a string
    "a = np.zeros(3, dtype=np.float32)\nok = a.dtype == 'float32'\nt = torch.randn(3)\nok2 = t.type() == 'torch.FloatTensor'",
])
def test_false_positive_traps_are_silent(body):
    assert codes(body) == []


def test_float64_default_dtype_makes_layers_float64():
    assert codes("""
        torch.set_default_dtype(torch.float64)
        y = nn.Linear(3, 2)(torch.randn(4, 3))
        out, _ = nn.LSTM(3, 2)(torch.randn(4, 1, 3))
    """) == []


def test_tensors_believed_empty_are_silent():
    """Found in timm: a dict of lists filled through setdefault(...).append(...) looks empty to
    the engine, and torch.as_tensor of an "empty list" would be float32."""
    assert codes("""
        def f(x: torch.Tensor, sizes):
            groups = {}
            for i, k in enumerate(sizes):
                groups.setdefault(k, []).append(i)
            for k, members in groups.items():
                x.index_add_(0, torch.as_tensor(members), torch.ones(len(members)))
    """) == []


def test_unknown_dtypes_are_silent():
    assert codes("""
        def f(x: torch.Tensor, w):
            return x @ torch.randn(3, 2), x.mean(), nn.Linear(3, 2)(x), w @ x
    """) == []


def test_a_set_of_dtypes_fires_only_if_every_member_is_bad():
    mixed_ok = """
        import random
        x = torch.tensor([1, 2, 3]) if random.random() > 0.5 else torch.randn(3)
        y = x @ torch.randn(3)
    """
    assert codes(mixed_ok) == []
    all_bad = """
        import random
        x = torch.tensor([1, 2, 3]) if random.random() > 0.5 else torch.tensor([1, 2, 3], dtype=torch.int32)
        y = x @ torch.randn(3)
    """
    assert codes(all_bad) == ["TTL201"]


def test_opt_in_promotion_rule_is_off_by_default():
    body = "y = torch.tensor([1, 2]) * torch.randn(2)"
    assert codes(body) == []
    assert codes(body, "TTL902") == ["TTL902"]


# --------------------------------------------------------------------------- engine facts the rules rely on


def test_to_with_a_device_keyword_keeps_the_dtype():
    """`x.to(device=d)` never changes the dtype, even when `d` is unknown (fixtures use it)."""
    f = only("""
        import os
        device = os.environ.get("DEV", "cpu")
        y = nn.Linear(3, 2)(torch.tensor([[1, 2, 3]]).to(device=device))
    """, "TTL202")
    assert "int64" in f.message
    assert codes("""
        def g(target):
            return nn.Linear(3, 2)(torch.tensor([[1, 2, 3]]).to(target))
    """) == []  # positional and unknown: it could be a dtype


def test_to_a_variable_named_like_a_device_keeps_the_dtype():
    for arg in ("device", "self.device", "args.dev", "DEVICE", "gpu_device"):
        assert codes(f"""
            def g(self, args, device, DEVICE, gpu_device):
                return nn.Linear(3, 2)(torch.tensor([[1, 2, 3]]).to({arg}))
        """) == ["TTL202"], arg


def test_autocast_outputs_have_the_autocast_dtype_only_for_matmul_like_ops():
    f = only("""
        lin = nn.Linear(3, 2)
        with torch.autocast("cpu", dtype=torch.bfloat16):
            y = lin(torch.randn(4, 3))
            p = torch.softmax(y, -1)
        out = nn.Linear(2, 2)(y)
        q = p @ torch.randn(2, 2)
    """, "TTL402")
    assert "BFloat16 and Float" in f.message and "computed under torch.autocast" in f.message


def test_autocast_region_does_not_leak_into_calls_outside_it():
    """A forward analysed under autocast and again outside it: the memo must not mix them."""
    assert codes("""
        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = nn.Linear(3, 2)

            def forward(self, x):
                return self.fc(x)

        net = Net()
        x = torch.randn(4, 3)
        with torch.autocast("cpu", dtype=torch.bfloat16):
            low = net(x)
        high = net(x)
        out = nn.Linear(2, 2)(high)
    """) == []


def test_autocast_of_unknown_dtype_makes_outputs_unknown():
    assert codes("""
        def run(device, x):
            lin = nn.Linear(3, 2)
            with torch.autocast(device):
                y = lin(x)
            return nn.Linear(2, 2)(y), y @ torch.randn(2, 2)
    """) == []


# --------------------------------------------------------------------------- quoted torch messages are real

#: (snippet, code): the message of the finding quotes torch; the snippet, run with torch,
#: must raise an error whose first line contains that quote.
QUOTED = [
    ("a = torch.ones(2, 3, dtype=torch.long) @ torch.ones(3, 2)", "TTL201"),
    ("a = torch.ones(3) @ torch.ones(3, dtype=torch.long)", "TTL201"),
    ("a = torch.mm(torch.ones(2, 3, dtype=torch.int32), torch.ones(3, 2, dtype=torch.long))", "TTL201"),
    ("a = torch.bmm(torch.ones(1, 2, 3), torch.ones(1, 3, 2, dtype=torch.long))", "TTL201"),
    ("a = torch.einsum('ij,jk->ik', torch.ones(2, 3), torch.ones(3, 2, dtype=torch.long))", "TTL201"),
    ("a = torch.dot(torch.ones(3), torch.ones(3, dtype=torch.long))", "TTL201"),
    ("a = torch.mv(torch.ones(2, 3), torch.ones(3, dtype=torch.long))", "TTL201"),
    ("a = torch.tensordot(torch.ones(2, 3), torch.ones(3, 2, dtype=torch.long), dims=1)", "TTL201"),
    ("a = torch.addmm(torch.zeros(2, 2), torch.ones(2, 3), torch.ones(3, 2, dtype=torch.long))", "TTL201"),
    ("a = F.linear(torch.ones(2, 3, dtype=torch.long), torch.ones(4, 3))", "TTL201"),
    ("a = torch.inner(torch.ones(3), torch.ones(3, dtype=torch.float64))", "TTL401"),
    ("a = torch.addbmm(torch.zeros(2, 2), torch.ones(1, 2, 3), torch.ones(1, 3, 2, dtype=torch.float64))", "TTL401"),
    ("a = torch.matmul(torch.ones(2, 3), torch.ones(3, 2).half())", "TTL401"),
    ("a = torch.cdist(torch.ones(2, 3), torch.ones(2, 3, dtype=torch.float64))", "TTL401"),
    ("a = nn.Linear(3, 2)(torch.ones(1, 3, dtype=torch.long))", "TTL202"),
    ("a = nn.Linear(3, 2, bias=False)(torch.ones(1, 3, dtype=torch.long))", "TTL202"),
    ("a = nn.Conv2d(3, 2, 3)(torch.ones(1, 3, 5, 5, dtype=torch.long))", "TTL202"),
    ("a = nn.Conv2d(3, 2, 3, bias=False)(torch.ones(1, 3, 5, 5, dtype=torch.long))", "TTL202"),
    ("a = nn.ConvTranspose2d(3, 2, 3)(torch.ones(1, 3, 5, 5, dtype=torch.long))", "TTL202"),
    ("a = nn.BatchNorm2d(3)(torch.ones(2, 3, 4, 4, dtype=torch.uint8))", "TTL202"),
    ("a = nn.ConvTranspose1d(3, 2, 3)(torch.ones(1, 3, 5, dtype=torch.float64))", "TTL401"),
    ("a = nn.LayerNorm(3)(torch.ones(2, 3, dtype=torch.long))", "TTL202"),
    ("a = nn.LSTMCell(3, 2)(torch.ones(4, 3, dtype=torch.long))", "TTL202"),
    ("x = torch.ones(2, 5, 4, dtype=torch.long)\na = nn.TransformerEncoderLayer(4, 2, 8, batch_first=True)(x)", "TTL202"),
    ("a = nn.Conv1d(3, 2, 3)(torch.ones(1, 3, 5).half())", "TTL401"),
    ("a = nn.Linear(3, 2, bias=False)(torch.ones(1, 3, dtype=torch.float64))", "TTL401"),
    ("a = nn.LayerNorm(3)(torch.ones(2, 3, dtype=torch.float64))", "TTL401"),
    ("a = torch.zeros(3, dtype=torch.float64).lerp_(torch.ones(3), 0.1)", "TTL401"),
    ("a = torch.lerp(torch.ones(3), torch.zeros(3, dtype=torch.float16), 0.5)", "TTL401"),
    ("a = torch.ones(3).lerp(torch.ones(3), torch.full((3,), 0.5, dtype=torch.float64))", "TTL401"),
    ("a = torch.linalg.solve(torch.randn(3, 3), torch.randn(3, dtype=torch.float64))", "TTL401"),
    ("a = torch.cholesky_solve(torch.randn(3, 1), torch.randn(3, 3, dtype=torch.float64))", "TTL401"),
    ("a = F.layer_norm(torch.randn(2, 4, dtype=torch.float64), (4,), torch.ones(4), torch.zeros(4))", "TTL401"),
    ("a = F.group_norm(torch.randn(2, 4, 3, dtype=torch.float64), 2, torch.ones(4))", "TTL401"),
    ("a = nn.GRU(3, 4)(torch.ones(2, 1, 3, dtype=torch.long))", "TTL203"),
    ("x = torch.tensor([1, 2])\nx *= 0.5", "TTL204"),
    ("x = torch.tensor([1, 2])\nx.sqrt_()", "TTL204"),
    ("x = torch.tensor([1, 2])\nx.sub_(torch.tensor([0.5, 0.5]))", "TTL204"),
    ("x = torch.zeros(2, dtype=torch.int32)\ntorch.mul(torch.ones(2), 0.5, out=x)", "TTL204"),
    ("x = torch.zeros(3)\nx[torch.tensor([0, 1])] = torch.ones(2, dtype=torch.long)", "TTL205"),
    ("x = torch.zeros(3)\nx.index_add_(0, torch.tensor([0]), torch.ones(1, dtype=torch.float64))", "TTL205"),
    ("x = torch.zeros(3)\nx.index_copy_(0, torch.tensor([0]), torch.ones(1, dtype=torch.float64))", "TTL205"),
    ("x = torch.zeros(3)\nx.scatter_(0, torch.tensor([0]), torch.ones(1, dtype=torch.float64))", "TTL205"),
    ("x = torch.zeros(3)\nx.masked_scatter_(x == 0, torch.ones(3, dtype=torch.float64))", "TTL205"),
    ("x = torch.zeros(3)\nx.index_put_((torch.tensor([0]),), torch.ones(1, dtype=torch.float64))", "TTL205"),
    ("a = torch.zeros(3, dtype=torch.long, requires_grad=True)", "TTL206"),
    ("x = torch.tensor([True])\nx.requires_grad_()", "TTL206"),
    ("a = nn.Parameter(torch.tensor([True, False]))", "TTL206"),
    ("a = F.nll_loss(torch.randn(4, 3), torch.tensor([0, 1, 2, 0], dtype=torch.int16))", "TTL207"),
    # nll_loss takes no class probabilities: a float target fails whatever the (unknown) input
    ("x = getattr(torch, 'randn')(4, 3)\na = F.nll_loss(x, torch.zeros(4))", "TTL207"),
    ("a = nn.CrossEntropyLoss()(torch.randn(2, 3, 4, 4), torch.zeros(2, 4, 4))", "TTL207"),
    # an int32 target fails cross_entropy whatever the (unknown) input: as indices or as probabilities
    ("x = getattr(torch, 'randn')(4, 3)\na = F.cross_entropy(x, torch.zeros(4, dtype=torch.int32))", "TTL207"),
    ("x = getattr(torch, 'randn')(4, 3)\na = F.cross_entropy(x, torch.zeros(4, 3, dtype=torch.int16))", "TTL207"),
    ("a = F.cross_entropy(torch.randn(4, 3), torch.zeros(4, 3, dtype=torch.int32))", "TTL207"),
    ("a = nn.BCELoss()(torch.rand(4).half(), torch.rand(4))", "TTL208"),
    ("a = F.binary_cross_entropy_with_logits(torch.randn(4), torch.ones(4, dtype=torch.int32))", "TTL208"),
    ("a = F.binary_cross_entropy_with_logits(torch.randn(4), torch.ones(4, dtype=torch.bool))", "TTL208"),
    # an input the engine does not know: integer and bool targets fail whatever its dtype
    ("x = getattr(torch, 'randn')(4)\na = F.binary_cross_entropy_with_logits(x, torch.ones(4, dtype=torch.bool))",
     "TTL208"),
    ("x = getattr(torch, 'rand')(4)\na = nn.BCELoss()(x, torch.ones(4, dtype=torch.long))", "TTL208"),
    ("p = torch.randn(4, requires_grad=True)\nloss = nn.HuberLoss()(p, torch.ones(4, dtype=torch.long))\n"
     "loss.backward()", "TTL208"),
    ("a = F.embedding(torch.tensor([0, 1], dtype=torch.int16), torch.randn(3, 2))", "TTL209"),
    ("a = nn.Embedding(3, 2)(torch.tensor([True, False]))", "TTL209"),
    ("a = torch.randn(3).scatter(0, torch.tensor([0.0]), torch.ones(1))", "TTL209"),
    ("a = torch.zeros(3).index_add_(0, torch.tensor([0.0]), torch.ones(1))", "TTL209"),
    ("a = torch.gather(torch.randn(2, 3), 1, torch.zeros(2, 1, dtype=torch.uint8))", "TTL209"),
    ("x = torch.randn(3)\na = x[torch.tensor([0, 1], dtype=torch.int16)]", "TTL210"),
    ("x = torch.randn(3)\nx[1.0] = 2.0", "TTL210"),
    # float slice bounds: a one-element float tensor (TypeError), a computed Python float
    ("x = torch.zeros(3, 10)\nc = torch.tensor([4.0, 5.0])\na = x[:, c[0] - 2:c[0] + 2]", "TTL210"),
    ("x = torch.zeros(3, 10)\nn = 10\na = x[:, n / 2:]", "TTL210"),
    ("a = torch.tensor([1, 2]).var()", "TTL211"),
    ("a = torch.std_mean(torch.tensor([1, 2]))", "TTL211"),
    ("a = torch.var_mean(torch.tensor([1, 2]))", "TTL211"),
    ("a = torch.nanmean(torch.tensor([1, 2]))", "TTL211"),
    ("a = torch.tensor([1, 2]).norm()", "TTL211"),
    ("a = F.normalize(torch.ones(2, 3, dtype=torch.long), dim=1)", "TTL211"),
    ("a = torch.linalg.vector_norm(torch.ones(3, dtype=torch.long))", "TTL211"),
    ("a = torch.quantile(torch.tensor([1, 2]), 0.5)", "TTL211"),
    ("a = torch.tensor([1, 2]).log_softmax(0)", "TTL211"),
    ("a = nn.Softmax(dim=-1)(torch.tensor([True, False]))", "TTL211"),
    ("a = torch.rand_like(torch.tensor([1, 2]))", "TTL211"),
    ("a = torch.randn_like(torch.tensor([1, 2]))", "TTL211"),
    ("a = nn.GELU()(torch.tensor([1, 2]))", "TTL211"),
    ("a = F.cross_entropy(torch.ones(4, 3, dtype=torch.long), torch.tensor([0, 1, 2, 0]))", "TTL211"),
    ("m = torch.tensor([1, 2]) > 1\na = m - 1.0", "TTL212"),
    ("a = torch.randn(2, 3).masked_fill(torch.ones(2, 3), 0.0)", "TTL213"),
    ("a = torch.randn(2, 3).masked_fill_(torch.ones(2, 3, dtype=torch.long), 0.0)", "TTL213"),
    ("a = torch.masked_fill(torch.randn(2, 3), torch.zeros(2, 3, dtype=torch.uint8), 0.0)", "TTL213"),
    ("a = torch.randn(3).masked_scatter(torch.ones(3, dtype=torch.int32), torch.zeros(3))", "TTL213"),
    ("a = torch.randn(3).masked_select(torch.ones(3))", "TTL213"),
    ("a = torch.where(torch.ones(3), torch.randn(3), 0.0)", "TTL213"),
    ("a = torch.where(torch.ones(3, dtype=torch.int8), torch.randn(3), 0.0)", "TTL213"),
    ("m = torch.tensor([1, 2]) > 1\na = -m", "TTL212"),
]

def _variants(message: str) -> List[str]:
    variants = quoted_wordings(message)
    assert variants, f"no quoted torch message in {message}"
    return variants


def _runs(snippets: List[str], header: str) -> Dict[str, Optional[Dict[str, Any]]]:
    """What each snippet raises under the installed torch, as the harness records a run."""
    script = textwrap.dedent("""
        import json, sys, warnings
        warnings.simplefilter("ignore")
        out = {}
        for snippet in json.load(sys.stdin):
            try:
                exec(compile(sys.argv[1] + snippet, "snippet", "exec"), {})
                out[snippet] = None
            except Exception as exc:
                out[snippet] = {"outcome": "raised", "exception": type(exc).__name__,
                                "mro": [c.__name__ for c in type(exc).__mro__], "message": str(exc)}
        print(json.dumps(out))
    """)
    proc = subprocess.run([sys.executable, "-c", script, header], input=json.dumps(snippets),
                          capture_output=True, text=True, timeout=180)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.strip().splitlines()[-1])


def _raised(snippets: List[str], header: str = HEADER) -> Dict[str, Optional[str]]:
    """The first line of what each snippet raises under the installed torch (None: nothing)."""
    return {snippet: run["message"].splitlines()[0] if run else None
            for snippet, run in _runs(snippets, header).items()}


def test_quoted_torch_messages_match_what_torch_raises():
    # torch words some failures differently per CPU backend (oneDNN kernels or not): a quote
    # lists every wording, and what this machine's torch raises must be one of them.
    quotes = {snippet: _variants(only(snippet, code).message) for snippet, code in QUOTED}
    raised = _raised(list(quotes))
    wrong = {s: (quotes[s], raised[s]) for s in quotes
             if raised[s] is None or not any(v in raised[s] for v in quotes[s])}
    assert not wrong, wrong


# Convolutions on float16/bfloat16 input with other weights and no bias check first: oneDNN's
# kernels (CPUs with float16/bfloat16 instructions) and the reference kernels word it
# differently, and how depends on the CPU: the finding quotes no wording.
BACKEND_DEPENDENT = [
    "a = nn.ConvTranspose2d(3, 2, 3)(torch.ones(1, 3, 5, 5).half())",
    "a = nn.ConvTranspose2d(3, 2, 3)(torch.ones(1, 3, 5, 5).bfloat16())",
    "a = nn.ConvTranspose1d(3, 2, 3, bias=False)(torch.ones(1, 3, 5).half())",
    "a = nn.Conv2d(3, 2, 3, bias=False)(torch.ones(1, 3, 5, 5).half())",
    "a = nn.Conv1d(3, 2, 3, bias=False)(torch.ones(1, 3, 5).bfloat16())",
    "a = nn.Conv1d(3, 2, 3, bias=False).half()(torch.ones(1, 3, 5).bfloat16())",
]


@pytest.mark.parametrize("snippet", BACKEND_DEPENDENT)
def test_backend_dependent_conv_findings_quote_no_wording(snippet):
    assert not quoted_wordings(only(snippet, "TTL401").message)


def test_backend_dependent_conv_failures_are_what_the_rule_claims_on_this_cpu():
    # Whatever this CPU's torch prints (oneDNN's wording or the reference kernels'), the rule's
    # runtime claim must accept it: that is what the harness confirms on every machine.
    from torchtype_lint.harness.confirm import claim_matches
    from torchtype_lint.rules.base import get_rule

    claim = get_rule("TTL401").runtime
    # oneDNN on and off, and one thread (the harness runs torch single-threaded; oneDNN's use
    # can depend on it): every kernel this machine can pick.
    for header in (HEADER, HEADER + "torch.backends.mkldnn.enabled = False\n",
                   HEADER + "torch.set_num_threads(1)\n"):
        raised = _runs(BACKEND_DEPENDENT, header)
        wrong = {s: r for s, r in raised.items() if r is None or not claim_matches(claim, r, "cpu")}
        assert not wrong, (header, wrong)


@pytest.mark.parametrize("code, wording", [
    ("TTL401", "expected scalar type Half but found Float"),
    ("TTL401", "Input type (torch.HalfTensor) and weight type (torch.FloatTensor) should be the same or input "
               "should be a MKLDNN tensor and weight is a dense tensor"),
    ("TTL401", "Input type (CPUBFloat16Type) and weight type (torch.FloatTensor) should be the same or input "
               "should be a MKLDNN tensor and weight is a dense tensor"),
    ("TTL401", "Input type (c10::Half) and bias type (float) should be the same"),
    ("TTL202", "expected scalar type Long but found Float"),
    ("TTL202", "Input type (long int) and bias type (float) should be the same"),
])
def test_runtime_claims_accept_every_backend_wording(code, wording):
    # The harness confirms a rule when a bad fixture fails as its claim says, on any machine.
    from torchtype_lint.harness.confirm import claim_matches
    from torchtype_lint.rules.base import get_rule

    result = {"outcome": "raised", "exception": "RuntimeError", "mro": ["RuntimeError", "Exception"],
              "message": wording}
    assert claim_matches(get_rule(code).runtime, result, "cpu")


def test_discarded_cast_on_a_loop_variable_gets_no_rebinding_fix():
    # `for t in xs: t = t.float()` would change only the loop variable, not the list.
    from torchtype_lint.checker.check import check_source

    source = ("import torch\nxs = [torch.tensor([1, 2])]\nfor t in xs:\n    t.float()\n"
              "y = torch.tensor([1])\ny.float()\n")
    findings = {f.line: f for f in check_source(source, "loop.py").findings}
    assert findings[4].code == "TTL101" and findings[4].fix is None
    assert "loop variable `t`" in findings[4].message
    assert findings[6].fix is not None and findings[6].fix.safe


def test_int64_target_with_unknown_class_count_is_not_called_class_probabilities():
    # Logits (8, C) with C unknown and an int64 (8, 1) target: torch fails, but with
    # "0D or 1D target tensor expected" unless C == 1, so TTL207 must not claim the
    # class-probability message. An unbatched (C,) int64 target of (C,) logits is that case.
    from torchtype_lint.checker.check import check_source

    unknown_c = ("import torch\nimport torch.nn.functional as F\n"
                 "def run(n: int):\n    logits = torch.randn(8, n)\n"
                 "    labels = torch.randint(0, 10, (8, 1))\n    return F.cross_entropy(logits, labels)\n")
    assert [f.code for f in check_source(unknown_c, "a.py").findings if f.code == "TTL207"] == []
    unbatched = ("import torch\nimport torch.nn.functional as F\nlogits = torch.randn(5)\n"
                 "target = torch.tensor([0, 1, 0, 0, 0])\nloss = F.cross_entropy(logits, target)\n")
    found = [f for f in check_source(unbatched, "b.py").findings if f.code == "TTL207"]
    assert len(found) == 1 and "class probabilities" in found[0].message


@pytest.mark.parametrize("loss", ["binary_cross_entropy", "binary_cross_entropy_with_logits"])
@pytest.mark.parametrize("target_dtype", ["bool", "int64", "int32", "uint8"])
def test_bce_rejects_integer_targets_whatever_the_input_dtype(loss, target_dtype):
    # TTL208 flags integer and bool BCE targets when the input's dtype is unknown: that needs
    # torch to refuse them for every input dtype there is.
    torch = pytest.importorskip("torch")
    functional = getattr(torch.nn.functional, loss)
    target = torch.tensor([1, 0, 1, 0]).to(getattr(torch, target_dtype))
    for input_dtype in (torch.float16, torch.bfloat16, torch.float32, torch.float64, torch.complex64,
                        torch.int64, torch.int32, torch.uint8, torch.bool):
        with pytest.raises(RuntimeError):
            functional(torch.rand(4).to(input_dtype), target)


def test_lerp_with_a_zero_dim_weight_of_another_precision_is_fine():
    # a 0-dim weight promotes like a number: torch runs it (checked below), so no finding
    snippet = "a = torch.ones(3).lerp(torch.zeros(3), torch.tensor(0.5, dtype=torch.float64))"
    assert codes(snippet) == []
    assert _raised([snippet])[snippet] is None


@pytest.mark.parametrize("snippet", [
    # CPU norms accept low-precision input with float32 affine parameters
    "a = F.layer_norm(torch.randn(2, 4).bfloat16(), (4,), torch.ones(4), torch.zeros(4))",
    "a = F.group_norm(torch.randn(2, 4, 3).half(), 2, torch.ones(4))",
    "a = torch.linalg.solve(torch.randn(3, 3), torch.randn(3))",
])
def test_same_dtype_ops_that_run_are_not_flagged(snippet):
    assert codes(snippet) == []
    assert _raised([snippet])[snippet] is None


@pytest.mark.parametrize("loss", ["mse_loss", "l1_loss", "smooth_l1_loss", "binary_cross_entropy_with_logits"])
def test_a_float64_numpy_target_of_a_loss_that_accepts_it_is_not_reported(loss):
    # TTL301 settles the conversion: these losses take a float64 target with a float32 input,
    # forward and backward (checked here with torch)
    torch = pytest.importorskip("torch")
    pred = torch.rand(4, requires_grad=True)
    getattr(torch.nn.functional, loss)(pred, torch.rand(4, dtype=torch.float64)).backward()
    snippet = (f"pred = nn.Linear(3, 1)(torch.randn(4, 3)).squeeze(1)\n"
               f"y = torch.from_numpy(np.random.rand(4))\nloss = F.{loss}(pred, y)")
    assert "TTL301" not in codes(snippet)
