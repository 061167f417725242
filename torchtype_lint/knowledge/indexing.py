"""Indexing tensors and arrays: the shape of ``t[...]`` and of one element of ``for row in t``.

The engine evaluates the index expressions and describes them with the vocabulary below
(``SLICE``, ``ELLIPSIS``, ``UNKNOWN_BOUND``, plus ordinary values for ints, ``None`` and
index tensors); what shape torch and numpy give for them is decided here.
"""
from __future__ import annotations

from typing import Any, Dict, List, Tuple

from ..model.values import BOOL, ArrayValue, NoneValue, ScalarValue, StringValue, TensorValue, Value
from .layouts import made_by, strides_of, with_layout

#: Stands for a slice (``a:b:c``) among the indices; its bounds are passed separately.
SLICE = StringValue(":")
#: Stands for ``...`` among the indices.
ELLIPSIS = StringValue("...")
#: A slice bound that is not a known int.
UNKNOWN_BOUND = object()

#: (lower, upper, step) of one slice: int constants, None when absent, UNKNOWN_BOUND else.
SliceBounds = Tuple[Any, Any, Any]


def index_first(t: TensorValue) -> Value:
    """``t[0]``, which is also what iterating over ``t`` yields: the first dim is dropped."""
    shape = t.shape[1:] if t.shape else None
    row = TensorValue(t.dtypes, shape, t.origin, t.device, t.requires_grad)
    strides = strides_of(t)
    # a view: the other dims keep their strides
    return with_layout(row, strides[1:], made_by(t)) if strides else row


def index_tensor(t: TensorValue, indices: List[Value], slices: Dict[int, SliceBounds]) -> Value:
    """``t[indices]``: the same dtype and device, the shape from index_shape."""
    return TensorValue(t.dtypes, index_shape(t.shape, indices, slices), t.origin, t.device,
                       t.requires_grad)


def index_array(a: ArrayValue, indices: List[Value], slices: Dict[int, SliceBounds]) -> Value:
    """``a[indices]`` of a numpy array; indexing every dim gives a numpy scalar, which the
    engine holds as a 0-d array of the same dtype (as numpy reductions do: NumPy 2 promotes
    both alike, and default_collate and ``torch.tensor`` keep the dtype of both)."""
    return ArrayValue(a.dtypes, index_shape(a.shape, indices, slices), a.origin)


def index_shape(shape: Any, indices: List[Value], slices: Dict[int, SliceBounds]) -> Any:
    """The shape of ``t[indices]``: ints drop a dim, slices keep (and maybe shorten) it, None
    adds a 1, ``...`` stands for the dims no other index consumes; one index tensor (a bool
    mask or integer indices) in front of full slices is advanced indexing. None when unsure.

    ``slices`` maps the position of each ``SLICE`` in ``indices`` to its bounds."""
    if shape is None:
        return None
    # an index array (a tensor or an ndarray: PALETTE[labels] maps class ids to colours)
    tensors = [i for i in indices if isinstance(i, (TensorValue, ArrayValue))]
    if tensors:
        index = indices[0]
        rest = indices[1:]
        if len(tensors) != 1 or not isinstance(index, (TensorValue, ArrayValue)) or index.shape is None or \
                index.dtype is None or any(r is not SLICE or slices[k + 1] != (None, None, None)
                                           for k, r in enumerate(rest)):
            return None
        if index.dtype in (BOOL, "uint8"):
            consumed = len(index.shape)
            if consumed > len(shape):
                return None
            return (None,) + tuple(shape[consumed:])
        if index.dtype in ("int64", "int32", "int16", "int8"):
            return tuple(index.shape) + tuple(shape[1:]) if shape else None
        return None
    consuming = 0
    for i in indices:
        if i is SLICE or (isinstance(i, ScalarValue) and i.pytype == "int"):
            consuming += 1
        elif i is ELLIPSIS or isinstance(i, NoneValue):
            continue
        else:
            return None  # lists, bool scalars, unknown values: not modelled
    if consuming > len(shape) or sum(1 for i in indices if i is ELLIPSIS) > 1:
        return None
    out: List[Any] = []
    pos = 0
    for k, index in enumerate(indices):
        if index is ELLIPSIS:
            skip = len(shape) - consuming
            out.extend(shape[pos:pos + skip])
            pos += skip
        elif isinstance(index, NoneValue):
            out.append(1)
        elif index is SLICE:
            out.append(slice_length(shape[pos], slices[k]))
            pos += 1
        else:
            pos += 1  # an int index drops the dim
    out.extend(shape[pos:])
    return tuple(out)


def slice_length(dim: Any, bounds: SliceBounds) -> Any:
    """How long a dim of size ``dim`` is after slicing it with ``bounds`` (None: unknown)."""
    if bounds == (None, None, None):
        return dim
    if not isinstance(dim, int) or UNKNOWN_BOUND in bounds or bounds[2] == 0:
        return None
    return len(range(dim)[slice(*bounds)])
