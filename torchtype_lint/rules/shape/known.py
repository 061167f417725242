"""Which dimensions and shapes the shape rules compare: known integers only.

A dimension that is unknown (None) or symbolic (a str from an annotation) never fires.
"""
from __future__ import annotations

from typing import Any, Optional, Tuple

from ...model.values import TensorValue, Value


def _known(dim: Any) -> bool:
    return isinstance(dim, int) and not isinstance(dim, bool)


def _shape(value: Value) -> Optional[Tuple[Any, ...]]:
    """The shape of a tensor value when at least its rank is known."""
    if isinstance(value, TensorValue) and value.shape is not None:
        return tuple(value.shape)
    return None
