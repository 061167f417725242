"""Python's builtin types and functions: literals, ``float()``/``len()``/``zip()``/``super()``
and friends, iteration, arithmetic on Python scalars, and list/dict element updates.

Separate from the interpreter because none of it is control flow: each function maps values
to a value (the interpreter is passed in only for name lookup, the current frame and
``_eval_children``).
"""
from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any, Callable, Dict, List, Optional, Tuple

import libcst as cst

from ..knowledge.python_types import hasattr_truth, isinstance_truth
from ..knowledge import torch_api as T
from ..knowledge.data_pipeline import DataLoaderValue, SubsetValue, TensorDatasetValue, batch, dataset_item
from ..knowledge.indexing import index_first
from ..knowledge.module_state import same_entries
from ..knowledge.symbolic_dims import as_dim, has_names, product, quotient, symbolic
from ..knowledge.torch_objects import module_children_element
from ..model.values import (
    CallArgs,
    TOP, ArrayValue, ClassValue, InstanceValue, ModuleValue, NoneValue, ScalarValue,
    SequenceValue, StringValue, TensorValue, Value, join, join_all,
)
from .configuration import derived
from .dynamic_attributes import store_named
from .runtime import SuperValue
from .syntax import first_param

if TYPE_CHECKING:
    from .interpreter import Interpreter

#: Names that resolve to ``builtins.<name>`` when no scope binds them.
BUILTIN_NAMES = {"float", "int", "bool", "complex", "str", "len", "range", "enumerate", "zip",
                 "list", "tuple", "dict", "set", "print", "isinstance", "super", "sum", "min",
                 "max", "abs", "round", "sorted", "reversed", "map", "filter", "open", "type",
                 "getattr", "setattr", "hasattr", "iter", "next", "object", "Exception", "vars"}


# ---------------------------------------------------------------------- literals


def integer(interp: "Interpreter", node: cst.Integer) -> Value:
    try:
        return ScalarValue("int", int(node.value.replace("_", ""), 0))
    except ValueError:
        return ScalarValue("int")


def float_literal(interp: "Interpreter", node: cst.Float) -> Value:
    try:
        return ScalarValue("float", float(node.value.replace("_", "")))
    except ValueError:
        return ScalarValue("float")


def imaginary(interp: "Interpreter", node: Any) -> Value:
    return ScalarValue("complex")


def string(interp: "Interpreter", node: Any) -> Value:
    if isinstance(node, cst.SimpleString):
        raw = node.value
        if raw[:1] in ("'", '"') and "\\" not in raw and "\r" not in raw:
            # No prefix, no escape: the value is the text between the quotes. (libcst's
            # evaluated_value runs ast.literal_eval, a compile per docstring: 8% of a big file.)
            quote = 3 if raw[:3] in ('"""', "'''") and len(raw) >= 6 else 1
            return StringValue(raw[quote:-quote])
        try:
            text = node.evaluated_value
        except Exception:  # noqa: BLE001 - odd literals are simply unknown
            text = None
        return StringValue(text if isinstance(text, str) else None)
    if isinstance(node, cst.FormattedString) and node.start in ('f"', "f'"):
        return _formatted(interp, node)
    interp._eval_children(node)
    return StringValue(None)


def _formatted(interp: "Interpreter", node: cst.FormattedString) -> Value:
    """``f"lin{layer}"`` of known ints and strings with no format spec or conversion: its text
    (``setattr(self, f"lin{i}", ...)`` in an unrolled loop then stores a known name)."""
    parts: List[str] = []
    known = True
    for part in node.parts:
        if isinstance(part, cst.FormattedStringText):
            parts.append(part.value)
            continue
        value = interp.eval(part.expression)
        if part.format_spec is not None or part.conversion is not None or part.equal is not None:
            known = False
        elif isinstance(value, StringValue) and value.const is not None:
            parts.append(value.const)
        elif isinstance(value, ScalarValue) and value.pytype == "int" and isinstance(value.const, int):
            parts.append(str(value.const))
        else:
            known = False
    return StringValue("".join(parts) if known and "{" not in "".join(parts) else None)


def name_value(interp: "Interpreter", node: cst.Name) -> Value:
    """``True``, ``False``, ``None``, else whatever the name is bound to."""
    if node.value == "True":
        return ScalarValue("bool", True)
    if node.value == "False":
        return ScalarValue("bool", False)
    if node.value == "None":
        return NoneValue()
    return interp.lookup(node.value)


#: Literal node types and their evaluators (also used for parameter defaults).
LITERAL_HANDLERS: Dict[type, Callable[["Interpreter", Any], Value]] = {
    cst.Integer: integer,
    cst.Float: float_literal,
    cst.Imaginary: imaginary,
    cst.SimpleString: string,
    cst.ConcatenatedString: string,
    cst.FormattedString: string,
}


# ---------------------------------------------------------------------- functions and iteration


#: ``range(...)`` of constants with at most this many items has its items known.
_KNOWN_RANGE = 16


def _float_of_text(text: str) -> Optional[float]:
    """What ``float(text)`` gives, or None where it raises (a ValueError is not ours to model)."""
    try:
        return float(text)
    except ValueError:
        return None


def call_builtin(interp: "Interpreter", name: str, args: CallArgs, node: Any) -> Value:
    """``builtins.<name>(...)``."""
    if name == "str" and len(args.pos) == 1 and not args.kw and not args.has_star:
        arg = args.pos[0]
        if isinstance(arg, StringValue):
            return arg
        if isinstance(arg, ScalarValue) and arg.pytype in ("int", "bool") and arg.const is not None:
            return StringValue(str(arg.const))  # "lin" + str(layer) of a known layer index
        return StringValue(None)
    if name in ("float", "int", "bool", "complex"):
        if args.has_star or args.kw or len(args.pos) > 1:
            return ScalarValue(name) if name != "int" or not args.kw else TOP
        arg = args.get(0)
        const = None
        if isinstance(arg, ScalarValue) and isinstance(arg.const, (bool, int, float)) and not (
                name == "int" and isinstance(arg.const, float) and not math.isfinite(arg.const)):
            const = {"float": float, "int": int, "bool": bool, "complex": complex}[name](arg.const)
        elif not args.pos:
            const = {"float": 0.0, "int": 0, "bool": False, "complex": 0j}[name]
        elif name == "float" and isinstance(arg, StringValue) and arg.const is not None:
            const = _float_of_text(arg.const)  # float("-inf"), float("1e-9")
        return derived(ScalarValue(name, const), arg)  # bool(args.fp16) is still the option's default
    if name == "abs" and len(args.pos) == 1:
        arg = args.pos[0]
        if isinstance(arg, TensorValue):
            return T.tensor_method(arg, "abs", CallArgs(), node, interp.tenv)
        if isinstance(arg, ScalarValue):
            pytype = {"bool": "int", "complex": "float"}.get(arg.pytype, arg.pytype)
            const = abs(arg.const) if isinstance(arg.const, (int, float, complex)) else None
            return ScalarValue(pytype, const)
        return TOP
    if name in ("max", "min") and args.pos and not args.kw and not args.has_star:
        return _extremum(name, args.pos)
    if name == "round" and args.pos:
        arg = args.pos[0]
        if isinstance(arg, TensorValue) and len(args.pos) == 1 and not args.kw:
            return T.tensor_method(arg, "round", CallArgs(), node, interp.tenv)
        if isinstance(arg, ScalarValue) and arg.pytype in ("int", "float", "bool"):
            with_digits = len(args.pos) > 1 or "ndigits" in args.kw
            if arg.pytype == "float":
                return ScalarValue("float" if with_digits else "int")
            return ScalarValue("int")
        return TOP
    if name == "len":
        target = args.get(0)
        count: Any = None
        if isinstance(target, (TensorValue, ArrayValue)) and target.shape and isinstance(target.shape[0], int):
            count = target.shape[0]
        elif isinstance(target, SequenceValue) and target.items is not None and target.container != "dict":
            count = len(target.items)
        elif isinstance(target, StringValue) and target.const is not None:
            count = len(target.const)
        return ScalarValue("int", count)
    if name == "range":
        bounds = [a.const for a in args.pos if isinstance(a, ScalarValue) and isinstance(a.const, int)
                  and not isinstance(a.const, bool)]
        if not args.kw and not args.has_star and 1 <= len(args.pos) <= 3 and len(bounds) == len(args.pos) \
                and (len(bounds) < 3 or bounds[2] != 0) and len(range(*bounds)) <= _KNOWN_RANGE:
            # a short range of constants: its items are known (loops over it may be unrolled)
            items = tuple(ScalarValue("int", i) for i in range(*bounds))
            return SequenceValue("list", join_all(items) if items else ScalarValue("int"), items)
        return SequenceValue("list", ScalarValue("int"), None)
    if name == "enumerate":
        element = iterate(args.get(0))
        return SequenceValue("list", SequenceValue("tuple", TOP, (ScalarValue("int"), element)), None)
    if name == "zip":
        if args.has_star:
            return transposed(args.star) if args.star is not None else TOP
        if args.pos and not args.kw and all(isinstance(v, SequenceValue) and v.container in ("list", "tuple")
                                            and v.items is not None for v in args.pos):
            # zip of sequences of known items: the rows themselves (zip(*pairs) of known pairs)
            length = min(len(v.items) for v in args.pos)  # type: ignore[union-attr]
            rows = tuple(SequenceValue("tuple", join_all(row), row) for row in
                         (tuple(v.items[i] for v in args.pos) for i in range(length)))  # type: ignore[index]
            if rows:
                return SequenceValue("list", join_all(rows), rows)
        items = tuple(iterate(v) for v in args.pos)
        return SequenceValue("list", SequenceValue("tuple", TOP, items), None)
    if name in ("list", "tuple") and len(args.pos) == 1 and isinstance(args.pos[0], SequenceValue) \
            and args.pos[0].items is not None and args.pos[0].container in ("list", "tuple"):
        # tuple(x.shape), list((2, 3)): the same items, in order
        return SequenceValue(name, args.pos[0].element, args.pos[0].items)
    if name in ("list", "tuple", "sorted", "reversed") and args.pos:
        element = iterate(args.pos[0])
        # list(model.state_dict().values()): still every entry of the module's state
        return SequenceValue("list" if name != "tuple" else "tuple", element, None, same_entries(args.pos[0]))
    if name == "iter" and len(args.pos) == 1 and isinstance(args.pos[0], (DataLoaderValue, TensorDatasetValue)):
        return args.pos[0]  # an iterator over the same batches: next() gives one of them
    if name == "iter" and len(args.pos) == 1 and isinstance(args.pos[0], SequenceValue) and \
            args.pos[0].container in ("list", "tuple"):
        return SequenceValue("list", args.pos[0].element, None)  # next() gives any one element
    if name == "next" and args.pos and isinstance(args.pos[0], (DataLoaderValue, TensorDatasetValue)):
        return iterate(args.pos[0])
    if name == "next" and len(args.pos) == 1 and isinstance(args.pos[0], SequenceValue):
        return iterate(args.pos[0])
    if name == "dict" and len(args.pos) == 1 and not args.kw and not args.has_star \
            and isinstance(args.pos[0], SequenceValue) and args.pos[0].container == "dict":
        source = args.pos[0]  # dict(cfg): a copy with the same keys
        return SequenceValue("dict", source.element, source.items, source.origin, source.keys)
    if name == "dict" and not args.pos and not args.has_star:
        # dict(model=dict(width=4), fp16=...): an mmcv-style config, every key known
        items = tuple(args.kw.values())
        return SequenceValue("dict", join_all(items) if items else TOP, items, None, tuple(args.kw))
    if name == "vars" and len(args.pos) == 1 and isinstance(args.pos[0], InstanceValue) \
            and args.pos[0].cls.name == "Namespace":
        # vars(parser.parse_args()): the options as a dict (their defaults keep their origin)
        attrs = args.pos[0].attrs
        return SequenceValue("dict", join_all(tuple(attrs.values())) if attrs else TOP, tuple(attrs.values()),
                             None, tuple(attrs))
    if name == "hasattr" and len(args.pos) == 2 and not args.kw and not args.has_star:
        return ScalarValue("bool", hasattr_truth(args.pos[0], args.pos[1]))
    if name == "isinstance":
        truth = isinstance_truth(args.pos[0], args.pos[1]) if len(args.pos) == 2 and not args.kw \
            and not args.has_star else None
        return ScalarValue("bool", truth)  # a known answer prunes the branch the value cannot take
    if name == "setattr" and len(args.pos) == 3 and not args.kw and not args.has_star:
        # setattr(self, name, value): an attribute store by a name that may be unknown
        store_named(interp, args.pos[0], args.pos[1], args.pos[2],
                    args.pos_nodes[2] if len(args.pos_nodes) > 2 else None)
        return NoneValue()
    if name == "super" and not args.pos and not args.kw:
        # super() in a method: the owner class's bases, bound to the method's first argument
        fn = interp.frame.function
        if fn is None or not isinstance(fn.owner, ClassValue):
            return TOP
        first = first_param(fn.node)
        instance = interp.frame.vars.get(first) if first else None
        if not isinstance(instance, InstanceValue):
            return TOP
        return SuperValue(fn.owner, instance)
    return TOP


def transposed(rows: Value) -> Value:
    """``zip(*rows)``: the k-th tuple holds field k of every row (rows of known arity give
    one tuple per field: ``docs, labels = zip(*batch)``)."""
    row = iterate(rows)
    if isinstance(row, SequenceValue) and row.container in ("tuple", "list") and row.keys is None:
        if row.items is not None:
            columns = tuple(SequenceValue("tuple", item, None) for item in row.items)
            return SequenceValue("list", join_all(columns), columns)
        if row.element is not TOP:
            return SequenceValue("list", SequenceValue("tuple", row.element, None), None)
    return TOP


def iterate(iterable: Value) -> Value:
    """The value of one element when iterating over ``iterable``."""
    if isinstance(iterable, SequenceValue):
        if iterable.container == "dict":
            return TOP
        # known items are exact; ``element`` may be a coarser summary made for unknown lengths
        return join_all(iterable.items) if iterable.items else iterable.element
    if isinstance(iterable, TensorValue):
        return index_first(iterable)
    if isinstance(iterable, ArrayValue) and iterable.shape != ():
        # rows of an array; a 1-d array yields numpy scalars (0-d arrays to the engine)
        return ArrayValue(iterable.dtypes, None if iterable.shape is None else tuple(iterable.shape[1:]),
                          iterable.origin)
    if isinstance(iterable, TensorDatasetValue):
        return iterable.item
    if isinstance(iterable, SubsetValue):
        return dataset_item(iterable)  # a random_split part of a TensorDataset: its rows
    if isinstance(iterable, DataLoaderValue):
        return batch(iterable)
    if isinstance(iterable, ModuleValue):
        return module_children_element(iterable)
    return TOP


# ---------------------------------------------------------------------- scalars and containers


def _extremum(name: str, pos: List[Value]) -> Value:
    """``max(a, b, ...)`` / ``max(items)`` (``min`` alike) of Python numbers: the one that wins
    when all are known (``maxk = max(topk)`` of ``topk=(1, 5)``), else a number of their type
    when they share it."""
    values = pos
    if len(pos) == 1:
        seq = pos[0]
        if not (isinstance(seq, SequenceValue) and seq.container in ("list", "tuple") and seq.items):
            return TOP
        values = list(seq.items)
    if not all(isinstance(v, ScalarValue) and v.pytype in ("int", "float") for v in values):
        return TOP
    consts = [v.const for v in values]  # type: ignore[union-attr]
    if all(isinstance(c, (int, float)) and not isinstance(c, bool) for c in consts):
        chosen = (max if name == "max" else min)(consts)
        return ScalarValue("int" if isinstance(chosen, int) else "float", chosen)
    types = {v.pytype for v in values}  # type: ignore[union-attr]
    return ScalarValue(types.pop()) if len(types) == 1 else TOP


def scalar_binary(left: ScalarValue, right: ScalarValue, op: str) -> Value:
    """``left <op> right`` on Python scalars: the result's type, and its value when known."""
    order = {"bool": 0, "int": 1, "float": 2, "complex": 3}
    kind = left.pytype if order.get(left.pytype, 3) >= order.get(right.pytype, 3) else right.pytype
    if kind == "bool" and op in ("+", "-", "*", "//", "%", "**", "<<", ">>"):
        kind = "int"
    if op == "/" and kind in ("int", "bool"):
        kind = "float"
    if op == "**" and kind in ("int", "float"):
        exponent = right.const
        if kind == "int" and not (isinstance(exponent, int) and exponent >= 0):
            # 3 ** -2 is a float; with an unknown exponent the type is unknown
            return ScalarValue("float") if isinstance(exponent, int) else TOP
        if kind == "float":
            base = left.const
            integral_exponent = isinstance(exponent, (int, float)) and float(exponent).is_integer()
            if not integral_exponent and not (isinstance(base, (int, float)) and base >= 0):
                return TOP  # (-2.0) ** 0.5 is complex
    const = None
    if isinstance(left.const, (int, float)) and isinstance(right.const, (int, float)):
        try:
            const = {"+": lambda a, b: a + b, "-": lambda a, b: a - b, "*": lambda a, b: a * b,
                     "//": lambda a, b: a // b, "/": lambda a, b: a / b, "%": lambda a, b: a % b,
                     "**": _power}.get(op, lambda a, b: None)(left.const, right.const)
        except (ZeroDivisionError, OverflowError):
            const = None
        if isinstance(const, complex):
            const = None
        if isinstance(const, int) and abs(const) > 1 << 62:
            const = None
    size = _size_arithmetic(left, right, op) if kind == "int" and const is None else None
    return ScalarValue(kind, const, None, size)


def _power(base: Any, exponent: Any) -> Any:
    """``base ** exponent`` when the result stays small (``2 ** 10``; never ``10 ** 10 ** 6``,
    whose digits alone would take the analysis' time), else None."""
    if isinstance(base, int) and isinstance(exponent, int):
        if exponent < 0 or exponent * max(abs(base).bit_length(), 1) > 62:
            return None  # an int power of a negative exponent is a float: typed by the caller
    elif abs(exponent) > 1024:
        return None
    return base ** exponent


def _size_arithmetic(left: ScalarValue, right: ScalarValue, op: str) -> Any:
    """The size ``left <op> right`` is when one side is a symbolic size (``n_heads *
    head_dim``): a product, or a quotient exact for every size (``2*d // 2``); anything else
    (sums, ``d // n_heads``) stays unknown."""
    if left.size is None and right.size is None:
        return None
    a, b = (symbolic(v.size if v.size is not None else v.const) if v.pytype == "int" else None
            for v in (left, right))
    if op == "*":
        result = as_dim(product((a, b))) if a is not None and b is not None else None
    elif op == "//":
        result = as_dim(quotient(a, b))
    else:
        return None
    return result if has_names(result) else None


def with_element(container: SequenceValue, value: Value, node: Any = None) -> SequenceValue:
    """The container after one more element (or one element replaced) of ``value``, the
    value of expression ``node`` when known (a display there is a fresh object: no alias)."""
    value = fresh(value) if _is_display(node) else aliased(value)
    element = value if container.items == () else join(container.element, value)
    return SequenceValue(container.container, element, None, container.origin)


def appended(container: SequenceValue, value: Value, node: Any = None) -> SequenceValue:
    """The list after ``append(value)`` where its items are known: one more item."""
    value = fresh(value) if _is_display(node) else aliased(value)
    items = tuple(container.items or ()) + (value,)
    return SequenceValue(container.container, join_all(items), items, container.origin)


def with_keyed_element(container: SequenceValue, key: str, value: Value) -> SequenceValue:
    """The dict after ``d[key] = value``: with its keys known (or known empty), ``key`` gets
    ``value`` (added or replaced); else only the joined values are kept."""
    value = aliased(value)
    if container.items == ():
        return SequenceValue("dict", value, (value,), container.origin, (key,))
    if container.keys is None or container.items is None:
        return with_element(container, value)
    keys, items = list(container.keys), list(container.items)
    if key in keys:
        items[keys.index(key)] = value
    else:
        keys.append(key)
        items.append(value)
    return SequenceValue("dict", join_all(items), tuple(items), container.origin, tuple(keys))


def aliased(value: Value) -> Value:
    """A mutable container stored inside another one can be mutated through the alias
    (``d.setdefault(k, []).append(i)``), which the engine does not follow: forget its items."""
    if isinstance(value, SequenceValue) and value.container != "tuple" and value.items is not None:
        return SequenceValue(value.container, value.element if value.items else TOP, None, value.origin)
    return value


def _is_display(node: Any) -> bool:
    """A literal ``{...}``/``[...]``/``(...)``: it makes a new object nothing else refers to."""
    return isinstance(node, (cst.Dict, cst.List, cst.Tuple, cst.Set))


def fresh(value: Value) -> Value:
    """A container just built by a display keeps its own items; only those items may be
    aliased elsewhere (``{"x": xs}``: ``xs`` can still be appended to by name)."""
    if isinstance(value, SequenceValue) and value.items is not None:
        items = tuple(aliased(item) for item in value.items)
        return SequenceValue(value.container, join_all(items) if items else value.element, items,
                             value.origin, value.keys)
    return value


def list_of(items: Tuple[Value, ...]) -> SequenceValue:
    """A list of exactly ``items`` (what a starred target binds)."""
    return SequenceValue("list", join_all(items), tuple(items))
