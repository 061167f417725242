"""Ops that batch, repeat or bucket rows (torch 2.13): ``pad_sequence`` (a collate function's
staple), ``repeat_interleave``, ``bucketize`` and ``F.cosine_similarity``.

Each result's dtype and shape is checked against torch in tests/test_shapes_torch.py.
"""
from __future__ import annotations

from typing import Any, Optional, Tuple

from ..model.values import INT32, INT64, CallArgs, Origin, ScalarValue, SequenceValue, TensorValue, Value, TOP
from . import shapes as S


def _int(value: Value) -> Optional[int]:
    return value.const if isinstance(value, ScalarValue) and value.pytype == "int" and \
        isinstance(value.const, int) and not isinstance(value.const, bool) else None


def _flag(value: Optional[Value], default: bool) -> Optional[bool]:
    """A bool argument's value (``default`` when not given); None when not known."""
    if value is None:
        return default
    return value.const if isinstance(value, ScalarValue) and isinstance(value.const, bool) else None


def pad_sequence(args: CallArgs, node: Any) -> Value:
    """``pad_sequence(sequences, batch_first=False, padding_value=0.0)``: the tensors ``(L_i,
    *rest)`` stacked after padding to the longest, ``(max L, N, *rest)`` or with
    ``batch_first=True`` ``(N, max L, *rest)``; their one dtype. A list whose items are not known
    one by one has N and max L unknown."""
    sequences = args.get(0, "sequences")
    batch_first = _flag(args.get(1, "batch_first") if args.has(1, "batch_first") else None, False)
    if args.has_star or batch_first is None or not isinstance(sequences, SequenceValue) \
            or sequences.container not in ("list", "tuple"):
        return TOP
    tensors = list(sequences.items) if sequences.items is not None else [sequences.element]
    if not tensors or not all(isinstance(t, TensorValue) for t in tensors):
        return TOP
    dtypes = {t.dtype for t in tensors}  # type: ignore[union-attr]
    dtype = dtypes.pop() if len(dtypes) == 1 else None
    shapes = [t.shape for t in tensors]  # type: ignore[union-attr]
    shape: Optional[Tuple[Any, ...]] = None
    if all(s is not None and len(s) >= 1 for s in shapes) and len({len(s) for s in shapes}) == 1:  # type: ignore[arg-type]
        # the trailing dims every tensor shares (torch raises where they differ)
        rest = tuple(a if all(s[i] == a for s in shapes) else None  # type: ignore[index]
                     for i, a in enumerate(shapes[0][1:], start=1))  # type: ignore[index]
        lengths = [s[0] for s in shapes]  # type: ignore[index]
        longest = max(lengths) if sequences.items is not None and all(
            isinstance(n, int) for n in lengths) else None
        count = len(sequences.items) if sequences.items is not None else None
        shape = ((count, longest) if batch_first else (longest, count)) + rest
    first = tensors[0]
    devices = {t.device for t in tensors}  # type: ignore[union-attr]
    return TensorValue(None if dtype is None else frozenset({dtype}), shape,
                       Origin(node, "pad_sequence keeps the tensors' dtype", first.origin),  # type: ignore[union-attr]
                       devices.pop() if len(devices) == 1 else None)


def repeat_interleave(recv: TensorValue, args: CallArgs) -> Value:
    """``x.repeat_interleave(repeats, dim=None)`` of an int ``repeats``: dim ``dim`` that many
    times longer; without a dim, the flattened tensor. Tensor repeats: the size is the data's."""
    repeats, dim = args.get(0, "repeats"), args.get(1, "dim") if args.has(1, "dim") else None
    count = _int(repeats)
    if args.has_star or recv.shape is None or (count is None and not isinstance(repeats, TensorValue)):
        return TensorValue(recv.dtypes, None, recv.origin, recv.device, recv.requires_grad)
    if dim is None:
        numel = S.numel_known(recv.shape)
        length = numel * count if numel is not None and count is not None else None
        return TensorValue(recv.dtypes, (length,), recv.origin, recv.device, recv.requires_grad)
    axis = _int(dim)
    if axis is None or not S.dim_in_range(axis, len(recv.shape)):
        return TensorValue(recv.dtypes, None, recv.origin, recv.device, recv.requires_grad)
    axis %= len(recv.shape)
    size = recv.shape[axis]
    shape = list(recv.shape)
    shape[axis] = size * count if isinstance(size, int) and count is not None else None
    return TensorValue(recv.dtypes, tuple(shape), recv.origin, recv.device, recv.requires_grad)


def bucketize(args: CallArgs, node: Any) -> Value:
    """``torch.bucketize(input, boundaries, out_int32=False)``: indices of the input's shape,
    int64 (int32 with ``out_int32=True``)."""
    x = args.get(0, "input")
    out_int32 = _flag(args.kw.get("out_int32"), False)
    if not isinstance(x, TensorValue) or out_int32 is None or args.has_star:
        return TOP
    dtype = INT32 if out_int32 else INT64
    return TensorValue(frozenset({dtype}), x.shape, Origin(node, f"torch.bucketize gives {dtype}"), x.device)


def cosine_similarity(args: CallArgs, node: Any) -> Value:
    """``F.cosine_similarity(x1, x2, dim=1)``: the broadcast shape without ``dim``, in the
    inputs' one floating dtype."""
    a, b = args.get(0, "x1"), args.get(1, "x2")
    dim = args.get(2, "dim") if args.has(2, "dim") else ScalarValue("int", 1)
    if not isinstance(a, TensorValue) or not isinstance(b, TensorValue) or args.has_star:
        return TOP
    dtype = a.dtype if a.dtype is not None and a.dtype == b.dtype else None
    shape = S.broadcast_shapes(a.shape, b.shape)
    axis = _int(dim)
    if shape is not None and axis is not None and S.dim_in_range(axis, len(shape)):
        axis %= len(shape)
        shape = tuple(shape[:axis]) + tuple(shape[axis + 1:])
    else:
        shape = None
    return TensorValue(None if dtype is None else frozenset({dtype}), shape, a.origin, a.device)
