"""Which arguments of torch's shape ops are dimension indices, and what torch accepts there.

``x.transpose(0, 2)`` on a 2-D tensor raises ``IndexError: Dimension out of range (expected to
be in range of [-2, 1], but got 2)``. Each op below names its dim parameters (torch's names, as
bound by ``knowledge/ops.py``); a dim is valid in ``shapes.dim_range(rank, extra)``. Every
entry is checked against torch over ranks 0 to 3 and dims -5 to 5 in tests/test_shape_ops.py.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping, Optional, Sequence, Tuple

from .shapes import dim_range


@dataclass(frozen=True)
class DimParameters:
    """The dim parameters of one op."""

    #: Parameter names holding the dims (one int, or a tuple/list for permute, movedim and
    #: squeeze).
    names: Tuple[str, ...]
    #: The dim a parameter means when it is not given (None: no default, or "every dim").
    default: Optional[int] = None
    #: 1 for ops whose dim may be one past the last (``unsqueeze`` inserts a dim there).
    extra: int = 0
    #: What torch says when the tensor is 0-d, for ops that refuse 0-d tensors (whatever the
    #: dim, or with ``range_first`` for the dims in range: others are out of range).
    refuses_0d: str = ""
    range_first: bool = False


_TRANSPOSE = DimParameters(("dim0", "dim1"))
_MOVEDIM = DimParameters(("source", "destination"))

#: op (``knowledge/ops.py`` name) -> its dim parameters. In-place spellings (``squeeze_``,
#: ``transpose_``...) resolve to the same op.
DIM_OPS: Mapping[str, DimParameters] = {
    "torch.chunk": DimParameters(("dim",), default=0, refuses_0d="chunk expects at least a 1-dimensional tensor"),
    "torch.split": DimParameters(("dim",), default=0, refuses_0d="split expects at least a 1-dimensional tensor"),
    "torch.unbind": DimParameters(("dim",), default=0,
                                  refuses_0d="Dimension specified as 0 but tensor has no dimensions", range_first=True),
    "torch.movedim": _MOVEDIM, "torch.moveaxis": _MOVEDIM,
    "torch.transpose": _TRANSPOSE, "torch.swapdims": _TRANSPOSE,
    "torch.swapaxes": DimParameters(("axis0", "axis1")),
    "torch.permute": DimParameters(("dims",)),
    "torch.squeeze": DimParameters(("dim",)),
    "torch.unsqueeze": DimParameters(("dim",), extra=1),
    "torch.flatten": DimParameters(("start_dim", "end_dim")),
    "torch.unflatten": DimParameters(("dim",)),
}

#: Key phrase of torch's message for a dim out of range.
OUT_OF_RANGE = "Dimension out of range"

#: Ops that read a list of dims one by one, each wrapped and checked against those before it:
#: the first dim out of range or named twice decides what torch says (``permute(0, 0, 5)``
#: is "duplicate dims", ``permute(0, 5, 0)`` "out of range").
SEQUENTIAL_DIM_LISTS = ("torch.permute", "torch.squeeze")


def first_list_problem(dims: Sequence[Optional[int]], rank: int) -> Optional[Tuple[str, int]]:
    """("range", dim) or ("repeat", dim) for the first dim of a sequentially read list that
    torch refuses; None when every dim is fine or an unknown one comes first."""
    low, high = dim_range(rank)
    seen = set()
    for dim in dims:
        if dim is None:
            return None
        if not low <= dim <= high:
            return "range", dim
        wrapped = dim % max(rank, 1)
        if wrapped in seen:
            return "repeat", dim
        seen.add(wrapped)
    return None


#: Ops that take one dim of their input, by the name they are spelled with (``torch.cat(parts,
#: dim)``, ``x.softmax(dim)``, ``F.log_softmax(x, dim=...)``, ``x.size(dim)``), and how many
#: positions past the last dim they accept (``torch.stack`` inserts a new dim, so 1): a dim
#: outside ``shapes.dim_range(rank, extra)`` raises ``IndexError: Dimension out of range``
#: (for ``torch.cat``/``torch.stack`` the rank of the parts). Checked against torch over ranks 1
#: to 3 and dims -4 to 4 in tests/test_batch_rows.py.
ONE_DIM_OPS: Mapping[str, int] = {
    "cat": 0, "concat": 0, "concatenate": 0, "stack": 1, "softmax": 0, "log_softmax": 0, "argmax": 0,
    "argmin": 0, "sum": 0, "mean": 0, "size": 0, "cumsum": 0,
}
#: Those of them that take a sequence of tensors rather than one tensor.
SEQUENCE_DIM_OPS = ("cat", "concat", "concatenate", "stack")
