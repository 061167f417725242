"""The input shapes nn layers accept, checked on one layer or along an ``nn.Sequential``.

Shapes flow through the chain with the output-shape arithmetic in
``knowledge/nn_modules.output_shape`` (checked against torch in ``tests/test_shapes_torch.py``).
"""
from __future__ import annotations

from typing import Any, List, Optional, Tuple

from ...knowledge import nn_modules as NN
from ...knowledge import shapes as S
from ...model.values import TOP, CallArgs, ModuleValue, TensorValue, Value, describe_shape
from .known import _known, _shape
from .messages import layer_label


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


#: The check a layer applies to its input: (rule code, what the layer expects, what it got).
Mismatch = Tuple[str, str, str]


def layer_mismatch(module: ModuleValue, shape: Tuple[Any, ...]) -> Optional[Mismatch]:
    """The first shape contract of ``module`` that an input of ``shape`` breaks, if known."""
    name, cfg = module.short_name, module.config
    rank = len(shape)
    if name in ("Conv1d", "Conv2d", "Conv3d", "ConvTranspose1d", "ConvTranspose2d", "ConvTranspose3d"):
        r = NN.spatial_rank(module)
        expected = cfg.get("in_channels")
        if rank in (r + 1, r + 2) and _known(expected) and _known(shape[-r - 1]) and shape[-r - 1] != expected:
            got = shape[-r - 1]
            return ("TTL501", f"expects {_plural(expected, 'input channel')}",
                    f"has {_plural(got, 'channel')} in dimension {rank - r - 1}")
        if rank in (r + 1, r + 2) and not name.startswith("ConvTranspose"):
            return window_too_large(module, shape)
        if rank not in (r + 1, r + 2):  # torch accepts only (C, *spatial) or (N, C, *spatial)
            return ("TTL525", f"expects a {r + 1}D (unbatched) or {r + 2}D (batched) input",
                    f"is {rank}D")
        return None
    if name in ("MaxPool1d", "MaxPool2d", "MaxPool3d", "AvgPool1d", "AvgPool2d", "AvgPool3d"):
        r = NN.spatial_rank(module)
        if rank in (r + 1, r + 2):
            return window_too_large(module, shape)
        return None
    if name == "Linear":
        expected = cfg.get("in_features")
        if rank >= 1 and _known(expected) and _known(shape[-1]) and shape[-1] != expected:
            return ("TTL502", f"expects {_plural(expected, 'input feature')} in the last dimension",
                    f"has {shape[-1]}")
        return None
    if name in ("LSTM", "GRU", "RNN", "LSTMCell", "GRUCell", "RNNCell"):
        expected = cfg.get("input_size")
        ranks = (2, 3) if not name.endswith("Cell") else (1, 2)
        if rank in ranks and _known(expected) and _known(shape[-1]) and shape[-1] != expected:
            return ("TTL503", f"expects input_size {expected} in the last dimension", f"has {shape[-1]}")
        return None
    if name in ("BatchNorm1d", "BatchNorm2d", "BatchNorm3d"):
        ranks = {"BatchNorm1d": (2, 3), "BatchNorm2d": (4,), "BatchNorm3d": (5,)}[name]
        expected = cfg.get("num_features")
        if rank in ranks and _known(expected) and _known(shape[1]) and shape[1] != expected:
            return ("TTL504", f"expects {_plural(expected, 'feature')} (channels) in dimension 1",
                    f"has {shape[1]}")
        if rank not in ranks:  # _check_input_dim raises before any channel is looked at
            return ("TTL524", f"expects a {' or '.join(f'{k}D' for k in ranks)} input", f"is {rank}D")
        return None
    if name == "LayerNorm":
        normalized = cfg.get("normalized_shape")
        if _known(normalized):
            normalized = (normalized,)
        if not isinstance(normalized, tuple) or not normalized or not all(_known(d) for d in normalized):
            return None
        if rank < len(normalized):
            return None
        tail = shape[rank - len(normalized):]
        if any(_known(t) and t != n for t, n in zip(tail, normalized)):
            return ("TTL505", f"normalizes the trailing shape {describe_shape(normalized)}",
                    f"ends in {describe_shape(tail)}")
        return None
    return None


def window_too_large(module: ModuleValue, shape: Tuple[Any, ...]) -> Optional[Mismatch]:
    """TTL514: a conv/pool window that does not fit in a known spatial size (output size 0)."""
    geometry = NN.window_geometry(module)
    if geometry is None:
        return None
    kernel, stride, padding, dilation, ceil_mode = geometry
    if padding is None:
        return None  # "same" keeps the size
    r = len(kernel)
    pooling = not module.short_name.startswith("Conv")
    for i in range(r):
        size = shape[len(shape) - r + i]
        if not _known(size):
            continue
        effective = dilation[i] * (kernel[i] - 1) + 1
        if pooling and 2 * padding[i] > kernel[i]:
            return None  # torch rejects that padding with another message first
        if S.conv_out(size, kernel[i], stride[i], padding[i], dilation[i], ceil_mode) is None:
            window = f"kernel {kernel[i]}" + (f" with dilation {dilation[i]}" if dilation[i] != 1 else "")
            pad = f" plus padding {padding[i]} on each side" if padding[i] else ""
            return ("TTL514", f"needs at least {effective - 2 * padding[i]} positions in every spatial "
                              f"dimension ({window}{pad})",
                    f"has {size} in dimension {len(shape) - r + i}")
    return None


def chain_failure(module: ModuleValue, x: TensorValue) -> Optional[Tuple[List[str], ModuleValue, Mismatch, Tuple]]:
    """Walk an ``nn.Sequential`` as torch runs it; the first layer whose input breaks its
    contract: (labels of the layers before it, the layer, the mismatch, its input shape)."""
    path: List[str] = []

    def walk(seq: ModuleValue, value: Value) -> Tuple[Any, Value]:
        for child in seq.children:
            if not isinstance(child, ModuleValue) or not isinstance(value, TensorValue):
                return None, TOP
            if child.short_name == "Sequential":
                found, value = walk(child, value)
                if found is not None:
                    return found, value
                continue
            shape = _shape(value)
            if shape is not None:
                problem = layer_mismatch(child, shape)
                if problem is not None:
                    return (list(path), child, problem, shape), value
            path.append(layer_label(child) if child.short_name in _LABELLED else child.short_name)
            value = NN.call_module(child, CallArgs([value], {}, [None], {}), None)
        return None, value

    return walk(module, x)[0]


_LABELLED = {"Linear", "Conv1d", "Conv2d", "Conv3d", "ConvTranspose1d", "ConvTranspose2d",
             "ConvTranspose3d", "LSTM", "GRU", "RNN", "BatchNorm1d",
             "BatchNorm2d", "BatchNorm3d", "LayerNorm", "Embedding"}
