"""TTL534 ambiguous-tensor-truth-value: a tensor of other than one element where Python needs a
bool. Every program runs in torch: the bad ones raise RuntimeError where the rule reports, their
twins and the look-alikes run and stay silent."""
from __future__ import annotations

import pytest
from rule_cases import rule_case_tests

pytest.importorskip("torch")

HEADER = "import torch\nimport torch.nn as nn\nimport torch.nn.functional as F\n"

#: (name, program with TTL534 on the line marked ``# <-``, twin)
CASES = [
    ("conditional_expression_clip", """
        grad = 1 - torch.rand(2, 1, 8, 8) ** 2
        grad = grad if grad > 0 else 0  # <-
        """, """
        grad = 1 - torch.rand(2, 1, 8, 8) ** 2
        grad = grad.clamp(min=0)
        """),
    ("if_on_per_sample_losses", """
        def step(model, x, y):
            loss = F.cross_entropy(model(x), y, reduction="none")
            if loss > 5:  # <-
                diverged = True
            return loss.mean()

        step(nn.Linear(4, 3), torch.randn(6, 4), torch.randint(0, 3, (6,)))
        """, """
        def step(model, x, y):
            loss = F.cross_entropy(model(x), y, reduction="none")
            if (loss > 5).any():
                diverged = True
            return loss.mean()

        step(nn.Linear(4, 3), torch.randn(6, 4), torch.randint(0, 3, (6,)))
        """),
    ("empty_selection_tested", """
        scores = torch.rand(5)
        kept = scores[scores > 2]
        chosen = scores[:0]
        if not chosen:  # <-
            none_kept = True
        """, """
        scores = torch.rand(5)
        chosen = scores[:0]
        if chosen.numel() == 0:
            none_kept = True
        """),
    ("and_of_a_mask", """
        mask = torch.rand(3, 3) > 0.5
        ready = mask and True  # <-
        """, """
        mask = torch.rand(3, 3) > 0.5
        ready = mask.all().item() and True
        """),
]

#: Look-alikes: they run and get no TTL534.
SILENT = {
    "one_element": """
        t = torch.ones(1, 1)
        if t > 0:
            pass
        """,
    "zero_dim": """
        t = torch.randn(4, 3).sum()
        while t > 100:
            t = t / 2
        """,
    "size_unknown": """
        import sys
        t = torch.ones(len(sys.argv))
        if t.sum() > 0 and len(sys.argv) == 1:
            assert t
        """,
    "uncalled_function": """
        def check(t=torch.zeros(3)):
            if t:
                return 1
        """,
}


(test_bad_program_reported_on_its_line, test_twin_is_silent, test_look_alikes_are_silent,
 test_cases_are_true_in_torch) = rule_case_tests("TTL534", HEADER, CASES, SILENT)


def test_only_one_element_has_a_truth_value():
    # the fact the rule rests on: numel != 1 raises, any shape of ones does not
    import torch

    for shape, raises in (((0,), True), ((2,), True), ((1, 3), True), ((1, 1), False), ((), False), ((1,), False)):
        try:
            bool(torch.zeros(shape))
            raised = False
        except RuntimeError:
            raised = True
        assert raised == raises, shape
