"""Predicates on the dtypes of tensor values, for rules.

Precision first: each answers "yes" only when *every* dtype the engine considers possible
satisfies it; an unknown dtype set (``None``) or a non-tensor value answers "no", so rules built
on them stay silent on what the engine cannot prove."""
from __future__ import annotations

from typing import Callable, Iterable, Optional, Tuple

from ..knowledge import dtypes as D
from ..model.values import BOOL, TensorValue, Value, category


FLOATING = 2


def dtypes_of(value: Value) -> Optional[frozenset]:
    """The known, non-empty dtype set of a tensor value, else None.

    A tensor the engine believes empty (a 0 in its shape) counts as unknown: its dtype then
    usually comes from ``torch.tensor([])`` of a container the engine thinks is still empty
    although it was filled through an alias (``d.setdefault(k, []).append(i)``).
    """
    if isinstance(value, TensorValue) and value.dtypes:
        if value.shape is not None and 0 in value.shape:
            return None
        return value.dtypes
    return None


def all_dtypes(value: Value, predicate: Callable[[str], bool]) -> bool:
    """True when ``value`` is a tensor whose every possible dtype satisfies ``predicate``."""
    dtypes = dtypes_of(value)
    return dtypes is not None and all(predicate(d) for d in dtypes)


def is_int_or_bool(dtype: str) -> bool:
    return category(dtype) < FLOATING


def is_float(dtype: str) -> bool:
    return category(dtype) == FLOATING


def is_bool(dtype: str) -> bool:
    return dtype == BOOL


def never_equal(a: Value, b: Value) -> bool:
    """Both operands are tensors with known dtypes and no dtype of one equals one of the other."""
    da, db = dtypes_of(a), dtypes_of(b)
    return da is not None and db is not None and not (da & db)


def pairs(a: Value, b: Value) -> Iterable[Tuple[str, str]]:
    for x in dtypes_of(a) or ():
        for y in dtypes_of(b) or ():
            yield x, y


def mismatch_kind(a: Value, b: Value) -> Optional[str]:
    """How two operands of a non-promoting op (matmul, layer) mismatch, if they always do.

    "precision": both sides floating point of different widths (float16/bfloat16/float64 vs
    float32) -- TTL4xx; "mixing": any combination involving an integer or bool dtype
    (int vs float, int32 vs int64) -- TTL2xx; None when some combination matches or a
    dtype is unknown.
    """
    if not never_equal(a, b):
        return None
    if all(is_float(x) and is_float(y) for x, y in pairs(a, b)):
        return "precision"
    return "mixing"


def can_cast(src: str, dst: str) -> bool:
    return D.can_cast(src, dst)


def rank(value: Value) -> Optional[int]:
    if isinstance(value, TensorValue) and value.shape is not None:
        return len(value.shape)
    return None
