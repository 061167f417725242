"""Which dimensions and shapes the shape rules compare: known integers only.

A dimension that is unknown (None) or symbolic (a str from an annotation) never fires.
"""
from __future__ import annotations

from typing import Any, Optional, Tuple

from ...model.values import TensorValue, Value, describe_shape


def _known(dim: Any) -> bool:
    return isinstance(dim, int) and not isinstance(dim, bool)


def _shape(value: Value) -> Optional[Tuple[Any, ...]]:
    """The shape of a tensor value when at least its rank is known."""
    if isinstance(value, TensorValue) and value.shape is not None:
        return tuple(value.shape)
    return None


def not_one_element(value: Value) -> Optional[str]:
    """Why ``value`` certainly does not hold exactly one element (its shape has a dim of known
    size 0 or at least 2: no single truth value, no implicit gradient), or None."""
    if not isinstance(value, TensorValue) or value.shape is None:
        return None
    if any(_known(d) and (d == 0 or d >= 2) for d in value.shape):
        return describe_shape(value.shape)
    return None
