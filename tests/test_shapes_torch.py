"""Every shape formula the shape rules rely on, checked against real torch (2.13).

Table-driven: one torch import, many cases per test. For each formula the engine's answer
must equal the shape torch produces; for each "this fails" predicate of the TTL5xx rules,
torch must raise exactly when the predicate says so (only for cases where every dim is
known, which is the only time the rules fire).
"""
from __future__ import annotations

import itertools
import re
import warnings

import pytest

torch = pytest.importorskip("torch")
import torch.nn.functional as F  # noqa: E402

from torchtype_lint.knowledge import nn_modules as NN  # noqa: E402
from torchtype_lint.knowledge import shapes as S  # noqa: E402
from torchtype_lint.rules.base import get_rule  # noqa: E402
from torchtype_lint.rules.shape.layer_contracts import layer_mismatch  # noqa: E402
from torchtype_lint.rules.shape.ttl507_matmul_shape_mismatch import matmul_problem  # noqa: E402
from torchtype_lint.rules.shape.ttl508_concat_shape_mismatch import concat_problem  # noqa: E402
from torchtype_lint.rules.shape.ttl509_reshape_element_count import reshape_problem  # noqa: E402
from torchtype_lint.model.values import ModuleValue  # noqa: E402


def _raises(fn):
    """(exception class name, message) when ``fn`` raises, else (None, result)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return None, fn()
    except Exception as exc:  # noqa: BLE001 - the point is to observe torch
        return type(exc).__name__, str(exc)


# --------------------------------------------------------------------------- windows


CONV_GRID = list(itertools.product(
    (1, 2, 3, 5, 7, 10, 28),  # input length
    (1, 2, 3, 5),             # kernel
    (1, 2, 3),                # stride
    (0, 1, 2),                # padding
    (1, 2),                   # dilation
))


def test_conv_out_matches_conv1d_over_grid():
    checked = 0
    for size, kernel, stride, padding, dilation in CONV_GRID:
        x = torch.zeros(1, 1, size)
        w = torch.zeros(1, 1, kernel)
        err, out = _raises(lambda: F.conv1d(x, w, stride=stride, padding=padding, dilation=dilation))
        mine = S.conv_out(size, kernel, stride, padding, dilation)
        if err is not None:
            assert mine is None, (size, kernel, stride, padding, dilation, err)
        else:
            assert mine == out.shape[-1], (size, kernel, stride, padding, dilation)
            checked += 1
    assert checked > 300


@pytest.mark.parametrize("ceil_mode", [False, True])
def test_conv_out_matches_max_pool1d_over_grid(ceil_mode):
    checked = 0
    for size, kernel, stride, padding, dilation in CONV_GRID:
        if padding > kernel // 2:
            continue  # torch rejects such pooling padding outright; no rule computes it
        x = torch.zeros(1, 1, size)
        err, out = _raises(lambda: F.max_pool1d(x, kernel, stride, padding, dilation, ceil_mode=ceil_mode))
        mine = S.conv_out(size, kernel, stride, padding, dilation, ceil_mode)
        if err is not None:
            assert mine is None, (size, kernel, stride, padding, dilation, err)
        else:
            assert mine == out.shape[-1], (size, kernel, stride, padding, dilation, ceil_mode)
            checked += 1
    assert checked > 100


def _module(name, **config):
    return ModuleValue(f"torch.nn.{name}", config)


# (module name, config as the engine records it, torch constructor kwargs, input shape)
LAYER_CASES = [
    ("Conv2d", dict(in_channels=3, out_channels=8, kernel_size=3), {}, (2, 3, 28, 28)),
    ("Conv2d", dict(in_channels=3, out_channels=8, kernel_size=3), {}, (3, 28, 28)),
    ("Conv2d", dict(in_channels=3, out_channels=8, kernel_size=(3, 5), stride=(2, 1), padding=(1, 2)), {}, (1, 3, 17, 9)),
    ("Conv2d", dict(in_channels=3, out_channels=8, kernel_size=3, padding="same"), {}, (1, 3, 10, 7)),
    ("Conv2d", dict(in_channels=3, out_channels=8, kernel_size=3, padding="valid"), {}, (1, 3, 10, 7)),
    ("Conv2d", dict(in_channels=4, out_channels=8, kernel_size=3, groups=2, dilation=2), {}, (1, 4, 12, 12)),
    ("Conv1d", dict(in_channels=2, out_channels=4, kernel_size=5, stride=2), {}, (3, 2, 100)),
    ("Conv3d", dict(in_channels=1, out_channels=2, kernel_size=3, padding=1), {}, (1, 1, 8, 8, 8)),
    ("ConvTranspose2d", dict(in_channels=32, out_channels=16, kernel_size=2, stride=2), {}, (2, 32, 8, 8)),
    ("ConvTranspose2d", dict(in_channels=4, out_channels=2, kernel_size=(3, 4), stride=(2, 3), padding=(1, 2),
                             output_padding=(1, 2), dilation=(1, 1)), {}, (1, 4, 5, 6)),
    ("ConvTranspose1d", dict(in_channels=3, out_channels=5, kernel_size=4, stride=3, padding=1, dilation=2), {}, (3, 7)),
    ("ConvTranspose3d", dict(in_channels=2, out_channels=1, kernel_size=3), {}, (1, 2, 3, 3, 3)),
    ("MaxPool2d", dict(kernel_size=2), {}, (1, 6, 24, 24)),
    ("MaxPool2d", dict(kernel_size=2, stride=2), {}, (1, 16, 9, 9)),
    ("MaxPool2d", dict(kernel_size=3, stride=2, padding=1), {}, (2, 4, 15, 15)),
    ("MaxPool2d", dict(kernel_size=3, stride=2, ceil_mode=True), {}, (2, 4, 14, 14)),
    ("MaxPool1d", dict(kernel_size=3, dilation=2), {}, (2, 4, 20)),
    ("AvgPool2d", dict(kernel_size=2), {}, (1, 3, 7, 7)),
    ("AvgPool2d", dict(kernel_size=3, stride=2, padding=1, ceil_mode=True), {}, (1, 3, 8, 8)),
    ("AvgPool1d", dict(kernel_size=4, stride=3), {}, (5, 2, 17)),
    ("AdaptiveAvgPool2d", dict(output_size=(4, 4)), {}, (2, 8, 32, 32)),
    ("AdaptiveAvgPool2d", dict(output_size=1), {}, (2, 8, 7, 5)),
    ("Flatten", {}, {}, (4, 3, 2)),
    ("Flatten", dict(start_dim=0), {}, (4, 3, 2)),
    ("Flatten", dict(start_dim=2), {}, (4, 3, 2, 5)),
    ("Linear", dict(in_features=10, out_features=3), {}, (2, 7, 10)),
    ("Linear", dict(in_features=10, out_features=3), {}, (10,)),
    ("Embedding", dict(num_embeddings=10, embedding_dim=4), {}, (2, 5)),
    ("EmbeddingBag", dict(num_embeddings=10, embedding_dim=4), {}, (3, 5)),
    ("EmbeddingBag", dict(num_embeddings=10, embedding_dim=4, mode="max"), {}, (1, 7)),
    ("LSTM", dict(input_size=10, hidden_size=20), {}, (5, 3, 10)),
    ("LSTM", dict(input_size=10, hidden_size=20, batch_first=True, bidirectional=True), {}, (4, 7, 10)),
    ("LSTM", dict(input_size=10, hidden_size=20, proj_size=5), {}, (7, 10)),
    ("GRU", dict(input_size=10, hidden_size=6, num_layers=2), {}, (7, 2, 10)),
    ("RNN", dict(input_size=3, hidden_size=6, bidirectional=True), {}, (7, 3)),
    ("GRUCell", dict(input_size=10, hidden_size=6), {}, (4, 10)),
    ("GRUCell", dict(input_size=10, hidden_size=6), {}, (10,)),
    ("RNNCell", dict(input_size=3, hidden_size=5), {}, (2, 3)),
    ("LSTMCell", dict(input_size=10, hidden_size=6), {}, (4, 10)),
    ("BatchNorm2d", dict(num_features=3), {}, (2, 3, 4, 4)),
    ("LayerNorm", dict(normalized_shape=(4, 5)), {}, (2, 4, 5)),
    ("TransformerEncoderLayer", dict(d_model=16, nhead=2, dim_feedforward=32, batch_first=True), {}, (8, 10, 16)),
    ("TransformerEncoderLayer", dict(d_model=16, nhead=2, dim_feedforward=32), {}, (10, 8, 16)),
    ("TransformerEncoderLayer", dict(d_model=16, nhead=4, dim_feedforward=32), {}, (10, 16)),
]


def _torch_layer(name, config):
    kwargs = {k: (list(v) if k == "normalized_shape" else v) for k, v in config.items()}
    return getattr(torch.nn, name)(**kwargs)


def _input(name, shape):
    if name in ("Embedding", "EmbeddingBag"):
        return torch.zeros(shape, dtype=torch.long)
    return torch.zeros(shape)


def test_layer_output_shapes_match_torch():
    for name, config, _, shape in LAYER_CASES:
        layer = _torch_layer(name, config).eval()
        with torch.no_grad():
            out = layer(_input(name, shape))
        if isinstance(out, tuple):
            out = out[0]
        mine = NN.output_shape(_module(name, **config), shape)
        assert mine == tuple(out.shape), (name, config, shape)


def test_recurrent_cells_give_their_next_states():
    """A cell's call gives the next state, (batch, hidden_size); LSTMCell the pair (h', c'),
    GRUCell/RNNCell one tensor; an input whose width is not input_size has no output (torch
    raises)."""
    from torchtype_lint.model.values import CallArgs, SequenceValue, TensorValue
    for name in ("LSTMCell", "GRUCell", "RNNCell"):
        layer = _torch_layer(name, dict(input_size=10, hidden_size=6))
        with torch.no_grad():
            out = layer(torch.zeros(4, 10))
        given = NN.call_module(_module(name, input_size=10, hidden_size=6),
                               CallArgs([TensorValue(None, (4, 10), None)], {}, [None], {}), None)
        if isinstance(out, tuple):
            assert isinstance(given, SequenceValue) and len(given.items) == len(out) == 2, name
            assert [item.shape for item in given.items] == [tuple(o.shape) for o in out], name
        else:
            assert isinstance(given, TensorValue) and given.shape == tuple(out.shape), name
        assert _raises(lambda: layer(torch.zeros(4, 9)))[0] == "RuntimeError", name
        assert NN.output_shape(_module(name, input_size=10, hidden_size=6), (4, 9)) is None, name


def test_unknown_config_values_give_unknown_shapes():
    # A value given but not constant (``stride=s``) must not fall back to the default.
    for key in ("stride", "padding", "dilation", "kernel_size", "ceil_mode"):
        config = dict(in_channels=3, out_channels=8, kernel_size=3)
        config[key] = None
        assert NN.output_shape(_module("Conv2d", **config), (1, 3, 28, 28)) is None, key
    assert NN.output_shape(_module("LSTM", input_size=3, hidden_size=4, bidirectional=None), (2, 5, 3)) is None
    assert NN.output_shape(_module("MaxPool2d", kernel_size=2, return_indices=True), (1, 3, 8, 8)) is None


# --------------------------------------------------------------------------- layer contracts

#: (module, config, input shapes to try). Every shape is run through torch; the rule's
#: mismatch predicate must hold exactly for the shapes torch rejects with the rule's message.
CONTRACT_CASES = [
    ("Conv1d", dict(in_channels=3, out_channels=4, kernel_size=3), [(2, 3, 10), (3, 10), (2, 4, 10), (4, 10)]),
    ("Conv2d", dict(in_channels=3, out_channels=16, kernel_size=3),
     [(1, 3, 28, 28), (3, 28, 28), (1, 1, 28, 28), (1, 28, 28), (1, 28, 28, 3), (2, 32, 32, 3)]),
    ("Conv2d", dict(in_channels=4, out_channels=8, kernel_size=3, groups=2), [(1, 4, 8, 8), (1, 2, 8, 8)]),
    ("Conv3d", dict(in_channels=1, out_channels=2, kernel_size=3), [(1, 1, 5, 5, 5), (1, 2, 5, 5, 5), (2, 5, 5, 5)]),
    ("ConvTranspose2d", dict(in_channels=16, out_channels=8, kernel_size=2), [(1, 16, 4, 4), (1, 32, 4, 4), (8, 4, 4)]),
    ("ConvTranspose1d", dict(in_channels=4, out_channels=2, kernel_size=3), [(2, 4, 9), (2, 3, 9)]),
    ("Conv2d", dict(in_channels=3, out_channels=3, kernel_size=5), [(1, 3, 3, 3), (1, 3, 5, 5), (3, 4, 9), (1, 3, 5, 4)]),
    ("Conv2d", dict(in_channels=3, out_channels=3, kernel_size=3, dilation=2, padding=1), [(1, 3, 3, 3), (1, 3, 2, 2)]),
    ("Conv1d", dict(in_channels=1, out_channels=1, kernel_size=4, stride=3), [(1, 1, 3), (1, 1, 4), (1, 3)]),
    ("MaxPool2d", dict(kernel_size=2), [(1, 3, 1, 1), (1, 3, 2, 2), (3, 1, 5)]),
    ("MaxPool2d", dict(kernel_size=3, stride=2, ceil_mode=True), [(1, 3, 2, 2), (1, 3, 3, 3), (1, 3, 1, 1)]),
    ("MaxPool1d", dict(kernel_size=2, padding=1), [(1, 1, 1), (1, 1, 0)]),
    ("AvgPool2d", dict(kernel_size=4, padding=2), [(1, 1, 1, 1), (1, 1, 2, 2)]),
    ("AvgPool1d", dict(kernel_size=3), [(1, 2, 2), (2, 3)]),
    ("Linear", dict(in_features=10, out_features=2), [(10,), (4, 10), (2, 3, 10), (4, 20), (20,), (1, 3, 28, 28)]),
    ("LSTM", dict(input_size=10, hidden_size=4), [(5, 3, 10), (5, 10), (5, 3, 12), (5, 12)]),
    ("GRU", dict(input_size=10, hidden_size=4, batch_first=True), [(3, 5, 10), (3, 5, 20)]),
    ("RNN", dict(input_size=6, hidden_size=4), [(5, 6), (5, 7)]),
    ("LSTMCell", dict(input_size=10, hidden_size=4), [(3, 10), (3, 12), (12,)]),
    ("GRUCell", dict(input_size=10, hidden_size=4), [(3, 10), (3, 9)]),
    ("BatchNorm1d", dict(num_features=10), [(4, 10), (4, 10, 5), (4, 5, 10), (4, 5)]),
    ("BatchNorm2d", dict(num_features=3), [(2, 3, 4, 4), (2, 4, 4, 3)]),
    ("BatchNorm3d", dict(num_features=2), [(2, 2, 3, 3, 3), (2, 3, 3, 3, 2)]),
    ("LayerNorm", dict(normalized_shape=(10,)), [(4, 10), (4, 5), (10,), (2, 3, 10), (2, 10, 3)]),
    ("LayerNorm", dict(normalized_shape=(5, 10)), [(4, 5, 10), (4, 10, 5), (5, 10)]),
]


def test_layer_contracts_fire_exactly_when_torch_raises_the_claimed_error():
    fired = 0
    for name, config, shapes in CONTRACT_CASES:
        layer = _torch_layer(name, config)
        for shape in shapes:
            err, message = _raises(lambda: layer(torch.zeros(shape)))
            mismatch = layer_mismatch(_module(name, **config), shape)
            if mismatch is None:
                # Silent is always allowed (precision first), but never on a shape torch accepts
                # with the claimed message for another reason: nothing more to check.
                continue
            fired += 1
            claim = get_rule(mismatch[0]).runtime
            assert err == claim.exception, (name, config, shape, err, message)
            assert re.search(claim.pattern, message), (name, shape, message)
    assert fired >= 15
    # And the converse for the shapes torch accepts: no mismatch reported.
    for name, config, shapes in CONTRACT_CASES:
        layer = _torch_layer(name, config)
        for shape in shapes:
            err, _ = _raises(lambda: layer(torch.zeros(shape)))
            if err is None:
                assert layer_mismatch(_module(name, **config), shape) is None, (name, shape)


# --------------------------------------------------------------------------- products

MATMUL_PAIRS = [
    ((3, 4), (4, 5)), ((3, 4), (5, 6)), ((4,), (4,)), ((3,), (4,)), ((3, 4), (4,)), ((3, 4), (5,)),
    ((4,), (4, 6)), ((3,), (5, 6)), ((2, 3, 4), (4, 5)), ((2, 3, 4), (5, 6)), ((2, 3, 4), (2, 4, 5)),
    ((2, 3, 4), (2, 5, 6)), ((1, 3, 4), (7, 4, 5)), ((5, 1, 3, 4), (2, 4, 6)), ((4,), (2, 4, 3)),
    ((2, 3, 4), (4,)), ((6, 2, 3, 4), (6, 2, 4, 1)),
]


def test_matmul_shape_and_mismatch_match_torch():
    for a, b in MATMUL_PAIRS:
        err, out = _raises(lambda: torch.matmul(torch.zeros(a), torch.zeros(b)))
        problem = matmul_problem("torch.matmul", a, b)
        if err is None:
            assert S.matmul_shape(a, b) == tuple(out.shape), (a, b)
            assert problem is None, (a, b)
        elif problem is not None:
            claim = get_rule("TTL507").runtime
            assert err == claim.exception and re.search(claim.pattern, out), (a, b, out)


@pytest.mark.parametrize("op, a, b", [
    ("mm", (3, 4), (4, 5)), ("mm", (3, 4), (3, 4)), ("mm", (2, 7), (6, 2)),
    ("bmm", (2, 3, 4), (2, 4, 5)), ("bmm", (2, 3, 4), (2, 5, 6)), ("bmm", (4, 3, 5), (2, 5, 6)),
    ("bmm", (3, 4), (4, 5)),
])
def test_mm_bmm_mismatch_matches_torch(op, a, b):
    err, out = _raises(lambda: getattr(torch, op)(torch.zeros(a), torch.zeros(b)))
    problem = matmul_problem("torch." + op, a, b)
    if err is None:
        assert problem is None
        assert S.named_product_shape(op, a, b) == tuple(out.shape)
    elif problem is not None:
        claim = get_rule("TTL507").runtime
        assert err == claim.exception and re.search(claim.pattern, out), out


BROADCAST_PAIRS = [
    ((4, 3), (3,)), ((4, 1), (4,)), ((5, 1), (5,)), ((2, 1, 3), (4, 1)), ((3,), (4,)), ((4, 3), (4,)),
    ((), (2, 3)), ((1,), (7,)), ((2, 3, 1), (3, 5)), ((8, 1, 6, 1), (7, 1, 5)),
]


def test_broadcast_shapes_and_conflicts_match_torch():
    for a, b in BROADCAST_PAIRS:
        err, out = _raises(lambda: torch.broadcast_shapes(a, b))
        if err is None:
            assert S.broadcast_shapes(a, b) == tuple(out)
            assert S.broadcast_conflict(a, b) is None
        else:
            assert S.broadcast_conflict(a, b) is not None, (a, b)


# --------------------------------------------------------------------------- reshapes

FLATTEN_CASES = [((2, 3, 4), 0, -1), ((2, 3, 4), 1, -1), ((2, 3, 4), 0, 1), ((2, 3, 4, 5), 1, 2),
                 ((2, 3, 4, 5), -2, -1), ((7,), 0, -1), ((), 0, -1), ((2, 3), 1, 1)]


def test_flatten_shape_matches_torch():
    for shape, start, end in FLATTEN_CASES:
        out = torch.flatten(torch.zeros(shape), start, end)
        assert S.flatten_shape(shape, start, end) == tuple(out.shape), (shape, start, end)


RESHAPE_CASES = [
    ((3, 4), (12,)), ((3, 4), (-1,)), ((3, 4), (2, -1)), ((3, 4), (-1, 6)), ((3, 4), (3, 5)),
    ((3, 4), (-1, 5)), ((1, 16, 4, 4), (-1, 400)), ((1, 16, 4, 4), (-1, 256)), ((4, 16, 5, 5), (4, -1)),
    ((25, 16, 4, 4), (-1, 400)), ((2, 3), (6, 1)), ((2, 3), (1, -1, 3)), ((0, 3), (-1, 3)), ((2, 0), (0, 5)),
]


def test_reshape_shape_and_problem_match_torch():
    for src, target in RESHAPE_CASES:
        err, out = _raises(lambda: torch.zeros(src).reshape(target))
        problem = reshape_problem(src, target)
        if err is None:
            assert problem is None, (src, target)
            assert S.reshape_shape(src, target) == tuple(out.shape), (src, target)
        else:
            assert problem is not None, (src, target, out)
            claim = get_rule("TTL509").runtime
            assert err == claim.exception and re.search(claim.pattern, out), out


CAT_CASES = [
    ("cat", [(2, 3), (2, 4)], 0), ("cat", [(2, 3), (2, 4)], 1), ("cat", [(2, 3), (5, 3)], 0),
    ("cat", [(2, 3), (3,)], 0), ("cat", [(2, 3), (0,)], 0), ("cat", [(2, 3, 4), (2, 5, 4)], -2),
    ("cat", [(2, 3, 4), (2, 5, 4)], -1), ("cat", [(1, 2), (1, 2), (1, 3)], 0),
    ("stack", [(3,), (3,)], 0), ("stack", [(3,), (4,)], 0), ("stack", [(2, 3), (2, 3)], 1),
    ("stack", [(2, 3), (2, 4)], 1), ("stack", [(2, 3), (2, 3)], -1), ("stack", [(2, 3), (3,)], 0),
]


def test_cat_stack_shapes_and_problems_match_torch():
    for op, shapes, dim in CAT_CASES:
        err, out = _raises(lambda: getattr(torch, op)([torch.zeros(s) for s in shapes], dim=dim))
        problem = concat_problem(op, shapes, dim)
        if err is None:
            assert problem is None, (op, shapes, dim)
            mine = S.cat_shape(shapes, dim) if op == "cat" else S.stack_shape(shapes, dim)
            if (0,) not in shapes:
                assert mine == tuple(out.shape), (op, shapes, dim)
        else:
            assert problem is not None, (op, shapes, dim, out)
            claim = get_rule("TTL508").runtime
            assert err == claim.exception and re.search(claim.pattern, out), out


DIM_OP_CASES = [
    ("unsqueeze", (2, 3), [0]), ("unsqueeze", (2, 3), [2]), ("unsqueeze", (2, 3), [-1]), ("unsqueeze", (2, 3), [-3]),
    ("squeeze", (1, 3, 1, 2), []), ("squeeze", (1, 3, 1, 2), [0]), ("squeeze", (1, 3, 1, 2), [1]),
    ("squeeze", (1, 3, 1, 2), [-2]), ("transpose", (2, 3, 4), [0, 2]), ("transpose", (2, 3, 4), [-1, -2]),
    ("swapaxes", (2, 3, 4), [1, 0]), ("permute", (2, 3, 4), [2, 0, 1]), ("permute", (2, 3, 4, 5), [0, 3, 1, 2]),
    ("t", (2, 3), []), ("t", (5,), []),
]


def test_dim_ops_match_torch():
    for name, shape, ints in DIM_OP_CASES:
        out = getattr(torch.zeros(shape), name)(*ints)
        assert S.dim_op_shape(name, shape, ints, False) == tuple(out.shape), (name, shape, ints)


def test_reduce_shape_matches_torch():
    for shape, dim, keepdim in [((4, 3), 1, False), ((4, 3), 1, True), ((4, 3, 2), -1, False), ((4, 3, 2), 0, True)]:
        out = torch.zeros(shape).sum(dim=dim, keepdim=keepdim)
        assert S.reduce_shape(shape, dim, keepdim) == tuple(out.shape)


# --------------------------------------------------------------------------- losses, end to end

LOSS_CASES = [
    # (call as written in the snippet, input shape, target shape, target dtype)
    ("F.cross_entropy", (4, 3), (3,), "long"), ("F.cross_entropy", (4, 3), (4,), "long"),
    ("F.cross_entropy", (4, 3), (4, 1), "long"), ("F.cross_entropy", (4, 1), (4, 1), "long"),
    ("F.cross_entropy", (4, 3), (4, 3), "float"), ("F.cross_entropy", (3,), (), "long"),
    ("F.cross_entropy", (2, 3, 5), (2, 5), "long"), ("F.cross_entropy", (2, 3, 5), (3, 5), "long"),
    ("F.nll_loss", (4, 3), (5,), "long"), ("F.nll_loss", (4, 3), (4, 1), "long"),
    ("nn.CrossEntropyLoss()", (8, 10), (6,), "long"), ("nn.NLLLoss()", (8, 10), (8,), "long"),
    ("F.binary_cross_entropy", (4, 1), (4,), "float"), ("F.binary_cross_entropy", (4,), (4,), "float"),
    ("F.binary_cross_entropy_with_logits", (4,), (3,), "float"),
    ("nn.BCEWithLogitsLoss()", (4, 1), (4, 1), "float"), ("nn.BCELoss()", (4,), (4, 1), "float"),
    ("F.mse_loss", (8, 1), (8,), "float"), ("F.mse_loss", (8,), (8, 1), "float"), ("F.mse_loss", (1, 1), (1,), "float"),
    ("F.mse_loss", (4, 3), (3,), "float"), ("F.mse_loss", (8, 1), (8, 1), "float"),
    ("nn.L1Loss()", (5, 1), (5,), "float"), ("F.l1_loss", (2, 3), (2, 3), "float"),
]


def test_loss_rules_agree_with_torch():
    import torch.nn as nn  # noqa: PLC0415

    from torchtype_lint.checker.check import Settings, check_source  # noqa: PLC0415
    from torchtype_lint.model.selection import Selection  # noqa: PLC0415

    reported = 0
    for call, in_shape, tgt_shape, tgt_dtype in LOSS_CASES:
        if tgt_dtype == "long":
            target_src = f"torch.zeros({tgt_shape}, dtype=torch.long)"
            target = torch.zeros(tgt_shape, dtype=torch.long)
        else:
            target_src = f"torch.rand({tgt_shape})"
            target = torch.rand(tgt_shape)
        source = ("import torch\nimport torch.nn as nn\nimport torch.nn.functional as F\n"
                  f"loss = {call}(torch.rand({in_shape}), {target_src})\n")
        found = check_source(source, "t.py", Settings(selection=Selection(select=["TTL5"]))).findings
        fn = eval(call, {"F": F, "nn": nn})  # noqa: S307 - our own table
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                err, out = None, fn(torch.rand(in_shape), target)
            except Exception as exc:  # noqa: BLE001 - observing torch
                err, out = type(exc).__name__, str(exc)
        for finding in found:
            reported += 1
            claim = get_rule(finding.code).runtime
            if claim.exception == "AssertionError":
                # TTL511: runs, but the elementwise loss broadcasts to more elements than either side
                assert err is None, (call, in_shape, tgt_shape, out)
                grown = torch.broadcast_shapes(in_shape, tgt_shape)
                assert grown != tuple(in_shape) and grown != tuple(tgt_shape), (call, in_shape, tgt_shape)
            else:
                assert err == claim.exception and re.search(claim.pattern, out), (call, in_shape, tgt_shape, out)
        if err is None and not caught:
            assert not found, (call, in_shape, tgt_shape, [f.message for f in found])
    assert reported >= 10


# --------------------------------------------------------------------------- F.pad


PAD_CASES = list(itertools.product(
    ((2, 3, 5, 6), (3, 5, 6), (5, 6), (4,)),  # input shapes
    ((0, 1), (1, 2, 0, 3), (2, 2, 1, 1, 1, 1), (-1, -2), (0, 0, -5, 0), (6, 0), (0, 5), (1,),
     (1, 1, 1, 1, 1, 1, 1, 1, 1, 1)),
    ("constant", "reflect", "replicate", "circular"),
))


@pytest.mark.parametrize("shape,pads,mode", PAD_CASES)
def test_padded_shape_matches_torch(shape, pads, mode):
    """Where ``padded_shape`` gives a shape torch gives that shape; where it gives None torch
    refuses (or the answer depends on what the analysis does not model)."""
    error, result = _raises(lambda: F.pad(torch.randn(*shape), pads, mode=mode))
    ours = S.padded_shape(shape, pads, mode)
    if ours is not None:
        assert error is None and tuple(result.shape) == ours, (shape, pads, mode, error, result)
    # a dim padded by (0, 0) keeps whatever it is, and an unknown one stays unknown
    if error is None and len(pads) >= 2 and pads[:2] == (0, 0) and ours is not None:
        assert S.padded_shape(shape[:-1] + ("n",), pads, mode)[-1] == "n"


def test_index_arrays_give_numpy_and_torch_shapes():
    # an integer index array (an ndarray or a tensor) in front of full slices: its shape, then the
    # other dims (PALETTE[labels] maps a label map to colours); a bool mask keeps one dim of rows
    import numpy as np

    from torchtype_lint.knowledge.indexing import SLICE, index_shape
    from torchtype_lint.model.values import ArrayValue, TensorValue

    full = {1: (None, None, None)}
    palette = np.zeros((4, 3), dtype=np.uint8)
    labels = np.zeros((5, 6), dtype=np.int64)
    mask = np.zeros((4,), dtype=bool)
    table = torch.zeros(4, 3, 2)
    for base, index, shape_of in (
            (palette, labels, lambda i: ArrayValue(frozenset({"int64"}), i.shape)),
            (palette, mask, lambda i: ArrayValue(frozenset({"bool"}), i.shape)),
            (table, labels, lambda i: ArrayValue(frozenset({"int64"}), i.shape)),
            (table, torch.zeros(7, dtype=torch.long), lambda i: TensorValue(frozenset({"int64"}), tuple(i.shape)))):
        real = tuple(base[index].shape)
        for indices, slices in (([shape_of(index)], {}), ([shape_of(index), SLICE], full)):
            got = index_shape(tuple(base.shape), indices, slices)
            assert got == real or (got is not None and got[0] is None and got[1:] == real[1:]), (got, real)
