"""TTL535 negative-layer-size: an nn layer built with a certainly negative size. Every program
runs in torch: the bad ones raise where the rule reports, their twins and the look-alikes run
and stay silent; the table of size parameters is checked layer by layer."""
from __future__ import annotations

import pytest
from rule_cases import rule_case_tests
from torch_runs import AsClaimed, raised_as_said

from torchtype_lint.knowledge.nn_modules import LAYER_SIZE_PARAMETERS as SIZE_PARAMETERS, SIGNATURES

torch = pytest.importorskip("torch")

HEADER = "import torch\nimport torch.nn as nn\n"

#: (name, program with TTL535 on the line marked ``# <-``, twin, exception class)
CASES = [
    ("linear_minus_one", """
        out = nn.Linear(-1, 10)  # <-
        """, """
        out = nn.LazyLinear(10)
        """, "RuntimeError"),
    ("conv_channels_from_config", """
        cfg = {"channels": [16, 8], "stem": 24}
        conv = nn.Conv2d(3, cfg["channels"][1] - cfg["stem"], 3)  # <-
        """, """
        cfg = {"channels": [16, 8], "stem": 24}
        conv = nn.Conv2d(3, cfg["stem"] - cfg["channels"][1], 3)
        """, "RuntimeError"),
    ("gru_hidden_keyword", """
        rnn = nn.GRU(input_size=8, hidden_size=-4)  # <-
        """, """
        rnn = nn.GRU(input_size=8, hidden_size=4)
        """, "ValueError"),
]

#: Look-alikes: they run and get no TTL535.
SILENT = {
    "zero_width": "layer = nn.Linear(0, 4)\n",
    "unknown_width": "import sys\nlayer = nn.Linear(len(sys.argv), 4)\n",
    "negative_default_never_used": """
        def build(width=-1):
            return nn.Linear(width, 2)

        model = build(8)
        """,
}


(test_bad_program_reported_on_its_line, test_twin_is_silent, test_look_alikes_are_silent,
 test_cases_are_true_in_torch) = rule_case_tests("TTL535", HEADER, CASES, SILENT)


@pytest.mark.parametrize("layer", sorted(SIZE_PARAMETERS))
def test_every_size_parameter_refuses_a_negative_value(layer):
    # each tabled parameter, given -2 with the others valid, makes the layer raise
    valid = {"kernel_size": 3}
    for name in SIZE_PARAMETERS[layer]:
        assert name in SIGNATURES[layer], (layer, name)
        kwargs = {p: 4 for p in SIZE_PARAMETERS[layer]}
        kwargs.update({k: v for k, v in valid.items() if k in SIGNATURES[layer]})
        kwargs[name] = -2
        with pytest.raises((RuntimeError, ValueError)) as raised:
            getattr(torch.nn, layer)(**kwargs)
        # the failure the rule claims, as the torch installed here words it
        outcome = f"{type(raised.value).__name__}: {raised.value}"
        assert raised_as_said("TTL535", AsClaimed(type(raised.value).__name__), outcome), outcome
