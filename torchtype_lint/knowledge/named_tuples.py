"""``collections.namedtuple`` / ``typing.NamedTuple`` classes made by a call, and the tuples
their calls make: what a model returns in training mode (torchvision's ``InceptionOutputs``,
``GoogLeNetOutputs``) is such a tuple, not a tensor.

A namedtuple instance is a tuple of known items whose origin (:class:`NamedTupleOrigin`)
remembers the type's name and fields, so ``out.logits`` is its item and a message can name
the type torch names (``must be Tensor, not InceptionOutputs``).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Dict, Optional, Tuple

from ..model.values import CallArgs, Origin, SequenceValue, StringValue, Value, join_all

#: The functions that make a namedtuple class from a name and its fields.
NAMEDTUPLE_FACTORIES = frozenset({"collections.namedtuple", "typing.NamedTuple"})


@dataclass(frozen=True)
class NamedTupleOrigin(Origin):
    """The origin of a namedtuple instance: its type's name and fields."""

    type_name: str = ""
    fields: Tuple[str, ...] = ()
    whole = True  # joined with another tuple, it may not be this type


@dataclass(frozen=True, eq=False)
class NamedTupleClass(Value):
    """A namedtuple class: calling it makes a tuple of its fields."""

    name: str
    fields: Tuple[str, ...]
    origin: Optional[Origin] = None
    kind = "namedtuple class"

    def describe(self) -> str:
        return f"namedtuple {self.name}({', '.join(self.fields)})"


def namedtuple_class(args: CallArgs, node: Any) -> Optional[NamedTupleClass]:
    """``namedtuple("Name", ["a", "b"])`` / ``namedtuple("Name", "a b")`` / ``namedtuple("Name",
    "a, b")`` / ``NamedTuple("Name", [("a", T), ...])``: the class, when the name and every
    field are known strings (``defaults=``, ``rename=`` and the like: None)."""
    if args.has_star or len(args.pos) != 2 or set(args.kw) - {"module"}:
        return None
    name, spec = args.pos
    if not isinstance(name, StringValue) or not name.const:
        return None
    fields: Optional[Tuple[str, ...]] = None
    if isinstance(spec, StringValue) and spec.const is not None:
        fields = tuple(spec.const.replace(",", " ").split())
    elif isinstance(spec, SequenceValue) and spec.items is not None and spec.container in ("list", "tuple"):
        names = []
        for item in spec.items:
            if isinstance(item, SequenceValue) and item.items is not None and len(item.items) == 2:
                item = item.items[0]  # typing.NamedTuple's (name, type) pairs
            if not isinstance(item, StringValue) or not item.const:
                return None
            names.append(item.const)
        fields = tuple(names)
    if fields is None or not all(field.isidentifier() for field in fields) or len(set(fields)) != len(fields):
        return None
    return NamedTupleClass(name.const, fields, Origin(node, f"namedtuple {name.const}"))


#: The base that makes a class statement a namedtuple (``class Out(NamedTuple): logits: Tensor``).
NAMEDTUPLE_BASES = frozenset({"typing.NamedTuple"})


def instance(cls: NamedTupleClass, args: CallArgs, node: Any,
             defaults: Optional[Dict[str, Value]] = None) -> Optional[Value]:
    """``Cls(a, b)`` / ``Cls(logits=a, aux_logits=b)``: the tuple of its fields (a field not
    given takes its default from ``defaults``, the class body's; else unknown: None)."""
    if args.has_star or len(args.pos) > len(cls.fields):
        return None
    items = list(args.pos)
    for field in cls.fields[len(items):]:
        if field in args.kw:
            items.append(args.kw[field])
        elif defaults is not None and field in defaults:
            items.append(defaults[field])
        else:
            return None
    if set(args.kw) - set(cls.fields[len(args.pos):]):
        return None
    return SequenceValue("tuple", join_all(items), tuple(items),
                         NamedTupleOrigin(node, f"{cls.name}(...)", None, cls.name, cls.fields))


def class_statement_instance(name: str, fields: Tuple[str, ...], defaults: Dict[str, Value], args: CallArgs,
                             node: Any) -> Optional[Value]:
    """``Out(a, b)`` of ``class Out(NamedTuple)`` with annotated ``fields`` (class-level values
    their defaults)."""
    if not fields:
        return None
    return instance(NamedTupleClass(name, fields), args, node, defaults)


def named_field(owner: SequenceValue, attr: str) -> Optional[Value]:
    """``out.logits`` of a namedtuple instance: its item; None when ``owner`` is none or has
    no such field."""
    origin = owner.origin
    if not isinstance(origin, NamedTupleOrigin) or owner.items is None or attr not in origin.fields \
            or len(owner.items) != len(origin.fields):
        return None
    return owner.items[origin.fields.index(attr)]


def type_name(value: Value) -> Optional[str]:
    """The namedtuple type ``value`` is an instance of, or None."""
    origin = getattr(value, "origin", None)
    return origin.type_name if isinstance(origin, NamedTupleOrigin) else None
