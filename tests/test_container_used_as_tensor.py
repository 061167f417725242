"""TTL218 container-used-as-tensor: a tuple or list read as if it were the tensor it holds.

The facts the rule rests on are measured in torch here: every name in TENSOR_ONLY_ATTRIBUTES is
a Tensor attribute that tuples, lists and torch's (values, indices) namedtuples lack; the bad
programs raise the error the rule names; their twins and the look-alikes run and stay silent.
"""
from __future__ import annotations

import pytest
from rule_cases import bad_outcomes, marked_line, program, reported

from torchtype_lint.knowledge.tensor_arguments import TENSOR_ONLY_ATTRIBUTES

torch = pytest.importorskip("torch")

HEADER = "import torch\nimport torch.nn as nn\nfrom collections import namedtuple\n"

#: (name, program with the finding on the line marked ``# <-``, the error torch raises there, twin)
CASES = [
    ("gru_output_last_step", """
        gru = nn.GRU(6, 8)
        out = gru(torch.randn(5, 3, 6))
        last = out[-1, :, :]  # <-
        """, "tuple indices must be integers or slices, not tuple", """
        gru = nn.GRU(6, 8)
        out, h = gru(torch.randn(5, 3, 6))
        last = out[-1, :, :]
        """),
    ("model_outputs_viewed", """
        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = nn.Linear(4, 3)

            def forward(self, x):
                return self.fc(x), x.mean(1)

        logits = Net()(torch.randn(2, 4))
        flat = logits.view(-1)  # <-
        """, "object has no attribute 'view'", """
        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = nn.Linear(4, 3)

            def forward(self, x):
                return self.fc(x), x.mean(1)

        logits, pooled = Net()(torch.randn(2, 4))
        flat = logits.view(-1)
        """),
    ("max_with_dim_compared", """
        scores = torch.randn(6, 4)
        labels = torch.randint(0, 4, (6,))
        predicted = torch.max(scores, 1)
        accuracy = predicted.eq(labels).float().mean()  # <-
        """, "object has no attribute 'eq'", """
        scores = torch.randn(6, 4)
        labels = torch.randint(0, 4, (6,))
        _, predicted = torch.max(scores, 1)
        accuracy = predicted.eq(labels).float().mean()
        """),
    ("list_of_outputs_given_a_new_axis", """
        outs = [torch.randn(3), torch.randn(3)]
        batch = outs[None]  # <-
        """, "list indices must be integers or slices, not NoneType", """
        outs = [torch.randn(3), torch.randn(3)]
        batch = torch.stack(outs)[None]
        """),
]

#: Look-alikes: they run, and the rule stays silent.
SILENT = {
    # a namedtuple whose fields are named like tensor attributes
    "namedtuple_fields": """
        Sample = namedtuple("Sample", ["data", "shape"])
        s = Sample(torch.zeros(2), (2,))
        seen = (s.data.sum(), s.shape)
        """,
    # torch.return_types' own fields, int and slice indices
    "return_type_fields": """
        top = torch.randn(4, 5).topk(2)
        seen = (top.values.shape, top.indices, top[0].size(0), top[:1])
        """,
    # a value that is a tuple on one path only
    "tuple_or_tensor": """
        import random
        out = (torch.zeros(2), torch.ones(2)) if random.random() > 2 else torch.zeros(2)
        seen = out.shape
        """,
}


def _lines(body: str):
    source = program(HEADER, body)
    return [line for line, _ in reported(source, "TTL218")], source


@pytest.mark.parametrize("name,bad,raises,good", CASES, ids=[c[0] for c in CASES])
def test_bad_program_reported_on_its_line(name, bad, raises, good):
    lines, source = _lines(bad)
    assert marked_line(source) in lines


@pytest.mark.parametrize("name,bad,raises,good", CASES, ids=[c[0] for c in CASES])
def test_twin_is_silent(name, bad, raises, good):
    assert _lines(good)[0] == []


@pytest.mark.parametrize("name", sorted(SILENT))
def test_look_alikes_are_silent(name):
    assert _lines(SILENT[name])[0] == []


def test_cases_are_true_in_torch():
    # Python's own messages (a tuple's missing attribute, its index types): one wording everywhere
    outcomes = bad_outcomes(HEADER, [(name, bad, good) for name, bad, _, good in CASES], SILENT)
    for name, _, raises, _ in CASES:
        assert raises in outcomes[name], (name, outcomes[name])


def test_tensor_only_attributes_are_tensor_attributes_containers_lack():
    returned = torch.randn(3, 2).max(1)  # a torch.return_types namedtuple
    for attr in TENSOR_ONLY_ATTRIBUTES:
        assert hasattr(torch.zeros(2), attr), attr
        for container in ((), [], returned, torch.Size([2, 3])):
            assert not hasattr(container, attr), (type(container).__name__, attr)


def test_type_tests_the_engine_answers_agree_with_python():
    # knowledge/python_types.py: every answer it gives (None: unknown) must be Python's
    import collections

    import numpy as np

    from torchtype_lint.knowledge.named_tuples import NamedTupleOrigin
    from torchtype_lint.knowledge.python_types import hasattr_truth, isinstance_truth
    from torchtype_lint.model.values import SequenceValue, StringValue, SymbolValue, TensorValue

    pair = collections.namedtuple("Pair", ["data", "size"])
    values = [
        (TensorValue(frozenset({"float32"}), (2,)), torch.zeros(2)),
        (TensorValue(frozenset({"float32"}), (2,)), torch.nn.Parameter(torch.zeros(2))),
        (SequenceValue("tuple"), (torch.zeros(1), 1)),
        (SequenceValue("tuple"), torch.Size([2, 3])),
        (SequenceValue("tuple"), torch.randn(3, 2).max(1)),
        (SequenceValue("list"), [torch.zeros(1)]),
        (SequenceValue("dict"), collections.OrderedDict(a=1)),
        (SequenceValue("tuple", origin=NamedTupleOrigin(None, "", None, "Pair", ("data", "size"))), pair(1, 2)),
    ]
    classes = {"torch.Tensor": torch.Tensor, "builtins.tuple": tuple, "builtins.list": list,
               "builtins.dict": dict, "builtins.set": set, "builtins.int": int, "builtins.float": float,
               "builtins.str": str, "numpy.ndarray": np.ndarray, "torch.nn.Parameter": torch.nn.Parameter,
               "collections.OrderedDict": collections.OrderedDict}
    answered = 0
    for value, real in values:
        for qualname, cls in classes.items():
            said = isinstance_truth(value, SymbolValue(qualname))
            if said is not None:
                answered += 1
                assert said == isinstance(real, cls), (real, qualname)
        said = isinstance_truth(value, SequenceValue("tuple", items=(SymbolValue("builtins.list"),
                                                                        SymbolValue("builtins.tuple"))))
        assert said in (None, isinstance(real, (list, tuple)))
        for attr in TENSOR_ONLY_ATTRIBUTES:
            said = hasattr_truth(value, StringValue(attr))
            if said is not None:
                answered += 1
                assert said == hasattr(real, attr), (real, attr)
    assert answered > 100


def test_layer_class_tests_match_issubclass_in_torch():
    # isinstance(layer, nn.X) of a library layer: the engine's answer (or no answer) agrees with
    # issubclass over every pair of layer classes it knows, and nn.Module holds for each
    import torch.nn as nn

    from torchtype_lint.knowledge.nn_modules import KNOWN
    from torchtype_lint.knowledge.python_types import isinstance_truth
    from torchtype_lint.model.values import ModuleValue, SymbolValue

    for a in sorted(KNOWN):
        layer = ModuleValue(f"torch.nn.{a}", {}, None)
        assert isinstance_truth(layer, SymbolValue("torch.nn.Module")) is True
        for b in sorted(KNOWN):
            answer = isinstance_truth(layer, SymbolValue(f"torch.nn.{b}"))
            assert answer is None or answer == issubclass(getattr(nn, a), getattr(nn, b)), (a, b)
        assert isinstance_truth(layer, SymbolValue("torch.nn.modules.conv._ConvNd")) is None
