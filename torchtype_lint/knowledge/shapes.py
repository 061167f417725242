"""Shape arithmetic torch applies: broadcasting, matmul, reshape, flatten, conv/pool sizes.

Unknown dims (None) and symbolic dims (str) propagate; any rule that needs a number only
fires on ints. Every formula is checked against torch in tests/test_knowledge_shapes.py.
"""
from __future__ import annotations

from typing import List, Optional, Sequence, Tuple

from ..model.values import Dim, Shape
from .symbolic_dims import as_dim, product, quotient


def _norm_dim(dim: Optional[int], rank: int) -> Optional[int]:
    if dim is None:
        return None
    if dim < 0:
        dim += rank
    return dim if 0 <= dim < rank else None


def dim_at(shape: Shape, dim: Optional[int]) -> Optional[int]:
    if shape is None or dim is None:
        return None
    d = _norm_dim(dim, len(shape))
    value = shape[d] if d is not None else None
    return value if isinstance(value, int) else None


def broadcast_dim(a: Dim, b: Dim) -> Dim:
    if a == 1:
        return b
    if b == 1:
        return a
    if a == b:
        return a
    return None  # unknown, or incompatible (a rule reports that separately)


def broadcast_shapes(a: Shape, b: Shape) -> Shape:
    if a is None or b is None:
        return None
    n = max(len(a), len(b))
    a2 = (1,) * (n - len(a)) + tuple(a)
    b2 = (1,) * (n - len(b)) + tuple(b)
    return tuple(broadcast_dim(x, y) for x, y in zip(a2, b2))


def broadcast_conflict(a: Shape, b: Shape) -> Optional[Tuple[int, int, int]]:
    """(axis from the right, size a, size b) of the first pair of known, incompatible dims."""
    if a is None or b is None:
        return None
    for i in range(1, min(len(a), len(b)) + 1):
        x, y = a[-i], b[-i]
        if isinstance(x, int) and isinstance(y, int) and x != y and x != 1 and y != 1:
            return (i, x, y)
    return None


def matmul_shape(a: Shape, b: Shape) -> Shape:
    """torch.matmul's result shape (1-D operands are promoted and the added dim removed)."""
    if a is None or b is None or not a or not b:
        return None
    if len(a) == 1 and len(b) == 1:
        return ()
    if len(a) == 1:
        return tuple(b[:-2]) + (b[-1],)
    if len(b) == 1:
        return tuple(a[:-1])
    batch = broadcast_shapes(tuple(a[:-2]), tuple(b[:-2]))
    if batch is None:
        return None
    return batch + (a[-2], b[-1])


def matmul_inner(a: Shape, b: Shape) -> Optional[Tuple[Dim, Dim]]:
    """The two contracted dims of ``a @ b`` (a's last, b's second-to-last or only)."""
    if a is None or b is None or not a or not b:
        return None
    return (a[-1], b[0] if len(b) == 1 else b[-2])


def named_product_shape(name: str, a: Shape, b: Shape) -> Shape:
    if a is None or b is None:
        return None
    if name == "mm" and len(a) == 2 and len(b) == 2:
        return (a[0], b[1])
    if name == "bmm" and len(a) == 3 and len(b) == 3:
        return (a[0], a[1], b[2])
    if name == "mv" and len(a) == 2 and len(b) == 1:
        return (a[0],)
    if name == "dot" and len(a) == 1 and len(b) == 1:
        return ()
    if name in ("outer", "ger") and len(a) == 1 and len(b) == 1:
        return (a[0], b[0])
    return None


def numel_known(shape: Sequence[Dim]) -> Optional[int]:
    total = 1
    for d in shape:
        if not isinstance(d, int):
            return None
        total *= d
    return total


def reshape_shape(src: Shape, target: Shape) -> Shape:
    """The shape of ``x.view(*target)``; one -1 is inferred when the element count is known."""
    if target is None:
        return None
    if -1 not in target:
        have, want = numel_known(src) if src is not None else None, numel_known(target)
        if have is not None and want is not None and have != want:
            return None  # the view raises (TTL509): nothing after it has this shape
        return tuple(target)
    if src is None or list(target).count(-1) != 1:
        return tuple(None if d == -1 else d for d in target)
    # Named sizes divide too: (b, n, d).view(b, -1) infers n*d (symbolic_dims).
    inferred = as_dim(quotient(product(src), product(d for d in target if d != -1)))
    return tuple(inferred if d == -1 else d for d in target)


def flatten_shape(shape: Shape, start: int = 0, end: int = -1) -> Shape:
    if shape is None:
        return None
    if not shape:
        return (1,)
    s, e = _norm_dim(start, len(shape)), _norm_dim(end, len(shape))
    if s is None or e is None or s > e:
        return None
    middle = as_dim(product(shape[s:e + 1]))  # (b, d) flattens to b*d elements (symbolic_dims)
    return tuple(shape[:s]) + (middle,) + tuple(shape[e + 1:])


def dim_op_shape(name: str, shape: Shape, ints: List[Optional[int]], has_kw: bool) -> Shape:
    if shape is None or has_kw or any(i is None for i in ints):
        return None
    rank = len(shape)
    if name == "unsqueeze" and len(ints) == 1:
        d = ints[0]
        d = d + rank + 1 if d < 0 else d  # type: ignore[operator]
        if not 0 <= d <= rank:
            return None
        return tuple(shape[:d]) + (1,) + tuple(shape[d:])
    if name == "squeeze":
        if not ints:
            if any(not isinstance(d, int) for d in shape):
                return None
            return tuple(d for d in shape if d != 1)
        dims = {_norm_dim(i, rank) for i in ints}
        if None in dims or len(dims) != len(ints):  # out of range, or a dim named twice
            return None
        if any(not isinstance(shape[d], int) for d in dims):  # type: ignore[index]
            return None
        return tuple(x for i, x in enumerate(shape) if not (i in dims and x == 1))
    if name in ("transpose", "swapaxes", "swapdims") and len(ints) == 2:
        a, b = _norm_dim(ints[0], rank), _norm_dim(ints[1], rank)
        if a is None or b is None:
            return None
        out = list(shape)
        out[a], out[b] = out[b], out[a]
        return tuple(out)
    if name == "t" and not ints:
        return tuple(reversed(shape)) if rank <= 2 else None
    if name == "permute" and len(ints) == rank:
        dims = [_norm_dim(i, rank) for i in ints]
        if None in dims or len(set(dims)) != rank:
            return None
        return tuple(shape[d] for d in dims)  # type: ignore[index]
    return None


def reduce_shape(shape: Shape, dim: int, keepdim: bool) -> Shape:
    if shape is None:
        return None
    d = _norm_dim(dim, len(shape))
    if d is None:
        return None
    if keepdim:
        return tuple(shape[:d]) + (1,) + tuple(shape[d + 1:])
    return tuple(shape[:d]) + tuple(shape[d + 1:])


def cat_shape(shapes: Sequence[Shape], dim: Optional[int]) -> Shape:
    if dim is None or any(s is None for s in shapes) or not shapes:
        return None
    rank = len(shapes[0])  # type: ignore[arg-type]
    if any(len(s) != rank for s in shapes):  # type: ignore[arg-type]
        return None
    d = _norm_dim(dim, rank)
    if d is None:
        return None
    out: List[Dim] = []
    for i in range(rank):
        column = [s[i] for s in shapes]  # type: ignore[index]
        if i == d:
            out.append(sum(column) if all(isinstance(c, int) for c in column) else None)  # type: ignore[arg-type]
        else:
            out.append(column[0] if all(c == column[0] for c in column) else None)
    return tuple(out)


def stack_shape(shapes: Sequence[Shape], dim: Optional[int]) -> Shape:
    if dim is None or any(s is None for s in shapes) or not shapes:
        return None
    first = shapes[0]
    if any(s != first for s in shapes):
        return None
    rank = len(first) + 1  # type: ignore[arg-type]
    d = _norm_dim(dim, rank)
    if d is None:
        return None
    return tuple(first[:d]) + (len(shapes),) + tuple(first[d:])  # type: ignore[index]


def conv_out(size: Dim, kernel: int, stride: int = 1, padding: int = 0, dilation: int = 1,
             ceil_mode: bool = False) -> Dim:
    """Output length of a convolution or pooling window; None when unknown or empty.

    ``ceil_mode`` (pooling only) rounds up, but a last window that would start in the
    right padding is dropped, as torch does.
    """
    if not isinstance(size, int) or stride <= 0:
        return None
    span = size + 2 * padding - dilation * (kernel - 1) - 1
    out = (span + (stride - 1 if ceil_mode else 0)) // stride + 1
    if ceil_mode and (out - 1) * stride >= size + padding:
        out -= 1
    return out if out > 0 else None


def dim_range(rank: int, extra: int = 0) -> Tuple[int, int]:
    """The dims torch accepts for a tensor of ``rank`` dims, both ends included: ``unsqueeze``
    (``extra=1``) may also name the position after the last dim, and there is always at least
    one valid dim: a 0-d tensor takes 0 and -1 (``x.transpose(0, -1)`` works on it)."""
    span = max(rank + extra, 1)
    return -span, span - 1


def dim_in_range(dim: int, rank: int, extra: int = 0) -> bool:
    low, high = dim_range(rank, extra)
    return low <= dim <= high


def movedim_shape(shape: Shape, source: Sequence[Optional[int]], destination: Sequence[Optional[int]]) -> Shape:
    """``x.movedim(source, destination)``: the named dims move to their new positions, the
    others keep their order in the places left."""
    if shape is None or len(source) != len(destination) or None in source or None in destination:
        return None
    rank = len(shape)
    if rank == 0:  # a 0-d tensor moves its one pseudo-dim onto itself
        return () if all(dim_in_range(d, 0) for d in list(source) + list(destination)) else None  # type: ignore[arg-type]
    src = [_norm_dim(d, rank) for d in source]
    dst = [_norm_dim(d, rank) for d in destination]
    if None in src or None in dst or len(set(src)) != len(src) or len(set(dst)) != len(dst):
        return None
    out: List[Dim] = [None] * rank
    placed = [False] * rank
    for s, d in zip(src, dst):
        out[d] = shape[s]  # type: ignore[index]
        placed[d] = True  # type: ignore[index]
    rest = iter(x for i, x in enumerate(shape) if i not in src)
    return tuple(x if placed[i] else next(rest) for i, x in enumerate(out))


def unflatten_shape(shape: Shape, dim: Optional[int], sizes: Shape) -> Shape:
    """``x.unflatten(dim, sizes)``: dim replaced by ``sizes``, one -1 inferred when the dim's
    size is known."""
    if shape is None or dim is None or sizes is None or not shape or not sizes:
        return None
    d = _norm_dim(dim, len(shape))
    if d is None:
        return None
    inner = reshape_shape((shape[d],), sizes)
    return tuple(shape[:d]) + tuple(inner) + tuple(shape[d + 1:]) if inner is not None else None


def unfold_shape(shape: Shape, dim: Optional[int], size: Optional[int], step: Optional[int]) -> Shape:
    """``x.unfold(dim, size, step)``: the windows of ``size`` along ``dim`` taken every ``step``:
    ``dim`` holds ``(n - size) // step + 1`` windows and a last dim of ``size`` is added (a 0-d
    tensor gives ``(size,)``). Unknown where torch raises (a window longer than the dim, a step
    below 1) or a size is not known."""
    if shape is None or dim is None:
        return None
    if not shape:
        return (size,) if dim in (0, -1) and size is not None and size <= 1 else None
    d = _norm_dim(dim, len(shape))
    if d is None or not isinstance(size, int) or not isinstance(step, int) or size < 0 or step < 1:
        return None
    n = shape[d]
    if isinstance(n, int) and size > n:
        return None
    windows = (n - size) // step + 1 if isinstance(n, int) else None
    return tuple(shape[:d]) + (windows,) + tuple(shape[d + 1:]) + (size,)


def chunk_sizes(size: Dim, chunks: Optional[int], limit: int = 64) -> Optional[Tuple[int, ...]]:
    """The lengths of ``x.chunk(chunks)``'s pieces along a dim of ``size``: pieces of
    ceil(size / chunks), the last one shorter, so there may be fewer than ``chunks``. None
    when unknown or more than ``limit`` pieces."""
    if not isinstance(size, int) or not isinstance(chunks, int) or chunks <= 0 or size < 0:
        return None
    if size == 0:
        return (0,) * chunks if chunks <= limit else None  # torch gives ``chunks`` empty pieces
    return split_sizes(size, -(-size // chunks), limit)


def split_sizes(size: Dim, split_size: Optional[int], limit: int = 64) -> Optional[Tuple[int, ...]]:
    """The lengths of ``x.split(split_size)``'s pieces along a dim of ``size`` (None when
    unknown or more than ``limit`` pieces)."""
    if not isinstance(size, int) or not isinstance(split_size, int) or split_size < 0 or size < 0:
        return None
    if split_size == 0:
        return (0,) if size == 0 else None
    if size == 0:
        return (0,)
    full, rest = divmod(size, split_size)
    if full + bool(rest) > limit:
        return None
    return (split_size,) * full + ((rest,) if rest else ())


def padded_shape(shape: Shape, pads: Sequence[Optional[int]], mode: Optional[str] = "constant") -> Shape:
    """``F.pad(x, pads, mode)``: ``pads`` holds (before, after) pairs from the last dim
    backwards, each added to its dim (a negative pad crops); a dim padded by (0, 0) keeps its
    size whatever it is. ``constant`` pads any of the last ``len(pads) // 2`` dims; the other
    modes pad the last 1 to 3 dims of an input with one or two more (a batch and a channel
    dim), without cropping, ``reflect`` by less than the size, ``circular`` by at most it.
    None when an argument is unknown or torch refuses it."""
    if shape is None or mode is None or len(pads) % 2 or any(not isinstance(p, int) for p in pads):
        return None
    count = len(pads) // 2
    if count > len(shape):
        return None
    if mode != "constant":
        if mode not in ("reflect", "replicate", "circular") or not 1 <= count <= 3 or \
                len(shape) not in (count + 1, count + 2) or any(p < 0 for p in pads):  # type: ignore[operator]
            return None
    out = list(shape)
    for i in range(count):
        before, after = pads[2 * i], pads[2 * i + 1]
        axis = len(shape) - 1 - i
        size = shape[axis]
        if before == 0 and after == 0:
            continue
        if not isinstance(size, int):
            out[axis] = None
            continue
        widest = max(before, after)  # type: ignore[type-var]
        if mode == "reflect" and widest >= size or mode == "circular" and widest > size:
            return None
        new = size + before + after  # type: ignore[operator]
        if new < 0 or mode == "replicate" and size == 0:
            return None
        out[axis] = new
    return tuple(out)
