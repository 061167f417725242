"""TTL5xx shape rules and TTL6xx jaxtyping rules: messages, provenance, precision.

Recall and zero findings on the fixtures are covered by tests/test_fixtures.py, and the
runtime claims by the harness; this file checks what a user reads (numbers, where the shape
came from) and that unknown or symbolic shapes stay silent.
"""
from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from torchtype_lint.checker.check import Settings, check_source
from torchtype_lint.knowledge.jaxtyping_shapes import ShapeSpecError, parse_jaxtyping_shape
from torchtype_lint.rules.base import get_rule
from torchtype_lint.model.selection import Selection

ROOT = Path(__file__).resolve().parent.parent
SHAPE_CODES = [f"TTL5{n:02d}" for n in range(1, 16)] + ["TTL601", "TTL602", "TTL603"]

HEADER = """\
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch import Tensor
from jaxtyping import Float, Int
"""


def findings(body: str, codes=("TTL5", "TTL6")):
    source = HEADER + textwrap.dedent(body)
    result = check_source(source, "t.py", Settings(selection=Selection(select=list(codes))))
    return result.findings


def one(body: str, code: str):
    found = findings(body)
    assert [f.code for f in found] == [code], [(f.code, f.message) for f in found]
    return found[0]


def line_of(body: str, needle: str) -> int:
    lines = (HEADER + textwrap.dedent(body)).splitlines()
    return next(i for i, text in enumerate(lines, start=1) if needle in text)


# --------------------------------------------------------------------------- messages


def test_conv_message_has_the_numbers_and_the_origin():
    body = """
    conv = nn.Conv2d(3, 16, 3)
    x = torch.randn(1, 1, 28, 28)
    y = conv(x)
    """
    f = one(body, "TTL501")
    assert f.message.startswith("Conv2d(3, 16) expects 3 input channels; `x` has 1 channel")
    assert "shape (1, 1, 28, 28)" in f.message
    assert f"since line {line_of(body, 'torch.randn(1, 1, 28, 28)')}: `torch.randn(1, 1, 28, 28)`" in f.message
    assert f.line == line_of(body, "y = conv(x)")
    assert f.provenance and f.provenance[-1].line == line_of(body, "x = torch.randn")


def test_lenet_chain_in_forward_names_the_layer_that_made_the_shape():
    body = """
    class LeNet(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv1 = nn.Conv2d(1, 6, 5)
            self.pool = nn.MaxPool2d(2, 2)
            self.conv2 = nn.Conv2d(6, 16, 5)
            self.fc1 = nn.Linear(16 * 5 * 5, 120)

        def forward(self, x):
            x = self.pool(F.relu(self.conv1(x)))
            x = self.pool(F.relu(self.conv2(x)))
            x = torch.flatten(x, 1)
            return self.fc1(x)

    out = LeNet()(torch.randn(8, 1, 28, 28))
    """
    f = one(body, "TTL502")
    assert "Linear(400, 120) expects 400 input features" in f.message
    assert "`x` has 256 (shape (8, 256), computed by the layers before it from an input of shape " \
           "(8, 1, 28, 28)" in f.message
    assert f"since line {line_of(body, 'out = LeNet()')}: `torch.randn(8, 1, 28, 28)`" in f.message
    assert f.line == line_of(body, "return self.fc1(x)")


def test_chain_provenance_continues_through_tensor_methods():
    body = """
    conv = nn.Conv2d(1, 4, 3)
    features = conv(torch.randn(2, 1, 10, 10))
    fc = nn.Linear(10, 2)
    out = fc(features.sum(1).flatten(1))
    """
    f = one(body, "TTL502")
    assert "has 64 (shape (2, 64), computed by the layers before it from an input of shape (2, 1, 10, 10)" in f.message


def test_same_model_on_32px_input_is_silent():
    body = """
    class LeNet(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv1 = nn.Conv2d(3, 6, 5)
            self.pool = nn.MaxPool2d(2, 2)
            self.conv2 = nn.Conv2d(6, 16, 5)
            self.fc1 = nn.Linear(16 * 5 * 5, 120)

        def forward(self, x):
            x = self.pool(F.relu(self.conv1(x)))
            x = self.pool(F.relu(self.conv2(x)))
            return self.fc1(torch.flatten(x, 1))

    out = LeNet()(torch.randn(8, 3, 32, 32))
    unused = LeNet()  # forward analysed on its own: input unknown, silent
    """
    assert findings(body) == []


def test_sequential_message_lists_the_layers_before_the_failing_one():
    f = one("""
    model = nn.Sequential(nn.Conv2d(1, 8, 3), nn.ReLU(), nn.Flatten(), nn.Linear(100, 10))
    out = model(torch.randn(2, 1, 12, 12))
    """, "TTL502")
    assert "Linear(100, 10) inside this nn.Sequential expects 100 input features" in f.message
    assert "Conv2d(1, 8) -> ReLU -> Flatten" in f.message
    assert "has 800 (shape (2, 800))" in f.message


def test_nested_sequential_is_walked():
    f = one("""
    block = nn.Sequential(nn.Conv2d(3, 8, 3), nn.ReLU())
    model = nn.Sequential(block, nn.BatchNorm2d(16))
    out = model(torch.randn(2, 3, 8, 8))
    """, "TTL504")
    assert "BatchNorm2d(16)" in f.message and "has 8" in f.message


def test_embedding_message_names_the_index_and_the_literal():
    f = one("""
    embed = nn.Embedding(10, 4)
    ids = torch.tensor([[1, 2], [-1, 3]])
    out = embed(ids)
    """, "TTL506")
    assert "Embedding(10, 4) has rows 0..9, but index -1 is negative" in f.message
    assert "`torch.tensor([[1, 2], [-1, 3]])`" in f.message


def test_matmul_cat_reshape_messages():
    body = """
    a = torch.randn(3, 4)
    b = torch.randn(5, 6)
    c = torch.matmul(a, b)
    d = torch.cat([torch.randn(2, 3), torch.randn(2, 4)], dim=0)
    e = a.view(-1, 5)
    """
    by_code = {f.code: f for f in findings(body)}
    assert set(by_code) == {"TTL507", "TTL508", "TTL509"}
    assert "shapes (3, 4) and (5, 6)" in by_code["TTL507"].message and "4" in by_code["TTL507"].message
    assert "dimension 1 is 3 in tensor 0 and 4 in tensor 1" in by_code["TTL508"].message
    assert "12 elements cannot be split into rows of 5" in by_code["TTL509"].message


def test_loss_messages():
    body = """
    logits = torch.randn(4, 3)
    ce = F.cross_entropy(logits, torch.tensor([0, 1, 2]))
    col = F.nll_loss(logits, torch.tensor([[0], [1], [2], [1]]))
    pred = torch.randn(16, 1)
    mse = nn.MSELoss()(pred, torch.randn(16))
    bce = F.binary_cross_entropy(torch.rand(4), torch.rand(4, 1))
    """
    by_code = {f.code: f for f in findings(body)}
    assert set(by_code) == {"TTL510", "TTL511", "TTL512"}
    assert "4 predictions but 3 targets" in by_code["TTL510"].message or \
        "same shape" in by_code["TTL510"].message
    assert "to (16, 16): the loss averages 256 pairs instead of 16" in by_code["TTL511"].message
    assert by_code["TTL511"].severity == "warning"
    assert "shape (4, 1)" in by_code["TTL512"].message


def test_flatten_of_a_batch_is_reported_as_ttl513_not_ttl502():
    f = one("""
    fc = nn.Linear(12, 2)
    x = torch.randn(4, 3, 4)
    flat = x.flatten()
    out = fc(flat)
    """, "TTL513")
    assert "the batch of 4 (shape (4, 3, 4))" in f.message and "`x.flatten()`" in f.message


def test_flatten_drops_batch_falls_back_to_ttl502_when_ttl513_is_off():
    source = HEADER + "fc = nn.Linear(12, 2)\nout = fc(torch.randn(4, 3, 4).view(-1))\n"
    result = check_source(source, "t.py", Settings(selection=Selection(select=["TTL502"])))
    assert [f.code for f in result.findings] == ["TTL502"]


# --------------------------------------------------------------------------- precision


@pytest.mark.parametrize("body", [
    # unknown sizes from parameters, annotations and data
    "def f(x):\n    return nn.Conv2d(3, 8, 3)(x)\n",
    "def f(x: torch.Tensor):\n    return nn.Linear(10, 2)(x)\n",
    "def f(x: Float[Tensor, 'b c']):\n    return nn.Linear(10, 2)(x)\n",
    "def f(n: int):\n    return nn.Linear(10, 2)(torch.randn(4, n))\n",
    # a layer whose window is not a constant: the output shape is unknown
    "def f(s):\n    m = nn.Sequential(nn.Conv2d(3, 8, 3, stride=s), nn.Flatten(), nn.Linear(10, 2))\n"
    "    return m(torch.randn(1, 3, 8, 8))\n",
    "def f(c):\n    m = nn.Sequential(nn.MaxPool2d(3, ceil_mode=c), nn.Flatten(), nn.Linear(48, 2))\n"
    "    return m(torch.randn(1, 3, 8, 8))\n",
    # joined branches: the dim is unknown after the merge
    "import random\nx = torch.randn(4, 3) if random.random() > 0.5 else torch.randn(4, 5)\n"
    "y = nn.Linear(3, 2)(x)\n",
    # legal: broadcasting that does not grow, unbatched inputs, -1 inference
    "loss = F.mse_loss(torch.randn(4, 3), torch.randn(4, 3))\n",
    "y = torch.randn(4, 3) @ torch.randn(3)\n",
    "y = nn.Conv1d(4, 2, 3)(torch.randn(4, 10))\n",
    "y = torch.randn(6, 4).view(-1, 8)\n",
    "y = torch.cat([torch.randn(2, 3), torch.randn(0)])\n",
    # an index tensor changed after construction is not a literal any more
    "ids = torch.tensor([10, 11]) - 5\ny = nn.Embedding(10, 2)(ids)\n",
    "ids = torch.tensor([10, 11])\nids = ids.clamp(max=9)\ny = nn.Embedding(10, 2)(ids)\n",
    # probability targets for cross-entropy have the input's shape
    "y = F.cross_entropy(torch.randn(4, 3), torch.rand(4, 3))\n",
    # (N, 1) logits with an (N, 1) integer target fail as "class probabilities", not TTL512
    "y = F.cross_entropy(torch.randn(4, 1), torch.zeros(4, 1, dtype=torch.long))\n",
    # broadcasting that is legal, or not knowable
    "x = torch.randn(4, 3)\ny = x - x.mean(0) + x.sum(1, keepdim=True) * torch.ones(3)\n",
    "x = torch.randn(4, 3)\nd = x[:, None, :] - x[None, :, :]\n",
    "def f(n: int):\n    return torch.randn(4, n) + torch.randn(3)\n",
    # ConvTranspose with output_size= at call time: the size is the caller's choice
    "up = nn.ConvTranspose2d(4, 4, 3, stride=2)\ny = up(torch.randn(1, 4, 5, 5), output_size=(12, 12))\n"
    "z = nn.Linear(12, 2)(y)\n",
    # a batch of one flattened is not TTL513 (it runs, unbatched)
    "y = nn.Linear(12, 2)(torch.randn(1, 3, 4).view(-1))\n",
])
def test_unknown_or_legal_shapes_are_silent(body):
    assert findings(body) == []


def test_symbolic_jaxtyping_dims_never_conflict():
    body = """
    def f(x: Float[Tensor, "b c"], y: Float[Tensor, "c b"]) -> Float[Tensor, "b b"]:
        return x @ y

    def g(x: Float[Tensor, "b c"]) -> Float[Tensor, "c b"]:
        return x.T
    """
    assert findings(body) == []


# --------------------------------------------------------------------------- jaxtyping


def test_dim_conflict_names_both_arguments():
    f = one("""
    def gap(x: Float[Tensor, "b c"], y: Float[Tensor, "b c"]):
        return x.sum() + y.sum()

    q = torch.randn(4, 3)
    k = torch.randn(5, 3)
    d = gap(q, k)
    """, "TTL601")
    assert "argument `y` of `gap`" in f.message
    assert "`k` (shape (5, 3)) binds `b` = 5 while `b` is already 4 (bound by `x`)" in f.message


def test_variadic_and_broadcastable_dims_bind_like_jaxtyping():
    assert findings("""
    def f(x: Float[Tensor, "*batch c"], w: Float[Tensor, "#c"], z: Float[Tensor, "*batch c"]):
        return x * w + z

    f(torch.randn(2, 5, 3), torch.randn(1), torch.randn(2, 5, 3))
    """) == []
    f = one("""
    def f(x: Float[Tensor, "*batch c"], z: Float[Tensor, "*batch c"]):
        return x

    f(torch.randn(2, 5, 3), torch.randn(4, 3))
    """, "TTL601")
    assert "`*batch`" in f.message


def test_return_dims_bound_by_the_arguments():
    f = one("""
    def first_rows(x: Float[Tensor, "n d"]) -> Float[Tensor, "n d"]:
        return x[:2]

    first_rows(torch.randn(5, 3))
    """, "TTL602")
    assert "`first_rows` is annotated to return" in f.message


MALFORMED = ["*a *b", "... *b", "a, b", "a b,", "#_", "##a", "**a", "__a", "*4", "_4", "?4",
             "_foo+bar", "*foo+bar", "?foo+bar", "a#", "...a", "... ...", "*a=3", "??a"]
ACCEPTED = ["b c", "*b c", "... c", "", "...", "#3", "*#b", "#*b", "a=4", "dim-1", "a b a", "3.5",
            "1a", "x[0]", "*_", "_", "_a", "?a", "#a", "*?a", " x", "b=", "=4", "a=b=c", "min(a,b)",
            "a b*2", "-1", "0", "a.b", "rows=3 cols=4"]


def test_parser_agrees_with_jaxtyping():
    jaxtyping = pytest.importorskip("jaxtyping")
    torch = pytest.importorskip("torch")
    for spec in MALFORMED + ACCEPTED:
        try:
            jaxtyping.Float[torch.Tensor, spec]
            theirs = None
        except ValueError as exc:
            theirs = str(exc)
        try:
            parse_jaxtyping_shape(spec)
            mine = None
        except ShapeSpecError as exc:
            mine = str(exc)
        assert (mine is None) == (theirs is None), (spec, mine, theirs)
        if theirs is not None:
            claim = get_rule("TTL603").runtime
            assert __import__("re").search(claim.pattern, theirs), theirs
    assert all(_rejected(s) for s in MALFORMED) and not any(_rejected(s) for s in ACCEPTED)


def _rejected(spec: str) -> bool:
    try:
        parse_jaxtyping_shape(spec)
    except ShapeSpecError:
        return True
    return False


def test_malformed_shape_reported_in_methods_aliases_and_variables():
    body = """
    Image = Float[Tensor, "c, h, w"]

    class Net(nn.Module):
        def forward(self, x: Float[Tensor, "##b c"]) -> Float[Tensor, "b"]:
            return x.sum(1)

    def f():
        y: Int[Tensor, "*4"] = torch.zeros(4, dtype=torch.long)
        return y
    """
    found = findings(body)
    assert [f.code for f in found] == ["TTL603"] * 3
    assert "axes must be separated by spaces, not commas" in found[0].message
    assert "`##b`: `#` used twice" in found[1].message
    assert "a fixed-size axis cannot be variadic" in found[2].message


def test_docs_explain_silencing_f722_and_f821():
    page = get_rule("TTL601").documentation()
    assert "F722" in page and "F821" in page and "extend-ignore = F722" in page


def test_flake8_plugin_never_reports_on_jaxtyping_strings(tmp_path):
    """pyflakes reads shape strings as forward references; our plugin must not: on a file
    full of valid jaxtyping annotations, flake8 with our plugin selected reports nothing."""
    target = tmp_path / "annotated.py"
    target.write_text((ROOT / "fixtures" / "TTL603" / "good_shape_strings.py").read_text())
    proc = subprocess.run([sys.executable, "-m", "flake8", "--select", "TTL", str(target)],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.strip() == ""
    # pyflakes alone does misread them (this is what the docs section is about).
    proc = subprocess.run([sys.executable, "-m", "flake8", "--select", "F722,F821", str(target)],
                          capture_output=True, text=True, timeout=120)
    assert "F722" in proc.stdout or "F821" in proc.stdout


# --------------------------------------------------------------------------- catalogue


@pytest.mark.parametrize("code", SHAPE_CODES)
def test_rule_has_docs_claim_and_fixtures(code):
    rule = get_rule(code)
    assert rule is not None and rule.runtime is not None
    page = rule.documentation()
    for section in ("## What it does", "## Why is this bad?", "## Example", "## Use instead", "## Fix safety"):
        assert section in page, (code, section)
    folder = ROOT / "fixtures" / code
    assert list(folder.glob("bad_*.py")) and list(folder.glob("good_*.py")), code


def test_module_level_aliases_are_contracts_too_and_nesting_is_left_alone():
    f = one("""
    Points = Float[Tensor, "n 3"]

    def first_coordinate(p: Points) -> Float[Tensor, "n"]:
        return p[:, 0]

    first_coordinate(torch.randn(10, 2))
    """, "TTL601")
    assert "has size 2 where the annotation fixes 3" in f.message
    # Float[Image, "b"] means "b c h w": a (4, 3, 8, 8) batch is fine, and must stay silent.
    assert findings("""
    Image = Float[Tensor, "c h w"]

    def batch_mean(x: Float[Image, "b"]) -> Float[Image, ""]:
        return x.mean(0)

    batch_mean(torch.randn(4, 3, 8, 8))
    """) == []


def test_broadcast_message_names_the_axis_and_sizes():
    f = one("""
    x = torch.randn(4, 3)
    centered = x - x.mean(dim=1)
    """, "TTL515")
    assert "`x - x.mean(dim=1)`: shapes (4, 3) and (4,) cannot broadcast, dimension 1 is 3 against 4" in f.message


def test_linear_on_an_unflattened_batch_suggests_flatten():
    f = one("""
    classifier = nn.Linear(3 * 28 * 28, 10)
    images = torch.randn(4, 3, 28, 28)
    scores = classifier(images)
    """, "TTL502")
    assert f.message.endswith("flatten each sample first: `images.flatten(1)` has shape (4, 2352)")
