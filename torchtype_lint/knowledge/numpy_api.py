"""numpy functions the engine models: array creation defaults (float64 / int64) and astype."""
from __future__ import annotations

from typing import Any, Optional

from ..values import (
    CallArgs, Callee,
    BOOL, FLOAT64, INT64, TOP, ArrayValue, Origin, ScalarValue, SequenceValue, StringValue,
    SymbolValue, Value,
)
from . import dtypes as D
from .torch_api import dtype_of_arg, literal_dtype_shape, shape_from_size_args, shape_from_value

FLOAT64_FACTORIES = {"zeros", "ones", "empty"}
RANDOM_FLOAT = {"rand", "randn", "random", "random_sample", "uniform", "normal", "standard_normal",
                "sample", "ranf", "beta", "exponential", "gamma"}
LOADERS = {"loadtxt", "genfromtxt"}


def numpy_dtype(value: Value) -> Optional[str]:
    """A dtype argument as numpy reads it: ``np.float32``, ``"float32"``, ``float``..."""
    if isinstance(value, StringValue) and value.const is not None:
        return D.NUMPY_DTYPE_NAMES.get(value.const)
    if isinstance(value, SymbolValue) and value.qualname.startswith("torch."):
        return None
    return dtype_of_arg(value)


def _array(dtype: Optional[str], shape: Any, node: Any, note: str, args: CallArgs,
           parent: Optional[Origin] = None) -> Value:
    if "dtype" in args.kw:
        explicit = numpy_dtype(args.kw["dtype"])
        if explicit is None:
            return ArrayValue(None, shape, Origin(node, "dtype=?"))
        dtype, note = explicit, f"dtype={explicit}"
    return ArrayValue(None if dtype is None else frozenset({dtype}), shape, Origin(node, note, parent))


def call_numpy_function(name: str, args: CallArgs, node: Any) -> Value:
    """``numpy.<name>(...)``; ``name`` is the part after ``numpy.`` (``random.rand`` included)."""
    if name in FLOAT64_FACTORIES:
        return _array(FLOAT64, shape_from_value(args.get(0, "shape")), node,
                      f"np.{name} gives float64", args)
    if name == "full":
        fill = args.get(1, "fill_value")
        dtype = None
        if isinstance(fill, ScalarValue):
            dtype = {"float": FLOAT64, "int": INT64, "bool": BOOL}.get(fill.pytype)
        return _array(dtype, shape_from_value(args.get(0, "shape")), node,
                      f"np.full infers {dtype} from the fill value", args)
    if name.startswith("random.") and name[7:] in RANDOM_FLOAT:
        short = name[7:]
        shape = shape_from_size_args(args) if short in ("rand", "randn") else (
            shape_from_value(args.kw["size"]) if "size" in args.kw else None)
        return _array(FLOAT64, shape, node, f"np.{name} gives float64", args)
    if name in ("random.randint", "random.choice", "random.permutation"):
        return _array(INT64 if name == "random.randint" else None, None, node,
                      f"np.{name} gives int64", args)
    if name in LOADERS:
        return _array(FLOAT64, None, node, f"np.{name} gives float64", args)
    if name in ("array", "asarray", "ascontiguousarray"):
        data = args.get(0, "object")
        if isinstance(data, ArrayValue):
            return _array(data.dtype, data.shape, node, f"np.{name} keeps the dtype", args, data.origin)
        dtype, shape = literal_dtype_shape(data, FLOAT64)
        if dtype is None and "dtype" not in args.kw:
            return TOP
        return _array(dtype, shape, node, f"np.{name} infers {dtype} from the literal", args)
    if name in ("arange",):
        vals = [args.get(i) for i in range(len(args.pos))]
        if not vals or not all(isinstance(v, ScalarValue) for v in vals):
            return _array(None, (None,), node, "", args) if "dtype" in args.kw else TOP
        is_float = any(v.pytype == "float" for v in vals)  # type: ignore[union-attr]
        return _array(FLOAT64 if is_float else INT64, (None,), node,
                      f"np.arange gives {'float64' if is_float else 'int64'}", args)
    if name == "linspace":
        return _array(FLOAT64, None, node, "np.linspace gives float64", args)
    if name in ("zeros_like", "ones_like", "empty_like", "full_like"):
        src = args.get(0)
        if isinstance(src, ArrayValue):
            return _array(src.dtype, src.shape, node, f"np.{name} copies the dtype", args, src.origin)
        return TOP
    return TOP


def ndarray_method(recv: ArrayValue, name: str, args: CallArgs, node: Any) -> Value:
    if name == "astype":
        dtype = numpy_dtype(args.get(0, "dtype"))
        if dtype is None:
            return ArrayValue(None, recv.shape, None)
        return ArrayValue(frozenset({dtype}), recv.shape, Origin(node, f".astype gives {dtype}"))
    if name in ("copy", "squeeze", "flatten", "ravel", "reshape", "transpose"):
        shape = recv.shape if name == "copy" else None
        return ArrayValue(recv.dtypes, shape, recv.origin)
    return TOP


def ndarray_attribute(recv: ArrayValue, name: str) -> Value:
    if name == "T":
        return ArrayValue(recv.dtypes, None if recv.shape is None else tuple(reversed(recv.shape)),
                          recv.origin)
    if name == "shape":
        if recv.shape is None:
            return TOP
        return SequenceValue("tuple", ScalarValue("int"),
                             tuple(ScalarValue("int", d if isinstance(d, int) else None) for d in recv.shape))
    return TOP
