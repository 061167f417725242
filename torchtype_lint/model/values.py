"""The abstract domain: what the engine knows about a Python value.

Pure data, no libcst and no torch. Every value is a point in a small lattice:

    TOP (unknown)                       -- silent: rules never fire on it
      |
    TensorValue / ArrayValue / ModuleValue / ScalarValue / SequenceValue / ...
                                        -- joins of two different kinds go to TOP

A tensor's dtype is a *set* of possible dtypes (``None`` = any, i.e. unknown); a rule may
only report when every dtype in the set is bad ("precision first"). A shape is a tuple of
dims (``int`` constant, ``str`` symbol, ``None`` unknown) or ``None`` for unknown rank.

Every value carries an ``Origin``: the chain of source locations that produced the fact,
so a diagnostic can say *where* a bad dtype came from.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from enum import IntEnum
from typing import Any, ClassVar, Dict, FrozenSet, List, Optional, Sequence, Tuple, Union

# --------------------------------------------------------------------------- dtypes

#: Canonical torch dtype names, in the order of the promotion lattice within a category.
BOOL = "bool"
UINT8, INT8, INT16, INT32, INT64 = "uint8", "int8", "int16", "int32", "int64"
FLOAT16, BFLOAT16, FLOAT32, FLOAT64 = "float16", "bfloat16", "float32", "float64"
COMPLEX64, COMPLEX128 = "complex64", "complex128"

COMMON_DTYPES: Tuple[str, ...] = (
    BOOL, UINT8, INT8, INT16, INT32, INT64,
    FLOAT16, BFLOAT16, FLOAT32, FLOAT64, COMPLEX64, COMPLEX128,
)
INTEGER_DTYPES: FrozenSet[str] = frozenset(
    {UINT8, INT8, INT16, INT32, INT64, "uint16", "uint32", "uint64"}
    # sub-byte integer dtypes (torch.int1 ... torch.uint7), which jaxtyping's Int/UInt admit
    | {f"int{n}" for n in range(1, 8)} | {f"uint{n}" for n in range(1, 8)}
)
FLOAT_DTYPES: FrozenSet[str] = frozenset(
    {FLOAT16, BFLOAT16, FLOAT32, FLOAT64, "float8_e4m3fn", "float8_e5m2", "float8_e4m3fnuz",
     "float8_e5m2fnuz", "float8_e8m0fnu", "float4_e2m1fn_x2"}
)
COMPLEX_DTYPES: FrozenSet[str] = frozenset({COMPLEX64, COMPLEX128, "complex32"})

_SIGNED = frozenset({"int2", "int4", INT8, INT16, INT32, INT64})
_UNSIGNED = frozenset({"uint2", "uint4", UINT8, "uint16", "uint32", "uint64"})
_FLOATING = frozenset({FLOAT16, BFLOAT16, FLOAT32, FLOAT64, "float8_e4m3fn", "float8_e4m3fnuz",
                       "float8_e5m2", "float8_e5m2fnuz"})
_COMPLEX = frozenset({COMPLEX64, COMPLEX128})

#: The dtype families an annotation can promise as a whole (``Float[Tensor, ...]`` is any of
#: "float"), by the words messages use for them: "any float". They are jaxtyping's families
#: restricted to torch dtypes: knowledge/annotations.py names its classes after them and
#: tests/test_knowledge_annotations.py checks them against the installed jaxtyping.
DTYPE_FAMILIES: Dict[str, FrozenSet[str]] = {
    "float": _FLOATING,
    "signed int": _SIGNED,
    "unsigned int": _UNSIGNED,
    "int": _SIGNED | _UNSIGNED,
    "real": _FLOATING | _SIGNED | _UNSIGNED,
    "number": _FLOATING | _SIGNED | _UNSIGNED | _COMPLEX,
    "float or complex": _FLOATING | _COMPLEX,
    "complex": _COMPLEX,
}

#: A set of possible dtypes; ``None`` means "could be anything" (top).
DTypes = Optional[FrozenSet[str]]


class Category(IntEnum):
    """Promotion categories, ordered as torch promotes: bool < integer < floating < complex."""

    BOOL = 0
    INT = 1
    FLOAT = 2
    COMPLEX = 3


def category(dtype: str) -> Category:
    """The promotion category of ``dtype``."""
    if dtype == BOOL:
        return Category.BOOL
    if dtype in INTEGER_DTYPES:
        return Category.INT
    if dtype in FLOAT_DTYPES:
        return Category.FLOAT
    return Category.COMPLEX


def is_floating(dtype: str) -> bool:
    return dtype in FLOAT_DTYPES


def is_integral(dtype: str, include_bool: bool = True) -> bool:
    return dtype in INTEGER_DTYPES or (include_bool and dtype == BOOL)


def short_dtype(dtype: str) -> str:
    """The capitalised scalar-type name torch prints in errors ('Float', 'Long', ...)."""
    return {
        BOOL: "Bool", UINT8: "Byte", INT8: "Char", INT16: "Short", INT32: "Int",
        INT64: "Long", FLOAT16: "Half", BFLOAT16: "BFloat16", FLOAT32: "Float",
        FLOAT64: "Double", COMPLEX64: "ComplexFloat", COMPLEX128: "ComplexDouble",
    }.get(dtype, dtype)


def describe_dtypes(dtypes: DTypes) -> str:
    if dtypes is None:
        return "?"
    if len(dtypes) == 1:
        return next(iter(dtypes))
    if len(dtypes) > 4:
        # The big sets come from annotations (jaxtyping's Float, Real...): name them.
        family = _FAMILY_OF.get(dtypes)
        if family is not None:
            return f"any {family}"
    return "{" + ", ".join(sorted(dtypes, key=_dtype_order)) + "}"


_FAMILY_OF: Dict[FrozenSet[str], str] = {dtypes: name for name, dtypes in DTYPE_FAMILIES.items()}


def _dtype_order(dtype: str) -> Tuple[int, str]:
    try:
        return (COMMON_DTYPES.index(dtype), dtype)
    except ValueError:
        return (len(COMMON_DTYPES), dtype)


def join_dtypes(a: DTypes, b: DTypes) -> DTypes:
    if a is None or b is None:
        return None
    return a | b


def single_dtype(dtypes: DTypes) -> Optional[str]:
    """The dtype when exactly one is possible, else None."""
    if dtypes is not None and len(dtypes) == 1:
        return next(iter(dtypes))
    return None


# --------------------------------------------------------------------------- shapes

#: A dimension: an int constant, a named symbol, or None (unknown).
Dim = Union[int, str, None]
#: A shape: a tuple of dims, or None when even the rank is unknown.
Shape = Optional[Tuple[Dim, ...]]


def describe_shape(shape: Shape) -> str:
    if shape is None:
        return "?"
    inner = ", ".join("?" if d is None else str(d) for d in shape)
    return f"({inner},)" if len(shape) == 1 else f"({inner})"


def join_dim(a: Dim, b: Dim) -> Dim:
    return a if a == b else None


def join_shapes(a: Shape, b: Shape) -> Shape:
    if a is None or b is None or len(a) != len(b):
        return None
    return tuple(join_dim(x, y) for x, y in zip(a, b))


def numel(shape: Shape) -> Optional[int]:
    """Element count when every dim is a known int."""
    if shape is None:
        return None
    total = 1
    for d in shape:
        if not isinstance(d, int):
            return None
        total *= d
    return total


# --------------------------------------------------------------------------- provenance


@dataclass(frozen=True)
class Origin:
    """One link in a provenance chain.

    ``node`` is the libcst node that produced the fact (its line is resolved only when a
    diagnostic is printed), ``note`` says why ("np.random.rand gives float64"), and
    ``parent`` is the fact it was derived from, if the derivation matters to a user.
    """

    node: Any = field(repr=False)
    note: str = ""
    parent: Optional["Origin"] = None
    #: Whether the origin states a fact about the whole value a container is (every entry of
    #: a module's state): a join keeps it only when both sides have it.
    whole: ClassVar[bool] = False

    def chain(self, limit: int = 6) -> Tuple["Origin", ...]:
        """The links from this one back to the root cause, newest first."""
        out = []
        link: Optional[Origin] = self
        while link is not None and len(out) < limit:
            out.append(link)
            link = link.parent
        return tuple(out)

    def root(self) -> "Origin":
        link = self
        while link.parent is not None:
            link = link.parent
        return link


# --------------------------------------------------------------------------- values


class Value:
    """Base class of abstract values. Subclasses are immutable, except ModuleValue."""

    __slots__ = ()
    kind = "value"
    origin: Optional[Origin] = None

    def describe(self) -> str:
        return "?"

    def joined_with(self, other: "Value") -> "Optional[Value]":
        """The join with ``other``, a value of the same class: for kinds of values defined
        outside this module (``knowledge/``'s datasets and loaders), which ``join`` cannot
        know. The default: an equal value is itself; anything else is unknown (None)."""
        return self if self == other else None


class _Top(Value):
    """Unknown. Everything the engine cannot prove is TOP, and TOP is silent."""

    __slots__ = ()
    kind = "unknown"

    def __repr__(self) -> str:
        return "TOP"

    def describe(self) -> str:
        return "unknown"


TOP: Value = _Top()


@dataclass(frozen=True)
class Layout:
    """Where a tensor's elements lie in memory: its ``strides`` (in elements, one per dim of a
    shape of known ints) and ``made_by``, the syntax node of the last operation that gave it
    a layout other than row-major (a transpose, a slice), for messages."""

    strides: Tuple[int, ...]
    made_by: Any = None


@dataclass(frozen=True)
class TensorValue(Value):
    """A torch.Tensor. ``dtypes`` None = unknown; ``shape`` None = unknown rank.

    ``layout`` (None = unknown) is set only by the operations whose result's strides are
    known (``knowledge/layouts.py``): it is no argument of the constructor, so a value made
    anew, or by ``dataclasses.replace``, never carries a layout that is not its own."""

    dtypes: DTypes = None
    shape: Shape = None
    origin: Optional[Origin] = None
    device: Optional[str] = None  # "cpu", "cuda", or None when unknown
    requires_grad: Optional[bool] = None
    layout: Optional[Layout] = field(default=None, init=False, repr=False)
    kind = "tensor"

    @property
    def dtype(self) -> Optional[str]:
        return single_dtype(self.dtypes)

    @property
    def is_zero_dim(self) -> Optional[bool]:
        """True for 0-dim tensors (promotion treats them like Python scalars)."""
        return None if self.shape is None else len(self.shape) == 0

    def describe(self) -> str:
        extra = f", {self.device}" if self.device else ""
        return f"Tensor[{describe_dtypes(self.dtypes)}, {describe_shape(self.shape)}{extra}]"


@dataclass(frozen=True)
class ArrayValue(Value):
    """A numpy.ndarray."""

    dtypes: DTypes = None
    shape: Shape = None
    origin: Optional[Origin] = None
    kind = "ndarray"

    @property
    def dtype(self) -> Optional[str]:
        return single_dtype(self.dtypes)

    def describe(self) -> str:
        return f"ndarray[{describe_dtypes(self.dtypes)}, {describe_shape(self.shape)}]"


@dataclass(frozen=True)
class ScalarValue(Value):
    """A Python int, float, bool or complex (``pytype``), with its constant when known."""

    pytype: str  # "int" | "float" | "bool" | "complex"
    const: Any = None
    origin: Optional[Origin] = None
    #: An int of unknown value that is a known size: a name or a product of names
    #: (knowledge/symbolic_dims.py), e.g. the parameter ``d_in`` or ``n_heads * head_dim``.
    size: Any = None
    kind = "scalar"

    def describe(self) -> str:
        return self.pytype if self.const is None else f"{self.pytype} = {self.const!r}"


@dataclass(frozen=True)
class StringValue(Value):
    const: Optional[str] = None
    origin: Optional[Origin] = None
    kind = "str"

    def describe(self) -> str:
        return "str" if self.const is None else f"str = {self.const!r}"


@dataclass(frozen=True)
class NoneValue(Value):
    origin: Optional[Origin] = None
    kind = "none"

    def describe(self) -> str:
        return "None"


@dataclass(frozen=True)
class ChoiceValue(Value):
    """One of a few known constants (strings, bools, ints or None) that branches or loop
    iterations left: ``self.problem_type`` is None until a first call sets ``"multi"``, so
    ``== "single"`` is False on every path while ``is None`` may go either way."""

    options: FrozenSet[Any]
    origin: Optional[Origin] = None
    kind = "choice"

    def describe(self) -> str:
        return "one of " + ", ".join(sorted(repr(option) for option in self.options))


#: More constants than this after a join are no longer worth telling apart: unknown.
MAX_CHOICES = 8


def choice_options(value: "Value") -> "Optional[FrozenSet[Any]]":
    """The constants a value may be, where it is a known constant (a string, a bool, None) or
    a choice of them; None otherwise. Ints and floats stay out: their joins keep the number
    kind (a size of unknown value is still an int to shape arithmetic)."""
    if isinstance(value, ChoiceValue):
        return value.options
    if isinstance(value, NoneValue):
        return frozenset({None})
    if isinstance(value, StringValue) and value.const is not None:
        return frozenset({value.const})
    if isinstance(value, ScalarValue) and value.pytype == "bool" and isinstance(value.const, bool):
        return frozenset({value.const})
    return None


def _choice_join(a: "Value", b: "Value") -> "Optional[Value]":
    """The join of two constants that differ as the choice of both (None when either is not
    a constant, or when two bools join: ``ScalarValue("bool")`` already says all there is)."""
    if isinstance(a, ScalarValue) and isinstance(b, ScalarValue):
        return None
    left, right = choice_options(a), choice_options(b)
    if left is None or right is None:
        # "a" or "b", joined with a string not known: some string, as two strings always were
        for some, options in ((a, right), (b, left)):
            if isinstance(some, StringValue) and some.const is None and options is not None \
                    and all(isinstance(o, str) for o in options):
                return StringValue(None, some.origin)
        return None
    options = left | right
    if len(options) == 1:
        return a  # the same constant, from two places
    if len(options) > MAX_CHOICES:
        return StringValue(None) if all(isinstance(o, str) for o in options) else None
    return ChoiceValue(options)


@dataclass(frozen=True)
class DTypeValue(Value):
    """A dtype object used as a value, e.g. ``torch.float32`` or Python ``float`` in dtype=."""

    dtype: str
    origin: Optional[Origin] = None
    kind = "dtype"

    def describe(self) -> str:
        return f"dtype {self.dtype}"


@dataclass(frozen=True)
class DeviceValue(Value):
    device: Optional[str] = None  # "cpu" / "cuda" / None
    origin: Optional[Origin] = None
    kind = "device"

    def describe(self) -> str:
        return f"device {self.device or '?'}"


@dataclass(frozen=True)
class SequenceValue(Value):
    """A list, tuple, dict or set. ``items`` holds per-position values when known
    (tuples, literal lists); ``element`` is the join of all elements (dict: of the values)."""

    container: str  # "list" | "tuple" | "dict" | "set"
    element: Value = TOP
    items: Optional[Tuple[Value, ...]] = None
    origin: Optional[Origin] = None
    #: A dict whose keys are all known strings: ``items[i]`` is the value of ``keys[i]``
    #: (``batch["x"]`` then has its own value, not the join of every value).
    keys: Optional[Tuple[str, ...]] = None
    kind = "sequence"

    def value_of(self, key: str) -> "Value":
        """The value stored under string ``key`` of a dict: its own when the keys are known."""
        if self.keys is not None and self.items is not None and key in self.keys:
            return self.items[self.keys.index(key)]
        return self.element

    def describe(self) -> str:
        if self.keys is not None and self.items is not None:
            return "dict{" + ", ".join(f"{k!r}: {v.describe()}" for k, v in zip(self.keys, self.items)) + "}"
        if self.items is not None and self.container == "tuple":
            return "tuple[" + ", ".join(v.describe() for v in self.items) + "]"
        if self.items == ():
            return f"{self.container} (empty)"
        return f"{self.container}[{self.element.describe()}]"


@dataclass(frozen=True)
class SymbolValue(Value):
    """A reference to a library object by qualified name, e.g. ``torch.nn.functional``.

    Imports bind names to symbols; attribute access extends the name. This is how the
    engine resolves ``F.linear`` to ``torch.nn.functional.linear`` without libcst's
    (slow) qualified-name metadata.
    """

    qualname: str
    origin: Optional[Origin] = None
    kind = "symbol"

    def describe(self) -> str:
        return self.qualname


class ModuleValue(Value):
    """An ``nn.Module`` instance of a known library class (``torch.nn.Linear``...).

    Mutable on purpose: module casts (``model.double()``) act in place, so every alias of
    the module must see the new parameter dtype. ``config`` holds constructor arguments
    (in_features, in_channels, ...), ``children`` the layers of an ``nn.Sequential``,
    ``stored`` the attributes the code assigned on it (``layer.weight = Wrapper(...)``), which
    reads then give instead of what the class's knowledge says.
    """

    __slots__ = ("qualname", "config", "param_dtypes", "origin", "children", "device",
                 "dtype_origin", "stored")
    kind = "module"

    def __init__(self, qualname: str, config: Optional[Dict[str, Any]] = None,
                 param_dtypes: DTypes = frozenset({FLOAT32}), origin: Optional[Origin] = None,
                 children: Tuple[Value, ...] = (), device: Optional[str] = None):
        self.qualname = qualname
        self.config = dict(config or {})
        self.param_dtypes = param_dtypes
        self.origin = origin
        self.children = children
        self.device = device
        self.dtype_origin = origin  # where the parameter dtype was last set
        self.stored: Dict[str, Value] = {}

    @property
    def short_name(self) -> str:
        return self.qualname.rsplit(".", 1)[-1]

    def describe(self) -> str:
        # keys starting with "_" are the engine's own notes (EXACT_CHILDREN), not arguments
        args = ", ".join(f"{k}={v}" for k, v in self.config.items() if v is not None and not k.startswith("_"))
        return f"{self.short_name}({args}) params {describe_dtypes(self.param_dtypes)}"

    def __repr__(self) -> str:
        return f"ModuleValue({self.describe()})"


class FunctionValue(Value):
    """A function defined in the analysed file (its libcst FunctionDef)."""

    __slots__ = ("node", "owner", "origin")
    kind = "function"

    def __init__(self, node: Any, owner: Any = None):
        self.node = node
        self.owner = owner  # the ClassValue for methods
        self.origin = None

    def describe(self) -> str:
        return f"function {getattr(getattr(self.node, 'name', None), 'value', '<lambda>')}"


class ClassValue(Value):
    """A class defined in the analysed file, with the qualified names of its bases."""

    __slots__ = ("node", "bases", "methods", "origin", "base_classes", "attrs", "fields", "is_dataclass",
                 "assigned", "plain_sequential")
    kind = "class"

    def __init__(self, node: Any, bases: Tuple[str, ...], methods: Dict[str, Any]):
        self.node = node
        self.bases = bases
        self.methods = methods
        self.origin = None
        #: Direct base classes defined in the same file, in declaration order (for super()).
        self.base_classes: Tuple["ClassValue", ...] = ()
        #: Class-level attributes the class body binds (``scale = 2``, ``dim: int = 4``).
        self.attrs: Dict[str, "Value"] = {}
        #: Names annotated in the class body, in order (a dataclass's fields, bases' first).
        self.fields: Tuple[str, ...] = ()
        self.is_dataclass = False
        #: Names some method assigns on its first parameter (``self.x = ...``), found lazily.
        self.assigned: Optional[frozenset] = None
        #: For an nn.Sequential subclass: whether its layers are only those super().__init__ gets
        #: (engine/calls._plain_sequential), found lazily.
        self.plain_sequential: Optional[bool] = None

    @property
    def name(self) -> str:
        return self.node.name.value

    def describe(self) -> str:
        return f"class {self.name}"


class InstanceValue(Value):
    """An instance of a class defined in the file (e.g. a user ``nn.Module`` subclass).

    Attributes assigned on ``self`` are recorded in ``attrs`` (mutable: the heap object).
    """

    __slots__ = ("cls", "attrs", "origin", "cast_attrs")
    kind = "instance"

    def __init__(self, cls: ClassValue, origin: Optional[Origin] = None):
        self.cls = cls
        self.attrs: Dict[str, Value] = {}
        self.origin = origin
        #: Attributes that module casts (``model.double()``) convert: registered buffers and
        #: ``nn.Parameter`` attributes. Plain tensor attributes are left alone by torch.
        self.cast_attrs: set = set()

    def describe(self) -> str:
        return f"{self.cls.name} instance"


# --------------------------------------------------------------------------- joins


def join_all(values: "Sequence[Value]") -> Value:
    """The join of every value (unknown for none): what any element of a collection may be.
    Distinct modules or instances of one class (``[Block(d), Block(d)]``) give a summary
    object that holds what they all hold (``join`` alone makes them unknown)."""
    if not values:
        return TOP
    summary = _summary(values)
    if summary is not None:
        return summary
    result = values[0]
    for value in values[1:]:
        result = join(result, value)
    return result


def _summary(values: "Sequence[Value]", depth: int = 0) -> "Optional[Value]":
    """A read-only stand-in for any of several heap objects of one class, or None."""
    first = values[0]
    if all(v is first for v in values) or depth > 4:
        return None
    if all(isinstance(v, InstanceValue) and v.cls is first.cls for v in values):
        instance = InstanceValue(first.cls, first.origin)
        names = set(first.attrs).intersection(*(v.attrs for v in values[1:]))
        for name in first.attrs:
            if name in names:
                parts = [v.attrs[name] for v in values]
                instance.attrs[name] = _summary(parts, depth + 1) or _plain_join(parts)
            else:
                instance.attrs[name] = TOP  # set on some of them only
        instance.cast_attrs = set().union(*(v.cast_attrs for v in values))
        return instance
    if all(isinstance(v, ModuleValue) and v.qualname == first.qualname for v in values):
        config = {k: x for k, x in first.config.items() if all(v.config.get(k) == x for v in values)}
        dtypes = None if any(v.param_dtypes is None for v in values) else frozenset().union(
            *(v.param_dtypes for v in values))
        devices = {v.device for v in values}
        if len({len(v.children) for v in values}) != 1:
            return None  # containers of different lengths: no one layer list stands for all
        children = tuple(_summary(list(c), depth + 1) or _plain_join(list(c))
                         for c in zip(*(v.children for v in values)))
        module = ModuleValue(first.qualname, config, dtypes, first.origin, children,
                             devices.pop() if len(devices) == 1 else None)
        module.dtype_origin = first.dtype_origin
        for name in set().union(*(v.stored for v in values)):
            # stored on some of them only: what the others hold is not known here
            module.stored[name] = _plain_join([v.stored[name] for v in values]) \
                if all(name in v.stored for v in values) else TOP
        return module
    if all(isinstance(v, SequenceValue) and v.container == first.container and v.container in ("list", "tuple")
           and v.keys is None and v.items is not None and len(v.items) == len(first.items or ()) for v in values) \
            and first.items:
        # (model, loss) pairs of several runs: position by position, distinct modules summarised
        parts = [list(c) for c in zip(*(v.items for v in values))]  # type: ignore[union-attr]
        if not any(_summary(part, depth + 1) is not None for part in parts):
            return None  # nothing a summary keeps better than join
        items = tuple(_summary(part, depth + 1) or _plain_join(part) for part in parts)
        return SequenceValue(first.container, _summary(list(items), depth + 1) or _plain_join(list(items)), items,
                             first.origin)
    return None


def _plain_join(values: "Sequence[Value]") -> Value:
    result = values[0]
    for value in values[1:]:
        result = join(result, value)
    return result


def _join_dicts(a: "SequenceValue", b: "SequenceValue") -> Value:
    """Dicts with known keys: the same keys join value by value; a known-empty dict adds
    nothing (its subscripts raise KeyError); any other mix keeps only the joined values."""
    if a.items == ():
        return b
    if b.items == ():
        return a
    element = join(a.element, b.element)
    if a.keys is not None and a.keys == b.keys and a.items is not None and b.items is not None:
        items = tuple(join(x, y) for x, y in zip(a.items, b.items))
        return SequenceValue("dict", element, items, a.origin, a.keys)
    return SequenceValue("dict", element, None, a.origin)


def part_origin(origin: Optional[Origin]) -> Optional[Origin]:
    """The origin a part of a container (a slice) keeps: not one about the whole container."""
    return None if getattr(origin, "whole", False) else origin


def _sequence_origin(a: Optional[Origin], b: Optional[Origin]) -> Optional[Origin]:
    """The origin a join of two containers keeps: the first's, unless it states a fact about
    the whole container (``Origin.whole``) the other does not share."""
    if a == b or not getattr(a, "whole", False):
        return a
    return None if getattr(b, "whole", False) else b


def join(a: Value, b: Value) -> Value:
    """Least upper bound of two values (used at branch merges and loop heads)."""
    if a is b:
        return a
    if a is TOP or b is TOP:
        return TOP
    if isinstance(a, TensorValue) and isinstance(b, TensorValue):
        if a == b:
            return a
        return TensorValue(
            dtypes=join_dtypes(a.dtypes, b.dtypes),
            shape=join_shapes(a.shape, b.shape),
            origin=a.origin if a.dtypes == b.dtypes or a.origin == b.origin else _join_origin(a, b),
            device=a.device if a.device == b.device else None,
            requires_grad=a.requires_grad if a.requires_grad == b.requires_grad else None,
        )
    if isinstance(a, ArrayValue) and isinstance(b, ArrayValue):
        if a == b:
            return a
        return ArrayValue(join_dtypes(a.dtypes, b.dtypes), join_shapes(a.shape, b.shape),
                          a.origin if a.dtypes == b.dtypes else _join_origin(a, b))
    # tensors and arrays, the joins that happen most, are done above: constants come after
    choice = _choice_join(a, b)
    if choice is not None:
        return choice  # None or "multi", "sum" or "mean": comparisons all options agree on fold
    if isinstance(a, ScalarValue) and isinstance(b, ScalarValue):
        if a.pytype != b.pytype:
            return TOP
        if a.const == b.const and a.size == b.size:
            return a
        return ScalarValue(a.pytype, a.const if a.const == b.const else None, a.origin)
    if isinstance(a, StringValue) and isinstance(b, StringValue):
        return a if a.const == b.const else StringValue(None, a.origin)
    if isinstance(a, SequenceValue) and isinstance(b, SequenceValue):
        if a.container != b.container:
            return TOP
        if a.container == "dict" and (a.keys is not None or b.keys is not None):
            return _join_dicts(a, b)
        items = None
        if a.items is not None and b.items is not None and len(a.items) == len(b.items):
            items = tuple(join(x, y) for x, y in zip(a.items, b.items))
        # A known-empty container has no elements to disagree with: ``xs = []`` joined at a
        # loop head with ``xs`` after ``xs.append(t)`` holds t's value.
        if a.items == ():
            element = b.element
        elif b.items == ():
            element = a.element
        else:
            element = join(a.element, b.element)
        return SequenceValue(a.container, element, items, _sequence_origin(a.origin, b.origin))
    if type(a) is type(b) and isinstance(a, (DTypeValue, DeviceValue, SymbolValue, NoneValue)):
        return a if a == b else TOP
    if type(a) is type(b):
        joined = a.joined_with(b)  # a kind of value defined elsewhere joins by its own rule
        return joined if joined is not None else TOP
    return TOP


def _join_origin(a: Value, b: Value) -> Optional[Origin]:
    # Keep one representative chain; a merge point that changed nothing is not news.
    return a.origin or b.origin


def with_origin(value: Value, origin: Optional[Origin]) -> Value:
    """The same fact with a different provenance (immutable values only)."""
    if value is TOP or origin is None or not hasattr(value, "__dataclass_fields__"):
        return value
    return replace(value, origin=origin)



# --------------------------------------------------------------------------- calls


@dataclass
class CallArgs:
    """The abstract values of a call's arguments.

    ``pos`` / ``kw`` hold values; ``pos_nodes`` / ``kw_nodes`` the libcst expressions they came
    from (for literal inspection and for messages). ``has_star`` is set when ``*args`` or
    ``**kwargs`` make the argument list unknowable; knowledge functions then stay silent on
    anything that depends on positions.
    """

    pos: List[Value] = field(default_factory=list)
    kw: Dict[str, Value] = field(default_factory=dict)
    pos_nodes: List[Any] = field(default_factory=list)
    kw_nodes: Dict[str, Any] = field(default_factory=dict)
    has_star: bool = False
    #: The value of a lone ``*iterable`` argument (``zip(*rows)``), when it is the only one.
    star: Optional[Value] = None

    def get(self, index: Optional[int], name: Optional[str] = None) -> Value:
        """The argument given by keyword ``name`` or at position ``index``; TOP if absent."""
        if name is not None and name in self.kw:
            return self.kw[name]
        if index is not None and index < len(self.pos):
            return self.pos[index]
        return TOP

    def node(self, index: Optional[int], name: Optional[str] = None) -> Any:
        if name is not None and name in self.kw_nodes:
            return self.kw_nodes[name]
        if index is not None and index < len(self.pos_nodes):
            return self.pos_nodes[index]
        return None

    def has(self, index: Optional[int], name: Optional[str] = None) -> bool:
        return (name is not None and name in self.kw) or (
            index is not None and index < len(self.pos))

    def all_values(self) -> Sequence[Value]:
        return list(self.pos) + list(self.kw.values())


@dataclass
class Callee:
    """What a call resolved to, recorded for rules.

    kind: "symbol" (a library function such as ``torch.matmul``), "method" (a method of a
    tensor, ndarray or module value: ``receiver`` holds it), "module" (calling an nn module),
    "user" (a function or class of the analysed file), or "unknown".
    ``name`` is the qualified name for symbols, the method name for methods.
    """

    kind: str
    name: str = ""
    receiver: Value = TOP
    args: CallArgs = field(default_factory=CallArgs)
    result: Value = TOP
