"""Stride arithmetic of dense tensors: the strides of a contiguous tensor, of a permutation of
its dims, and whether ``view`` can give a tensor of those strides a new shape without a copy
(torch's ``computeStride``, checked against torch in tests/test_models_and_precision_flow.py)."""
from __future__ import annotations

from typing import Optional, Sequence, Tuple


def contiguous_strides(shape: Sequence[int]) -> Tuple[int, ...]:
    """Row-major strides: the last dim moves by one element."""
    strides, step = [], 1
    for size in reversed(shape):
        strides.append(step)
        step *= max(size, 1)  # torch counts a size-0 dim as 1 when it lays out strides
    return tuple(reversed(strides))


def permuted(shape: Sequence[int], strides: Sequence[int], order: Sequence[int]) -> Tuple[Tuple[int, ...], Tuple[int, ...]]:
    """The (shape, strides) of ``x.permute(order)``: a view, the strides move with their dims."""
    return tuple(shape[d] for d in order), tuple(strides[d] for d in order)


def view_strides(shape: Sequence[int], strides: Sequence[int], target: Sequence[int]) -> Optional[Tuple[int, ...]]:
    """The strides ``view(target)`` gives, or None when no strides fit: each run of dims that
    are contiguous with one another must map onto whole dims of ``target`` (torch's
    ``computeStride``; element counts must already agree)."""
    if not shape:
        return contiguous_strides(target)  # a 0-dim tensor views as any shape of one element
    new = [0] * len(target)
    view_d = len(target) - 1
    chunk_base = strides[-1]
    tensor_numel, view_numel = 1, 1
    for d in range(len(shape) - 1, -1, -1):
        tensor_numel *= shape[d]
        # a chunk ends where the next dim out does not continue this one's memory
        if d == 0 or (shape[d - 1] != 1 and strides[d - 1] != tensor_numel * chunk_base):
            while view_d >= 0 and (view_numel < tensor_numel or target[view_d] == 1):
                new[view_d] = view_numel * chunk_base
                view_numel *= target[view_d]
                view_d -= 1
            if view_numel != tensor_numel:
                return None
            if d > 0:
                chunk_base = strides[d - 1]
                tensor_numel, view_numel = 1, 1
    return tuple(new) if view_d == -1 else None
