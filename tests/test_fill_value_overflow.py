"""TTL403 fill-value-overflows-dtype and the range table it rests on
(torchtype_lint/knowledge/fill_values.py), both checked in torch: each bad program raises where
the rule reports, its twin and the look-alikes run and stay silent."""
from __future__ import annotations

import math

import pytest
from rule_cases import rule_case_tests

from torchtype_lint.knowledge.fill_values import FINITE_RANGE, overflows

torch = pytest.importorskip("torch")

HEADER = "import torch\nimport torch.nn as nn\nNEG_INF = -1e9\n"

#: (name, program with TTL403 on the line marked ``# <-``, twin)
CASES = [
    ("half_model_attention_mask", """
        class Scorer(nn.Module):
            def __init__(self):
                super().__init__()
                self.proj = nn.Linear(8, 8)

            def forward(self, x, pad):
                scores = self.proj(x) @ x.transpose(-2, -1)
                return scores.masked_fill(pad, NEG_INF)  # <-

        model = Scorer().half()
        model(torch.randn(2, 3, 8).half(), torch.zeros(2, 3, 3, dtype=torch.bool))
        """, """
        class Scorer(nn.Module):
            def __init__(self):
                super().__init__()
                self.proj = nn.Linear(8, 8)

            def forward(self, x, pad):
                scores = self.proj(x) @ x.transpose(-2, -1)
                return scores.masked_fill(pad, torch.finfo(scores.dtype).min)

        model = Scorer().half()
        model(torch.randn(2, 3, 8).half(), torch.zeros(2, 3, 3, dtype=torch.bool))
        """),
    ("full_in_half", """
        bias = torch.full((4, 4), -1e9, dtype=torch.float16)  # <-
        """, """
        bias = torch.full((4, 4), float("-inf"), dtype=torch.float16)
        """),
    ("in_place_fill_of_int8", """
        codes = torch.zeros(5, dtype=torch.int8)
        codes.fill_(-200)  # <-
        """, """
        codes = torch.zeros(5, dtype=torch.int16)
        codes.fill_(-200)
        """),
    ("clamp_bound_in_half", """
        logits = torch.randn(3, 5).half()
        safe = torch.clamp(logits, min=-1e5, max=1e5)  # <-
        """, """
        logits = torch.randn(3, 5).half()
        safe = torch.clamp(logits, min=-6e4, max=6e4)
        """),
    ("float32_minimum_into_half", """
        scores = torch.randn(2, 4).half()
        scores = scores.masked_fill(scores > 0, torch.finfo(torch.float32).min)  # <-
        """, """
        scores = torch.randn(2, 4).half()
        scores = scores.masked_fill(scores > 0, torch.finfo(scores.dtype).min)
        """),
    ("infinity_into_an_integer_tensor", """
        dist = torch.zeros(3, 3, dtype=torch.int32)
        dist = dist.masked_fill(torch.eye(3, dtype=torch.bool), float("inf"))  # <-
        """, """
        dist = torch.zeros(3, 3)
        dist = dist.masked_fill(torch.eye(3, dtype=torch.bool), float("inf"))
        """),
]

#: Look-alikes: they run and get no TTL403.
SILENT = {
    "float32_minus_1e9": """
        s = torch.randn(2, 2)
        s = s.masked_fill(s > 0, NEG_INF)
        """,
    "bfloat16_minus_1e9": """
        s = torch.randn(2, 2).bfloat16()
        s = s.masked_fill(s > 0, NEG_INF)
        """,
    "half_at_its_limit": """
        s = torch.randn(2, 2).half()
        s = s.masked_fill(s > 0, -65504.0).clamp(max=65504)
        """,
    "dtype_unknown": """
        import sys
        s = torch.randn(2, 2).to(torch.float16 if len(sys.argv) > 5 else torch.float32)
        s = s.masked_fill(s > 0, NEG_INF)
        """,
    "fill_chosen_by_dtype": """
        s = torch.randn(2, 2).half()
        fill = -1e4 if s.dtype == torch.float16 else -1e9
        s = s.masked_fill(s > 0, fill)
        """,
    "bool_fill": """
        m = torch.zeros(3, dtype=torch.uint8)
        m.fill_(True)
        """,
}


(test_bad_program_reported_on_its_line, test_twin_is_silent, test_look_alikes_are_silent,
 test_cases_are_true_in_torch) = rule_case_tests("TTL403", HEADER, CASES, SILENT)


def _raises(dtype, value) -> bool:
    try:
        torch.zeros(1, dtype=dtype).masked_fill(torch.ones(1, dtype=torch.bool), value)
        return False
    except RuntimeError as exc:
        assert _as_claimed(exc), exc  # the overflow the rule claims, as this torch words it
        return True


def _as_claimed(exc: BaseException) -> bool:
    """Whether the rule's runtime claim accepts what the torch installed here raised."""
    from torch_runs import AsClaimed, raised_as_said

    return raised_as_said("TTL403", AsClaimed("RuntimeError"), f"{type(exc).__name__}: {exc}")


@pytest.mark.parametrize("name", sorted(FINITE_RANGE))
def test_range_table_is_what_torch_checks(name):
    # at each bound, just past it (the next representable double, or the next int), and far past
    dtype = getattr(torch, name)
    low, high = FINITE_RANGE[name]
    floating = dtype.is_floating_point
    if floating:
        assert high == torch.finfo(dtype).max and low == torch.finfo(dtype).min
    elif dtype == torch.uint8:
        # an int from -255 to -1 wraps around (the table's lowest); a negative float raises, which
        # the table leaves unclaimed
        assert (low, high) == (-torch.iinfo(dtype).max, torch.iinfo(dtype).max)
        assert torch.zeros(1, dtype=dtype).fill_(-1).item() == 255 and _raises(dtype, -1.5)
    else:
        assert (low, high) == (torch.iinfo(dtype).min, torch.iinfo(dtype).max)
    for value in (low, high, 0, 1):
        assert not _raises(dtype, value) and not overflows(value, name), (name, value)
    beyond = ((math.nextafter(high, math.inf), math.nextafter(low, -math.inf), high * 4) if floating
              else (high + 1, low - 1, high * 4))
    for value in beyond:
        assert _raises(dtype, value) and overflows(value, name), (name, value)
    for value in (math.inf, -math.inf, math.nan):
        assert _raises(dtype, value) == (not floating) == overflows(value, name), (name, value)


def test_every_fill_entry_point_checks_the_range():
    # masked_fill(_), fill_, index_fill(_), full, full_like, new_full and the clamp family
    h = torch.zeros(3).half()
    calls = [lambda: h.masked_fill(h == 0, -1e9), lambda: h.clone().masked_fill_(h == 0, -1e9),
             lambda: h.clone().fill_(-1e9), lambda: h.index_fill(0, torch.tensor([0]), -1e9),
             lambda: h.clone().index_fill_(0, torch.tensor([0]), -1e9),
             lambda: torch.full((2,), -1e9, dtype=torch.float16), lambda: torch.full_like(h, -1e9),
             lambda: h.new_full((2,), -1e9), lambda: h.clamp(min=-1e9), lambda: h.clamp(max=1e9),
             lambda: h.clip(-1e9, 0), lambda: h.clamp_min(-1e9), lambda: h.clamp_max(1e9),
             lambda: torch.masked_fill(h, h == 0, -1e9), lambda: torch.clamp(h, -1e9)]
    for call in calls:
        with pytest.raises(RuntimeError) as raised:
            call()
        assert _as_claimed(raised.value), raised.value


def test_dtype_info_table_is_torch_finfo_and_iinfo():
    from torchtype_lint.knowledge.dtype_info import FINFO, IINFO

    for table, info in ((FINFO, torch.finfo), (IINFO, torch.iinfo)):
        for name, limits in table.items():
            real = info(getattr(torch, name))
            assert limits == {field: getattr(real, field) for field in limits}, name
            assert all(type(v) is type(getattr(real, f)) for f, v in limits.items()), name
