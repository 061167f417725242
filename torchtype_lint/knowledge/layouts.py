"""Memory layouts: the strides torch gives a tensor, for the operations whose rule is known.

A ``TensorValue``'s ``layout`` (``model/values.py``) holds its strides when every dim of its
shape is a known int and the operation that made it is one of those below; anything else
leaves it unknown (None), and unknown is silent: ``view`` is judged only on known strides.
Every rule here was measured in torch (tests/test_layouts.py runs each against torch):

- fresh results are row-major (``torch.zeros``, ``torch.randn``, a matrix product, ``nn.Linear``,
  ``topk``'s values and indices, ``.contiguous()``);
- ``t``/``transpose``/``permute``/``movedim``/``.T``/``.mT`` permute the strides; ``x[a:b:c, i]``
  keeps them (multiplied by the step, the indexed dim dropped); ``unsqueeze``/``squeeze``/``expand``
  insert, drop or zero them; ``view`` (and ``unflatten``) lays the new shape over them
  (``computeStride``), ``reshape`` too where it can, else copies row-major;
- elementwise operations (``a + b``, ``a.eq(b)``, ``torch.relu(x)``, ``nn.ReLU``) allocate their
  result by TensorIterator's rule: the dims sorted by the inputs' strides (the first input that
  orders a pair decides; broadcast dims decide nothing), then dense in that order;
- a dtype conversion (``.double()``, ``.to(torch.float16)``) or ``.clone()`` keeps the strides of
  a dense input (preserve_format), else gives the suggested format; a conversion to the same
  dtype returns the tensor itself;
- 2-D convolutions, batch norms and pools of a 4-D input give channels-last strides when the
  input's strides are channels-last-like (``suggest_memory_format``), else row-major;
- a tensor's rows (``for row in t``, a ``TensorDataset``'s samples) keep the other dims' strides,
  and default_collate's ``torch.stack`` of row-major samples is row-major (unless the stacked
  shape is channels-last-like, where ``torch.cat`` allocates channels-last);
- ``narrow``, ``select``, ``chunk``/``split``/``unbind`` pieces are views (the strides kept, the
  selected dim's dropped); ``torch.cat``/``torch.stack`` below 4-D, ``repeat`` and ``F.pad``
  (constant mode, below 4-D) give new row-major tensors whatever the inputs' strides (a 4-D
  ``cat``/``pad`` takes the inputs' suggested format);
- ``nn.RNN``/``nn.GRU``/``nn.LSTM`` of a float32/float64 input on the CPU: the time-major output
  and the final states are row-major, a ``batch_first`` output is the time-major one transposed
  back (not contiguous); on CUDA (cuDNN) not measured, so unknown.

A size-1 dim's stride may be unknown (None, "any") where only the other dims' strides are
certain: a dtype conversion copies a tensor of unknown layout with at most one dim longer than
1 into stride 1 for that dim (a dense input keeps its strides, another is made row-major), but
the size-1 dims keep whatever strides the input had. torch never reads a size-1 dim's stride
to decide ``is_contiguous`` or whether a ``view`` fits; operations whose result would depend on
it (an elementwise result's order, a suggested format) leave such a layout unknown.
"""
from __future__ import annotations

from dataclasses import replace
from typing import Any, List, Optional, Sequence, Tuple

from ..model.values import Category, Layout, SequenceValue, TensorValue, Value, category

Strides = Tuple[int, ...]


def known_shape(shape: Any) -> bool:
    """A shape whose every dim is a known int."""
    return shape is not None and all(isinstance(d, int) and not isinstance(d, bool) and d >= 0 for d in shape)


def strides_of(value: Value) -> Optional[Strides]:
    """The value's strides when known (and of its rank); a size-1 dim's may be None (any)."""
    if not isinstance(value, TensorValue) or value.layout is None or not known_shape(value.shape):
        return None
    strides = value.layout.strides
    return strides if len(strides) == len(value.shape) else None  # type: ignore[arg-type]


def made_by(value: Value) -> Any:
    """The node of the operation that last gave ``value`` a layout other than row-major."""
    return value.layout.made_by if isinstance(value, TensorValue) and value.layout is not None else None


def with_layout(value: Value, strides: Optional[Sequence[int]], note: Any = None) -> Value:
    """``value`` with the strides ``strides`` (unknown when None, or when they do not fit its
    shape). ``note``: the node to name as what made the layout (kept from before when None)."""
    if not isinstance(value, TensorValue):
        return value
    if strides is None or not known_shape(value.shape) or len(strides) != len(value.shape) or any(  # type: ignore
            stride is None and size != 1 for size, stride in zip(value.shape, strides)):  # type: ignore[arg-type]
        if value.layout is None:
            return value
        return replace(value)  # a copy without the layout
    strides = tuple(strides)
    shape = value.shape
    row_major = strides == contiguous(shape) or wild(strides) and is_contiguous(shape, strides)  # type: ignore
    layout = Layout(strides, None if row_major else note)  # type: ignore[arg-type]
    if value.layout == layout:
        return value
    out = replace(value)
    object.__setattr__(out, "layout", layout)
    return out


def contiguous(shape: Sequence[int]) -> Strides:
    """Row-major strides: the last dim moves by one element."""
    strides, step = [], 1
    for size in reversed(shape):
        strides.append(step)
        step *= max(size, 1)  # torch counts a size-0 dim as 1 when it lays out strides
    return tuple(reversed(strides))


def is_contiguous(shape: Sequence[int], strides: Sequence[int]) -> bool:
    """torch's ``is_contiguous``: size-1 (and size-0) dims may have any stride."""
    if any(size == 0 for size in shape):
        return True
    expected = 1
    for size, stride in zip(reversed(shape), reversed(strides)):
        if size != 1:
            if stride != expected:
                return False
            expected *= size
    return True


def wild(strides: Sequence[Optional[int]]) -> bool:
    """Whether some size-1 dim's stride is unknown (None)."""
    return any(stride is None for stride in strides)


def is_dense(shape: Sequence[int], strides: Sequence[int]) -> bool:
    """torch's ``is_non_overlapping_and_dense``: the dims, sorted by stride, tile memory
    (size-1 dims tile nothing: their strides are not read)."""
    if any(size == 0 for size in shape):
        return True
    order = sorted((d for d in range(len(shape)) if shape[d] != 1), key=lambda d: (strides[d], shape[d]))
    expected = 1
    for d in order:
        if shape[d] == 1:
            continue
        if strides[d] != expected:
            return False
        expected *= shape[d]
    return True


def permuted(strides: Sequence[int], order: Sequence[int]) -> Strides:
    """The strides of ``x.permute(order)``: a view, the strides move with their dims."""
    return tuple(strides[d] for d in order)


def view_strides(shape: Sequence[int], strides: Sequence[int], target: Sequence[int]) -> Optional[Strides]:
    """The strides ``view(target)`` gives, or None when no strides fit: each run of dims that
    are contiguous with one another must map onto whole dims of ``target`` (torch's
    ``computeStride``; element counts must already agree). With a size-1 dim's stride
    unknown: size-1 dims never decide whether it fits nor the other dims' strides (checked
    against torch over random layouts in tests/test_layouts.py), so the view is judged without
    them and the target's size-1 dims get unknown strides."""
    if wild(strides):
        keep = [d for d in range(len(shape)) if shape[d] != 1]
        if any(strides[d] is None for d in keep):
            return None
        squeezed = view_strides([shape[d] for d in keep], [strides[d] for d in keep], [t for t in target if t != 1])
        if squeezed is None:
            return None
        rest = iter(squeezed)
        return tuple(next(rest) if t != 1 else None for t in target)  # type: ignore[misc]
    if not shape:
        return contiguous(target)  # a 0-dim tensor views as any shape of one element
    if any(size == 0 for size in shape):
        return contiguous(target)  # an empty tensor views as any shape of no element
    new = [0] * len(target)
    view_d = len(target) - 1
    chunk_base = strides[-1]
    tensor_numel, view_numel = 1, 1
    for d in range(len(shape) - 1, -1, -1):
        tensor_numel *= shape[d]
        # a chunk ends where the next dim out does not continue this one's memory
        if d == 0 or (shape[d - 1] != 1 and strides[d - 1] != tensor_numel * chunk_base):
            while view_d >= 0 and (view_numel < tensor_numel or target[view_d] == 1):
                new[view_d] = view_numel * chunk_base
                view_numel *= target[view_d]
                view_d -= 1
            if view_numel != tensor_numel:
                return None
            if d > 0:
                chunk_base = strides[d - 1]
                tensor_numel, view_numel = 1, 1
    return tuple(new) if view_d == -1 else None


def unsqueezed(shape: Sequence[int], strides: Sequence[int], dim: int) -> Strides:
    """``x.unsqueeze(dim)`` (``dim`` already in [0, rank]): the new dim's stride is that of
    the dim it is put before times its size, 1 at the end."""
    new = 1 if dim >= len(shape) else None if strides[dim] is None else shape[dim] * strides[dim]
    return tuple(strides[:dim]) + (new,) + tuple(strides[dim:])


def expanded(shape: Sequence[int], strides: Sequence[int], target: Sequence[int]) -> Optional[Strides]:
    """``x.expand(*target)`` (-1 already resolved): new leading dims and dims of size 1 that
    grow move by 0."""
    offset = len(target) - len(shape)
    if offset < 0:
        return None
    out: List[int] = []
    for i, size in enumerate(target):
        if i < offset:
            out.append(0)
            continue
        old = shape[i - offset]
        if old == size:
            out.append(strides[i - offset])
        elif old == 1:
            out.append(0)
        else:
            return None
    return tuple(out)


def sliced(size: int, lower: Optional[int], upper: Optional[int], step: Optional[int]) -> Optional[Tuple[int, int]]:
    """(length, offset) of ``[lower:upper:step]`` over a dim of ``size``, Python's way."""
    step = 1 if step is None else step
    if step <= 0:
        return None  # torch refuses negative steps
    start, stop, _ = slice(lower, upper, step).indices(size)
    return max(0, (stop - start + step - 1) // step), start


class _Undecided(Exception):
    """An operand of unknown strides would decide the order."""


def elementwise(out_shape: Sequence[int], operands: Sequence[Optional[Tuple[Sequence[int], Sequence[int]]]]
                ) -> Optional[Strides]:
    """The strides TensorIterator gives the result of an elementwise operation of
    ``operands`` ((shape, strides) each, in argument order; a Python number is no operand)
    broadcast to ``out_shape``: the dims ordered by the first operand whose strides tell them
    apart (broadcast dims, stride 0, tell nothing; equal strides put the smaller dim first),
    then laid out densely in that order. An operand of unknown strides (None) is fine as long
    as the operands before it decide every order; else None."""
    ndim = len(out_shape)
    if ndim == 0:
        return ()
    aligned: List[Optional[List[int]]] = []
    for operand in operands:
        if operand is None:
            aligned.append(None)
            continue
        shape, strides = operand
        offset = ndim - len(shape)
        row = [0] * ndim
        for i in range(len(shape)):
            row[offset + i] = 0 if shape[i] == 1 and out_shape[offset + i] != 1 else strides[i]
        aligned.append(row)

    def should_swap(dim0: int, dim1: int) -> int:
        for row in aligned:
            if row is None:
                raise _Undecided
            stride0, stride1 = row[dim0], row[dim1]
            if stride0 == 0 or stride1 == 0:
                continue
            if stride0 < stride1:
                return -1
            if stride0 > stride1:
                return 1
            if out_shape[dim0] > out_shape[dim1]:
                return 1
        return 0

    perm = list(range(ndim - 1, -1, -1))  # fastest first: row-major to begin with
    try:
        for i in range(1, ndim):
            dim1 = i
            for dim0 in range(i - 1, -1, -1):
                comparison = should_swap(perm[dim0], perm[dim1])
                if comparison > 0:
                    perm[dim0], perm[dim1] = perm[dim1], perm[dim0]
                    dim1 = dim0
                elif comparison < 0:
                    break
    except _Undecided:
        return None
    out = [0] * ndim
    step = 1
    for d in perm:
        out[d] = step
        step *= max(out_shape[d], 1)
    return tuple(out)


def channels_last_like(shape: Sequence[int], strides: Sequence[int]) -> bool:
    """torch's ``is_channels_last_strides_2d`` for a 4-D tensor (what ``suggest_memory_format``
    reads): the strides grow in the order C, W, H, N. A size-1 dim's unknown stride: not
    channels-last-like (callers that would then claim a format check ``wild`` first)."""
    if len(shape) != 4 or wild(strides) or strides[1] == 0:
        return False
    minimum = 0
    for d in (1, 3, 2, 0):
        if shape[d] == 0 or strides[d] < minimum:
            return False
        if d == 0 and minimum == strides[1]:
            return False
        minimum = strides[d]
        if shape[d] > 1:
            minimum *= shape[d]
    return True


def channels_last(shape: Sequence[int]) -> Strides:
    """The channels-last strides of a 4-D shape (N, C, H, W): C moves by one element."""
    n, c, h, w = shape
    c, h, w = max(c, 1), max(h, 1), max(w, 1)
    return (c * h * w, 1, c * w, c)


def suggested(shape: Sequence[int], strides: Sequence[int]) -> Strides:
    """The strides of a new tensor in ``x.suggest_memory_format()``: channels-last for a
    channels-last-like 4-D input, else row-major."""
    return channels_last(shape) if channels_last_like(shape, strides) else contiguous(shape)


def preserved(shape: Sequence[int], strides: Sequence[int]) -> Strides:
    """``torch.preserve_format`` (a conversion, ``clone()``): a dense input's strides, else the
    suggested format (None: unknown, for a 4-D input with a size-1 dim's stride unknown)."""
    if is_dense(shape, strides):
        return tuple(strides)
    return None if wild(strides) and len(shape) == 4 else suggested(shape, strides)  # type: ignore[return-value]


def stacked_contiguous(item: Value) -> bool:
    """Does ``torch.stack`` of tensors like ``item`` along dim 0 (what default_collate does
    with a batch's samples) give a row-major result? When ``item``'s strides are known and
    row-major and the unsqueezed item is not channels-last-like (``torch.cat`` would then
    allocate its result channels-last); else not known."""
    strides = strides_of(item)
    if strides is None or wild(strides) or not is_contiguous(item.shape, strides):  # type: ignore[union-attr]
        return False
    shape = tuple(item.shape)  # type: ignore[union-attr]
    return not channels_last_like((1,) + shape, unsqueezed(shape, strides, 0))


# --------------------------------------------------------------------------- operations

#: Factories whose result is a new row-major tensor (without ``memory_format=``).
FRESH_FUNCTIONS = frozenset(f"torch.{name}" for name in (
    "randn", "rand", "zeros", "ones", "empty", "full", "arange", "randint", "linspace", "eye", "randperm",
    "matmul", "mm", "bmm", "nn.functional.linear"))
#: Methods whose result is a new row-major tensor.
FRESH_METHODS = frozenset({"matmul", "mm", "bmm"})
#: Elementwise operations of one tensor (a method, ``torch.<name>`` or ``F.<name>``).
UNARY = frozenset({"relu", "sigmoid", "tanh", "exp", "log", "abs", "neg", "sqrt", "rsqrt", "sin", "cos",
                   "floor", "ceil", "round", "sign", "reciprocal", "square", "logical_not", "gelu", "silu",
                   "elu", "leaky_relu", "relu6", "hardtanh", "softplus", "mish", "clamp", "clip"})
#: Elementwise operations of two operands (a tensor and a tensor or a number).
BINARY = frozenset({"add", "sub", "mul", "div", "eq", "ne", "lt", "le", "gt", "ge", "pow", "maximum", "minimum",
                    "logical_and", "logical_or", "true_divide", "floor_divide", "remainder", "atan2"})
#: Operators computed elementwise (``a + b``).
OPERATORS = frozenset({"+", "-", "*", "/", "//", "%", "**", "==", "!=", "<", "<=", ">", ">=", "&", "|", "^"})
#: Methods that give a new dtype (conversions), with ``to`` and ``type``.
CONVERSIONS = ("float", "double", "half", "bfloat16", "int", "long", "short", "bool", "byte", "char",
               "to", "type", "type_as", "cuda", "cpu")
#: Layers whose output is a new row-major tensor whatever the input's layout (measured).
FRESH_LAYERS = frozenset({"Linear", "Embedding", "EmbeddingBag", "Conv1d", "BatchNorm1d", "MaxPool1d",
                          "AvgPool1d", "LayerNorm"})
#: Layers of 4-D input whose output takes the input's suggested format (channels-last or not).
FORMAT_LAYERS = frozenset({"Conv2d", "BatchNorm2d", "MaxPool2d", "AvgPool2d", "AdaptiveAvgPool2d",
                           "AdaptiveMaxPool2d"})
#: Layers that compute elementwise (TensorIterator); Dropout only keeps a dense input's strides.
ELEMENTWISE_LAYERS = frozenset({"ReLU", "ReLU6", "LeakyReLU", "GELU", "SiLU", "ELU", "Tanh", "Sigmoid",
                                "Hardtanh", "Softplus", "Mish"})


def _int(value: Value) -> Optional[int]:
    const = getattr(value, "const", None)
    return const if isinstance(const, int) and not isinstance(const, bool) and getattr(value, "pytype", "") == "int" \
        else None


def _order(name: str, rank: int, dims: Sequence[Value]) -> Optional[List[int]]:
    """The dim order of ``t``/``transpose(i, j)``/``swapaxes``/``permute(*dims)``."""
    order = list(range(rank))
    if name == "t":
        return order[::-1] if rank <= 2 else None
    if name == "permute":
        if len(dims) == 1 and isinstance(getattr(dims[0], "items", None), tuple):
            dims = dims[0].items  # type: ignore[attr-defined]
        ints = [_int(v) for v in dims]
        if len(ints) != rank or any(d is None or not -rank <= d < rank for d in ints):
            return None
        ints = [d % rank for d in ints]  # type: ignore[operator]
        return ints if sorted(ints) == order else None  # type: ignore[type-var,return-value]
    if len(dims) != 2:
        return None
    a, b = _int(dims[0]), _int(dims[1])
    if a is None or b is None or not (-rank <= a < rank and -rank <= b < rank):
        return None
    a, b = a % rank, b % rank
    order[a], order[b] = order[b], order[a]
    return order


def _moved(rank: int, args: Any) -> Optional[List[int]]:
    """The dim order of ``movedim(source, destination)`` (ints or sequences of ints): each
    source dim goes to its destination, the others keep their order in the places left."""
    if args.has_star or len(args.pos) + len(args.kw) != 2:
        return None
    ends = []
    for index, key in ((0, "source"), (1, "destination")):
        value = args.get(index, key)
        items = getattr(value, "items", None)
        dims = [_int(v) for v in items] if isinstance(items, tuple) else [_int(value)]
        if any(d is None or not -rank <= d < rank for d in dims):
            return None
        ends.append([d % rank for d in dims])  # type: ignore[operator]
    source, destination = ends
    if len(source) != len(destination) or len(set(source)) != len(source) or len(set(destination)) != len(source):
        return None
    order: List[Optional[int]] = [None] * rank
    for s, d in zip(source, destination):
        order[d] = s
    rest = iter(d for d in range(rank) if d not in source)
    return [next(rest) if d is None else d for d in order]


def _operand(value: Value) -> Any:
    """(shape, strides) of a tensor operand with a known layout; ``()`` for a number (no
    operand of TensorIterator's ordering); None when unknown."""
    if isinstance(value, TensorValue):
        strides = strides_of(value)
        return (value.shape, strides) if strides is not None and not wild(strides) else None
    if getattr(value, "kind", None) == "scalar":
        return ()
    return None


def elementwise_result(result: Value, inputs: Sequence[Value], node: Any) -> Value:
    """``result`` of an elementwise operation of ``inputs`` with TensorIterator's strides."""
    if not isinstance(result, TensorValue) or not known_shape(result.shape):
        return with_layout(result, None)
    operands = [_operand(v) for v in inputs]
    if not any(operands):
        return with_layout(result, None)
    if _casts(inputs) and not all(op == () or op is not None and is_dense(*op) for op in operands):
        # on the CPU an operand of another dtype is first copied (densely), on CUDA it is not:
        # only dense operands, whose copies keep their strides, give one answer
        return with_layout(result, None)
    strides = elementwise(result.shape, [op for op in operands if op != ()])  # type: ignore[arg-type]
    sources = [v for v in inputs if isinstance(v, TensorValue) and v.layout is not None and v.layout.made_by]
    return with_layout(result, strides, made_by(sources[0]) if sources else None)


_PYTHON_CATEGORIES = {"bool": Category.BOOL, "int": Category.INT, "float": Category.FLOAT,
                      "complex": Category.COMPLEX}


def _casts(inputs: Sequence[Value]) -> bool:
    """Whether an elementwise operation may convert an operand to a common dtype first: its
    tensors are not all of one known dtype, or a Python number of a higher category
    (``int_tensor * 0.5``) lifts the computation."""
    dtypes = {v.dtype for v in inputs if isinstance(v, TensorValue)}
    if len(dtypes) != 1 or None in dtypes:
        return True
    level = category(dtypes.pop())  # type: ignore[arg-type]
    for v in inputs:
        if getattr(v, "kind", None) == "scalar":
            pytype = _PYTHON_CATEGORIES.get(getattr(v, "pytype", ""))
            if pytype is None or pytype > level:
                return True
    return False


def method_result(recv: TensorValue, name: str, args: Any, result: Value, node: Any) -> Value:
    """``recv.<name>(*args)`` gave ``result``: the same with its strides, when known."""
    if isinstance(result, TensorValue) and result is recv and name in CONVERSIONS + ("detach",) and \
            "memory_format" not in args.kw:
        return result  # the tensor itself (x.float() of a float32 x): its own layout
    strides = strides_of(recv)
    shape = recv.shape
    out_shape = result.shape if isinstance(result, TensorValue) else None
    if args.has_star:
        return _unknown(result)
    if name in FRESH_METHODS:
        return _fresh(result)
    if name == "contiguous" and not args.pos and not args.kw:
        return _contiguous(recv, strides, result)
    if name == "topk" and isinstance(getattr(result, "items", None), tuple):
        return replace(result, items=tuple(_fresh(item) for item in result.items))  # type: ignore[arg-type]
    if name == "repeat":
        return _fresh(result)  # a new tensor, row-major whatever the input's strides
    if name in ("chunk", "split", "unbind"):
        return _pieces(recv, name, args, result, node)
    if strides is None and name in CONVERSIONS:
        return _copied(recv, name, args, result, node)
    if strides is None or not isinstance(result, TensorValue) or not known_shape(out_shape):
        return _unknown(result)
    if name in ("t", "transpose", "swapaxes", "swapdims", "permute"):
        order = _order(name, len(shape), list(args.pos))  # type: ignore[arg-type]
        if order is None or tuple(shape[d] for d in order) != tuple(out_shape):  # type: ignore[index,arg-type]
            return _unknown(result)
        return with_layout(result, permuted(strides, order), node)
    if name in ("movedim", "moveaxis"):
        order = _moved(len(shape), args)  # type: ignore[arg-type]
        if order is None or tuple(shape[d] for d in order) != tuple(out_shape):  # type: ignore[index,arg-type]
            return _unknown(result)
        return with_layout(result, permuted(strides, order), node)
    kept = _source(recv, node)
    if name == "unflatten":  # a view: one dim split in several
        return with_layout(result, view_strides(shape, strides, out_shape), kept)  # type: ignore[arg-type]
    if name == "view" and not (args.pos and getattr(args.pos[0], "kind", None) == "dtype"):
        return with_layout(result, view_strides(shape, strides, out_shape), kept)  # type: ignore[arg-type]
    if name in ("reshape", "flatten", "view_as", "reshape_as"):
        viewed = view_strides(shape, strides, out_shape)  # type: ignore[arg-type]
        if name == "view_as":
            return with_layout(result, viewed, kept)
        return with_layout(result, viewed if viewed is not None else contiguous(out_shape), kept)  # type: ignore
    if name == "unsqueeze" and len(args.pos) == 1:
        dim = _int(args.pos[0])
        rank = len(shape)  # type: ignore[arg-type]
        if dim is None or not -rank - 1 <= dim <= rank:
            return _unknown(result)
        return with_layout(result, unsqueezed(shape, strides, dim % (rank + 1)), kept)  # type: ignore[arg-type]
    if name == "squeeze" and len(args.pos) <= 1 and not args.kw:
        dim = _int(args.pos[0]) if args.pos else None
        if args.pos and dim is None:
            return _unknown(result)
        rank = len(shape)  # type: ignore[arg-type]
        drop = {d for d in range(rank) if shape[d] == 1} if dim is None else (  # type: ignore[index]
            {dim % rank} if rank and -rank <= dim < rank and shape[dim] == 1 else set())  # type: ignore[index]
        return with_layout(result, tuple(s for d, s in enumerate(strides) if d not in drop), kept)
    if name in ("expand", "expand_as"):
        return with_layout(result, expanded(shape, strides, out_shape), kept)  # type: ignore[arg-type]
    if name == "narrow" and len(out_shape) == len(shape):  # type: ignore[arg-type]
        return with_layout(result, strides, kept)  # a view: the same strides, from another offset
    if name == "select" and args.pos:
        rank = len(shape)  # type: ignore[arg-type]
        dim = _int(args.pos[0])
        if dim is None or not -rank <= dim < rank or len(out_shape) != rank - 1:  # type: ignore[arg-type]
            return _unknown(result)
        return with_layout(result, strides[:dim % rank] + strides[dim % rank + 1:], kept)
    if name in ("detach",) and not args.pos:
        return with_layout(result, strides, kept)
    if name == "clone" and not args.pos and not args.kw:
        return with_layout(result, preserved(shape, strides), kept)  # type: ignore[arg-type]
    if name in CONVERSIONS and "memory_format" not in args.kw and "copy" not in args.kw:
        if is_dense(shape, strides):  # type: ignore[arg-type]
            return with_layout(result, strides, kept)  # converted or the same: the strides stay
        return _unknown(result)  # the tensor itself, or a copy in the suggested format
    if name in UNARY and (name not in ("clamp", "clip") or all(_operand(v) == () for v in args.pos)):
        return elementwise_result(result, [recv], node)
    if name in BINARY and len(args.pos) == 1 and not args.kw:
        return elementwise_result(result, [recv, args.pos[0]], node)
    return _unknown(result)


def _contiguous(recv: TensorValue, strides: Optional[Strides], result: Value) -> Value:
    """``x.contiguous()``: ``x`` itself when it is contiguous already (its size-1 dims keep
    whatever strides they had), else a row-major copy. Of a tensor of unknown layout: row-major
    but for the size-1 dims' strides, unknown."""
    if not isinstance(result, TensorValue) or not known_shape(result.shape):
        return _unknown(result)
    shape = result.shape
    if strides is not None and len(strides) == len(shape):  # type: ignore[arg-type]
        if is_contiguous(shape, strides):  # type: ignore[arg-type]
            return with_layout(result, strides, made_by(recv))
        return _fresh(result)
    row_major = contiguous(shape)  # type: ignore[arg-type]
    return with_layout(result, tuple(None if size == 1 else s for size, s in zip(shape, row_major)))  # type: ignore


def _copied(recv: TensorValue, name: str, args: Any, result: Value, node: Any) -> Value:
    """A conversion to another dtype of a tensor of unknown layout with at most one dim longer
    than 1 (a column ``(n, 1)``, a vector): a copy (preserve_format: a dense input's strides,
    where that dim's stride is 1, else row-major) whose long dim moves by one element; the
    size-1 dims keep strides not known. Unknown when the dtype may stay (the tensor itself)."""
    if not isinstance(result, TensorValue) or result is recv or name in ("cuda", "cpu") or \
            "memory_format" in args.kw or "copy" in args.kw or not known_shape(recv.shape) or \
            recv.shape != result.shape or recv.dtype is None or result.dtype is None or recv.dtype == result.dtype:
        return _unknown(result)
    shape = recv.shape
    if any(size == 0 for size in shape) or sum(1 for size in shape if size != 1) > 1:  # type: ignore[union-attr]
        return _unknown(result)
    return with_layout(result, tuple(1 if size != 1 else None for size in shape))  # type: ignore[union-attr]


def function_result(qualname: str, args: Any, result: Value, node: Any) -> Value:
    """``torch.<name>(...)`` / ``F.<name>(...)`` gave ``result``: with its strides, when known."""
    if args.has_star or "memory_format" in args.kw or "out" in args.kw:
        return _unknown(result)
    if qualname in FRESH_FUNCTIONS:
        return _fresh(result)
    if qualname == "torch.tensor" and args.pos and getattr(args.pos[0], "kind", None) == "sequence":
        return _fresh(result)  # a list or tuple literal; torch.tensor(t) of a tensor keeps t's strides
    if qualname in ("torch.cat", "torch.concat", "torch.stack"):
        return _joined("torch.cat" if qualname == "torch.concat" else qualname, args, result)
    name = qualname.rsplit(".", 1)[-1]
    first = args.get(0, "input")
    if not isinstance(first, TensorValue):
        return _unknown(result)
    if qualname.startswith("torch.nn.functional."):
        if name == "pad":
            return _padded(first, args, result)
        if name in UNARY and name not in ("clamp", "clip") and not args.kw.get("inplace"):
            return elementwise_result(result, [first], node)
        if name == "dropout":
            strides = strides_of(first)
            dense = strides is not None and is_dense(first.shape, strides)  # type: ignore[arg-type]
            return with_layout(result, strides if dense else None, made_by(first))
        if name in ("max_pool2d", "avg_pool2d", "adaptive_avg_pool2d", "adaptive_max_pool2d"):
            return _suggested(first, result)
        return _unknown(result)
    if qualname.startswith("torch.") and qualname.count(".") == 1:
        rest = type(args)(list(args.pos[1:]), dict(args.kw), list(args.pos_nodes[1:]), dict(args.kw_nodes))
        if name in UNARY and name not in ("clamp", "clip"):
            return elementwise_result(result, [first], node)
        if name in BINARY and len(args.pos) == 2:
            return elementwise_result(result, [first, args.pos[1]], node)
        if name in ("t", "transpose", "swapaxes", "swapdims", "permute", "flatten", "reshape", "unsqueeze",
                    "squeeze", "narrow", "select", "chunk", "split", "unbind", "movedim", "moveaxis", "unflatten"):
            return method_result(first, name, rest, result, node)
    return _unknown(result)


def _joined(qualname: str, args: Any, result: Value) -> Value:
    """``torch.cat`` / ``torch.stack`` of a list or tuple: a new tensor in the inputs' common
    memory format (``compute_output_memory_format``): row-major below 4-D whatever the inputs'
    strides; a 4-D ``cat`` is channels-last when every input is channels-last-like. A 4-D or
    5-D ``stack`` (the CPU's own kernel) and a 5-D ``cat`` stay unknown."""
    if not isinstance(result, TensorValue) or not known_shape(result.shape) or set(args.kw) - {"dim", "tensors"}:
        return _unknown(result)
    rank = len(result.shape)  # type: ignore[arg-type]
    if rank < 4:
        return _fresh(result)
    parts = args.get(0, "tensors")
    items = getattr(parts, "items", None)
    if qualname != "torch.cat" or rank != 4 or not items:
        return _unknown(result)
    formats = set()
    for item in items:
        strides = strides_of(item)
        if strides is None or len(strides) != 4 or wild(strides):
            return _unknown(result)
        formats.add(channels_last_like(item.shape, strides))  # type: ignore[union-attr,arg-type]
    last = formats == {True}
    return with_layout(result, channels_last(result.shape) if last else contiguous(result.shape),  # type: ignore
                       made_by(items[0]) if last else None)


def _padded(x: TensorValue, args: Any, result: Value) -> Value:
    """``F.pad`` in its default constant mode (``constant_pad_nd``): a new tensor in the
    input's suggested format: row-major below 4-D, channels-last for a channels-last-like
    4-D input. Other modes and 5-D inputs stay unknown."""
    mode = args.get(2, "mode") if args.has(2, "mode") else None
    if mode is not None and getattr(mode, "const", None) != "constant":
        return _unknown(result)
    if not isinstance(result, TensorValue) or not known_shape(result.shape):
        return _unknown(result)
    rank = len(result.shape)  # type: ignore[arg-type]
    if rank < 4:
        return _fresh(result)
    return _suggested(x, result) if rank == 4 else _unknown(result)


def _pieces(recv: TensorValue, name: str, args: Any, result: Value, node: Any) -> Value:
    """``chunk`` / ``split`` pieces are views with the receiver's strides; ``unbind`` gives
    views without the dim (like ``select``)."""
    strides = strides_of(recv)
    items = getattr(result, "items", None)
    if strides is None or not isinstance(result, SequenceValue):
        return result
    rank = len(strides)
    drop: Optional[int] = None
    if name == "unbind":
        dim = _int(args.get(0, "dim")) if args.has(0, "dim") else 0
        if dim is None or not -rank <= dim < rank:
            return result
        drop = dim % rank
    piece_strides = strides if drop is None else strides[:drop] + strides[drop + 1:]
    kept = _source(recv, node)

    def laid(piece: Value) -> Value:
        if not isinstance(piece, TensorValue) or piece.shape is None or len(piece.shape) != len(piece_strides):
            return _unknown(piece)
        return with_layout(piece, piece_strides, kept)

    element = laid(result.element) if isinstance(result.element, TensorValue) else result.element
    return replace(result, element=element, items=tuple(laid(item) for item in items) if items is not None else None)


#: Recurrent layers whose outputs' strides are known on the CPU.
RECURRENT_LAYERS = frozenset({"RNN", "GRU", "LSTM"})
#: Input dtypes whose recurrent kernels on the CPU (native and oneDNN) were measured.
_RECURRENT_DTYPES = frozenset({"float32", "float64"})


def recurrent_result(x: Value, result: Value, node: Any, config: Any) -> Value:
    """``nn.RNN`` / ``nn.GRU`` / ``nn.LSTM`` of a float32/float64 input on the CPU: the
    output (seq, batch, directions * width) is a new row-major tensor, and with
    ``batch_first=True`` it is that time-major tensor transposed back to (batch, seq, ...), not
    contiguous (ATen's ``_rnn_impl`` and oneDNN alike: ``output.transpose_(0, 1)``); the final
    states are row-major. Measured on the CPU only: cuDNN's layout was not, so an input of
    unknown or CUDA device leaves them unknown."""
    items = getattr(result, "items", None)
    if not isinstance(x, TensorValue) or x.device != "cpu" or x.dtype not in _RECURRENT_DTYPES \
            or not isinstance(result, SequenceValue) or items is None or len(items) != 2 or config is None:
        return result
    batch_first = config.get("batch_first", False)
    if not isinstance(batch_first, bool):
        return result
    output = items[0]
    if not isinstance(output, TensorValue) or not known_shape(output.shape):
        output = _unknown(output)
    elif batch_first and len(output.shape) == 3:  # type: ignore[arg-type]
        batch, seq, width = output.shape  # type: ignore[misc]
        output = with_layout(output, permuted(contiguous((seq, batch, width)), (1, 0, 2)), node)
    else:
        output = _fresh(output)
    states = items[1]
    if isinstance(states, SequenceValue) and states.items is not None:
        states = replace(states, items=tuple(_fresh(state) for state in states.items))
    else:
        states = _fresh(states)
    return replace(result, items=(output, states))


def layer_result(name: str, x: Value, result: Value, node: Any, config: Any = None) -> Value:
    """An ``nn`` layer ``name`` gave ``result`` for the input ``x``: with its strides
    (``config``: the layer's constructor arguments, where its layout depends on them)."""
    if name in RECURRENT_LAYERS:
        return recurrent_result(x, result, node, config)
    if name in FRESH_LAYERS:
        return _fresh(result)
    if name in FORMAT_LAYERS:
        return _suggested(x, result)
    if name in ELEMENTWISE_LAYERS:
        return elementwise_result(result, [x], node)
    if name in ("Dropout", "Dropout2d", "Identity"):
        strides = strides_of(x)
        dense = strides is not None and is_dense(x.shape, strides)  # type: ignore[union-attr,arg-type]
        return with_layout(result, strides if dense or name == "Identity" else None, made_by(x))
    if name == "Flatten" and isinstance(x, TensorValue) and isinstance(result, TensorValue):
        strides = strides_of(x)
        if strides is None or not known_shape(result.shape):
            return _unknown(result)
        viewed = view_strides(x.shape, strides, result.shape)  # type: ignore[arg-type]
        return with_layout(result, viewed if viewed is not None else contiguous(result.shape),  # type: ignore
                           made_by(x))
    return _unknown(result)


def index_result(container: TensorValue, parts: Sequence[Tuple[str, Any]], result: Value, node: Any) -> Value:
    """``x[...]`` of basic indexing gave ``result``. ``parts``: ("int", i), ("slice", (lower,
    upper, step)), ("none", None) or ("ellipsis", None), one per index element."""
    strides = strides_of(container)
    if strides is None or not isinstance(result, TensorValue) or not known_shape(result.shape):
        return _unknown(result)
    shape = list(container.shape)  # type: ignore[arg-type]
    consumed = sum(1 for kind, _ in parts if kind in ("int", "slice"))
    if consumed > len(shape) or sum(1 for kind, _ in parts if kind == "ellipsis") > 1:
        return _unknown(result)
    out_shape: List[int] = []
    out_strides: List[int] = []
    d = 0
    for kind, part in parts:
        if kind == "ellipsis":
            for _ in range(len(shape) - consumed):
                out_shape.append(shape[d])
                out_strides.append(strides[d])
                d += 1
        elif kind == "none":
            out_shape.append(1)  # unsqueezed where it stands: the stride of the dim it precedes, times its size
            out_strides.append(shape[d] * strides[d] if d < len(shape) else 1)
        elif kind == "int":
            d += 1
        elif kind == "slice":
            cut = sliced(shape[d], *part)
            if cut is None:
                return _unknown(result)
            out_shape.append(cut[0])
            out_strides.append(None if strides[d] is None else strides[d] * (part[2] or 1))  # type: ignore
            d += 1
        else:
            return _unknown(result)
    out_shape.extend(shape[d:])
    out_strides.extend(strides[d:])
    if tuple(out_shape) != tuple(result.shape):  # type: ignore[arg-type]
        return _unknown(result)
    return with_layout(result, out_strides, _source(container, node))


def attribute_result(owner: TensorValue, attr: str, result: Value, node: Any) -> Value:
    """``x.T`` / ``x.mT`` (permuted), ``x.data`` (the same strides)."""
    strides = strides_of(owner)
    if strides is None or not isinstance(result, TensorValue):
        return _unknown(result)
    rank = len(strides)
    if attr == "T":
        return with_layout(result, strides[::-1], node) if result.shape == tuple(owner.shape[::-1]) else \
            _unknown(result)  # type: ignore[index]
    if attr == "mT" and rank >= 2:
        order = list(range(rank))
        order[-1], order[-2] = order[-2], order[-1]
        return with_layout(result, permuted(strides, order), node)
    if attr == "data":
        return with_layout(result, strides, made_by(owner))
    return _unknown(result)


def _source(value: Value, node: Any) -> Any:
    """What to name as the maker of a layout derived from ``value``'s by ``node``: whatever
    made ``value``'s, else ``node`` itself (a slice that leaves a gap)."""
    return made_by(value) or node


def fresh_result(result: Value) -> Value:
    """A new row-major result (a matrix product)."""
    return _fresh(result)


def _fresh(result: Value) -> Value:
    if isinstance(result, TensorValue) and known_shape(result.shape):
        return with_layout(result, contiguous(result.shape))  # type: ignore[arg-type]
    return _unknown(result)


def _suggested(x: Value, result: Value) -> Value:
    strides = strides_of(x)
    if strides is None or not isinstance(result, TensorValue) or not known_shape(result.shape) or \
            len(result.shape) != 4 or len(strides) != 4 or wild(strides):  # type: ignore[arg-type]
        return _unknown(result)
    shape = result.shape
    fmt = channels_last(shape) if channels_last_like(x.shape, strides) else contiguous(shape)  # type: ignore
    return with_layout(result, fmt, made_by(x) if fmt != contiguous(shape) else None)  # type: ignore[arg-type]


def _unknown(result: Value) -> Value:
    return with_layout(result, None)


def call_result(callee: Any, result: Value, node: Any) -> Value:
    """A call's result with its strides, when the call is one whose layout rule is known
    (``callee``: the call as the engine resolved it, ``model.values.Callee``)."""
    if callee.kind == "method" and isinstance(callee.receiver, TensorValue):
        return method_result(callee.receiver, callee.name, callee.args, result, node)
    if callee.kind == "symbol":
        return function_result(callee.name, callee.args, result, node)
    return result
