"""A module's state as a collection (knowledge/module_state.py): ``model.state_dict()`` and
the collections made from it entry for entry remember they hold every entry, BatchNorm's int64
``num_batches_tracked`` included; what torch holds there is checked against torch."""
from __future__ import annotations

import textwrap

import pytest

from torchtype_lint.checker.check import check_source
from torchtype_lint.knowledge.module_state import ENTRIES, StateEntriesOrigin, state_entries
from torchtype_lint.model.values import TOP, SequenceValue, join


def codes(source: str):
    return [(f.code, f.location.line) for f in check_source(textwrap.dedent(source), "t.py").findings]


def test_a_batchnorm_state_holds_an_int64_counter():
    torch = pytest.importorskip("torch")
    state = torch.nn.Sequential(torch.nn.Linear(2, 2), torch.nn.BatchNorm1d(2)).state_dict()
    assert [str(v.dtype) for v in state.values()].count("torch.int64") == 1
    assert len(list(state.values())) == len(list(state.items())) == len(state)


def test_a_join_keeps_every_entry_only_when_both_sides_hold_them():
    origin = StateEntriesOrigin(None, "model.state_dict().values()", None, None, ENTRIES)
    every = SequenceValue("list", TOP, None, origin)
    other = SequenceValue("list", TOP, None)
    assert state_entries(join(every, every)) is origin
    assert state_entries(join(every, other)) is None and state_entries(join(other, every)) is None


PROGRAM = """\
import torch
import torch.nn as nn

model = nn.Sequential(nn.Linear(4, 4), nn.BatchNorm1d(4))
other = nn.Sequential(nn.Linear(4, 4), nn.BatchNorm1d(4), nn.Linear(4, 2))
values = {values}
with torch.no_grad():
    for {target} in {iterable}:
        v.mul_(0.5)
"""


@pytest.mark.parametrize("values, target, iterable, found", [
    ("list(model.state_dict().values())", "v", "values", True),
    ("tuple(model.state_dict().values())", "v", "reversed(values)", True),
    ("model.state_dict().items()", "k, v", "values", True),
    ("list(model.state_dict().values())", "i, v", "enumerate(values)", True),
    ("list(model.state_dict().values())", "w, v", "zip(values, list(model.state_dict().values()))", True),
    # zip stops at the shortest: other's state is longer, model's shorter
    ("list(other.state_dict().values())", "w, v", "zip(list(model.state_dict().values()), values)", False),
    ("[x for x in model.state_dict().values() if x.is_floating_point()]", "v", "values", False),
    ("list(model.state_dict().values())[:4]", "v", "values", False),
    ("list(model.parameters())", "v", "values", False),
    ("model.state_dict()", "v", "values", False),  # the keys
])
def test_loops_over_collections_of_every_state_entry(values, target, iterable, found):
    source = PROGRAM.format(values=values, target=target, iterable=iterable)
    assert codes(source) == ([("TTL214", 9)] if found else [])
