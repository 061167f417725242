"""numpy as the engine meets it: ``numpy.*`` calls by name, ndarray methods and attributes,
and operators on ndarrays. Array creation (float64 / int64 defaults) lives here; the other
families have a module each, dispatched to from here: numpy_random (sampling), numpy_reductions
(mean, sum, argmax...), numpy_elementwise (ufuncs, clip, where), numpy_shaping (reshape,
transpose, stacking), numpy_products (dot, matmul, cov); numpy_dtypes holds the promotion.
"""
from __future__ import annotations

from typing import Any, Optional

from ..model.values import (
    CallArgs,
    BOOL, FLOAT64, INT64, TOP, ArrayValue, NoneValue, Origin, ScalarValue, SequenceValue,
    SymbolValue, Value, numel,
)
from . import dtypes as D
from . import numpy_elementwise as E
from . import numpy_fft as FFT
from . import numpy_products as P
from . import numpy_reductions as R
from . import numpy_shaping as SH
from . import shapes as S
from .numpy_args import bind, coerced_dtype_shape, given, written_none
from .numpy_dtypes import (
    PYTHON_SCALAR_DTYPES, kind, numpy_dtype, promote_types, result_type, true_divide,
)
from .numpy_random import call_random
from .torch_api import arange_length, int_const, shape_from_size_args, shape_from_value

__all__ = ["binary_op", "call_numpy_function", "ndarray_attribute", "ndarray_method",
           "numpy_dtype", "promote_types"]

FLOAT64_FACTORIES = {"zeros", "ones", "empty"}
#: The float samplers of np.random the runtime harness may call (harness/allowlist.py).
RANDOM_FLOAT = {"rand", "randn", "random", "random_sample", "uniform", "normal", "standard_normal",
                "sample", "ranf", "beta", "exponential", "gamma"}
LOADERS = {"loadtxt", "genfromtxt"}
#: Window functions (``np.hanning(M)``): float64 arrays of length M, with their parameters.
WINDOWS = {"hanning": ("M",), "hamming": ("M",), "blackman": ("M",), "bartlett": ("M",),
           "kaiser": ("M", "beta")}
#: ``np.<name>`` constants that are plain Python floats (weak in NumPy 2 promotion).
FLOAT_CONSTANTS = frozenset(f"numpy.{name}" for name in ("pi", "e", "inf", "nan", "euler_gamma"))
#: Readers of raw bytes: ``dtype=`` (default float64) says what the bytes are.
RAW_READERS = {"frombuffer": ("buffer", "dtype", "count", "offset"),
               "fromfile": ("file", "dtype", "count", "sep", "offset")}


#: Where creation functions take ``dtype`` positionally (``np.zeros((2, 3), np.float32)``).
DTYPE_POSITIONS = {"zeros": 1, "ones": 1, "empty": 1, "full": 2, "array": 1, "asarray": 1,
                   "ascontiguousarray": 1, "zeros_like": 1, "ones_like": 1, "empty_like": 1,
                   "full_like": 2, "loadtxt": 1, "genfromtxt": 1, "linspace": 5, "eye": 3,
                   "identity": 1, "frombuffer": 1, "fromfile": 1}


def _dtype_argument(name: str, args: CallArgs) -> Optional[Value]:
    """The ``dtype`` a creation call passes (by keyword or position), None when it passes none
    or a literal ``None`` (numpy's default); TOP for a None that came through a variable."""
    position = DTYPE_POSITIONS.get(name)
    if not args.has(position, "dtype"):
        return None
    value = args.get(position, "dtype")
    if isinstance(value, NoneValue):
        return None if written_none(args.node(position, "dtype")) else TOP
    return value


def _array(name: str, dtype: Optional[str], shape: Any, node: Any, note: str, args: CallArgs,
           parent: Optional[Origin] = None) -> Value:
    """The array ``np.<name>`` creates: ``dtype`` unless the call passes one."""
    passed = _dtype_argument(name, args)
    if passed is not None:
        explicit = numpy_dtype(passed)
        if explicit is None:
            return ArrayValue(None, shape, Origin(node, "dtype=?"))
        dtype, note = explicit, f"dtype={explicit}"
    return ArrayValue(None if dtype is None else frozenset({dtype}), shape, Origin(node, note, parent))


def call_numpy_function(name: str, args: CallArgs, node: Any) -> Value:
    """``numpy.<name>(...)``; ``name`` is the part after ``numpy.`` (``random.rand`` included)."""
    if name in FLOAT64_FACTORIES:
        return _array(name, FLOAT64, shape_from_value(args.get(0, "shape")), node,
                      f"np.{name} gives float64", args)
    if name == "full":
        fill = args.get(1, "fill_value")
        dtype = None
        if isinstance(fill, ScalarValue):
            dtype = PYTHON_SCALAR_DTYPES.get(fill.pytype)
        return _array(name, dtype, shape_from_value(args.get(0, "shape")), node,
                      f"np.full infers {dtype} from the fill value", args)
    if name.startswith("random."):
        return call_random(name[7:], args, node)
    if name == "load":
        # an .npy file's array of the dtype stored in it (an .npz gives an NpzFile, whose
        # fields are such arrays too): its dtype is only known once cast (np.load(p).astype(...))
        return ArrayValue(None, None, Origin(node, "np.load gives the dtype stored in the file"))
    if name in LOADERS:
        return _array(name, FLOAT64, None, node, f"np.{name} gives float64", args)
    if name in ("array", "asarray", "ascontiguousarray"):
        data = args.get(0, "object")
        if isinstance(data, ArrayValue):
            return _array(name, data.dtype, data.shape, node, f"np.{name} keeps the dtype", args,
                          data.origin)
        coerced = coerced_dtype_shape(data)
        if coerced is None:
            return _array(name, None, None, node, "", args) if _dtype_argument(name, args) else TOP
        inner = _inner_array(data)
        if inner is not None:  # a list of arrays: their dtype, from where they were made
            return _array(name, coerced[0], coerced[1], node, f"np.{name} of arrays keeps their {coerced[0]}",
                          args, inner.origin)
        what = f"a Python {data.pytype}" if isinstance(data, ScalarValue) else "the literal"
        return _array(name, coerced[0], coerced[1], node, f"np.{name} infers {coerced[0]} from {what}",
                      args)
    if name == "arange":
        return _arange(args, node)
    if name == "linspace" and (not args.has(4, "retstep") or  # retstep=True gives (array, step)
                               args.get(4, "retstep") == ScalarValue("bool", False)):
        num = args.get(2, "num") if args.has(2, "num") else ScalarValue("int", 50)
        return _array(name, FLOAT64, (int_const(num),), node, "np.linspace gives float64", args)
    if name in ("zeros_like", "ones_like", "empty_like", "full_like"):
        src = args.get(0)
        if isinstance(src, ArrayValue):
            return _array(name, src.dtype, src.shape, node, f"np.{name} copies the dtype", args,
                          src.origin)
        return TOP
    if name in ("eye", "identity"):
        return _eye(name, args, node)
    if name in WINDOWS:
        bound = bind(args, WINDOWS[name])
        if bound is None or "M" not in bound:
            return TOP
        count = int_const(bound["M"])
        # np.hanning(0) is empty and np.hanning(1) is [1.0]: still float64, M long
        return _array(name, FLOAT64, (count if count is not None and count >= 0 else None,), node,
                      f"np.{name} gives float64", args)
    if name in RAW_READERS:
        bound = bind(args, RAW_READERS[name])
        if bound is None:
            return TOP
        count = int_const(bound["count"]) if "count" in bound else None
        return _array(name, FLOAT64, (count if count is not None and count >= 0 else None,), node,
                      f"np.{name} reads float64 unless dtype= says otherwise", args)
    if name in D.NUMPY_DTYPE_NAMES and len(args.pos) == 1 and not args.kw and not args.has_star:
        return _scalar_of_type(D.NUMPY_DTYPE_NAMES[name], args.pos[0], node)
    return _computed(name, args, node)


def _inner_array(data: Value) -> Optional[ArrayValue]:
    """The first ndarray (with a provenance) inside a list or tuple, searched depth-first."""
    if isinstance(data, ArrayValue):
        return data if data.origin is not None else None
    if isinstance(data, SequenceValue) and data.container in ("list", "tuple"):
        for item in data.items if data.items is not None else (data.element,):
            found = _inner_array(item)
            if found is not None:
                return found
    return None


def _computed(name: str, args: CallArgs, node: Any) -> Value:
    """numpy functions that compute from arrays, each family in its own module."""
    if name.startswith("fft.") and name[4:] in FFT.TRANSFORMS:
        return FFT.transform(name[4:], args, node)
    if name in R.REDUCTIONS:
        return R.reduce_function(name, args, node)
    if name in ("maximum", "minimum", "fmax", "fmin") and len(args.pos) == 2 and not args.kw and not args.has_star:
        return binary_op(args.pos[0], args.pos[1], "+", node)  # promotes and broadcasts as + does
    if name in E.UNARY:
        return E.unary(name, args, node)
    if name in E.ROUND_NAMES:
        return E.round_function(args, node)
    if name == "clip":
        return E.clip_function(args, node)
    if name == "where":
        return E.where(args, node)
    if name in SH.REARRANGEMENTS:
        return SH.rearrange_function(name, args)
    if name in SH.JOINS:
        return SH.join_arrays(name, args, node)
    if name in P.PRODUCTS:
        return P.product_function(name, args, node)
    if name in P.COVARIANCES:
        return P.covariance(name, args, node)
    if name == "bincount":
        return R.bincount(args, node)
    if name == "diff":
        return R.diff(args, node)
    return TOP


def _eye(name: str, args: CallArgs, node: Any) -> Value:
    """``np.eye(N, M=None, k=0, dtype=float)`` / ``np.identity(n, dtype=float)``: float64."""
    signature = ("N", "M", "k", "dtype", "order") if name == "eye" else ("n", "dtype")
    bound = bind(args, signature)
    if bound is None or signature[0] not in bound:
        return TOP
    rows = bound[signature[0]]
    columns = bound["M"] if given(bound, "M") else rows
    if not all(isinstance(v, ScalarValue) and v.pytype == "int" for v in (rows, columns)):
        return TOP
    return _array(name, FLOAT64, (int_const(rows), int_const(columns)), node,
                  f"np.{name} gives float64", args)


def _scalar_of_type(dtype: str, value: Value, node: Any) -> Value:
    """``np.float32(1.5)``: a numpy scalar (a 0-d array to the engine) of that type; of an
    array, an array of that type."""
    if isinstance(value, ScalarValue) and value.pytype in PYTHON_SCALAR_DTYPES:
        return ArrayValue(frozenset({dtype}), (), Origin(node, f"a numpy {dtype} scalar"))
    if isinstance(value, ArrayValue):
        return ArrayValue(frozenset({dtype}), value.shape, Origin(node, f"converted to {dtype}"))
    return TOP


def _arange(args: CallArgs, node: Any) -> Value:
    if args.has_star or args.kw.keys() - {"dtype"}:
        return TOP
    vals = list(args.pos)
    if not vals or len(vals) > 3 or not all(isinstance(v, ScalarValue) and v.pytype in ("int", "float")
                                            for v in vals):
        return _array("arange", None, (None,), node, "", args) if "dtype" in args.kw else TOP
    is_float = any(v.pytype == "float" for v in vals)  # type: ignore[union-attr]
    consts = [v.const for v in vals]  # type: ignore[union-attr]
    length = None
    if all(isinstance(c, (int, float)) and not isinstance(c, bool) for c in consts):
        start, stop, step = (0, consts[0], 1) if len(consts) == 1 else (
            consts[0], consts[1], consts[2] if len(consts) > 2 else 1)
        length = arange_length(start, stop, step)
    return _array("arange", FLOAT64 if is_float else INT64, (length,), node,
                  f"np.arange gives {'float64' if is_float else 'int64'}", args)


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
        dtype = result_type([la.dtype, ra.dtype])
        if dtype is not None and op == "/":
            dtype = true_divide(dtype)
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
    dtype = result_type([arr.dtype], [other.pytype])
    if dtype is not None and op == "/":
        dtype = true_divide(dtype)
    if dtype is None:
        return ArrayValue(None, arr.shape)
    return ArrayValue(frozenset({dtype}), arr.shape,
                      arr.origin if dtype == arr.dtype else Origin(node, f"numpy gives {dtype}"))


#: What ``.item()`` gives for each kind of dtype: a Python scalar.
_ITEM_TYPES = {"b": "bool", "u": "int", "i": "int", "f": "float", "c": "complex"}


#: ``a.tolist()`` of at most this many elements keeps its items (each a Python scalar).
_MAX_LISTED = 1024


def _as_list(recv: ArrayValue, node: Any) -> Value:
    """``a.tolist()``: nested Python lists of Python scalars (``int`` for an integer array,
    ``float`` for a float one), as many as the array's dims say when they are known."""
    if recv.shape is None or recv.dtype is None or kind(recv.dtype) not in _ITEM_TYPES:
        return TOP
    pytype = _ITEM_TYPES[kind(recv.dtype)]
    value: Value = ScalarValue(pytype, None, Origin(node, f".tolist() gives Python {pytype}s"))
    if not recv.shape:
        return value  # a 0-d array's tolist() is its one scalar
    known = all(isinstance(d, int) and not isinstance(d, bool) for d in recv.shape) and \
        numel(recv.shape) <= _MAX_LISTED  # type: ignore[arg-type]
    for size in reversed(recv.shape):
        value = SequenceValue("list", value, (value,) * size if known else None)  # type: ignore[operator]
    return value


def ndarray_method(recv: ArrayValue, name: str, args: CallArgs, node: Any) -> Value:
    """``a.<name>(...)``; TOP for methods not modelled."""
    if name == "tolist" and not args.pos and not args.kw and not args.has_star:
        return _as_list(recv, node)
    if name == "astype":
        dtype = numpy_dtype(args.get(0, "dtype"))
        if dtype is None:
            return ArrayValue(None, recv.shape, None)
        return ArrayValue(frozenset({dtype}), recv.shape, Origin(node, f".astype gives {dtype}"))
    if name == "copy":
        return ArrayValue(recv.dtypes, recv.shape, recv.origin)
    if name in R.METHODS:
        return R.reduce_method(recv, name, args, node)
    if name == "clip":
        return E.clip_method(recv, args, node)
    if name == "round":
        bound = bind(args, ("decimals", "out"))
        return TOP if bound is None or given(bound, "out") else E.rounded(recv, node, ".round")
    if name == "dot" and len(args.pos) == 1 and not args.kw and not args.has_star:
        return P.product("dot", recv, args.pos[0], node, ".dot")
    if name == "item" and not args.pos and not args.kw and recv.dtype is not None:
        pytype = _ITEM_TYPES[kind(recv.dtype)]
        return ScalarValue(pytype, None, Origin(node, f".item() gives a Python {pytype}"))
    if name in ("sort", "fill", "resize"):
        return NoneValue()  # in place (a.resize's new shape: resized_in_place)
    return SH.method(recv, name, args)


def resized_in_place(recv: ArrayValue, args: CallArgs) -> ArrayValue:
    """The array after ``a.resize(new_shape)`` / ``a.resize(n, m)``, which reshapes it in place
    (zero-filling or truncating): the same dtype, the new shape as far as it is known (a size
    not known here is an unknown dim, ``a.resize((n, 1))`` gives ``(?, 1)``)."""
    shape = shape_from_size_args(args, 0, "new_shape") if args.pos or "new_shape" in args.kw else None
    if shape is not None and any(d is not None and d < 0 for d in shape):
        shape = None  # a negative size: numpy refuses it
    return ArrayValue(recv.dtypes, shape, recv.origin)


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
    if name == "dtype" and recv.dtype is not None:
        return SymbolValue(f"numpy.{recv.dtype}")  # what np.float64 is to the engine
    return TOP
