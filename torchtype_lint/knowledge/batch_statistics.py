"""Batch norm in training mode: a batch's statistics need more than one value per channel.

In training mode ``nn.BatchNorm1d/2d/3d`` normalises each channel with the mean and variance of
the batch it is given: the values of a channel are the ``N * L`` (``N * H * W``, ...) entries of
that channel. When there is only one (a batch of one row of shape ``(1, C)``, or ``(1, C, 1, 1)``
after a global pool) torch refuses with ``ValueError: Expected more than 1 value per channel
when training`` (``torch.nn.functional._verify_batch_size``), under ``torch.no_grad()`` too. In
eval mode the running statistics are used and any batch is fine. ``InstanceNorm`` counts the
spatial entries of one sample (the batch size plays no part) and ``LayerNorm`` / ``GroupNorm``
normalise within one sample. Checked in tests/test_batch_rows.py against torch.
"""
from __future__ import annotations

from typing import Any, Optional, Sequence

#: Layers that normalise with the batch's own statistics in training mode.
BATCH_STATISTICS_LAYERS = frozenset({"BatchNorm1d", "BatchNorm2d", "BatchNorm3d"})

#: What torch says when a channel holds one value (the start of the message).
ONE_VALUE_MESSAGE = "Expected more than 1 value per channel when training"


def values_per_channel(rows: int, shape: Sequence[Any]) -> Optional[int]:
    """How many values each channel holds when a tensor shaped like ``shape`` (dim 0 the rows,
    dim 1 the channels) has ``rows`` rows; None when a dim past the channels is not known."""
    if len(shape) < 2:
        return None
    count = rows
    for dim in shape[2:]:
        if not isinstance(dim, int) or isinstance(dim, bool):
            return None
        count *= dim
    return count
