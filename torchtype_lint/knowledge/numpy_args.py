"""Arguments of numpy calls: binding them to numpy's parameter names, and what numpy makes
of an ``array_like`` argument (an ndarray, a Python scalar, a literal list)."""
from __future__ import annotations

from typing import Any, Dict, Optional, Sequence, Tuple

from ..model.values import (
    FLOAT64, TOP, ArrayValue, CallArgs, NoneValue, ScalarValue, SequenceValue, Shape, Value,
)
from .numpy_dtypes import PYTHON_SCALAR_DTYPES, result_type
from .torch_api import int_const

#: Marks the start of keyword-only parameters in a signature.
KEYWORD_ONLY = "*"


def bind(args: CallArgs, signature: Sequence[str]) -> Optional[Dict[str, Value]]:
    """The call's arguments by parameter name (absent ones left out), or None when the call
    cannot be bound: ``*args``/``**kwargs``, too many positionals, an unknown keyword, or a
    parameter given twice (each raises, or hides what was passed)."""
    if args.has_star:
        return None
    positional = list(signature[:signature.index(KEYWORD_ONLY)] if KEYWORD_ONLY in signature
                      else signature)
    if len(args.pos) > len(positional):
        return None
    bound = {name: _as_written(value, args.node(i))
             for i, (name, value) in enumerate(zip(positional, args.pos))}
    names = [name for name in signature if name != KEYWORD_ONLY]
    for name, value in args.kw.items():
        if name not in names or name in bound:
            return None
        bound[name] = _as_written(value, args.node(None, name))
    return bound


def written_none(node: Any) -> bool:
    """Whether an argument is the literal ``None`` (libcst's Name, read without libcst)."""
    return type(node).__name__ == "Name" and getattr(node, "value", None) == "None"


def _as_written(value: Value, node: Any) -> Value:
    # None reaching an argument through a variable may be a path the code rules out
    # (``if dtype is None: return``): only a literal None is numpy's default for sure.
    return TOP if isinstance(value, NoneValue) and not written_none(node) else value


def given(bound: Dict[str, Value], name: str) -> bool:
    """Whether ``name`` was passed a value other than None (None means the default); an
    unknown value counts as passed."""
    return name in bound and not isinstance(bound[name], NoneValue)


def as_array(value: Value) -> Optional[ArrayValue]:
    """The ndarray numpy makes of an ``array_like`` argument, when its dtype and shape are
    known: an ndarray itself, a Python scalar (0-d) or a literal (nested) list of them."""
    if isinstance(value, ArrayValue):
        return value
    coerced = coerced_dtype_shape(value)
    if coerced is None:
        return None
    return ArrayValue(frozenset({coerced[0]}), coerced[1], value.origin)


def coerced_dtype_shape(value: Value) -> Optional[Tuple[str, Shape]]:
    """(dtype, shape) of ``np.array(value)``; None when unknown. Unlike in operators, Python
    scalars inside a list count fully (``np.array([np.float32(1), 1])`` is float64)."""
    if isinstance(value, ScalarValue):
        dtype = PYTHON_SCALAR_DTYPES.get(value.pytype)
        return None if dtype is None else (dtype, ())
    if isinstance(value, ArrayValue):
        return None if value.dtype is None else (value.dtype, value.shape)
    if not isinstance(value, SequenceValue) or value.container not in ("list", "tuple"):
        return None
    if value.items == ():
        return FLOAT64, (0,)
    if value.items is None:  # grown by append: every element is ``element``, how many is unknown
        inner = coerced_dtype_shape(value.element)
        return None if inner is None else (
            inner[0], None if inner[1] is None else (None,) + tuple(inner[1]))
    parts = [coerced_dtype_shape(item) for item in value.items]
    if any(part is None for part in parts):
        return None
    dtype = result_type(part[0] for part in parts)  # type: ignore[index]
    if dtype is None:
        return None
    shapes = {part[1] for part in parts}  # type: ignore[index]
    inner_shape = shapes.pop() if len(shapes) == 1 else None
    return dtype, None if inner_shape is None else (len(value.items),) + tuple(inner_shape)


def axes(value: Value, rank: Optional[int]) -> Optional[tuple]:
    """Normalised axes of an ``axis=`` argument that is an int or a tuple of ints (negative ones
    counted from the end when the rank is known); None when any is unknown or out of range."""
    items = value.items if isinstance(value, SequenceValue) and value.container == "tuple" \
        else (value,)
    if items is None:
        return None
    out = []
    for item in items:
        axis = int_const(item)
        if axis is None or rank is None or not -rank <= axis < rank:
            return None
        out.append(axis % rank)
    return tuple(out) if len(set(out)) == len(out) else None
