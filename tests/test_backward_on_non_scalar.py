"""TTL532 backward-on-non-scalar: backward() without a gradient on a tensor that certainly holds
other than one element. Every program runs in torch: the bad ones raise RuntimeError where the
rule reports, their twins and the look-alikes run and stay silent."""
from __future__ import annotations

import pytest
from rule_cases import rule_case_tests

pytest.importorskip("torch")

HEADER = "import torch\nimport torch.nn as nn\nimport torch.nn.functional as F\n"

#: (name, program with TTL532 on the line marked ``# <-``, twin)
CASES = [
    ("per_sample_loss", """
        model = nn.Linear(4, 3)
        x, y = torch.randn(8, 4), torch.randint(0, 3, (8,))
        loss = F.cross_entropy(model(x), y, reduction="none")
        loss.backward()  # <-
        """, """
        model = nn.Linear(4, 3)
        x, y = torch.randn(8, 4), torch.randint(0, 3, (8,))
        loss = F.cross_entropy(model(x), y, reduction="none")
        loss.mean().backward()
        """),
    ("loss_module_unreduced_in_a_step", """
        def step(model, criterion, x, y):
            loss = criterion(model(x).squeeze(1), y)
            loss.backward()  # <-
            return loss

        step(nn.Linear(3, 1), nn.MSELoss(reduction="none"), torch.randn(6, 3), torch.randn(6))
        """, """
        def step(model, criterion, x, y):
            loss = criterion(model(x).squeeze(1), y)
            loss.backward()
            return loss

        step(nn.Linear(3, 1), nn.MSELoss(), torch.randn(6, 3), torch.randn(6))
        """),
    ("autograd_backward_of_an_output", """
        out = nn.Linear(2, 2)(torch.randn(3, 2))
        torch.autograd.backward(out)  # <-
        """, """
        out = nn.Linear(2, 2)(torch.randn(3, 2))
        torch.autograd.backward(out.sum())
        """),
]

#: Look-alikes: they run and get no TTL532.
SILENT = {
    "gradient_given": """
        out = nn.Linear(2, 2)(torch.randn(3, 2))
        out.backward(torch.ones_like(out))
        """,
    "one_element": """
        out = nn.Linear(2, 1)(torch.randn(1, 2))
        out.backward()
        """,
    "size_unknown": """
        import sys
        out = nn.Linear(2, 1)(torch.randn(len(sys.argv), 2))
        out.backward()
        """,
    "uncalled_function": """
        def train(out=torch.zeros(3, requires_grad=True)):
            out.backward()
        """,
}


(test_bad_program_reported_on_its_line, test_twin_is_silent, test_look_alikes_are_silent,
 test_cases_are_true_in_torch) = rule_case_tests("TTL532", HEADER, CASES, SILENT)


def test_tensors_of_zero_or_many_elements_raise_and_one_element_does_not():
    # the shape fact the rule rests on: numel != 1 raises (0 too), any shape of ones does not
    import torch

    for shape, raises in (((0, 3), True), ((2,), True), ((1, 5), True), ((1, 1), False), ((), False), ((1,), False)):
        t = torch.zeros(shape, requires_grad=True) * 2
        try:
            t.backward()
            raised = False
        except RuntimeError:
            raised = True
        assert raised == raises, shape
