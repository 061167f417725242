"""Stride arithmetic of dense tensors, for the shape rules: torch's own rules live in
``knowledge/layouts.py`` (checked against torch in tests/test_models_and_precision_flow.py and
tests/test_layouts.py); this module gives TTL526 the shape and strides of a permuted view."""
from __future__ import annotations

from typing import Sequence, Tuple

from ...knowledge import layouts
from ...knowledge.layouts import contiguous as contiguous_strides, view_strides

__all__ = ["contiguous_strides", "permuted", "view_strides"]


def permuted(shape: Sequence[int], strides: Sequence[int],
             order: Sequence[int]) -> Tuple[Tuple[int, ...], Tuple[int, ...]]:
    """The (shape, strides) of ``x.permute(order)``: a view, the strides move with their dims."""
    return tuple(shape[d] for d in order), layouts.permuted(strides, order)
