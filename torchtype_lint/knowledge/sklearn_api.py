"""scikit-learn as the engine meets it in training scripts: class and sample weights (always
float64, the classic source of a float64 loss weight) and ``train_test_split`` (each array keeps
its dtype, split along dim 0). Checked against scikit-learn, where installed, in
tests/test_sklearn_knowledge.py.
"""
from __future__ import annotations

import math
from typing import Any, Optional

from ..model.values import FLOAT64, TOP, ArrayValue, CallArgs, Origin, ScalarValue, SequenceValue, Value
from .numpy_args import KEYWORD_ONLY, bind

PREFIX = "sklearn."
_CLASS_WEIGHT = ("sklearn.utils.class_weight.compute_class_weight", "sklearn.utils.compute_class_weight")
_SAMPLE_WEIGHT = ("sklearn.utils.class_weight.compute_sample_weight", "sklearn.utils.compute_sample_weight")
_SPLIT = ("sklearn.model_selection.train_test_split",)


def _length(value: Value) -> Optional[int]:
    """How many items an array or a list of known items holds along dim 0."""
    if isinstance(value, ArrayValue) and value.shape and isinstance(value.shape[0], int):
        return value.shape[0]
    if isinstance(value, SequenceValue) and value.items is not None:
        return len(value.items)
    return None


def call_sklearn_function(qualname: str, args: CallArgs, node: Any) -> Value:
    if qualname in _CLASS_WEIGHT:
        bound = bind(args, ("class_weight", KEYWORD_ONLY, "classes", "y"))
        if bound is None:
            return TOP
        count = _length(bound["classes"]) if "classes" in bound else None
        return ArrayValue(frozenset({FLOAT64}), (count,), Origin(node, "compute_class_weight gives float64"))
    if qualname in _SAMPLE_WEIGHT:
        bound = bind(args, ("class_weight", "y", KEYWORD_ONLY, "indices"))
        if bound is None or "indices" in bound:
            return TOP
        count = _length(bound["y"]) if "y" in bound else None
        return ArrayValue(frozenset({FLOAT64}), (count,), Origin(node, "compute_sample_weight gives float64"))
    if qualname in _SPLIT:
        return _train_test_split(args, node)
    return TOP


def _test_count(n: int, args: CallArgs) -> Optional[int]:
    """How many rows the test part gets: ``test_size`` as a fraction (rounded up) or a count,
    0.25 when neither size is given; None when ``train_size`` decides or a size is unknown."""
    if "train_size" in args.kw:
        return None
    size = args.kw.get("test_size")
    if size is None:
        return math.ceil(0.25 * n)
    if isinstance(size, ScalarValue) and isinstance(size.const, float) and 0 < size.const < 1:
        return math.ceil(size.const * n)
    if isinstance(size, ScalarValue) and isinstance(size.const, int) and not isinstance(size.const, bool) \
            and 0 < size.const < n:
        return size.const
    return None


def _train_test_split(args: CallArgs, node: Any) -> Value:
    """``X_train, X_test, y_train, y_test = train_test_split(X, y, ...)``: each array's train and
    test parts, in its dtype (arrays only; a list or tensor given is not followed)."""
    if args.has_star or not args.pos or set(args.kw) - {"test_size", "train_size", "random_state", "shuffle",
                                                        "stratify"}:
        return TOP
    parts = []
    for array in args.pos:
        if not isinstance(array, ArrayValue) or array.shape is None or not array.shape:
            parts.extend([TOP, TOP])
            continue
        n = array.shape[0]
        test = _test_count(n, args) if isinstance(n, int) else None
        rest = tuple(array.shape[1:])
        origin = Origin(node, "train_test_split keeps the dtype", array.origin)
        parts.append(ArrayValue(array.dtypes, (None if test is None else n - test,) + rest, origin))
        parts.append(ArrayValue(array.dtypes, (test,) + rest, origin))
    return SequenceValue("list", TOP, tuple(parts))
