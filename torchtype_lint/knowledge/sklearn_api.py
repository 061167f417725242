"""scikit-learn as the engine meets it in training scripts: class and sample weights (always
float64, the classic source of a float64 loss weight), ``train_test_split`` (each array keeps
its dtype, split along dim 0), the toy-data generators (``make_moons``...: float64 features,
int64 labels) and the bundled datasets read with ``return_X_y=True``. Checked against scikit-learn, where installed, in
tests/test_sklearn_knowledge.py.
"""
from __future__ import annotations

import math
from typing import Any, Optional

from ..model.values import FLOAT64, INT64, TOP, ArrayValue, CallArgs, Origin, ScalarValue, SequenceValue, Value
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
    name = qualname.rsplit(".", 1)[-1]
    if qualname.startswith(_DATASETS) and name in _GENERATORS:
        return _generated(name, args, node)
    if qualname.startswith(_DATASETS) and name in _BUNDLED:
        return _bundled(name, args, node)
    return TOP


_DATASETS = "sklearn.datasets."
#: Generators: their signature up to the keyword-only ones they take, and what decides the
#: feature count (a parameter, or a fixed 2 for the 2-D toy shapes); labels are int64 classes
#: except make_regression's float64 targets.
_GENERATORS = {
    "make_classification": (("n_samples", "n_features"), {"n_samples": 100, "n_features": 20}),
    "make_moons": (("n_samples",), {"n_samples": 100}),
    "make_circles": (("n_samples",), {"n_samples": 100}),
    "make_blobs": (("n_samples", "n_features"), {"n_samples": 100, "n_features": 2}),
    "make_regression": (("n_samples", "n_features"), {"n_samples": 100, "n_features": 100}),
}
#: Keyword-only parameters that change what a generator returns (another tuple, a frame).
_RETURN_CHANGING = ("return_centers", "coef")
#: Datasets shipped with scikit-learn: (rows, features) of ``load_<name>(return_X_y=True)``.
_BUNDLED = {"load_iris": (150, 4), "load_digits": (1797, 64), "load_breast_cancer": (569, 30),
            "load_wine": (178, 13)}


def _int(value: Value) -> Optional[int]:
    if isinstance(value, ScalarValue) and isinstance(value.const, int) and not isinstance(value.const, bool):
        return value.const
    return None


def _generated(name: str, args: CallArgs, node: Any) -> Value:
    """``X, y = make_moons(200, noise=0.1)``: X float64 (n, features), y int64 (n,) (float64
    targets for make_regression, (n, n_targets) when there are several)."""
    positional, defaults = _GENERATORS[name]
    if args.has_star or len(args.pos) > len(positional) or any(k in args.kw for k in _RETURN_CHANGING):
        return TOP
    given = dict(zip(positional, args.pos))
    given.update({k: v for k, v in args.kw.items() if k in positional})
    n = _int(given["n_samples"]) if "n_samples" in given else defaults["n_samples"]
    if "n_samples" in given and isinstance(given["n_samples"], SequenceValue):
        counts = [_int(item) for item in given["n_samples"].items or ()]  # make_moons((3, 5)): 8 rows
        n = sum(counts) if counts and all(c is not None for c in counts) else None  # type: ignore[misc]
    features: Optional[int] = 2
    if "n_features" in positional:
        features = _int(given["n_features"]) if "n_features" in given else defaults["n_features"]
    x = ArrayValue(frozenset({FLOAT64}), (n, features), Origin(node, f"{name} gives float64 features"))
    if name == "make_regression":
        targets = _int(args.kw["n_targets"]) if "n_targets" in args.kw else 1
        shape = (n,) if targets == 1 else (n, targets)
        y = ArrayValue(frozenset({FLOAT64}), shape, Origin(node, f"{name} gives float64 targets"))
    else:
        y = ArrayValue(frozenset({INT64}), (n,), Origin(node, f"{name} gives int64 labels"))
    return SequenceValue("tuple", TOP, (x, y))


def _bundled(name: str, args: CallArgs, node: Any) -> Value:
    """``load_iris(return_X_y=True)``: (float64 features, int64 labels); without return_X_y (a
    Bunch) or as a frame: not followed."""
    flag = args.kw.get("return_X_y")
    if args.pos or args.has_star or not (isinstance(flag, ScalarValue) and flag.const is True) \
            or set(args.kw) - {"return_X_y"}:
        return TOP
    rows, features = _BUNDLED[name]
    return SequenceValue("tuple", TOP, (
        ArrayValue(frozenset({FLOAT64}), (rows, features), Origin(node, f"{name} gives float64 features")),
        ArrayValue(frozenset({INT64}), (rows,), Origin(node, f"{name} gives int64 labels"))))


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
