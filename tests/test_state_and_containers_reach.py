"""Issue 25, real programs: what reaches a failing op through module state and containers.

- a tuple (a model's outputs) spread into a loss by ``super().forward(*inputs)``: the tensor-only
  rules judge the items of a ``*args`` of known items (TTL216);
- a loss's class ``weight`` is a buffer: ``model.half()`` / ``.double()`` of the loss or of a
  model owning it converts it (TTL401 when the logits stay float32);
- ``model[-1]`` of an ``nn.Sequential`` is its last layer (``model[-1].out_features``), while
  ``seq[i] = layer`` and ``del seq[i]`` leave its layers unknown;
- heads kept in a plain list attribute grown in a loop over known items (``self.heads.append``)
  stay known one by one, and module casts leave them alone (they are not registered);
- a loop over a model's state that derives a tensor of the entry's dtype (``diff[k] = v -
  other.state_dict()[k]``) and updates it in place under a branch the configuration decides
  (TTL214), with ``torch.normal(mean, std, size)`` of two numbers giving the default dtype;
- a class picked from a registry keyed by ``cls.__name__``, and rows made with ``x.tolist()``
  (Python numbers of the dtype's kind, one list level per dim).

Each case is a program with the finding expected on the line marked ``# <-`` and a fixed twin
that must be silent; every claim is checked in torch in one subprocess (the bad program raises
what the case says, the twin and the silent look-alikes run to their end). A dtype mismatch's
wording depends on the CPU, device and torch version: those cases name the exception class and
take any wording the rule's runtime claim knows (tests/torch_runs.py).
"""
from __future__ import annotations

import textwrap
from dataclasses import dataclass
from typing import List, Tuple

import pytest
from knowledge_truth import contradiction, engine_globals, real_globals
from torch_runs import AsClaimed, Raises, raised_as_said, run_in_torch

from torchtype_lint.checker.check import Settings, check_source
from torchtype_lint.model.selection import Selection

HEADER = ("import copy\nimport numpy as np\nimport torch\nimport torch.nn as nn\nimport torch.nn.functional as F\n"
          "from torch.utils.data import DataLoader, TensorDataset\n")
HEADER_LINES = HEADER.count("\n")


@dataclass(frozen=True)
class Case:
    """``bad`` fails in torch with ``raises`` (a substring, or ``AsClaimed``: the exception
    class, with any wording the rule's runtime claim knows, where torch words it differently by
    CPU, device or version) and gets ``code`` on its ``# <-`` line; ``good`` runs and gets no
    finding."""

    name: str
    code: str
    raises: Raises
    bad: str
    good: str


def _program(body: str) -> str:
    return HEADER + textwrap.dedent(body).lstrip("\n")


def findings(body: str) -> List[Tuple[int, str]]:
    settings = Settings(selection=Selection(select=["TTL"]))
    return [(f.line - HEADER_LINES, f.code) for f in check_source(_program(body), "program.py", settings).findings]


def marked_line(body: str) -> int:
    lines = textwrap.dedent(body).lstrip("\n").splitlines()
    return next(i for i, line in enumerate(lines, 1) if "# <-" in line)


SPREAD_LOSS = """
    class Losses(nn.CrossEntropyLoss):
        def __init__(self, aux=False):
            super().__init__(ignore_index=-1)
            self.aux = aux

        def forward(self, *inputs):
            if not self.aux:
                return super().forward(*inputs)  # <-
            (main, side), target = inputs
            return super().forward(main, target) + 0.4 * super().forward(side, target)


    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.a = nn.Conv2d(3, 4, 1)
            self.b = nn.Conv2d(3, 4, 1)

        def forward(self, x):
            return self.a(x), self.b(x)


    criterion = Losses(aux={aux})
    loss = criterion(Net()(torch.randn(2, 3, 5, 5)), torch.randint(0, 4, (2, 5, 5)))
    """

WEIGHT_BUFFER = """
    class Head(nn.Module):
        def __init__(self, weights):
            super().__init__()
            self.fc = nn.Linear(6, 3)
            self.criterion = nn.CrossEntropyLoss(weight=torch.tensor(weights))

        def forward(self, x):
            return self.fc(x)

        def loss(self, logits, y):
            return self.criterion(logits.float(), y)  # <-


    model = Head([0.2, 1.0, 3.0]).half()
    {fix}
    y = torch.randint(0, 3, (4,))
    loss = model.loss(model(torch.randn(4, 6).half()), y)
    """

LAST_LAYER = """
    def build(sizes):
        layers, width = [], 10
        for h in sizes:
            layers += [nn.Linear(width, h), nn.ReLU()]
            width = h
        layers.append(nn.Linear(width, 4))
        return nn.Sequential(*layers)


    model = build([16, 8])
    labels = np.array([0, 1, 1, 2, 3, 3, 3, 0])
    counts = np.bincount(labels, minlength=model[-1].out_features)
    weights = len(labels) / (model[-1].out_features * np.maximum(counts, 1)){fix}
    criterion = nn.CrossEntropyLoss(weight=torch.from_numpy(weights))
    loss = criterion(model(torch.randn(8, 10)), torch.from_numpy(labels))  # <-
    """

LIST_HEADS = """
    class MultiTask(nn.Module):
        def __init__(self, classes):
            super().__init__()
            self.trunk = nn.Linear(5, 8)
            self.heads = {container}
            for n in classes:
                self.heads.append(nn.Linear(8, n))

        def forward(self, x):
            shared = self.trunk(x)
            return [head(shared) for head in self.heads]  # <-


    model = MultiTask([2, 3]).double()
    outs = model(torch.from_numpy(np.random.default_rng(0).random((4, 5))))
    """

STATE_DIFF = """
    conf = {{"dp": {dp}, "sigma": 0.001}}


    def make():
        return nn.Sequential(nn.Linear(4, 4), nn.BatchNorm1d(4{bn}))


    def local_update(local, global_model):
        diff = dict()
        for name, data in local.state_dict().items():
            diff[name] = data - global_model.state_dict()[name]
            if conf["dp"]:
                noise = torch.normal(0.0, conf["sigma"], size=diff[name].shape)
                diff[name].add_(noise)  # <-
        return diff


    update = local_update(make(), make())
    """

REGISTRY = """
    class Small(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(4, 2)

        def forward(self, x):
            return self.fc(x)  # <-


    class Big(Small):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(8, 2)


    MODELS = {{cls.__name__: cls for cls in (Small, Big)}}
    out = MODELS["{name}"]()(torch.randn(3, 8))
    """

TOKENS = """
    rows = [torch.randint(0, 10, (6,)).tolist() for _ in range(4)]
    ids = torch.tensor([row[:{keep}] for row in rows])
    out = nn.Linear(5, 2)(ids.float())  # <-
    """

WRAPPED_LAYERS = """
    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.proj, self.out = nn.Linear(8, 8), nn.Linear(8, 8)

        def forward(self, x):
            return self.out(self.proj(x))


    class Adapter(nn.Module):
        def __init__(self, base):
            super().__init__()
            self.base, self.down = base, nn.Linear(base.in_features, 2, bias=False)

        def forward(self, x):
            h = x.float()
            return self.base({arg}) + self.down(h).sum(-1, keepdim=True).to(x.dtype)  # <-


    blocks = nn.ModuleList([Block() for _ in range(2)]).half()
    for block in blocks:
        for name in ("proj", "out"):
            setattr(block, name, Adapter(getattr(block, name)))
    x = torch.randn(3, 8).half()
    for block in blocks:
        x = block(x)
    """

CFG_NORM_BLOCKS = """
    class Block(nn.Module):
        def __init__(self, channels, norm_cfg=None):
            super().__init__()
            self.conv = nn.Conv2d(4, channels, 1)
            self.norm = {registry}[norm_cfg["type"]](channels) if norm_cfg else nn.Identity()

        def forward(self, x):
            return self.norm(self.conv(x))  # <-


    class Neck(nn.Module):
        def __init__(self, norm_cfg=None):
            super().__init__()
            self.blocks = nn.ModuleList([Block(16, norm_cfg)])

        def forward(self, x):
            return self.blocks[0](x)


    out = Neck(norm_cfg=dict(type="LN"))(torch.randn(2, 4, 6, 6))
    """

CASES = [
    # for over an nn.ModuleList known layer by layer: setattr changes each layer itself
    Case("adapters_injected_into_each_layer_after_half", "TTL401", AsClaimed("RuntimeError"),
         WRAPPED_LAYERS.format(arg="h"), WRAPPED_LAYERS.format(arg="x").replace("  # <-", "")),
    Case("class_picked_by_its_name", "TTL502", "mat1 and mat2 shapes cannot be multiplied",
         REGISTRY.format(name="Small"), REGISTRY.format(name="Big").replace("  # <-", "")),
    Case("rows_listed_with_tolist", "TTL502", "mat1 and mat2 shapes cannot be multiplied",
         TOKENS.format(keep=6), TOKENS.format(keep=5).replace("  # <-", "")),
    Case("tuple_spread_into_loss", "TTL216", "must be Tensor, not tuple",
         SPREAD_LOSS.replace("{aux}", "False"), SPREAD_LOSS.replace("{aux}", "True").replace("  # <-", "")),
    Case("loss_weight_buffer_halved_with_model", "TTL401", AsClaimed("RuntimeError"),
         WEIGHT_BUFFER.replace("{fix}", ""),
         WEIGHT_BUFFER.replace("{fix}", "model.criterion.float()").replace("  # <-", "")),
    Case("class_weights_sized_by_the_last_layer", "TTL401", AsClaimed("RuntimeError"),
         LAST_LAYER.replace("{fix}", ""), LAST_LAYER.replace("{fix}", ".astype(np.float32)").replace("  # <-", "")),
    Case("heads_in_a_plain_list_not_converted", "TTL401", AsClaimed("RuntimeError"),
         LIST_HEADS.replace("{container}", "[]"),
         LIST_HEADS.replace("{container}", "nn.ModuleList()").replace("  # <-", "")),
    # a non-empty cfg dict is true; blocks[0] of a ModuleList of the file's own blocks is that block
    Case("norm_from_a_cfg_dict_in_a_listed_block", "TTL505", "expected input with shape",
         CFG_NORM_BLOCKS.format(registry='{"BN": nn.BatchNorm2d, "LN": nn.LayerNorm}'),
         CFG_NORM_BLOCKS.format(registry='{"BN": nn.BatchNorm2d, "LN": nn.BatchNorm2d}').replace("  # <-", "")),
    Case("state_diff_noise_added_in_place", "TTL214", "can't be cast to the desired output type Long",
         STATE_DIFF.format(dp="True", bn=""),
         STATE_DIFF.format(dp="True", bn=", track_running_stats=False").replace("  # <-", "")),
]

#: Look-alikes that run in torch and must stay silent.
SILENT = {
    "layers_of_a_module_list_chained_one_by_one": """
        layers = nn.ModuleList([nn.Linear(4, 6), nn.ReLU(), nn.Linear(6, 3)])
        x = torch.randn(2, 4)
        for layer in layers:
            x = layer(x)
        for layer in nn.Sequential(nn.Linear(3, 5), nn.Linear(5, 2)):
            x = layer(x)
        out = x.view(4)
        """,
    "wrapped_layers_given_their_dtype": """
        class Wrap(nn.Module):
            def __init__(self, base):
                super().__init__()
                self.base = base

            def forward(self, x):
                return self.base(x.to(self.base.weight.dtype))


        seq = nn.Sequential(nn.Linear(4, 4), nn.Linear(4, 4)).double()
        for i, name in enumerate(("0", "1")):
            setattr(seq, name, Wrap(getattr(seq, name)))
        out = seq(torch.randn(2, 4))
        """,
    "empty_norm_cfg_dict_is_false": CFG_NORM_BLOCKS.format(registry='{"LN": nn.LayerNorm}').replace(
        'dict(type="LN")', "{}").replace("  # <-", ""),
    "layer_replaced_by_index": """
        model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 3))
        model[0] = nn.Linear(5, 8)
        out = model[0](torch.randn(2, 5))
        """,
    "layer_deleted_by_index": """
        model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 3))
        del model[0]
        out = model(torch.randn(2, 8))
        out = model[-1](torch.randn(2, 8))
        """,
    "loss_weight_cast_back": """
        criterion = nn.CrossEntropyLoss(weight=torch.tensor([1.0, 2.0])).double()
        criterion.float()
        loss = criterion(torch.randn(3, 2), torch.tensor([0, 1, 1]))
        """,
    "loss_weight_cast_with_logits": """
        criterion = nn.CrossEntropyLoss(weight=torch.tensor([1.0, 2.0])).double()
        loss = criterion(torch.randn(3, 2).double(), torch.tensor([0, 1, 1]))
        """,
    "state_diff_noise_branch_off": STATE_DIFF.format(dp="False", bn="").replace("  # <-", ""),
    "state_diff_made_float_first": STATE_DIFF.format(dp="True", bn="").replace(
        "data - global_model", "data.float() - global_model").replace("  # <-", ""),
    "heads_list_registered_afterwards": """
        class MultiTask(nn.Module):
            def __init__(self, classes):
                super().__init__()
                heads = []
                for n in classes:
                    heads.append(nn.Linear(8, n))
                self.heads = nn.ModuleList(heads)

            def forward(self, x):
                return [head(x) for head in self.heads]


        outs = MultiTask([2, 3]).double()(torch.randn(4, 8).double())
        """,
}


@pytest.mark.parametrize("name", sorted(SILENT))
def test_look_alikes_are_silent(name: str) -> None:
    assert findings(SILENT[name]) == []


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_bad_program_reported_on_its_line(case: Case) -> None:
    assert (marked_line(case.bad), case.code) in findings(case.bad)


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_fixed_twin_is_silent(case: Case) -> None:
    assert findings(case.good) == []


def test_every_case_is_true_in_torch() -> None:
    programs = {}
    for case in CASES:
        programs[case.name + ":bad"] = _program(case.bad)
        programs[case.name + ":good"] = _program(case.good)
    for name, body in SILENT.items():
        programs[name + ":silent"] = _program(body)
    results = run_in_torch(programs)
    for name in SILENT:
        assert results[name + ":silent"] == "", (name, results[name + ":silent"])
    for case in CASES:
        assert raised_as_said(case.code, case.raises, results[case.name + ":bad"]), (
            case.name, results[case.name + ":bad"])
        assert results[case.name + ":good"] == "", (case.name, results[case.name + ":good"])


FACTS = [
    "result = torch.normal(0.0, 0.1, size=(3, 4))",
    "result = torch.normal(0, 1, (2, 3))",
    "result = torch.normal(0.0, 1.0, size=(2,), dtype=torch.float64)",
    "torch.set_default_dtype(torch.float64)\nresult = torch.normal(0.0, 1.0, size=(2,))\n"
    "torch.set_default_dtype(torch.float32)",
    "result = nn.CrossEntropyLoss(weight=torch.tensor([1.0, 2.0])).half().weight",
    "m = nn.Sequential(nn.Linear(2, 2), nn.CrossEntropyLoss(weight=torch.ones(2)))\nm.double()\n"
    "result = m[1].weight",
    "result = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 3))[-1].out_features",
    "result = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 3))[0].weight",
    "result = torch.randint(0, 5, (3,)).tolist()",
    "result = torch.zeros(2, 3).tolist()[1]",
    "result = torch.tensor(2.5).tolist()",
    "result = torch.tensor([True, False]).tolist()[0]",
    "result = torch.tensor([[1, 2], [3, 4]]).tolist()[0][1]",
    # a known tuple or list spread into a tuple or list literal: its items in place
    "import numpy as np\nresult = np.zeros((2, *(3, 4), 5))",
    "size = [3, 4]\nresult = torch.zeros([2, *size, *()])",
    "import numpy as np\nresult = np.ones((*[2], *(1, 3)))",
]


@pytest.mark.parametrize("source", FACTS)
def test_facts_as_torch_has_them(source: str) -> None:
    program = "import torch\nimport torch.nn as nn\n" + source + "\n"
    engine = engine_globals(program)["result"]
    assert contradiction(engine, real_globals(program)["result"], require_known=True) is None, engine.describe()


def test_a_module_cast_converts_only_floating_buffers_and_not_plain_lists() -> None:
    """What the cases rely on, in torch: a loss's ``weight`` is a registered buffer, a plain list
    attribute is not a submodule."""
    torch = pytest.importorskip("torch")
    loss = torch.nn.CrossEntropyLoss(weight=torch.ones(3))
    assert "weight" in dict(loss.named_buffers())

    class Net(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.heads = [torch.nn.Linear(2, 2)]

    net = Net().double()
    assert net.heads[0].weight.dtype == torch.float32
    assert list(net.parameters()) == []
