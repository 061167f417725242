"""Sizes as symbols: what a dim named by an annotation (``"b d"``) becomes in arithmetic.

A shape's dim is an int, a name (a str: the size an annotation calls ``d``), or None
(unknown). Flattening ``(b, d)`` gives a dim of ``b*d`` elements, which is neither: a
``SymbolicSize`` is such a product, an int coefficient times named sizes. Names stand for
sizes of at least 1 (an annotated dim of size 0 leaves nothing to compute), which is what
lets two products be told apart for *every* choice of sizes: ``2*d_in*d_out`` never equals
``d_in*d_out``. Two products with different names are equal for *some* choices only
(``b*d`` equals ``d`` when ``b == 1``): code relying on that works only for special sizes.

Only products are modelled (no sums): what is not a product stays unknown (None), as before.

Besides annotation names, a size may be an ``int`` parameter the analysis knows nothing about
(``def __init__(self, d_in: int, d_out: int)`` analysed with no caller): a ``SizeSymbol``,
one fixed size for the whole of that analysis, never confused with another function's
parameter of the same name.
"""
from __future__ import annotations

from dataclasses import dataclass
from math import gcd
from typing import Any, Iterable, Optional, Tuple


class SizeSymbol(str):
    """An ``int`` parameter of unknown value used as a size (``d_in``). Its text is the
    parameter's name, what messages show; it equals only the same parameter of the same
    function (``function``, its syntax node): two functions' ``n`` are different sizes, and
    neither is an annotation's ``n`` (a plain str). ``owner``: the class whose ``__init__``
    took it, whose other methods see it as a fixed size of ``self`` (``self.d_in = d_in``)."""

    function: Any
    owner: Any

    def __new__(cls, name: str, function: Any, owner: Any = None) -> "SizeSymbol":
        symbol = super().__new__(cls, name)
        symbol.function = function
        symbol.owner = owner
        return symbol

    def __eq__(self, other: object) -> bool:
        if isinstance(other, SizeSymbol):
            return str.__eq__(self, other) and self.function is other.function
        return False if isinstance(other, str) else NotImplemented

    def __ne__(self, other: object) -> bool:
        equal = self.__eq__(other)
        return equal if equal is NotImplemented else not equal

    def __hash__(self) -> int:
        return hash((str.__str__(self), id(self.function)))

    def __reduce__(self) -> Any:
        return SizeSymbol, (str.__str__(self), self.function, self.owner)

    def __copy__(self) -> "SizeSymbol":
        return self  # immutable, and its identity is its function's: a copy is the same size

    def __deepcopy__(self, memo: Any) -> "SizeSymbol":
        return self


def _order(name: str) -> Tuple[str, int]:
    """A product's names in one order whatever order they came in (two ``n`` of different
    functions have the same text: their functions break the tie)."""
    return str.__str__(name), id(getattr(name, "function", None))


@dataclass(frozen=True)
class SymbolicSize:
    """``coefficient`` times the product of the named sizes in ``symbols`` (sorted, a name
    repeated for a power). A plain int or a single name is never held as one: ``as_dim``
    turns those back into the int or the str every other shape function knows."""

    coefficient: int
    symbols: Tuple[str, ...]

    def __str__(self) -> str:
        factors = ([str(self.coefficient)] if self.coefficient != 1 or not self.symbols else []) + list(self.symbols)
        return "*".join(factors)


def symbolic(dim: Any) -> Optional[SymbolicSize]:
    """A dim as a product: an int, a name, a product already; None for an unknown dim."""
    if isinstance(dim, SymbolicSize):
        return dim
    if isinstance(dim, bool):
        return None
    if isinstance(dim, int):
        return SymbolicSize(dim, ()) if dim >= 0 else None  # -1 is "inferred", not a size
    if isinstance(dim, str) and dim:
        return SymbolicSize(1, (dim,))
    return None


def product(dims: Iterable[Any]) -> Optional[SymbolicSize]:
    """The product of the dims (an element count), or None when one of them is unknown."""
    coefficient, symbols = 1, []
    for dim in dims:
        size = symbolic(dim)
        if size is None:
            return None
        coefficient *= size.coefficient
        symbols.extend(size.symbols)
    return SymbolicSize(coefficient, tuple(sorted(symbols, key=_order)))


def as_dim(size: Optional[SymbolicSize]) -> Any:
    """A product as the dim the shape functions use: an int, a name, or the product."""
    if size is None:
        return None
    if not size.symbols:
        return size.coefficient
    if size.coefficient == 1 and len(size.symbols) == 1:
        return size.symbols[0]
    if size.coefficient == 0:
        return 0
    return size


def quotient(total: Optional[SymbolicSize], part: Optional[SymbolicSize]) -> Optional[SymbolicSize]:
    """``total / part`` when it is a product for every choice of sizes (``b*n*d / b`` is
    ``n*d``), else None (``b*d / n`` depends on the sizes)."""
    if total is None or part is None or part.coefficient == 0 or total.coefficient % part.coefficient:
        return None
    rest = list(total.symbols)
    for name in part.symbols:
        if name not in rest:
            return None
        rest.remove(name)
    return SymbolicSize(total.coefficient // part.coefficient, tuple(rest))


def has_names(dim: Any) -> bool:
    """Whether the dim is a named size or a product of named sizes (not a plain int)."""
    size = symbolic(dim)
    return size is not None and bool(size.symbols)


def names_of(dim: Any) -> Tuple[str, ...]:
    size = symbolic(dim)
    return size.symbols if size is not None else ()


def same_for_every(a: Any, b: Any) -> bool:
    """Whether two dims are equal whatever the named sizes are (``b*d`` and ``d*b``)."""
    x, y = symbolic(a), symbolic(b)
    return x is not None and x == y


def differ_for_every(a: Any, b: Any) -> bool:
    """Whether two dims differ whatever the named sizes are (each at least 1): the same
    names with different coefficients (``2*d_in*d_out`` and ``d_in*d_out``), or two ints
    that differ. Different names can always be chosen equal: never for every choice."""
    x, y = symbolic(a), symbolic(b)
    if x is None or y is None or x.symbols != y.symbols:
        return False
    return x.coefficient != y.coefficient


def ratio(a: Any, b: Any) -> Optional[str]:
    """How two element counts with the same names compare: "2 times", "a third of"... for
    messages; None when the names differ."""
    x, y = symbolic(a), symbolic(b)
    if x is None or y is None or x.symbols != y.symbols or x.coefficient == 0 or y.coefficient == 0:
        return None
    if x.coefficient % y.coefficient == 0:
        return f"{x.coefficient // y.coefficient} times"
    if y.coefficient % x.coefficient == 0:
        return f"1/{y.coefficient // x.coefficient} of"
    return f"{x.coefficient}/{y.coefficient} of"


def equality_condition(a: Any, b: Any) -> Optional[str]:
    """What the named sizes must satisfy for ``a == b``, with the factors both share
    cancelled: ``b*d`` against ``d`` needs ``b == 1``; ``b`` against ``d`` needs ``b == d``.
    None when the dims are unknown, or equal or different for every choice."""
    x, y = symbolic(a), symbolic(b)
    if x is None or y is None or x == y or differ_for_every(a, b):
        return None
    left, right = list(x.symbols), list(y.symbols)
    for name in list(left):
        if name in right:
            left.remove(name)
            right.remove(name)
    common = gcd(x.coefficient, y.coefficient) or 1
    lhs = as_dim(SymbolicSize(x.coefficient // common, tuple(left)))
    rhs = as_dim(SymbolicSize(y.coefficient // common, tuple(right)))
    if not isinstance(lhs, str) and isinstance(rhs, str):
        lhs, rhs = rhs, lhs  # the name first: "b == 1", not "1 == b"
    return f"{lhs} == {rhs}"
