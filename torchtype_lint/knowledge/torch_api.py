"""What torch functions and tensor methods return: dtypes, shapes, devices (torch 2.13).

Each entry point takes abstract argument values and returns an abstract value; anything not
modelled returns TOP. Facts are verified against torch in tests/test_knowledge_torch.py.
"""
from __future__ import annotations

import math
from typing import Any, Callable, Dict, List, Optional, Tuple

from ..model.values import (
    CallArgs,
    BOOL, FLOAT32, INT64, TOP, ArrayValue, DeviceValue, DTypeValue, NoneValue, Origin,
    ScalarValue, SequenceValue, Shape, StringValue, SymbolValue, TensorValue, Value,
    Category, category, numel,
)
from . import dtypes as D
from . import shapes as S
from . import sequence_ops as SQ
from .devices import moved
from .einsum import einsum_shape, parse_equation
from .symbolic_dims import has_names


class Env:
    """What the knowledge layer may ask of the interpreter: the file's default float dtype."""

    def __init__(self, default_float: str = FLOAT32):
        self.default_float = default_float


# --------------------------------------------------------------------------- helpers


def dtype_of_arg(value: Value) -> Optional[str]:
    """A dtype given as an argument: ``torch.float64``, Python ``float``, ``np.float32``..."""
    if isinstance(value, DTypeValue):
        return value.dtype
    if isinstance(value, SymbolValue):
        q = value.qualname
        if q.startswith("builtins."):
            return D.PYTHON_TYPE_DTYPES.get(q[9:])
        if q.startswith("numpy."):
            return D.NUMPY_DTYPE_NAMES.get(q[6:])
    return None


def device_of_arg(value: Value) -> Optional[str]:
    if isinstance(value, DeviceValue):
        return value.device
    if isinstance(value, StringValue) and value.const is not None:
        return value.const.split(":")[0] if value.const.split(":")[0] in ("cpu", "cuda", "mps", "meta") else None
    return None


def int_const(value: Value) -> Optional[int]:
    if isinstance(value, ScalarValue) and value.pytype == "int" and isinstance(value.const, int):
        return value.const
    return None


def shape_from_size_args(args: CallArgs, start: int = 0, name: str = "size", symbols: bool = False) -> Shape:
    """The shape of ``zeros(2, 3)``, ``zeros((2, 3))``, ``zeros([2, n])`` or ``zeros(size=...)``.
    ``symbols``: an int known only as a size (``d_in``, ``n_heads * head_dim``) gives that
    symbolic dim, where the sizes make a tensor; readers of dim *indices* leave it unknown."""
    if args.has_star:
        return None
    if name in args.kw:
        return shape_from_value(args.kw[name], symbols)
    pos = args.pos[start:]
    if len(pos) == 1 and not isinstance(pos[0], ScalarValue):
        return shape_from_value(pos[0], symbols)
    return tuple(_dim(v, symbols) for v in pos) if pos and all(_is_intlike(v) for v in pos) else (
        () if not pos else None)


def _is_intlike(value: Value) -> bool:
    return (isinstance(value, ScalarValue) and value.pytype == "int") or value is TOP


def _dim(value: Value, symbols: bool = False) -> Any:
    const = int_const(value)
    if const is None and symbols and isinstance(value, ScalarValue) and value.pytype == "int":
        return value.size  # a symbolic size, or None
    return const


def shape_from_value(value: Value, symbols: bool = False) -> Shape:
    """A shape given as a tuple/list/torch.Size value (``symbols``: see shape_from_size_args)."""
    if isinstance(value, ScalarValue) and value.pytype == "int":
        return (_dim(value, symbols),)
    if isinstance(value, SequenceValue) and value.items is not None:
        return tuple(_dim(v, symbols) for v in value.items)
    return None


def literal_dtype_shape(value: Value, default_float: str) -> Tuple[Optional[str], Shape]:
    """dtype and shape that ``torch.tensor(literal)`` infers from nested Python scalars."""
    if isinstance(value, ScalarValue):
        return D.scalar_dtype(value.pytype, default_float) if value.pytype != "float" else default_float, ()
    if isinstance(value, ArrayValue) and value.dtype is not None:
        return value.dtype, value.shape  # an ndarray inside a list keeps its dtype (verified)
    if isinstance(value, SequenceValue) and value.container in ("list", "tuple"):
        if value.items is None:
            # A list grown by append (length unknown): every element is ``element``.
            if value.element is TOP or isinstance(value.element, NoneValue):
                return None, None
            d, s = literal_dtype_shape(value.element, default_float)
            return d, (None if d is None or s is None else (None,) + tuple(s))
        if not value.items:
            return default_float, (0,)
        kinds: List[Optional[str]] = []
        shapes = []
        for item in value.items:
            d, s = literal_dtype_shape(item, default_float)
            if d is None:
                return None, None
            kinds.append(d)
            shapes.append(s)
        dtype: Optional[str] = kinds[0]
        for d in kinds[1:]:
            dtype = D.promote_types(dtype, d) if dtype else None
        inner = shapes[0] if all(s == shapes[0] for s in shapes) else None
        return dtype, (None if inner is None else (len(value.items),) + inner)
    return None, None


def _origin(node: Any, note: str, parent: Optional[Origin] = None) -> Origin:
    return Origin(node, note, parent)


def _tensor(dtype: Optional[str], shape: Shape, node: Any, note: str, args: CallArgs,
            parent: Optional[Origin] = None) -> TensorValue:
    """A new tensor, honouring ``dtype=``, ``device=`` and ``requires_grad=`` keywords."""
    explicit = dtype_of_arg(args.kw["dtype"]) if "dtype" in args.kw else None
    if "dtype" in args.kw and explicit is None:
        dtype = None  # dtype given but not knowable
    elif explicit is not None:
        dtype, note = explicit, f"dtype={explicit}"
    rg = args.kw.get("requires_grad")
    requires_grad = rg.const if isinstance(rg, ScalarValue) and rg.pytype == "bool" else None
    device = moved(device_of_arg(args.kw["device"]), node, "created with device=") if "device" in args.kw else "cpu"
    return TensorValue(
        dtypes=None if dtype is None else frozenset({dtype}),
        shape=shape,
        origin=_origin(node, note, parent),
        device=device,
        requires_grad=requires_grad,
    )


# --------------------------------------------------------------------------- torch.* functions

FLOAT_FACTORIES = {"zeros", "ones", "empty", "rand", "randn"}
LIKE_FACTORIES = {"zeros_like", "ones_like", "empty_like", "rand_like", "randn_like",
                  "full_like", "randint_like"}


def call_torch_function(name: str, args: CallArgs, node: Any, env: Env) -> Value:
    """``torch.<name>(...)``; ``name`` is the part after ``torch.``."""
    handler = _TORCH_FUNCTIONS.get(name)
    if handler is not None:
        return handler(name, args, node, env)
    if name in D.LEGACY_TENSOR_TYPES or name == "Tensor":
        return _legacy_constructor(name, args, node, env)
    # torch.<op>(tensor, ...) behaves like tensor.<op>(...) for the ops we model.
    first = args.get(0, "input")
    if isinstance(first, TensorValue) and name in TENSOR_OPS_ALSO_FUNCTIONS:
        rest = CallArgs(args.pos[1:], {k: v for k, v in args.kw.items() if k != "input"},
                        args.pos_nodes[1:], args.kw_nodes, args.has_star)
        return tensor_method(first, name, rest, node, env)
    return TOP


def _factory(name: str, args: CallArgs, node: Any, env: Env) -> Value:
    return _tensor(env.default_float, shape_from_size_args(args, symbols=True), node,
                   f"torch.{name} gives the default dtype {env.default_float}", args)


def _normal(name: str, args: CallArgs, node: Any, env: Env) -> Value:
    """``torch.normal(mean, std, size)`` of two Python numbers: samples of the default dtype
    (``dtype=`` when given), whatever the size; the overloads taking tensors are not followed."""
    mean, std = args.get(0, "mean"), args.get(1, "std")
    if args.has_star or not args.has(2, "size") or not all(
            isinstance(v, ScalarValue) and v.pytype in ("int", "float") for v in (mean, std)):
        return TOP
    return _tensor(env.default_float, shape_from_value(args.get(2, "size"), symbols=True), node,
                   f"torch.normal of two numbers gives the default dtype {env.default_float}", args)


def _full(name: str, args: CallArgs, node: Any, env: Env) -> Value:
    fill = args.get(1, "fill_value")
    if isinstance(fill, ScalarValue):
        dtype = env.default_float if fill.pytype == "float" else D.scalar_dtype(fill.pytype, env.default_float)
    else:
        dtype = None
    size = args.get(0, "size")
    return _tensor(dtype, shape_from_value(size, symbols=True), node,
                   f"torch.full infers {dtype} from the fill value", args)


def _like(name: str, args: CallArgs, node: Any, env: Env) -> Value:
    src = args.get(0, "input")
    if not isinstance(src, TensorValue):
        return TOP
    dtype = src.dtype
    if name == "full_like":
        pass  # keeps the source dtype
    t = _tensor(dtype, src.shape, node, f"torch.{name} copies the dtype of its input", args,
                src.origin)
    if src.dtypes is not None and len(src.dtypes) > 1 and "dtype" not in args.kw:
        return TensorValue(src.dtypes, src.shape, t.origin, t.device, t.requires_grad)
    return t


def _tensor_ctor(name: str, args: CallArgs, node: Any, env: Env) -> Value:
    data = args.get(0, "data")
    if isinstance(data, (ArrayValue, TensorValue)):
        # torch.tensor / as_tensor keep an ndarray's or tensor's dtype.
        note = ("keeps the ndarray's dtype" if isinstance(data, ArrayValue)
                else "keeps the tensor's dtype")
        parent = data.origin
        t = _tensor(data.dtype, data.shape, node, f"torch.{name} {note}", args, parent)
        if data.dtypes is not None and len(data.dtypes) > 1 and "dtype" not in args.kw:
            return TensorValue(data.dtypes, data.shape, t.origin, t.device, t.requires_grad)
        if isinstance(data, TensorValue) and "device" not in args.kw:
            return TensorValue(t.dtypes, t.shape, t.origin, data.device, t.requires_grad)
        return t
    dtype, shape = literal_dtype_shape(data, env.default_float)
    if dtype is None and shape is None:
        if "dtype" in args.kw:
            return _tensor(None, None, node, "", args)
        return TOP
    array = _array_inside(data)
    if array is not None:  # a list of ndarrays: torch keeps their dtype, as for one ndarray
        return _tensor(dtype, shape, node, f"torch.{name} keeps the ndarrays' dtype", args, array.origin)
    note = {BOOL: "from bool literals", INT64: "from int literals (default int64)"}.get(
        dtype or "", f"from float literals (default dtype {env.default_float})")
    return _tensor(dtype, shape, node, f"torch.{name} infers {dtype} {note}", args)


def _array_inside(value: Value) -> Optional[ArrayValue]:
    """The first ndarray in a (nested) list or tuple, if any."""
    while isinstance(value, SequenceValue):
        value = value.items[0] if value.items else value.element
    return value if isinstance(value, ArrayValue) else None


def _from_numpy(name: str, args: CallArgs, node: Any, env: Env) -> Value:
    data = args.get(0)
    if not isinstance(data, ArrayValue):
        return TensorValue(None, None, _origin(node, "torch.from_numpy"), "cpu")
    return TensorValue(data.dtypes, data.shape,
                       _origin(node, "torch.from_numpy keeps the ndarray's dtype", data.origin),
                       "cpu")


def _arange(name: str, args: CallArgs, node: Any, env: Env) -> Value:
    """``torch.arange(end)`` / ``(start, end[, step])``: int64 for int bounds, the default
    float dtype when any bound is a float; length ceil((end - start) / step)."""
    if args.has_star or len(args.pos) > 3:
        return TOP
    if len(args.pos) == 1 and "end" not in args.kw:
        bound_values = {"start": ScalarValue("int", 0), "end": args.pos[0]}
    else:
        bound_values = dict(zip(("start", "end", "step"), args.pos))
    for key in ("start", "end", "step"):
        if key in args.kw:
            bound_values[key] = args.kw[key]
    bound_values.setdefault("start", ScalarValue("int", 0))
    bound_values.setdefault("step", ScalarValue("int", 1))
    bounds = [bound_values.get(k, TOP) for k in ("start", "end", "step")]
    if not all(isinstance(b, ScalarValue) and b.pytype in ("int", "float") for b in bounds):
        return _tensor(None, (None,), node, "", args) if "dtype" in args.kw else TOP
    is_float = any(b.pytype == "float" for b in bounds)  # type: ignore[union-attr]
    dtype = env.default_float if is_float else INT64
    consts = [b.const for b in bounds]  # type: ignore[union-attr]
    length = arange_length(*consts) if all(
        isinstance(c, (int, float)) and not isinstance(c, bool) for c in consts) else None
    why = "float bounds give the default dtype" if is_float else "int bounds give int64"
    return _tensor(dtype, (length,), node, f"torch.arange: {why}", args)


def arange_length(start: Any, stop: Any, step: Any) -> Optional[int]:
    """ceil((stop - start) / step), in double precision like torch and numpy compute it."""
    if not step:
        return None
    if all(isinstance(v, int) for v in (start, stop, step)):
        return max(0, -(-(stop - start) // step))
    return max(0, math.ceil((stop - start) / step))


def _linspace(name: str, args: CallArgs, node: Any, env: Env) -> Value:
    steps = int_const(args.get(2, "steps"))
    return _tensor(env.default_float, (steps,), node,
                   f"torch.{name} gives the default dtype {env.default_float}", args)


def _eye(name: str, args: CallArgs, node: Any, env: Env) -> Value:
    n = int_const(args.get(0, "n"))
    m = int_const(args.get(1, "m")) if args.has(1, "m") else n
    return _tensor(env.default_float, (n, m), node,
                   f"torch.eye gives the default dtype {env.default_float}", args)


def _randint(name: str, args: CallArgs, node: Any, env: Env) -> Value:
    size = args.kw.get("size")
    if size is None and args.pos and not args.has_star:
        size = args.pos[-1]
    shape = shape_from_value(size) if size is not None and not isinstance(size, ScalarValue) else None
    return _tensor(INT64, shape, node, "torch.randint gives int64", args)


def _randperm(name: str, args: CallArgs, node: Any, env: Env) -> Value:
    return _tensor(INT64, (int_const(args.get(0, "n")),), node, "torch.randperm gives int64", args)


def _legacy_constructor(name: str, args: CallArgs, node: Any, env: Env) -> Value:
    """``torch.Tensor(...)`` / ``torch.FloatTensor(...)``: int arguments are sizes, a list or
    tuple is *data* (``torch.Tensor([2, 3])`` has shape (2,)), except a ``torch.Size``."""
    dtype = env.default_float if name == "Tensor" else D.LEGACY_TENSOR_TYPES[name]
    first = args.get(0)
    shape: Shape
    if args.has_star or args.kw.keys() - {"device"}:
        shape = None
    elif not args.pos:
        shape = (0,)
    elif isinstance(first, TensorValue):
        return TOP  # aliases or converts the tensor; not modelled
    elif isinstance(first, ArrayValue):
        shape = first.shape
    elif isinstance(first, SequenceValue):
        literal = type(args.pos_nodes[0]).__name__ in ("List", "Tuple") if args.pos_nodes else False
        # A torch.Size (x.shape) is a size, a literal list/tuple is data; a variable could be either.
        shape = literal_dtype_shape(first, env.default_float)[1] if literal and len(args.pos) == 1 \
            else None
        if not literal and len(args.pos) == 1 and first.container == "list" and isinstance(first.element, ScalarValue):
            # a list of numbers is data (a torch.Size is a tuple): one dimension, its length
            shape = (len(first.items) if first.items is not None else None,)
    else:
        shape = shape_from_size_args(args)
    return TensorValue(frozenset({dtype}), shape,
                       _origin(node, f"torch.{name} creates {dtype}"), "cpu")


def _matmul_fn(name: str, args: CallArgs, node: Any, env: Env) -> Value:
    a, b = args.get(0, "input"), args.get(1, "other" if name != "mm" else "mat2")
    return matmul_result(a, b, node, name)


def _cat(name: str, args: CallArgs, node: Any, env: Env) -> Value:
    seq = args.get(0, "tensors")
    if not isinstance(seq, SequenceValue) or seq.container not in ("list", "tuple"):
        return TOP
    if seq.items is None:
        return _cat_homogeneous(name, seq.element, args, node)
    items = seq.items
    if not items or not all(isinstance(t, TensorValue) for t in items):
        return TOP
    dtype: Optional[str] = None
    for t in items:
        d = t.dtype  # type: ignore[union-attr]
        if d is None:
            dtype = None
            break
        dtype = d if dtype is None else D.promote_types(dtype, d)
    dim = int_const(args.get(1, "dim")) if args.has(1, "dim") else 0
    shapes = [t.shape for t in items]  # type: ignore[union-attr]
    shape = S.cat_shape(shapes, dim) if name == "cat" or name == "concat" else S.stack_shape(shapes, dim)
    return TensorValue(None if dtype is None else frozenset({dtype}), shape,
                       _origin(node, f"torch.{name} promotes its inputs"),
                       _common_device(items))


def _cat_homogeneous(name: str, element: Value, args: CallArgs, node: Any) -> Value:
    """cat/stack of a list of unknown length whose elements all have ``element``'s value
    (a comprehension, a list built by append): the dtype is known when it is a single one,
    the joined dim's size is not."""
    if not isinstance(element, TensorValue):
        return TOP
    dim = int_const(args.get(1, "dim")) if args.has(1, "dim") else 0
    shape: Shape = None
    if element.shape is not None and dim is not None:
        rank = len(element.shape) + (0 if name in ("cat", "concat") else 1)
        d = dim + rank if dim < 0 else dim
        if 0 <= d < rank:
            if name in ("cat", "concat"):
                shape = tuple(None if i == d else x for i, x in enumerate(element.shape))
            else:
                shape = tuple(element.shape[:d]) + (None,) + tuple(element.shape[d:])
    dtypes = element.dtypes if element.dtypes is not None and len(element.dtypes) == 1 else None
    return TensorValue(dtypes, shape, element.origin if dtypes else _origin(node, f"torch.{name}"),
                       element.device)


def _einsum(args: CallArgs, node: Any) -> Value:
    """torch.einsum: operands must share a dtype (mixed dtypes raise); the shape follows the
    equation (``knowledge/einsum.py``)."""
    operands = einsum_operands(args)
    if operands is None or not operands or not all(isinstance(t, TensorValue) for t in operands):
        return TOP
    dtypes = {t.dtype for t in operands}  # type: ignore[union-attr]
    dtype = dtypes.pop() if len(dtypes) == 1 else None
    equation = args.pos[0] if args.pos else TOP
    parsed = parse_equation(equation.const) if isinstance(equation, StringValue) and equation.const is not None \
        else None
    shape = einsum_shape(parsed, [t.shape for t in operands]) if parsed is not None else None  # type: ignore[union-attr]
    return TensorValue(None if dtype is None else frozenset({dtype}), shape,
                       operands[0].origin if dtype else None, _common_device(operands))


def einsum_operands(args: CallArgs) -> Optional[List[Value]]:
    """The operands of ``torch.einsum(equation, *operands)``, also given as one list or tuple;
    None when their number is unknowable (``*ops``, a list grown in a loop)."""
    if args.has_star or args.kw:
        return None
    operands = list(args.pos[1:])
    if len(operands) == 1 and isinstance(operands[0], SequenceValue):
        return list(operands[0].items) if operands[0].items is not None else None
    return operands


def _common_device(values: Any) -> Optional[str]:
    devices = {getattr(v, "device", None) for v in values}
    return devices.pop() if len(devices) == 1 else None


def _where(name: str, args: CallArgs, node: Any, env: Env) -> Value:
    """``torch.where(cond, a, b)``: a and b promote; the shape broadcasts all three."""
    if len(args.pos) != 3 or args.has_star:
        return TOP
    cond, a, b = args.pos
    if not isinstance(cond, TensorValue):
        return TOP
    if isinstance(a, ScalarValue) and isinstance(b, ScalarValue):
        dtype = D.result_type([], [], [a.pytype, b.pytype], env.default_float)
        return TensorValue(None if dtype is None else frozenset({dtype}), cond.shape,
                           _origin(node, f"torch.where of Python scalars gives {dtype}"),
                           cond.device)
    value = binary_op(a, b, "where", node, env)
    if not isinstance(value, TensorValue):
        return TOP
    shape = S.broadcast_shapes(cond.shape, value.shape)
    return TensorValue(value.dtypes, shape, value.origin, value.device, value.requires_grad)


def _cdist(name: str, args: CallArgs, node: Any, env: Env) -> Value:
    """``torch.cdist(x1, x2)``: pairwise distances, (..., P, M) and (..., R, M) -> (..., P, R),
    in the inputs' one floating dtype (mixed dtypes raise: TTL201/TTL401's case)."""
    x1, x2 = args.get(0, "x1"), args.get(1, "x2")
    if not (isinstance(x1, TensorValue) and isinstance(x2, TensorValue)) or x1.dtype is None \
            or x1.dtypes != x2.dtypes or category(x1.dtype) != Category.FLOAT:
        return TOP
    shape = None
    if x1.shape is not None and x2.shape is not None and len(x1.shape) == len(x2.shape) >= 2:
        shape = tuple(x1.shape[:-1]) + (x2.shape[-2],)
    return TensorValue(x1.dtypes, shape, _origin(node, "torch.cdist keeps its inputs' dtype", x1.origin),
                       x1.device)


def _meshgrid(name: str, args: CallArgs, node: Any, env: Env) -> Value:
    """``torch.meshgrid(a, b, ..., indexing="ij")`` (or of one list): a tuple of one grid per
    input, each of shape (len(a), len(b), ...); ``indexing="xy"`` swaps the first two sizes.
    The inputs must share one dtype (else torch raises), which every grid keeps."""
    if args.has_star:
        return TOP
    inputs = list(args.pos)
    if len(inputs) == 1 and isinstance(inputs[0], SequenceValue):
        inputs = list(inputs[0].items) if inputs[0].items is not None else []
    indexing = args.kw.get("indexing")
    if indexing is None:
        order = "ij"  # torch's default (with a warning)
    elif isinstance(indexing, StringValue) and indexing.const in ("ij", "xy"):
        order = indexing.const
    else:
        return TOP
    if not inputs or not all(isinstance(t, TensorValue) for t in inputs):
        return TOP
    dtypes = {t.dtype for t in inputs}  # type: ignore[union-attr]
    dtype = dtypes.pop() if len(dtypes) == 1 else None
    if dtype is None:
        return TOP
    sizes: List[Any] = []
    for t in inputs:
        if t.shape is None or len(t.shape) > 1:  # type: ignore[union-attr]
            sizes = []
            break
        sizes.append(t.shape[0] if t.shape else 1)  # type: ignore[union-attr]
    shape: Shape = None
    if sizes:
        if order == "xy" and len(sizes) >= 2:
            sizes[0], sizes[1] = sizes[1], sizes[0]
        shape = tuple(sizes)
    grids = tuple(TensorValue(frozenset({dtype}), shape, _origin(node, "torch.meshgrid keeps its inputs' dtype",
                                                                 t.origin), t.device) for t in inputs)  # type: ignore
    return SequenceValue("tuple", grids[0] if len(grids) == 1 else TOP, grids)


def _inverse(name: str, args: CallArgs, node: Any, env: Env) -> Value:
    """``torch.inverse(A)`` / ``torch.linalg.inv(A)`` of a floating (..., n, n) tensor: its
    shape and dtype (other dtypes raise)."""
    a = args.get(0, "A" if name == "linalg.inv" else "input")
    if not isinstance(a, TensorValue) or a.dtype is None or category(a.dtype) < Category.FLOAT:
        return TOP
    shape = a.shape
    if shape is not None and (len(shape) < 2 or (isinstance(shape[-1], int) and isinstance(shape[-2], int)
                                                  and shape[-1] != shape[-2])):
        shape = None  # not a batch of square matrices: torch raises
    return TensorValue(a.dtypes, shape, a.origin, a.device, a.requires_grad)


_TORCH_FUNCTIONS: Dict[str, Callable[[str, CallArgs, Any, Env], Value]] = {
    "cdist": _cdist,
    **{n: _factory for n in FLOAT_FACTORIES},
    **{n: _like for n in LIKE_FACTORIES},
    "full": _full, "normal": _normal,
    "tensor": _tensor_ctor, "as_tensor": _tensor_ctor, "asarray": _tensor_ctor,
    "from_numpy": _from_numpy,
    "arange": _arange, "linspace": _linspace, "logspace": _linspace, "eye": _eye,
    "randint": _randint, "randperm": _randperm,
    "matmul": _matmul_fn, "mm": _matmul_fn, "bmm": _matmul_fn, "mv": _matmul_fn,
    "dot": _matmul_fn, "outer": _matmul_fn, "ger": _matmul_fn,  # outer promotes: mixed dtypes stay unknown
    "cat": _cat, "concat": _cat, "stack": _cat,
    "where": _where,
    "meshgrid": _meshgrid, "inverse": _inverse, "linalg.inv": _inverse,
    "einsum": lambda name, args, node, env: _einsum(args, node),
    "nn.utils.rnn.pad_sequence": lambda name, args, node, env: SQ.pad_sequence(args, node),
    "bucketize": lambda name, args, node, env: SQ.bucketize(args, node),
    "cosine_similarity": lambda name, args, node, env: SQ.cosine_similarity(args, node),
}


# --------------------------------------------------------------------------- operations


def matmul_result(a: Value, b: Value, node: Any, name: str = "matmul") -> Value:
    """Result of a matrix product when both operands share one dtype (mixed dtypes raise)."""
    if not isinstance(a, TensorValue) or not isinstance(b, TensorValue):
        return TOP
    dtype = a.dtype if a.dtype is not None and a.dtype == b.dtype else None
    shape = S.matmul_shape(a.shape, b.shape) if name in ("matmul", "@") else S.named_product_shape(
        name, a.shape, b.shape)
    return TensorValue(None if dtype is None else frozenset({dtype}), shape,
                       a.origin if dtype is not None else _origin(node, name),
                       a.device if a.device == b.device else None)


def operand_dtype(value: Value, default_float: str) -> Tuple[Optional[str], str]:
    """(dtype, priority group) of an operand: "dim", "zero" (0-dim tensor) or "scalar"."""
    if isinstance(value, TensorValue):
        if value.dtype is None:
            return None, "dim"
        if value.shape is not None and len(value.shape) == 0:
            return value.dtype, "zero"
        if value.shape is None:
            return value.dtype, "unknown-rank"
        return value.dtype, "dim"
    if isinstance(value, ScalarValue):
        return value.pytype, "scalar"
    return None, "other"


def promote_operands(a: Value, b: Value, default_float: str) -> Optional[str]:
    """The result dtype of an elementwise op between ``a`` and ``b``; None when unknowable."""
    (da, ga), (db, gb) = operand_dtype(a, default_float), operand_dtype(b, default_float)
    if da is None or db is None or "other" in (ga, gb):
        return None
    if "unknown-rank" in (ga, gb):
        # Without the rank we cannot tell a 0-dim tensor from a dimensioned one, unless the
        # answer is the same either way.
        candidates = set()
        for ra in (("dim", "zero") if ga == "unknown-rank" else (ga,)):
            for rb in (("dim", "zero") if gb == "unknown-rank" else (gb,)):
                candidates.add(_result_grouped(da, ra, db, rb, default_float))
        return candidates.pop() if len(candidates) == 1 else None
    return _result_grouped(da, ga, db, gb, default_float)


def _result_grouped(da: str, ga: str, db: str, gb: str, default_float: str) -> Optional[str]:
    groups: Dict[str, List[str]] = {"dim": [], "zero": [], "scalar": []}
    groups[ga].append(da)
    groups[gb].append(db)
    return D.result_type(groups["dim"], groups["zero"], groups["scalar"], default_float)


COMPARISON_OPS = {"==", "!=", "<", "<=", ">", ">=", "eq", "ne", "lt", "le", "gt", "ge"}


def binary_op(a: Value, b: Value, op: str, node: Any, env: Env) -> Value:
    """Elementwise ``a <op> b`` where at least one side is a tensor."""
    ta = a if isinstance(a, TensorValue) else None
    tb = b if isinstance(b, TensorValue) else None
    if ta is None and tb is None:
        return TOP
    if isinstance(a, (NoneValue, StringValue)) or isinstance(b, (NoneValue, StringValue)):
        return TOP  # x == None is a Python bool; other ops raise
    if op == "@":
        return matmul_result(a, b, node, "@")
    shape = S.broadcast_shapes(ta.shape if ta else (), tb.shape if tb else ()) \
        if not ((ta is None and not isinstance(a, ScalarValue)) or
                (tb is None and not isinstance(b, ScalarValue))) else None
    device = (ta.device if ta else None) if not tb else (tb.device if not ta else (
        ta.device if ta.device == tb.device else None))
    if op in COMPARISON_OPS:
        return TensorValue(frozenset({BOOL}), shape, _origin(node, "comparison gives bool"), device)
    dtypes = _promote_sets(a, b, env)
    if dtypes is None:
        return TensorValue(None, shape, None, device)
    if op == "/":
        dtypes = frozenset(D.true_divide_dtype(d, env.default_float) for d in dtypes)
    origin = _dominant_origin(a, b, dtypes, node, op)
    return TensorValue(dtypes, shape, origin, device)


def _promote_sets(a: Value, b: Value, env: Env) -> Optional[frozenset]:
    """Promotion over every combination of the operands' possible dtypes."""
    def choices(v: Value) -> List[Value]:
        if isinstance(v, TensorValue) and v.dtypes is not None and len(v.dtypes) > 1:
            return [TensorValue(frozenset({d}), v.shape) for d in v.dtypes]
        return [v]
    out = set()
    for x in choices(a):
        for y in choices(b):
            r = promote_operands(x, y, env.default_float)
            if r is None:
                return None
            out.add(r)
    return frozenset(out)


def _dominant_origin(a: Value, b: Value, dtypes: frozenset, node: Any, op: str) -> Optional[Origin]:
    # The provenance of a result is the operand that carries its dtype.
    for v in (a, b):
        if isinstance(v, TensorValue) and v.dtypes == dtypes and v.origin is not None:
            return v.origin
    return _origin(node, f"`{op}` promotes to {'/'.join(sorted(dtypes))}")


# --------------------------------------------------------------------------- losses

#: nn loss modules and the functional they compute.
LOSS_FUNCTIONALS = {
    "MSELoss": "mse_loss", "L1Loss": "l1_loss", "SmoothL1Loss": "smooth_l1_loss",
    "HuberLoss": "huber_loss", "KLDivLoss": "kl_div", "BCELoss": "binary_cross_entropy",
    "BCEWithLogitsLoss": "binary_cross_entropy_with_logits", "CrossEntropyLoss": "cross_entropy",
    "NLLLoss": "nll_loss",
}


def loss_dtypes(name: str, x: Value, target: Value, env: Env) -> Optional[frozenset]:
    """The dtype of ``F.<name>(x, target)`` (verified against torch 2.13): regression losses
    promote input and target, huber_loss keeps the input's, BCE-with-logits takes the
    target's, cross_entropy keeps the input's for class indices and promotes with
    probabilities. None when unknown."""
    if not isinstance(x, TensorValue) or x.dtypes is None:
        return None
    if name in ("huber_loss", "nll_loss"):
        return x.dtypes
    if not isinstance(target, TensorValue) or target.dtypes is None:
        return None
    if name in ("mse_loss", "l1_loss", "smooth_l1_loss", "kl_div"):
        return _promote_sets(x, target, env)
    if name == "binary_cross_entropy_with_logits":
        return target.dtypes
    if name == "binary_cross_entropy":
        return x.dtypes if x.dtypes == target.dtypes else None
    if name == "cross_entropy":
        if all(category(d) < Category.FLOAT for d in target.dtypes):
            return x.dtypes
        if all(category(d) == Category.FLOAT for d in target.dtypes):
            return _promote_sets(x, target, env)
    return None


# --------------------------------------------------------------------------- tensor methods

SHAPE_PRESERVING = {
    "abs", "neg", "relu", "clamp", "clip", "clone", "detach", "contiguous", "sign", "round",
    "floor", "ceil", "trunc", "requires_grad_", "pin_memory", "share_memory_", "cpu", "cuda",
    "fill_", "zero_", "masked_fill", "clamp_", "abs_", "relu_", "add", "sub", "mul",
    "nan_to_num", "square", "softmax", "log_softmax", "tril", "triu", "flip", "roll",
    "add_", "sub_", "mul_", "div_", "neg_", "copy_", "normal_", "uniform_", "detach_",
}
#: Out-of-place methods that promote their operands like an operator does.
PROMOTING_BINARY = {"pow": "**", "maximum": "max", "minimum": "min", "fmax": "max", "fmin": "min",
                    "lerp": "lerp", "remainder": "%", "fmod": "%", "floor_divide": "//"}
#: Unary math that gives the default float dtype for integer inputs.
FLOATING_UNARY = {"exp", "log", "sqrt", "rsqrt", "sigmoid", "tanh", "sin", "cos", "log1p",
                  "expm1", "log2", "log10", "erf", "reciprocal"}
REDUCTIONS_KEEP = {"mean", "std", "var", "max", "min", "amax", "amin", "median",
                   "norm", "logsumexp", "nanmean"}
#: Reductions that accumulate bool and integer inputs in int64 (floats keep their dtype).
REDUCTIONS_INT64 = {"sum", "cumsum", "nansum", "prod", "cumprod"}
#: Always int64, whatever the input dtype.
INDEX_RESULT = {"argmax", "argmin", "argsort", "nonzero", "count_nonzero"}
BOOL_RESULT = {"eq", "ne", "lt", "le", "gt", "ge", "isnan", "isinf", "isfinite",
               "logical_not", "logical_and", "logical_or", "any", "all"}

TENSOR_OPS_ALSO_FUNCTIONS = (
    SHAPE_PRESERVING | FLOATING_UNARY | REDUCTIONS_KEEP | REDUCTIONS_INT64 | INDEX_RESULT
    | set(PROMOTING_BINARY) | {"clamp", "clip", "repeat", "repeat_interleave", "split", "chunk", "unbind",
                               "tensor_split",
                               "topk", "sort"}
    | BOOL_RESULT | {"flatten", "reshape", "squeeze", "unsqueeze", "transpose", "permute", "narrow", "select",
                     "t", "div", "true_divide", "matmul", "mm", "bmm", "mv", "dot",
                     "swapaxes", "swapdims", "movedim", "moveaxis", "unflatten"}
    | {"is_floating_point", "is_complex", "index_select", "gather"}
)


def cast_result(value: TensorValue, dtype: Optional[str], node: Any, how: str,
                device: Optional[str] = None) -> TensorValue:
    origin = _origin(node, f"{how} gives {dtype}", None) if dtype else value.origin
    # only floating and complex tensors carry gradients: x.int() never requires grad
    requires_grad = False if dtype is not None and category(dtype) < Category.FLOAT else value.requires_grad
    return TensorValue(frozenset({dtype}) if dtype else value.dtypes, value.shape, origin,
                       device or value.device, requires_grad)


def tensor_method(recv: TensorValue, name: str, args: CallArgs, node: Any, env: Env) -> Value:
    """``recv.<name>(...)`` for a tensor receiver."""
    if name in D.CAST_METHODS:
        if args.pos or args.kw:  # x.int(memory_format=...) is fine; positional args are not
            if args.pos:
                return TOP
        return cast_result(recv, D.CAST_METHODS[name], node, f".{name}()")
    if name == "to":
        return _to(recv, args, node)
    if name == "type":
        if not args.pos and "dtype" not in args.kw:
            return StringValue(None, _origin(node, ".type() with no argument returns a string"))
        target = args.get(0, "dtype")
        dtype = dtype_of_arg(target)
        type_name = target.qualname if isinstance(target, SymbolValue) else (
            target.const if isinstance(target, StringValue) and target.const else None)
        device = recv.device
        if dtype is None and type_name is not None:
            dtype = D.LEGACY_TENSOR_TYPES.get(type_name.rsplit(".", 1)[-1])
            # torch.cuda.FloatTensor moves the tensor too; torch.FloatTensor moves it to the CPU
            device = "cuda" if ".cuda." in f".{type_name}" else "cpu"
        return cast_result(recv, dtype, node, f".type({dtype})", device) if dtype else TensorValue(
            None, recv.shape, None, recv.device)
    if name == "type_as":
        other = args.get(0)
        if isinstance(other, TensorValue) and other.dtype:
            return cast_result(recv, other.dtype, node, ".type_as()")
        return TensorValue(None, recv.shape, None, recv.device)
    if name in ("cuda", "cpu"):
        return TensorValue(recv.dtypes, recv.shape, recv.origin, moved(name, node, f"moved by .{name}()"),
                           recv.requires_grad)
    if name in PROMOTING_BINARY and args.pos and not args.has_star:
        # Out-of-place binary methods promote like the operator (i.pow(0.5) is float32).
        return binary_op(recv, args.pos[0], PROMOTING_BINARY[name], node, env)
    if name in ("clamp", "clip") and not args.has_star:
        bounds = list(args.pos[:2]) + [args.kw[k] for k in ("min", "max") if k in args.kw]
        result: Value = TensorValue(recv.dtypes, recv.shape, recv.origin, recv.device, recv.requires_grad)
        for bound in bounds:
            if isinstance(bound, NoneValue):
                continue
            result = binary_op(result, bound, "clamp", node, env)
            if not isinstance(result, TensorValue):
                return TOP
        return result
    if name == "repeat" and not args.has_star and recv.shape is not None:
        reps = shape_from_size_args(args)
        if reps is None or len(reps) < len(recv.shape):
            return TensorValue(recv.dtypes, None, recv.origin, recv.device, recv.requires_grad)
        padded = (1,) * (len(reps) - len(recv.shape)) + tuple(recv.shape)
        shape = tuple(d * r if isinstance(d, int) and isinstance(r, int) else None
                      for d, r in zip(padded, reps))
        return TensorValue(recv.dtypes, shape, recv.origin, recv.device, recv.requires_grad)
    if name == "repeat_interleave":
        return SQ.repeat_interleave(recv, args)
    if name == "expand" and not args.has_star:
        sizes = shape_from_size_args(args, symbols=True)
        shape = None
        if sizes is not None and recv.shape is not None and len(sizes) >= len(recv.shape):
            offset = len(sizes) - len(recv.shape)
            shape = tuple(recv.shape[i - offset] if d == -1 and i >= offset else d
                          for i, d in enumerate(sizes))
        return TensorValue(recv.dtypes, shape, recv.origin, recv.device, recv.requires_grad)
    if name in ("split", "chunk", "unbind", "tensor_split") and not args.has_star:
        return _pieces(recv, name, args)
    if name in SHAPE_PRESERVING:
        if name in ("add", "sub", "mul") and args.pos:
            return binary_op(recv, args.pos[0], {"add": "+", "sub": "-", "mul": "*"}[name], node, env)
        if name in ("softmax", "log_softmax") and "dtype" in args.kw:
            return cast_result(recv, dtype_of_arg(args.kw["dtype"]), node, f".{name}(dtype=)")
        return TensorValue(recv.dtypes, recv.shape, recv.origin, recv.device,
                           recv.requires_grad if name not in ("detach",) else False)
    if name in ("div", "true_divide") and args.pos and "rounding_mode" not in args.kw:
        return binary_op(recv, args.pos[0], "/", node, env)
    if name in FLOATING_UNARY:
        dtypes = None if recv.dtypes is None else frozenset(
            env.default_float if category(d) < Category.FLOAT else d for d in recv.dtypes)
        return TensorValue(dtypes, recv.shape, recv.origin, recv.device)
    if name in BOOL_RESULT:
        return TensorValue(frozenset({BOOL}), _bool_result_shape(recv, name, args),
                           _origin(node, f".{name}() gives bool"), recv.device)
    if name in ("topk", "sort") and not args.has_star:
        return _values_indices(recv, name, args, node)
    if name in REDUCTIONS_KEEP or name in REDUCTIONS_INT64 or name in INDEX_RESULT:
        return _reduction(recv, name, args, node, env)
    if name in ("matmul", "mm", "bmm", "mv", "dot"):
        return matmul_result(recv, args.get(0), node, name)
    if name in ("view", "reshape"):
        if args.pos and isinstance(args.pos[0], DTypeValue):
            return TOP  # x.view(dtype) reinterprets bits
        target = shape_from_size_args(args, 0, "shape", symbols=True)
        return TensorValue(recv.dtypes, S.reshape_shape(recv.shape, target), recv.origin,
                           recv.device, recv.requires_grad)
    if name in ("view_as", "reshape_as", "expand_as"):
        other = args.get(0)
        shape = other.shape if isinstance(other, TensorValue) else None
        return TensorValue(recv.dtypes, shape, recv.origin, recv.device, recv.requires_grad)
    if name == "unfold" and not args.has_star:
        shape = S.unfold_shape(recv.shape, int_const(args.get(0, "dimension")), int_const(args.get(1, "size")),
                               int_const(args.get(2, "step")))
        return TensorValue(recv.dtypes, shape, recv.origin, recv.device, recv.requires_grad)
    if name == "flatten":
        start = int_const(args.get(0, "start_dim")) if args.has(0, "start_dim") else 0
        end = int_const(args.get(1, "end_dim")) if args.has(1, "end_dim") else -1
        shape = S.flatten_shape(recv.shape, start, end) if start is not None and end is not None else None
        return TensorValue(recv.dtypes, shape, recv.origin, recv.device, recv.requires_grad)
    if name in _DIM_OP_PARAMETERS:
        return TensorValue(recv.dtypes, _dim_op_shape(recv.shape, name, args), recv.origin, recv.device,
                           recv.requires_grad)
    if name in ("size",):
        if args.pos:
            return _size_scalar(recv.shape, int_const(args.pos[0]))
        return _shape_tuple(recv.shape)
    if name == "index_select" and not args.has_star:
        return _index_select(recv, args)
    if name == "gather" and not args.has_star:
        return _gathered(recv, args)
    if name in ("narrow", "select") and not args.has_star:
        return TensorValue(recv.dtypes, _narrowed_shape(recv.shape, name, args), recv.origin, recv.device,
                           recv.requires_grad)
    if name in DTYPE_PREDICATES and not args.pos and not args.kw:
        return dtype_predicate(recv, name)
    if name in ("dim", "ndimension", "numel", "nelement", "element_size"):
        const = len(recv.shape) if name in ("dim", "ndimension") and recv.shape is not None else (
            numel(recv.shape) if name in ("numel", "nelement") else None)
        return ScalarValue("int", const)
    if name == "item":
        d = recv.dtype
        if d is None:
            return TOP
        return ScalarValue({0: "bool", 1: "int", 2: "float", 3: "complex"}[category(d)])
    if name in ("numpy",):
        return ArrayValue(recv.dtypes, recv.shape, _origin(node, ".numpy() keeps the dtype", recv.origin))
    if name == "tolist":
        return _tolist(recv, node)
    if name.startswith("new_"):
        return _new_factory(recv, name, args, node, env)
    return TOP


#: ``x.tolist()`` keeps its items one by one up to this many per list.
_MAX_LISTED = 64


def _tolist(recv: TensorValue, node: Any) -> Value:
    """``x.tolist()``: Python numbers of the dtype's kind (bool, int, float, complex) nested in
    lists, one level per dim, each of the dim's length (a 0-d tensor gives the number itself)."""
    if recv.dtype is None or recv.shape is None:
        return TOP
    pytype = {0: "bool", 1: "int", 2: "float", 3: "complex"}[category(recv.dtype)]
    value: Value = ScalarValue(pytype, None, Origin(node, f".tolist() gives Python {pytype}s"))
    for size in reversed(recv.shape):
        known = isinstance(size, int) and not isinstance(size, bool) and 0 <= size <= _MAX_LISTED
        value = SequenceValue("list", value, (value,) * size if known else None)
    return value


def _index_select(recv: TensorValue, args: CallArgs) -> Value:
    """``x.index_select(dim, index)``: ``x``'s dtype, ``dim`` as long as the index (a 0-d index
    counts one); unknown shape when the dim or the index's length is not known."""
    dim, index = int_const(args.get(0, "dim")), args.get(1, "index")
    shape: Shape = None
    if recv.shape is not None and dim is not None and -len(recv.shape) <= dim < len(recv.shape) \
            and isinstance(index, TensorValue) and index.shape is not None and len(index.shape) <= 1:
        size = index.shape[0] if index.shape else 1
        shape = tuple(size if i == dim % len(recv.shape) else d for i, d in enumerate(recv.shape))
    return TensorValue(recv.dtypes, shape, recv.origin, recv.device, recv.requires_grad)


def _gathered(recv: TensorValue, args: CallArgs) -> Value:
    """``x.gather(dim, index)``: ``x``'s dtype in ``index``'s shape (torch raises unless the index
    has ``x``'s number of dims and is no larger than ``x`` outside ``dim``)."""
    index = args.get(1, "index")
    shape = index.shape if isinstance(index, TensorValue) and index.shape is not None and recv.shape is not None \
        and len(index.shape) == len(recv.shape) else None
    return TensorValue(recv.dtypes, shape, recv.origin, recv.device, recv.requires_grad)


def _narrowed_shape(shape: Shape, name: str, args: CallArgs) -> Shape:
    """``x.narrow(dim, start, length)``: ``length`` along ``dim`` (torch checks that
    ``start + length`` fits; a negative ``start`` counts from the end); ``x.select(dim, i)``:
    ``dim`` dropped. Unknown when the dim or the length is not a known int in range."""
    if shape is None:
        return None
    rank = len(shape)
    dim = int_const(args.get(0, "dim"))
    if dim is None or not -rank <= dim < rank:
        return None
    d = dim % rank
    if name == "select":
        index, size = int_const(args.get(1, "index")), shape[d]
        if index is None or isinstance(size, int) and not -size <= index < size:
            return None
        return tuple(shape[:d]) + tuple(shape[d + 1:])
    start, length, size = int_const(args.get(1, "start")), int_const(args.get(2, "length")), shape[d]
    if start is None or length is None or length < 0:
        return None
    if isinstance(size, int) and not isinstance(size, bool):
        start = start + size if start < 0 else start
        if not 0 <= start <= size or start + length > size:
            return None  # torch raises
    return tuple(shape[:d]) + (length,) + tuple(shape[d + 1:])


#: ``x.is_floating_point()`` / ``x.is_complex()`` (and ``torch.is_floating_point(x)``): the
#: dtype categories each answers True for.
DTYPE_PREDICATES = {"is_floating_point": frozenset({Category.FLOAT}), "is_complex": frozenset({Category.COMPLEX})}


def dtype_predicate(recv: TensorValue, name: str) -> ScalarValue:
    """The bool ``recv.is_floating_point()`` gives: known when every dtype ``recv`` may have
    answers alike (``x.half() if x.is_floating_point() else x`` of a float32 ``x`` is half)."""
    answers = None if recv.dtypes is None else {category(d) in DTYPE_PREDICATES[name] for d in recv.dtypes}
    return ScalarValue("bool", answers.pop() if answers is not None and len(answers) == 1 else None)


#: Shape ops whose dims are arguments, with the names of those parameters (torch's).
_DIM_OP_PARAMETERS: Dict[str, Tuple[str, ...]] = {
    "unsqueeze": ("dim",), "squeeze": ("dim",), "transpose": ("dim0", "dim1"), "swapdims": ("dim0", "dim1"),
    "swapaxes": ("axis0", "axis1"), "t": (), "permute": ("dims",), "movedim": ("source", "destination"),
    "moveaxis": ("source", "destination"), "unflatten": ("dim", "sizes"),
}
#: Past this many pieces, split/chunk/unbind results are kept as "pieces of this shape".
_MAX_TRACKED_PIECES = 64


def _dim_op_shape(shape: Shape, name: str, args: CallArgs) -> Shape:
    """The shape of ``x.<name>(...)`` for the ops of ``_DIM_OP_PARAMETERS``."""
    if args.has_star or shape is None:
        return None
    params = _DIM_OP_PARAMETERS[name]
    if name == "permute":  # x.permute(2, 0, 1), x.permute((2, 0, 1)), x.permute(dims=...)
        if len(args.pos) > 1 or (args.pos and isinstance(args.pos[0], ScalarValue)):
            return S.dim_op_shape(name, shape, [int_const(v) for v in args.pos], False)
        return S.dim_op_shape(name, shape, list(shape_from_value(args.get(0, "dims")) or [None]), False)
    values = [args.get(i, param) for i, param in enumerate(params)]
    if not shape and name in ("squeeze", "transpose", "swapaxes", "swapdims"):  # torch takes 0/-1 on 0-d
        dims = [int_const(v) for v in values if not isinstance(v, NoneValue)] if name != "squeeze" else \
            (_dim_list(values[0]) if args.has(0, "dim") else [])
        return () if dims is not None and all(d is not None and S.dim_in_range(d, 0) for d in dims) else None
    if name in ("movedim", "moveaxis"):
        source, destination = (_dim_list(v) for v in values)
        return S.movedim_shape(shape, source, destination) if source is not None and destination is not None \
            else None
    if name == "unflatten":
        return S.unflatten_shape(shape, int_const(values[0]), shape_from_value(values[1]))
    if name == "squeeze" and isinstance(values[0], SequenceValue):  # x.squeeze((0, 2))
        dims = _dim_list(values[0])
        return S.dim_op_shape(name, shape, dims, False) if dims else None
    given = [v for i, (v, param) in enumerate(zip(values, params)) if args.has(i, param)]
    return S.dim_op_shape(name, shape, [int_const(v) for v in given], False)


def _dim_list(value: Value) -> Optional[List[Optional[int]]]:
    """Dims given as an int or a tuple/list of ints."""
    if isinstance(value, ScalarValue):
        return [int_const(value)]
    if isinstance(value, SequenceValue) and value.items is not None:
        return [int_const(v) for v in value.items]
    return None


def _pieces(recv: TensorValue, name: str, args: CallArgs) -> Value:
    """``x.split(...)`` / ``chunk`` / ``unbind`` / ``tensor_split``: a tuple of pieces with the
    receiver's dtype; each piece when the dim's size and the split are known, else pieces of
    one shape whose size along the dim is unknown."""
    dim_at_ = 1 if name != "unbind" else 0
    dim = int_const(args.get(dim_at_, "dim")) if args.has(dim_at_, "dim") else 0
    shape = None
    d: Optional[int] = None
    if recv.shape is not None and dim is not None and -len(recv.shape) <= dim < len(recv.shape):
        d = dim % len(recv.shape)
        shape = tuple(recv.shape[:d]) + (() if name == "unbind" else (None,)) + tuple(recv.shape[d + 1:])

    def piece(piece_shape: Shape) -> TensorValue:
        return TensorValue(recv.dtypes, piece_shape, recv.origin, recv.device, recv.requires_grad)

    lengths = None if d is None or recv.shape is None else _piece_lengths(recv.shape[d], name, args)
    if lengths is None or shape is None or d is None:
        return SequenceValue("tuple", piece(shape), None)
    if name == "unbind":
        return SequenceValue("tuple", piece(shape), tuple(piece(shape) for _ in lengths))
    items = tuple(piece(shape[:d] + (n,) + shape[d + 1:]) for n in lengths)
    return SequenceValue("tuple", piece(shape), items)


def _piece_lengths(size: Any, name: str, args: CallArgs) -> Optional[Tuple[int, ...]]:
    if name == "unbind":
        return (1,) * size if isinstance(size, int) and 0 <= size <= _MAX_TRACKED_PIECES else None
    if name == "chunk":
        return S.chunk_sizes(size, int_const(args.get(0, "chunks")), _MAX_TRACKED_PIECES)
    if name == "split":
        sections = args.get(0, "split_size") if args.has(0, "split_size") else args.get(0, "split_size_or_sections")
        if isinstance(sections, SequenceValue):  # explicit lengths; they must add up to the size
            lengths = _dim_list(sections)
            if lengths is None or None in lengths or sum(lengths) != size or len(lengths) > _MAX_TRACKED_PIECES:  # type: ignore[arg-type]
                return None
            return tuple(lengths)  # type: ignore[arg-type]
        return S.split_sizes(size, int_const(sections), _MAX_TRACKED_PIECES)
    return None


def _shape_tuple(shape: Shape) -> Value:
    if shape is None:
        return SequenceValue("tuple", ScalarValue("int"), None)
    return SequenceValue("tuple", ScalarValue("int"), tuple(_dim_scalar(d) for d in shape))


def _size_scalar(shape: Shape, dim: Optional[int]) -> Value:
    """``x.size(dim)``: the int, or the named size it is (``b`` of an annotated ``"b d"``)."""
    const = S.dim_at(shape, dim)
    if const is not None or shape is None or dim is None or not -len(shape) <= dim < len(shape):
        return ScalarValue("int", const)
    return _dim_scalar(shape[dim])


def _dim_scalar(dim: Any) -> ScalarValue:
    """A dim read as an int (``b, d = x.shape``): its value, or the symbolic size it is."""
    if isinstance(dim, int):
        return ScalarValue("int", dim)
    return ScalarValue("int", None, None, dim if has_names(dim) else None)


def tensor_attribute(recv: TensorValue, name: str, node: Any) -> Value:
    if name == "shape":
        return _shape_tuple(recv.shape)
    if name == "dtype":
        return DTypeValue(recv.dtype, recv.origin) if recv.dtype else TOP
    if name == "device":
        return DeviceValue(recv.device)
    if name in ("T", "mT"):
        shape = None if recv.shape is None else tuple(reversed(recv.shape)) if name == "T" else (
            recv.shape[:-2] + recv.shape[-2:][::-1] if len(recv.shape) >= 2 else None)
        return TensorValue(recv.dtypes, shape, recv.origin, recv.device, recv.requires_grad)
    if name in ("data",):
        return TensorValue(recv.dtypes, recv.shape, recv.origin, recv.device, False)
    if name == "ndim":
        return ScalarValue("int", None if recv.shape is None else len(recv.shape))
    if name in ("grad",):
        return TOP  # None until a backward pass reached this tensor (and for non-leaves)
    if name in ("real", "imag"):
        return TOP
    if name == "requires_grad":
        return ScalarValue("bool", recv.requires_grad)
    return TOP


def _to(recv: TensorValue, args: CallArgs, node: Any) -> Value:
    dtype = None
    device = recv.device
    unknown = False
    if "device" in args.kw:
        # A value passed as device= is never a dtype, even when it is unknown.
        device = device_of_arg(args.kw["device"])
    nodes = list(args.pos_nodes) + [None] * (len(args.pos) - len(args.pos_nodes))
    for v, v_node in list(zip(args.pos, nodes)) + [(args.kw[k], None) for k in ("dtype", "other") if k in args.kw]:
        d = dtype_of_arg(v)
        if d is None and v is TOP and device_like_name(v_node):
            device = None  # `x.to(device)` / `x.to(self.device)`: a device, not a dtype
            continue
        if d is not None:
            dtype = d
        elif isinstance(v, TensorValue):
            dtype, device = v.dtype, v.device
            if dtype is None:
                unknown = True
        elif isinstance(v, (DeviceValue, StringValue)):
            device = device_of_arg(v)
        elif isinstance(v, ScalarValue) and v.pytype == "bool":
            pass  # non_blocking / copy flags
        else:
            unknown = True
            device = None
    if device is not recv.device:
        device = moved(device, node, "moved by .to()")  # a GPU device remembers this step
    if unknown and dtype is None:
        return TensorValue(None, recv.shape, None, device, recv.requires_grad)
    if dtype is None:
        return TensorValue(recv.dtypes, recv.shape, recv.origin, device, recv.requires_grad)
    return cast_result(recv, dtype, node, f".to({dtype})", device)


def device_like_name(node: Any) -> bool:
    """True for an argument spelled like a device variable: ``device``, ``self.device``,
    ``args.dev``, ``gpu_device`` (nobody names a dtype variable that way)."""
    target = getattr(node, "attr", node)  # an Attribute's last name
    name = getattr(target, "value", None)
    return isinstance(name, str) and name.isidentifier() and (
        "device" in name.lower() or name.lower() in ("dev", "gpu"))


def _reduction(recv: TensorValue, name: str, args: CallArgs, node: Any, env: Env) -> Value:
    if name in ("max", "min") and isinstance(args.get(0, "other"), TensorValue):
        return binary_op(recv, args.get(0, "other"), name, node, env)  # elementwise max(a, b)
    has_dim = args.has(0, "dim") and not isinstance(args.get(0, "dim"), NoneValue)
    keepdim = args.get(1, "keepdim")
    keep = isinstance(keepdim, ScalarValue) and keepdim.const is True
    keep_known = not args.has(1, "keepdim") or (
        isinstance(keepdim, ScalarValue) and isinstance(keepdim.const, bool))
    dim_value = args.get(0, "dim")
    dim = int_const(dim_value) if has_dim else None
    shape: Shape
    if not has_dim:
        shape = () if name not in ("cumsum", "cumprod", "argsort", "nonzero") else recv.shape
        if name == "nonzero":
            shape = (None, len(recv.shape)) if recv.shape is not None else None
    elif name in ("cumsum", "cumprod", "argsort"):
        shape = recv.shape
    elif not keep_known:
        shape = None
    elif dim is not None:
        shape = S.reduce_shape(recv.shape, dim, keep)
    else:
        shape = _reduce_dims(recv.shape, dim_value, keep)
    if name in INDEX_RESULT:
        dtypes: Optional[frozenset] = frozenset({INT64})
    elif name == "logsumexp":
        dtypes = None if recv.dtypes is None else frozenset(
            env.default_float if category(d) < Category.FLOAT else d for d in recv.dtypes)
    elif name in REDUCTIONS_INT64:
        dtypes = None if recv.dtypes is None else frozenset(
            INT64 if category(d) < Category.FLOAT else d for d in recv.dtypes)
    else:
        dtypes = recv.dtypes
    if "dtype" in args.kw:
        d = dtype_of_arg(args.kw["dtype"])
        dtypes = frozenset({d}) if d else None
    result = TensorValue(dtypes, shape, recv.origin if dtypes == recv.dtypes else _origin(
        node, f".{name}() gives {'/'.join(sorted(dtypes)) if dtypes else '?'}"), recv.device)
    if name in ("max", "min", "median") and has_dim:
        # values, indices
        idx = TensorValue(frozenset({INT64}), shape, _origin(node, f".{name}(dim) indices are int64"),
                          recv.device)
        return SequenceValue("tuple", TOP, (result, idx))
    return result


def _bool_result_shape(recv: TensorValue, name: str, args: CallArgs) -> Shape:
    """The shape of ``x.isnan()`` (x's), ``x.eq(y)`` (broadcast with y's), ``x.all(dim)``
    (reduced over dim; every dim without one)."""
    if args.has_star:
        return None
    if name in ("any", "all"):
        if not args.pos and not args.kw:
            return ()
        dim = args.get(0, "dim")
        keep = args.get(1, "keepdim")
        if not (keep is TOP or isinstance(keep, ScalarValue) and isinstance(keep.const, bool)):
            return None
        keepdim = isinstance(keep, ScalarValue) and keep.const is True
        if keep is TOP and args.has(1, "keepdim"):
            return None
        d = int_const(dim)
        if d is not None:
            return S.reduce_shape(recv.shape, d, keepdim) if recv.shape is not None else None
        return _reduce_dims(recv.shape, dim, keepdim)
    if name in ("isnan", "isinf", "isfinite", "logical_not"):
        return recv.shape
    other = args.get(0, "other")
    if isinstance(other, TensorValue):
        return S.broadcast_shapes(recv.shape, other.shape)
    return recv.shape if isinstance(other, ScalarValue) else None


def _reduce_dims(shape: Shape, dims: Value, keep: bool) -> Shape:
    """Reduction over a tuple/list of dims (``x.sum(dim=(0, 1))``)."""
    if shape is None or not isinstance(dims, SequenceValue) or dims.items is None:
        return None
    rank = len(shape)
    picked = set()
    for item in dims.items:
        d = int_const(item)
        if d is None or not -rank <= d < rank:
            return None
        picked.add(d % rank)
    if keep:
        return tuple(1 if i in picked else x for i, x in enumerate(shape))
    return tuple(x for i, x in enumerate(shape) if i not in picked)


def _values_indices(recv: TensorValue, name: str, args: CallArgs, node: Any) -> Value:
    """``topk`` / ``sort``: (values with the receiver's dtype, int64 indices)."""
    shape: Shape = None
    if recv.shape is not None:
        if name == "sort":
            shape = recv.shape
        else:
            k = int_const(args.get(0, "k"))
            dim_value = args.get(1, "dim") if args.has(1, "dim") else ScalarValue("int", -1)
            dim = int_const(dim_value)
            if k is not None and dim is not None and recv.shape and -len(recv.shape) <= dim < len(recv.shape):
                shape = tuple(k if i == dim % len(recv.shape) else x for i, x in enumerate(recv.shape))
    values = TensorValue(recv.dtypes, shape, recv.origin, recv.device)
    indices = TensorValue(frozenset({INT64}), shape, _origin(node, f".{name}() indices are int64"),
                          recv.device)
    return SequenceValue("tuple", TOP, (values, indices))


def _new_factory(recv: TensorValue, name: str, args: CallArgs, node: Any, env: Env) -> Value:
    kind = name[4:]
    if kind == "tensor":
        _, shape = literal_dtype_shape(args.get(0, "data"), env.default_float)
    elif kind == "full":
        shape = shape_from_value(args.get(0, "size"), symbols=True)
    elif kind in ("zeros", "ones", "empty"):
        shape = shape_from_size_args(args, symbols=True)
    else:
        return TOP
    t = _tensor(recv.dtype, shape, node, f".{name}() copies the receiver's dtype", args, recv.origin)
    if "device" not in args.kw:
        t = TensorValue(t.dtypes, t.shape, t.origin, recv.device, t.requires_grad)
    return t
