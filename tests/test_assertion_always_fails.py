"""TTL531 assertion-always-fails, and the comparisons of known sizes it rests on (a shape is a
tuple compared item by item, never equal to a list). Every program runs in torch: the bad ones
fail their own assert, the twins and look-alikes run and stay silent."""
from __future__ import annotations

import pytest
from rule_cases import bad_outcomes, marked_line, program, reported

pytest.importorskip("torch")

HEADER = "import torch\nimport torch.nn as nn\nimport torch.nn.functional as F\n"

#: (name, program with TTL531 on the line marked ``# <-``, twin)
CASES = [
    ("unreduced_loss_broadcast", """
        model = nn.Linear(4, 1)
        x, y = torch.randn(8, 4), torch.randn(8)
        err = F.mse_loss(model(x), y, reduction="none")
        assert err.shape == y.shape  # <-
        """, """
        model = nn.Linear(4, 1)
        x, y = torch.randn(8, 4), torch.randn(8)
        err = F.mse_loss(model(x).squeeze(1), y, reduction="none")
        assert err.shape == y.shape
        """),
    ("size_against_a_list", """
        out = nn.Conv2d(3, 4, 3)(torch.randn(2, 3, 10, 10))
        assert out.shape[2:] == [8, 8]  # <-
        """, """
        out = nn.Conv2d(3, 4, 3)(torch.randn(2, 3, 10, 10))
        assert list(out.shape[2:]) == [8, 8]
        """),
    ("rank_after_flatten", """
        def features(images):
            return nn.Flatten(2)(nn.AdaptiveAvgPool2d(1)(images))

        f = features(torch.randn(2, 3, 8, 8))
        assert f.dim() == 2, "expected (N, C)"  # <-
        """, """
        def features(images):
            return nn.Flatten(1)(nn.AdaptiveAvgPool2d(1)(images))

        f = features(torch.randn(2, 3, 8, 8))
        assert f.dim() == 2, "expected (N, C)"
        """),
    ("dtype_check", """
        ids = torch.tensor([[1.0, 2.0], [3.0, 0.0]])
        assert ids.dtype == torch.long  # <-
        """, """
        ids = torch.tensor([[1, 2], [3, 0]])
        assert ids.dtype == torch.long
        """),
]

#: Look-alikes: they run and get no TTL531.
SILENT = {
    # a function nobody calls: its parameter may be anything
    "uncalled_function": """
        def check(x=torch.zeros(2)):
            assert x.shape == (3,)
        """,
    # the last batch differs from the first: the check holds for some batches only
    "size_known_when_it_runs": """
        import sys
        batch = torch.randn(len(sys.argv) + 1, 4)
        assert batch.shape[1] == 4 and batch.size(0) >= 1
        """,
    # an assertion about configuration, not tensors
    "config_check": """
        depth = 3
        assert depth in (2, 3)
        """,
}


def _ttl531(body: str):
    source = program(HEADER, body)
    return [line for line, _ in reported(source, "TTL531")], source


@pytest.mark.parametrize("name,bad,good", CASES, ids=[c[0] for c in CASES])
def test_bad_program_reported_on_its_assert(name, bad, good):
    lines, source = _ttl531(bad)
    assert lines == [marked_line(source)]


@pytest.mark.parametrize("name,bad,good", CASES, ids=[c[0] for c in CASES])
def test_twin_is_silent(name, bad, good):
    assert _ttl531(good)[0] == []


@pytest.mark.parametrize("name", sorted(SILENT))
def test_look_alikes_are_silent(name):
    assert _ttl531(SILENT[name])[0] == []


def test_cases_are_true_in_torch():
    for name, outcome in bad_outcomes(HEADER, CASES, SILENT).items():
        assert outcome.startswith("AssertionError"), (name, outcome)  # the program's own assert


def test_message_shows_both_sides():
    message = reported(program(HEADER, CASES[0][1]), "TTL531")[0][1]
    assert "`err.shape` is (8, 8) and `y.shape` is (8,)" in message


def test_sequence_comparisons_fold_as_python_compares():
    # engine/configuration.folded_comparison of known tuples and lists
    from torchtype_lint.engine.configuration import folded_comparison
    from torchtype_lint.model.values import ScalarValue, SequenceValue

    def seq(container, *items):
        return SequenceValue(container, items=tuple(ScalarValue("int", i) for i in items))

    import torch
    pairs = [(seq("tuple", 8, 8), seq("tuple", 8, 8), torch.Size([8, 8]), (8, 8)),
             (seq("tuple", 8, 8), seq("tuple", 8), torch.Size([8, 8]), (8,)),
             (seq("tuple", 8, 8), seq("list", 8, 8), torch.Size([8, 8]), [8, 8]),
             (seq("list", 2), seq("list", 2), [2], [2])]
    for a, b, real_a, real_b in pairs:
        for op, real in (("==", real_a == real_b), ("!=", real_a != real_b)):
            assert folded_comparison(a, op, b).const == real, (real_a, op, real_b)
    assert folded_comparison(seq("tuple", 1), "<", seq("tuple", 2)) is None  # orderings not folded
