"""What comparing dtype objects gives: ``x.dtype == torch.float16``, ``x.dtype is torch.half``,
``pic.dtype == np.uint8``, ``pic.dtype in (np.uint16, np.int16)``, when every dtype involved is
known. A branch such a test decides (a ``ToTensor`` that scales only 8-bit images) then runs
alone, as it does in the program.

torch dtypes are singletons (``torch.half is torch.float16``), so ``==`` and ``is`` agree. A
numpy array's ``dtype`` equals the scalar type of the same dtype (``np.dtype('uint16') ==
np.uint16``, aliases included: ``np.double`` is ``np.float64``); a numpy dtype is never *the*
scalar type (``is`` is not folded), and a torch dtype is compared with a numpy one only by
torch's rules, which are not modelled (unknown). Checked against torch and numpy in
``tests/test_value_reach.py``.
"""
from __future__ import annotations

from typing import Optional, Tuple

from ..model.values import DTypeValue, SequenceValue, SymbolValue, Value
from .numpy_dtypes import numpy_dtype


def _identity(value: Value) -> Optional[Tuple[str, str]]:
    """(library, canonical dtype name) of a dtype object, or None when it is not one we know."""
    if isinstance(value, DTypeValue):
        return ("torch", value.dtype)
    if isinstance(value, SymbolValue) and value.qualname.startswith("numpy."):
        name = numpy_dtype(value)
        return ("numpy", name) if name is not None else None
    return None


def dtype_comparison(left: Value, op: str, right: Value) -> Optional[bool]:
    """The bool ``left <op> right`` gives for dtype objects (``==``, ``!=``, ``in``, ``not in``
    over a list or tuple, ``is``/``is not`` of torch dtypes); None when it is not known."""
    a = _identity(left)
    if a is None:
        return None
    if op in ("==", "!=", "is", "is not"):
        b = _identity(right)
        if b is None or a[0] != b[0] or (op in ("is", "is not") and a[0] != "torch"):
            return None
        return (a == b) == (op in ("==", "is"))
    if op in ("in", "not in") and isinstance(right, SequenceValue) and right.items is not None \
            and right.container in ("list", "tuple"):
        items = [_identity(item) for item in right.items]
        if any(item is None or item[0] != a[0] for item in items):
            return None
        return (a in items) == (op == "in")
    return None
