"""numpy functions the engine models: array creation defaults (float64 / int64) and astype."""
from __future__ import annotations

from typing import Any, Optional

from ..values import (
    CallArgs,
    BOOL, FLOAT64, INT64, TOP, ArrayValue, NoneValue, Origin, ScalarValue, SequenceValue, StringValue,
    SymbolValue, Value,
)
from . import dtypes as D
from . import shapes as S
from .torch_api import (
    arange_length, dtype_of_arg, int_const, literal_dtype_shape, shape_from_size_args, shape_from_value,
)

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
            dtype = {"float": FLOAT64, "int": INT64, "bool": BOOL, "complex": "complex128"}.get(
                fill.pytype)
        return _array(dtype, shape_from_value(args.get(0, "shape")), node,
                      f"np.full infers {dtype} from the fill value", args)
    if name.startswith("random."):
        return _random(name[7:], args, node)
    if name in LOADERS:
        return _array(FLOAT64, None, node, f"np.{name} gives float64", args)
    if name in ("array", "asarray", "ascontiguousarray"):
        data = args.get(0, "object")
        if isinstance(data, ArrayValue):
            return _array(data.dtype, data.shape, node, f"np.{name} keeps the dtype", args, data.origin)
        if isinstance(data, ScalarValue) and data.pytype in ("int", "float", "bool", "complex"):
            dtype = _PYTHON_SCALAR_DTYPES[data.pytype]
            return _array(dtype, (), node, f"np.{name} infers {dtype} from a Python {data.pytype}", args)
        dtype, shape = literal_dtype_shape(data, FLOAT64)
        if dtype is None and "dtype" not in args.kw:
            return TOP
        if dtype == "complex64":  # literal_dtype_shape follows torch; numpy's complex is 128-bit
            dtype = "complex128"
        return _array(dtype, shape, node, f"np.{name} infers {dtype} from the literal", args)
    if name == "arange":
        return _arange(args, node)
    if name == "linspace":
        num = args.get(2, "num") if args.has(2, "num") else ScalarValue("int", 50)
        return _array(FLOAT64, (int_const(num),), node, "np.linspace gives float64", args)
    if name in ("concatenate", "stack", "vstack", "hstack") and not args.has_star:
        return _join_arrays(name, args, node)
    if name in ("zeros_like", "ones_like", "empty_like", "full_like"):
        src = args.get(0)
        if isinstance(src, ArrayValue):
            return _array(src.dtype, src.shape, node, f"np.{name} copies the dtype", args, src.origin)
        return TOP
    return TOP


_PYTHON_SCALAR_DTYPES = {"int": INT64, "float": FLOAT64, "bool": BOOL, "complex": "complex128"}


def _arange(args: CallArgs, node: Any) -> Value:
    if args.has_star or args.kw.keys() - {"dtype"}:
        return TOP
    vals = list(args.pos)
    if not vals or len(vals) > 3 or not all(isinstance(v, ScalarValue) and v.pytype in ("int", "float")
                                            for v in vals):
        return _array(None, (None,), node, "", args) if "dtype" in args.kw else TOP
    is_float = any(v.pytype == "float" for v in vals)  # type: ignore[union-attr]
    consts = [v.const for v in vals]  # type: ignore[union-attr]
    length = None
    if all(isinstance(c, (int, float)) and not isinstance(c, bool) for c in consts):
        start, stop, step = (0, consts[0], 1) if len(consts) == 1 else (
            consts[0], consts[1], consts[2] if len(consts) > 2 else 1)
        length = arange_length(start, stop, step)
    return _array(FLOAT64 if is_float else INT64, (length,), node,
                  f"np.arange gives {'float64' if is_float else 'int64'}", args)


def _join_arrays(name: str, args: CallArgs, node: Any) -> Value:
    """np.concatenate / np.stack of a literal list of arrays: numpy promotion, joined shape."""
    seq = args.get(0, "arrays" if name != "concatenate" else "a")
    if not isinstance(seq, SequenceValue) or not seq.items or \
            not all(isinstance(a, ArrayValue) for a in seq.items) or args.kw.keys() - {"axis"}:
        return TOP
    arrays = seq.items
    dtype: Optional[str] = None
    for a in arrays:
        if a.dtype is None:  # type: ignore[union-attr]
            dtype = None
            break
        dtype = a.dtype if dtype is None else promote_types(dtype, a.dtype)  # type: ignore[union-attr]
        if dtype is None:
            break
    shapes = [a.shape for a in arrays]  # type: ignore[union-attr]
    shape = None
    if name in ("concatenate", "stack"):
        axis_value = args.get(1, "axis") if args.has(1, "axis") else ScalarValue("int", 0)
        axis = int_const(axis_value)
        shape = S.cat_shape(shapes, axis) if name == "concatenate" else S.stack_shape(shapes, axis)
    elif name == "vstack" and all(s is not None and len(s) >= 2 for s in shapes):
        shape = S.cat_shape(shapes, 0)
    elif name == "hstack" and all(s is not None and len(s) >= 2 for s in shapes):
        shape = S.cat_shape(shapes, 1)
    return ArrayValue(None if dtype is None else frozenset({dtype}), shape,
                      Origin(node, f"np.{name} promotes its inputs"))


def _random(name: str, args: CallArgs, node: Any) -> Value:
    """np.random.*: floats are float64, integers int64; ``size=`` (or the dims) is the shape."""
    if args.has_star:
        return TOP
    if name in ("rand", "randn"):
        if not args.pos and not args.kw:
            return ScalarValue("float", None, Origin(node, f"np.random.{name}() is a Python float"))
        return _array(FLOAT64, shape_from_size_args(args), node, f"np.random.{name} gives float64", args)
    if name in RANDOM_FLOAT:
        size_position = {"random": 0, "random_sample": 0, "sample": 0, "ranf": 0,
                         "standard_normal": 0, "uniform": 2, "normal": 2, "beta": 2,
                         "exponential": 1, "gamma": 2}.get(name)
        if not args.has(size_position, "size"):
            return TOP  # without size numpy returns a scalar
        return _array(FLOAT64, _size_shape(args.get(size_position, "size")), node,
                      f"np.random.{name} gives float64", args)
    if name == "randint":
        if not args.has(2, "size"):
            return TOP
        return _array(INT64, _size_shape(args.get(2, "size")), node, "np.random.randint gives int64", args)
    if name == "permutation":
        n = args.get(0, "x")
        if isinstance(n, ScalarValue) and n.pytype == "int":
            return _array(INT64, (int_const(n),), node, "np.random.permutation(n) gives int64", args)
        if isinstance(n, ArrayValue):
            return ArrayValue(n.dtypes, n.shape, Origin(node, "np.random.permutation keeps the dtype",
                                                        n.origin))
    return TOP


def _size_shape(size: Value) -> Any:
    if isinstance(size, NoneValue):
        return None
    return shape_from_value(size)


def promote_types(a: str, b: str) -> Optional[str]:
    """``np.promote_types`` for the common dtypes (numpy has no bfloat16); None if unmodelled.

    Unlike torch, numpy widens to keep every value: int64 with float32 is float64, and
    uint8 with int8 is int16.
    """
    if a == b:
        return a
    if a == BOOL:
        return b
    if b == BOOL:
        return a
    if a not in _NP_SIZES or b not in _NP_SIZES:
        return None
    ka, kb = _np_kind(a), _np_kind(b)
    if ka in "ui" and kb in "ui":
        if ka == kb:
            return a if _NP_SIZES[a] >= _NP_SIZES[b] else b
        unsigned, signed = (a, b) if ka == "u" else (b, a)
        if _NP_SIZES[signed] > _NP_SIZES[unsigned]:
            return signed
        return {1: "int16", 2: "int32", 4: INT64}.get(_NP_SIZES[unsigned], FLOAT64)
    # At least one is inexact: find the float width that holds both, then complex if needed.
    width = max(_float_width(a), _float_width(b))
    if "c" in (ka, kb):
        return {4: "complex64", 8: "complex128"}.get(max(width, 4), "complex128")
    return {2: "float16", 4: "float32", 8: FLOAT64}[width]


_NP_SIZES = {"uint8": 1, "int8": 1, "uint16": 2, "int16": 2, "uint32": 4, "int32": 4,
             "uint64": 8, "int64": 8, "float16": 2, "float32": 4, FLOAT64: 8,
             "complex64": 8, "complex128": 16}


def _np_kind(dtype: str) -> str:
    return "u" if dtype.startswith("uint") else "i" if dtype.startswith("int") else (
        "c" if dtype.startswith("complex") else "f")


def _float_width(dtype: str) -> int:
    """Bytes of the smallest float that holds every value of ``dtype`` (per component)."""
    kind, size = _np_kind(dtype), _NP_SIZES[dtype]
    if kind == "f":
        return size
    if kind == "c":
        return size // 2
    return {1: 2, 2: 4}.get(size, 8)


_COMPARISONS = ("==", "!=", "<", "<=", ">", ">=")


def binary_op(left: Value, right: Value, op: str, node: Any = None) -> Value:
    """``left <op> right`` where one side is an ndarray and the other an ndarray or a Python
    scalar. NumPy 2 (NEP 50): Python scalars are weak (they only raise the kind), arrays are
    not. A tensor operand is not handled here."""
    la = left if isinstance(left, ArrayValue) else None
    ra = right if isinstance(right, ArrayValue) else None
    if la is None and ra is None:
        return TOP
    if la is not None and ra is not None:
        if op == "@":
            shape = S.matmul_shape(la.shape, ra.shape)
        else:
            shape = S.broadcast_shapes(la.shape, ra.shape)
        if op in _COMPARISONS:
            return ArrayValue(frozenset({BOOL}), shape, Origin(node, "comparison gives bool"))
        if la.dtype is None or ra.dtype is None:
            return ArrayValue(None, shape)
        dtype = promote_types(la.dtype, ra.dtype)
        if dtype is not None and op == "/":
            dtype = _true_divide(dtype)
        if dtype is None:
            return ArrayValue(None, shape)
        origin = la.origin if dtype == la.dtype else ra.origin if dtype == ra.dtype else Origin(
            node, f"numpy promotes {la.dtype} and {ra.dtype} to {dtype}")
        return ArrayValue(frozenset({dtype}), shape, origin)
    arr = la or ra
    other = right if la is not None else left
    if not isinstance(other, ScalarValue) or arr is None:
        return TOP
    if op in _COMPARISONS:
        return ArrayValue(frozenset({BOOL}), arr.shape, Origin(node, "comparison gives bool"))
    if op == "@" or arr.dtype is None:
        return TOP if op == "@" else ArrayValue(None, arr.shape)
    dtype = D.result_type([arr.dtype], [], [other.pytype], FLOAT64)
    if dtype == "complex32":  # torch's complex half; numpy's smallest complex is complex64
        dtype = "complex64"
    if dtype is not None and op == "/":
        dtype = _true_divide(dtype)
    if dtype is None:
        return ArrayValue(None, arr.shape)
    return ArrayValue(frozenset({dtype}), arr.shape,
                      arr.origin if dtype == arr.dtype else Origin(node, f"numpy gives {dtype}"))


def _true_divide(dtype: str) -> str:
    # Integer (and bool) true division gives float64 in numpy, whatever the width.
    return FLOAT64 if dtype == BOOL or _np_kind(dtype) in "ui" else dtype


def ndarray_method(recv: ArrayValue, name: str, args: CallArgs, node: Any) -> Value:
    if name == "astype":
        dtype = numpy_dtype(args.get(0, "dtype"))
        if dtype is None:
            return ArrayValue(None, recv.shape, None)
        return ArrayValue(frozenset({dtype}), recv.shape, Origin(node, f".astype gives {dtype}"))
    if name == "copy":
        return ArrayValue(recv.dtypes, recv.shape, recv.origin)
    if name in ("flatten", "ravel"):
        n = S.numel_known(recv.shape) if recv.shape is not None else None
        return ArrayValue(recv.dtypes, (n,) if recv.shape is not None else None, recv.origin)
    if name == "reshape":
        target = shape_from_size_args(args, 0, "shape") if "order" not in args.kw else None
        return ArrayValue(recv.dtypes, S.reshape_shape(recv.shape, target), recv.origin)
    if name == "transpose" and not args.pos and recv.shape is not None:
        return ArrayValue(recv.dtypes, tuple(reversed(recv.shape)), recv.origin)
    if name in ("squeeze", "transpose"):
        return ArrayValue(recv.dtypes, None, recv.origin)
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
    if name == "ndim" and recv.shape is not None:
        return ScalarValue("int", len(recv.shape))
    if name == "size" and recv.shape is not None:
        return ScalarValue("int", S.numel_known(recv.shape))
    return TOP
