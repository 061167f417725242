"""The strides the engine gives tensors (``knowledge/layouts.py``), checked against torch.

Each snippet binds ``y``; where the engine knows ``y``'s strides they must be torch's, and for
the snippets marked known it must know them (so the check is not vacuous). One torch process
runs every snippet.
"""
from __future__ import annotations

import json
import textwrap

import libcst as cst
import pytest
from torch_runs import run_in_torch

from torchtype_lint.engine.interpreter import analyse
from torchtype_lint.knowledge import layouts as L

HEADER = "import torch\nimport torch.nn as nn\nimport torch.nn.functional as F\n"

#: name -> (snippet binding y, whether the engine must know y's strides)
SNIPPETS = {
    "fresh": ("y = torch.randn(3, 4, 5)", True),
    "transpose": ("y = torch.randn(3, 4, 5).transpose(0, 2)", True),
    "permute": ("y = torch.randn(3, 4, 5).permute(1, 2, 0)", True),
    "t_then_T": ("y = torch.randn(4, 6).t().T", True),
    "mT": ("y = torch.randn(2, 3, 4).mT", True),
    "topk_then_t": ("_, i = torch.randn(16, 20).topk(5, 1, True, True)\ny = i.t()", True),
    "topk_of_transposed": ("y, _ = torch.randn(16, 20).t().topk(3, 0)", True),
    "eq_with_expanded": ("p = torch.randn(16, 5).t()\ny = p.eq(torch.randn(16).view(1, -1).expand_as(p))", True),
    "int_eq_with_expanded": (
        "p = torch.arange(80).view(16, 5).t()\ny = p.eq(torch.arange(16).view(1, -1).expand_as(p))", True),
    "eq_expanded_first": ("p = torch.randn(16, 5).t()\ny = torch.randn(16).view(1, -1).expand_as(p).eq(p)", True),
    "eq_other_dtype_expanded_first": (
        "p = torch.randn(16, 5).t()\ny = torch.arange(16).view(1, -1).expand_as(p).eq(p)", False),
    "int_times_float_scalar": ("y = torch.arange(20).view(4, 5).t() * 0.5", True),
    "int_slice_times_float_scalar": ("y = torch.arange(20).view(4, 5)[:, :3] * 0.5", False),
    "slice_rows_of_transposed": ("y = torch.randn(16, 5).t()[:3]", True),
    "slice_columns": ("y = torch.randn(16, 20)[:, 2:7]", True),
    "slice_step": ("y = torch.randn(16, 20)[::2, 1]", True),
    "index_none": ("y = torch.randn(4, 6).t()[None, :, 1:3]", True),
    "ellipsis": ("y = torch.randn(2, 3, 4, 5)[..., 1]", True),
    "add_transposed_first": ("y = torch.randn(4, 6).t() + torch.randn(6, 4)", True),
    "add_contiguous_first": ("y = torch.randn(6, 4) + torch.randn(4, 6).t()", True),
    "scalar_times": ("y = 2 * torch.randn(4, 6).t()", True),
    "compare": ("y = torch.randn(4, 6).t() > 0", True),
    "neg": ("y = -torch.randn(16, 20)[:, :5]", True),
    "relu_of_slice": ("y = torch.relu(torch.randn(16, 20)[:, :5])", True),
    "relu_module_of_slice": ("y = nn.ReLU()(torch.randn(16, 20)[:, :5])", True),
    "gelu_of_transposed": ("y = F.gelu(torch.randn(16, 20).t())", True),
    "sigmoid_method": ("y = torch.randn(16, 20).t().sigmoid()", True),
    "broadcast_row": ("y = torch.randn(4, 6).t() * torch.randn(4)", True),
    "view_of_transposed_split": ("y = torch.randn(4, 6).t().view(2, 3, 4)", True),
    "reshape_copies": ("y = torch.randn(4, 6).t().reshape(-1)", True),
    "reshape_views": ("y = torch.randn(4, 6).t().reshape(6, 4)", True),
    "flatten_keeps_first": ("y = torch.randn(2, 3, 4).transpose(1, 2).flatten(1)", True),
    "unsqueeze_0": ("y = torch.randn(4, 6).t().unsqueeze(0)", True),
    "unsqueeze_mid": ("y = torch.randn(4, 6).t().unsqueeze(1)", True),
    "unsqueeze_end": ("y = torch.randn(4, 6).t().unsqueeze(-1)", True),
    "squeeze": ("y = torch.randn(3, 1, 4).transpose(0, 2).squeeze(1)", True),
    "squeeze_all": ("y = torch.randn(3, 1, 4, 1).transpose(0, 2).squeeze()", True),
    "expand": ("y = torch.randn(6, 1).expand(6, 4)", True),
    "contiguous": ("y = torch.randn(4, 6).t().contiguous()", True),
    "clone_dense": ("y = torch.randn(4, 6).t().clone()", True),
    "clone_slice": ("y = torch.randn(4, 6)[:, :3].clone()", True),
    "double_of_transposed": ("y = torch.randn(4, 6).t().double()", True),
    "float_of_float_slice": ("y = torch.randn(4, 6)[:, :3].float()", False),
    "matmul": ("y = torch.randn(4, 6).t() @ torch.randn(4, 3)", True),
    "bmm": ("y = torch.bmm(torch.randn(2, 3, 4).transpose(1, 2), torch.randn(2, 3, 5))", True),
    "linear_of_transposed": ("y = nn.Linear(4, 3)(torch.randn(4, 6).t())", True),
    "conv_channels_last": (
        "b = torch.randn(2, 48, 48).view(2, 8, 6, 48).transpose(2, 3).transpose(1, 2)\n"
        "y = nn.Conv2d(48, 8, 3, padding=1)(b)", True),
    "sequential_channels_last": (
        "b = torch.randn(2, 48, 48).view(2, 8, 6, 48).transpose(2, 3).transpose(1, 2)\n"
        "y = nn.Sequential(nn.Conv2d(48, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(), nn.MaxPool2d(2))(b)", True),
    "conv_contiguous": ("y = nn.Conv2d(3, 8, 3)(torch.randn(2, 3, 9, 9))", True),
    "conv_of_permuted_not_channels_last": ("y = nn.Conv2d(9, 4, 1)(torch.randn(2, 3, 9, 9).transpose(1, 2))", True),
    "conv1d_of_transposed": ("y = nn.Conv1d(6, 3, 3)(torch.randn(4, 5, 6).transpose(1, 2))", True),
    "adaptive_pool_channels_last": (
        "b = torch.randn(2, 48, 48).view(2, 8, 6, 48).transpose(2, 3).transpose(1, 2)\n"
        "y = F.adaptive_avg_pool2d(b, 1)", True),
    "flatten_module_channels_last": (
        "b = torch.randn(2, 48, 48).view(2, 8, 6, 48).transpose(2, 3).transpose(1, 2)\n"
        "y = nn.Flatten()(b)", True),
    "dropout_module_dense": ("y = nn.Dropout(0.1)(torch.randn(4, 6).t())", True),
    # default_collate stacks the samples: row-major samples give a row-major batch
    "collated_batch": ("from torch.utils.data import DataLoader, TensorDataset\n"
                       "for b, in DataLoader(TensorDataset(torch.randn(8, 3, 5, 5)), batch_size=4):\n"
                       "    y = b", True),
    "collated_first_batch": ("from torch.utils.data import DataLoader, TensorDataset\n"
                             "for b, in DataLoader(TensorDataset(torch.randn(9, 3, 5)), batch_size=4):\n"
                             "    y = b\n    break", False),
    "collated_one_channel": ("from torch.utils.data import DataLoader, TensorDataset\n"
                             "for b, in DataLoader(TensorDataset(torch.randn(8, 1, 5, 5)), batch_size=4):\n"
                             "    y = b", True),
    "collated_pixels": ("from torch.utils.data import DataLoader, TensorDataset\n"
                        "for b, in DataLoader(TensorDataset(torch.randn(8, 3, 1, 1)), batch_size=4):\n"
                        "    y = b", True),
    # samples laid out channels-last: the batch is too (the engine need not know it)
    "collated_channels_last_samples": ("from torch.utils.data import DataLoader, TensorDataset\n"
                                       "rows = torch.randn(8, 5, 5, 3).permute(0, 3, 1, 2)\n"
                                       "for b, in DataLoader(TensorDataset(rows), batch_size=4):\n"
                                       "    y = b", False),
    "collated_transposed_samples": ("from torch.utils.data import DataLoader, TensorDataset\n"
                                    "for b, in DataLoader(TensorDataset(torch.randn(8, 5, 3).transpose(1, 2)),"
                                    " batch_size=4):\n    y = b", False),
    "row_of_transposed": ("for r in torch.randn(4, 6, 5).transpose(1, 2):\n    y = r", True),
    "through_a_function": ("def f(x):\n    return x.transpose(0, 1)\ny = f(torch.randn(4, 6)) * 3", True),
}


def _engine_strides(name: str, snippet: str):
    module = cst.parse_module(HEADER + textwrap.dedent(snippet) + "\n")
    interp = analyse(module)
    values = [a.value for a in interp.assignments if a.name == "y"]
    assert values, name
    return L.strides_of(values[-1])


def test_engine_strides_are_torchs() -> None:
    # the runner reports what a program raised: each raises with its strides
    programs = {name: HEADER + "import json\n" + snippet + "\nraise SystemError(json.dumps(list(y.stride())))\n"
                for name, (snippet, _) in SNIPPETS.items()}
    results = run_in_torch(programs)
    for name, (snippet, must_know) in SNIPPETS.items():
        result = results[name]
        assert result.startswith("SystemError: "), (name, result)
        torch_strides = tuple(json.loads(result[len("SystemError: "):]))
        ours = _engine_strides(name, snippet)
        if must_know:
            assert ours is not None, (name, "the engine should know these strides")
        if ours is not None:
            assert ours == torch_strides, (name, ours, torch_strides)


@pytest.mark.parametrize("shape,strides,expected", [
    ((2, 48, 8, 6), (2304, 1, 288, 48), True),
    ((2, 48, 8, 6), (2304, 48, 6, 1), False),
    ((2, 1, 8, 6), (48, 48, 6, 1), False),
    ((2, 3, 1, 1), (3, 1, 1, 1), False),
    ((2, 3, 1, 1), (3, 1, 3, 3), True),
    ((1, 3, 1, 4), (12, 4, 4, 1), False),
    ((1, 4, 1, 3), (12, 1, 4, 4), False),
])
def test_channels_last_like_is_torchs(shape, strides, expected) -> None:
    """A pool's output takes the input's suggested format: channels-last strides exactly when
    ``channels_last_like`` says so."""
    torch = pytest.importorskip("torch")
    t = torch.empty_strided(shape, strides).normal_()
    out = torch.nn.functional.max_pool2d(t, 1)
    assert (tuple(out.stride()) == L.channels_last(shape)) == expected
    assert L.channels_last_like(shape, strides) == expected
