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

HEADER = "import numpy as np\nimport torch\nimport torch.nn as nn\nimport torch.nn.functional as F\n"

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
    # contiguous already: the tensor itself, its size-1 dim's stride kept
    "contiguous_of_contiguous_column": ("y = torch.randn(5, 4).t()[:, :1].contiguous()", True),
    "contiguous_of_unknown_column": ("y = torch.from_numpy(np.arange(8.0)[:, None]).contiguous()", True),
    "contiguous_of_unknown_matrix": ("y = torch.from_numpy(np.ones((3, 4)).T).contiguous()", True),
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
    # recurrent layers on the CPU (native and oneDNN kernels alike, with and without grad):
    # time-major output row-major; batch_first output is the time-major one transposed back
    "gru_output": ("y, h = nn.GRU(5, 7, bidirectional=True)(torch.randn(3, 4, 5))", True),
    "gru_hidden": ("_, y = nn.GRU(5, 7, 2, bidirectional=True)(torch.randn(3, 4, 5))", True),
    "gru_output_transposed": ("y, h = nn.GRU(5, 7, bidirectional=True)(torch.randn(3, 4, 5))\ny = y.transpose(0, 1)",
                              True),
    "lstm_output": ("y, (h, c) = nn.LSTM(5, 7, 2)(torch.randn(3, 4, 5))", True),
    "lstm_batch_first_output": ("y, (h, c) = nn.LSTM(5, 7, batch_first=True)(torch.randn(3, 4, 5))", True),
    "lstm_batch_first_hidden": ("_, (y, c) = nn.LSTM(5, 7, batch_first=True)(torch.randn(3, 4, 5))", True),
    "lstm_batch_first_cell": ("_, (h, y) = nn.LSTM(5, 7, 2, batch_first=True, bidirectional=True)"
                              "(torch.randn(3, 4, 5))", True),
    "lstm_proj_batch_first": ("y, _ = nn.LSTM(5, 7, batch_first=True, proj_size=3)(torch.randn(3, 4, 5))", True),
    "lstm_of_transposed": ("y, _ = nn.LSTM(5, 7)(torch.randn(4, 3, 5).transpose(0, 1))", True),
    "rnn_batch_first_bidirectional": ("y, _ = nn.RNN(5, 7, batch_first=True, bidirectional=True)"
                                      "(torch.randn(3, 4, 5))", True),
    "rnn_batch_first_given_state": ("y, _ = nn.RNN(5, 7, batch_first=True)(torch.randn(3, 4, 5), "
                                    "torch.zeros(1, 3, 7))", True),
    "rnn_given_transposed_state": ("_, y = nn.RNN(5, 7, 2, batch_first=True)(torch.randn(3, 4, 5), "
                                   "torch.zeros(3, 2, 7).transpose(0, 1))", True),
    "lstm_given_transposed_states": ("h0 = torch.zeros(3, 2, 7).transpose(0, 1)\n"
                                     "_, (h, y) = nn.LSTM(5, 7, 2)(torch.randn(4, 3, 5), (h0, h0))", True),
    "rnn_unbatched": ("y, _ = nn.RNN(5, 7, batch_first=True)(torch.randn(4, 5))", True),
    "gru_double": ("y, _ = nn.GRU(5, 7, batch_first=True).double()(torch.randn(3, 4, 5).double())", True),
    "lstm_no_grad": ("with torch.no_grad():\n    y, _ = nn.LSTM(5, 7, batch_first=True)(torch.randn(3, 4, 5))", True),
    # views: narrow, select, an integer index, chunk / split / unbind pieces keep the strides
    "narrow": ("y = torch.randn(6, 4, 5).narrow(1, 1, 2)", True),
    "narrow_function": ("y = torch.narrow(torch.randn(6, 4, 5).transpose(0, 1), 0, 1, 2)", True),
    "narrow_negative_dim": ("y = torch.randn(6, 4, 5).transpose(1, 2).narrow(-1, 0, 3)", True),
    "narrow_negative_start": ("y = torch.randn(6, 4, 5).transpose(0, 1).narrow(1, -3, 2)", True),
    "select": ("y = torch.randn(6, 4, 5).select(1, 2)", True),
    "select_negative": ("y = torch.randn(6, 4, 5).transpose(0, 2).select(-1, -1)", True),
    "select_function": ("y = torch.select(torch.randn(6, 4, 5), 0, 3)", True),
    "int_index": ("y = torch.randn(6, 4, 5).transpose(0, 1)[2]", True),
    "chunk_piece": ("a, b = torch.randn(6, 4, 5).chunk(2, 1)\ny = b", True),
    "chunk_piece_function": ("y = torch.chunk(torch.randn(6, 4, 5).transpose(0, 1), 3, dim=1)[2]", True),
    "split_piece": ("a, b, c = torch.randn(6, 4, 5).split([1, 2, 1], 1)\ny = b", True),
    "split_size": ("y = torch.randn(6, 4, 5).split(2, dim=-1)[2]", True),
    "unbind_piece": ("y = torch.randn(6, 4, 5).unbind(1)[3]", True),
    "unbind_loop": ("for y in torch.randn(6, 4, 5).transpose(0, 2).unbind(1):\n    pass", True),
    # new tensors: cat / stack (row-major below 4-D, whatever the inputs' strides), repeat, pad
    "cat": ("t = torch.randn(6, 4, 5).transpose(0, 1)\ny = torch.cat([t, t], 0)", True),
    "cat_dim": ("t = torch.randn(6, 4, 5).transpose(1, 2)\ny = torch.cat((t, t[:, :2]), dim=1)", True),
    "cat_method_of_pieces": ("a, b = torch.randn(8, 6).t().chunk(2, 1)\ny = torch.cat([b, a], 1)", True),
    "stack": ("t = torch.randn(6, 4).t()\ny = torch.stack([t, t], 1)", True),
    "stack_last": ("t = torch.randn(6, 4).t()\ny = torch.stack((t, t), -1)", True),
    "cat_4d_channels_last": (
        "b = torch.randn(2, 48, 48).view(2, 8, 6, 48).transpose(2, 3).transpose(1, 2)\ny = torch.cat([b, b], 0)",
        True),
    "cat_4d_mixed_formats": (
        "b = torch.randn(2, 48, 48).view(2, 8, 6, 48).transpose(2, 3).transpose(1, 2)\n"
        "y = torch.cat([b, torch.randn(2, 48, 8, 6)], 0)", True),
    "stack_to_4d": ("t = torch.randn(6, 4, 5).transpose(0, 2)\ny = torch.stack([t, t])", False),
    "repeat": ("y = torch.randn(6, 4).t().repeat(2, 1)", True),
    "repeat_more_dims": ("y = torch.randn(6, 4)[:, :2].repeat(3, 1, 2)", True),
    "pad": ("y = F.pad(torch.randn(6, 4, 5).transpose(0, 1), (1, 2))", True),
    "pad_two_dims": ("y = F.pad(torch.randn(6, 4, 5)[:, 1:], (1, 2, 0, 1))", True),
    "pad_4d_channels_last": (
        "b = torch.randn(2, 48, 48).view(2, 8, 6, 48).transpose(2, 3).transpose(1, 2)\ny = F.pad(b, (1, 1))", True),
    "repeat_channels_last": (
        "b = torch.randn(2, 48, 48).view(2, 8, 6, 48).transpose(2, 3).transpose(1, 2)\ny = b.repeat(1, 1, 2, 1)", True),
    "pad_reflect": ("y = F.pad(torch.randn(6, 4, 5).transpose(0, 1), (1, 2), mode='reflect')", False),
    "embedding_then_transpose": ("y = nn.Embedding(10, 3)(torch.randint(0, 10, (4, 6))).transpose(0, 1)", True),
    "conv1d_then_transpose": ("y = nn.Conv1d(6, 3, 3)(torch.randn(4, 6, 5)).transpose(1, 2)", True),
    "flatten_function_of_permuted": ("y = torch.flatten(torch.randn(2, 3, 4).permute(2, 0, 1), 1)", True),
    "expand_then_index": ("y = torch.randn(6, 1).expand(6, 4)[1:]", True),
    "movedim": ("y = torch.randn(2, 3, 4, 5).movedim(1, -1)", True),
    "movedim_pairs": ("y = torch.randn(2, 3, 4, 5).transpose(0, 2).movedim((0, 3), (2, 0))", True),
    "moveaxis_function": ("y = torch.moveaxis(torch.randn(2, 3, 4), 2, 0)", True),
    "unflatten_of_transposed": ("y = torch.randn(6, 8).t().unflatten(0, (2, 4))", True),
    "unflatten_function": ("y = torch.unflatten(torch.randn(6, 8)[:, 2:6], 1, (2, 2))", True),
    # a conversion copies a column of unknown layout: its long dim moves by one element (the
    # size-1 dim's stride is whatever the input's was: not known)
    "float_of_numpy_column": ("y = torch.from_numpy(np.random.rand(200, 1)).float()", True),
    "float_of_numpy_column_slice": ("y = torch.from_numpy(np.random.rand(200, 3)[::2, 1:2]).float()", True),
    "float_of_numpy_broadcast_column": ("y = torch.from_numpy(np.arange(200.0)[:, None]).float()", True),
    "long_of_numpy_vector_slice": ("y = torch.from_numpy(np.arange(10)[::3].astype(np.int32)).long()", True),
    "double_of_numpy_matrix": ("y = torch.from_numpy(np.random.rand(4, 3).astype(np.float32)).double()", False),
    "float_of_float_column": ("y = torch.from_numpy(np.random.rand(200, 1).astype(np.float32)).float()", False),
    "batchify_column": ("d = torch.from_numpy(np.random.rand(200, 1)).float().narrow(0, 0, 200)\n"
                        "y = d.view(4, -1, d.size(-1)).transpose(0, 1)[0:10]", True),
}


def _engine_value(name: str, snippet: str):
    module = cst.parse_module(HEADER + textwrap.dedent(snippet) + "\n")
    interp = analyse(module)
    values = [a.value for a in interp.assignments if a.name == "y"]
    assert values, name
    return values[-1]


def _engine_strides(name: str, snippet: str):
    return L.strides_of(_engine_value(name, snippet))


def _engine_shape(name: str, snippet: str):
    return _engine_value(name, snippet).shape


def test_engine_strides_are_torchs() -> None:
    # the runner reports what a program raised: each raises with its strides
    programs = {name: HEADER + "import json\n" + snippet +
                "\nraise SystemError(json.dumps([list(y.stride()), list(y.shape)]))\n"
                for name, (snippet, _) in SNIPPETS.items()}
    results = run_in_torch(programs)
    for name, (snippet, must_know) in SNIPPETS.items():
        result = results[name]
        assert result.startswith("SystemError: "), (name, result)
        torch_strides, torch_shape = (tuple(part) for part in json.loads(result[len("SystemError: "):]))
        ours = _engine_strides(name, snippet)
        # where the engine knows the strides it knows the shape (narrow, select, the pieces ...)
        assert ours is None or tuple(_engine_shape(name, snippet)) == torch_shape, (name, torch_shape)
        if must_know:
            assert ours is not None, (name, "the engine should know these strides")
        if ours is not None:
            # a size-1 dim's stride may be left unknown (None): the others must be torch's
            assert len(ours) == len(torch_strides), (name, ours, torch_strides)
            assert all(o == t or o is None for o, t in zip(ours, torch_strides)), (name, ours, torch_strides)
            assert all(o is not None for o, size in zip(ours, _engine_shape(name, snippet)) if size != 1), name


def test_view_judged_without_size_one_strides() -> None:
    """``view_strides`` with a size-1 dim's stride unknown decides as torch does whatever that
    stride is: random layouts (permuted, narrowed, size-1 dims given odd strides) and targets."""
    torch = pytest.importorskip("torch")
    import random  # noqa: PLC0415

    rng = random.Random(7)
    checked = 0
    for _ in range(3000):
        rank = rng.randint(1, 4)
        t = torch.empty(*[rng.choice([1, 1, 2, 3, 4, 6]) for _ in range(rank)])
        order = list(range(rank))
        rng.shuffle(order)
        t = t.permute(*order)
        d = rng.randrange(rank)
        if rng.random() < 0.3 and t.shape[d] > 1:
            t = t.narrow(d, 0, t.shape[d] - 1)
        odd = [rng.choice([0, 1, 2, 7, 100]) if t.shape[i] == 1 else t.stride(i) for i in range(rank)]
        t = t.as_strided(t.shape, odd)
        factors, n = [], t.numel()
        for p in (2, 3, 5):
            while n % p == 0:
                factors.append(p)
                n //= p
        rng.shuffle(factors)
        target: list = []
        for f in factors:
            if target and rng.random() < 0.5:
                target[-1] *= f
            else:
                target.append(f)
        for _ in range(rng.randint(0, 2)):
            target.insert(rng.randint(0, len(target)), 1)
        target = target or [1]
        try:
            expected = t.view(*target).stride()
        except RuntimeError:
            expected = None
        hidden = tuple(None if size == 1 else stride for size, stride in zip(t.shape, t.stride()))
        ours = L.view_strides(tuple(t.shape), hidden, target)
        assert (ours is None) == (expected is None), (tuple(t.shape), t.stride(), target)
        if ours is not None:
            assert all(o is None and size == 1 or o == s for o, s, size in zip(ours, expected, target))
            checked += 1
    assert checked > 500


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
