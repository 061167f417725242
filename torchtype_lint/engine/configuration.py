"""Configuration objects: ``argparse`` parsers and the namespaces ``parse_args()`` gives,
``SimpleNamespace`` / ``argparse.Namespace`` built in code, and the *configuration facts* a
finding may rest on.

A command-line option's default is what the program does when run as written, but a user may
pass another value: a value read from ``parse_args()`` carries a :class:`ConfigOrigin`. When
such a value decides a branch (``if args.half: model.half()``) the engine follows the branch
the default takes, and when an ``int``/``str`` option is read its default is used; both are
recorded as *assumptions* (``--half=True``). Every report made after an assumption names them
(:func:`assumption_note`), so a finding that rests on the default configuration says so.
Values a program builds itself (dict literals, dataclass defaults, ``SimpleNamespace(...)``)
are facts of the program, not assumptions, and so are the options a written argument list
sets (``parser.parse_args(["--half"])``, parsed as argparse parses it where that is exact).
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Dict, List, Optional, Tuple

import libcst as cst

from ..model.values import (
    CallArgs, TOP, ClassValue, InstanceValue, NoneValue, Origin, ScalarValue, SequenceValue,
    StringValue, SymbolValue, Value, ChoiceValue,
)

if TYPE_CHECKING:
    from .interpreter import Interpreter

#: Constructors of a command-line parser.
PARSER_CLASSES = frozenset({"argparse.ArgumentParser"})
#: Constructors of a plain attribute bag from keyword arguments.
NAMESPACE_CLASSES = frozenset({"argparse.Namespace", "types.SimpleNamespace"})
#: Parser methods that return a group whose options land in the same namespace.
_GROUP_METHODS = frozenset({"add_argument_group", "add_mutually_exclusive_group"})
#: ``action=`` values whose default is False / True when no ``default=`` is given.
_FLAG_DEFAULTS = {"store_true": False, "store_false": True}
#: ``type=`` callables argparse applies to a string default, by qualified name.
_CONVERTERS = {"builtins.int": int, "builtins.float": float, "builtins.str": str, "builtins.bool": bool}
#: Words naming a device: an option about one picks the device at run time.
_DEVICE_WORDS = frozenset({"cuda", "gpu", "gpus", "device", "cpu", "mps", "xpu"})
#: How many assumptions a message names before "and N more".
_SHOWN_ASSUMPTIONS = 3


@dataclass(frozen=True)
class ConfigOrigin(Origin):
    """The origin of a command-line option's default: ``shown`` is how a message names the
    assumption (``--half=True``)."""

    shown: str = ""


class ParserValue(Value):
    """An ``argparse.ArgumentParser`` (mutable: ``add_argument`` adds to it in place)."""

    __slots__ = ("options", "flags", "origin")
    kind = "argument parser"

    def __init__(self, origin: Optional[Origin] = None):
        #: dest -> the value ``parse_args()`` gives without arguments (TOP: the command line's)
        self.options: Dict[str, Value] = {}
        #: option string (``--half``) -> how a written argument list sets it (:class:`_FlagSpec`),
        #: or None when what it does with its arguments is not simulated
        self.flags: Dict[str, Optional["_FlagSpec"]] = {}
        self.origin = origin

    def describe(self) -> str:
        return f"ArgumentParser({', '.join(self.options)})"


#: The class of every namespace: no methods, no class attributes, attributes only on its
#: instances; one for all (nothing tells them apart). Its node is made up, outside any file:
#: code that reads a class's body finds an empty one.
NAMESPACE_CLASS = ClassValue(cst.ClassDef(name=cst.Name("Namespace"), body=cst.IndentedBlock(
    body=[cst.SimpleStatementLine(body=[cst.Pass()])])), ("argparse.Namespace",), {})


def new_parser(node: Any) -> ParserValue:
    return ParserValue(Origin(node, "argparse.ArgumentParser(...)"))


def namespace_of(args: CallArgs, node: Any, name: str) -> Value:
    """``SimpleNamespace(a=1, ...)``: an instance whose attributes are the keyword arguments
    (``**cfg`` hides which: unknown)."""
    if args.has_star or args.pos:
        return TOP
    instance = InstanceValue(NAMESPACE_CLASS, Origin(node, f"{name.rsplit('.', 1)[-1]}(...)"))
    instance.attrs.update(args.kw)
    return instance


def parser_method(parser: ParserValue, name: str, args: CallArgs, node: Any) -> Value:
    """``parser.<name>(...)``: options recorded, namespaces made."""
    if name == "add_argument":
        _add_argument(parser, args, node)
        return TOP  # an Action object
    if name in _GROUP_METHODS:
        return parser  # a group's options are the parser's
    if name == "set_defaults":
        if args.has_star:  # set_defaults(**cfg): any default may have changed
            parser.options = {dest: TOP for dest in parser.options}
        for dest, value in args.kw.items():
            parser.options[dest] = _as_default(value, node, "--" + dest.replace("_", "-"))
        return NoneValue()
    if name in ("parse_args", "parse_known_args"):
        given = args.get(0, "args")
        # parse_args() / parse_args([]) / parse_args(None): the defaults; a written list of
        # strings is parsed (_parsed_argv); any other list: every option unknown
        defaults = not args.has_star and (isinstance(given, NoneValue) or not args.has(0, "args") or (
            isinstance(given, SequenceValue) and given.items == ()))
        written = None if defaults or args.has_star else _parsed_argv(parser, given)
        instance = InstanceValue(NAMESPACE_CLASS, Origin(node, f"{name}()"))
        for dest, value in parser.options.items():
            if written is not None:
                value = written.get(dest, value)
            instance.attrs[dest] = value if defaults or written is not None else TOP
        if name == "parse_known_args":
            return SequenceValue("tuple", TOP, (instance, SequenceValue("list", StringValue(None), None)))
        return instance
    return TOP


@dataclass(frozen=True)
class _FlagSpec:
    """What an option string does when a written argument list names it: sets ``dest`` to
    ``flag_value`` (``store_true``/``store_false``), or to the next argument passed through
    ``convert`` (plain ``store``)."""

    dest: str
    flag_value: Optional[bool] = None
    convert: Any = None
    #: ``choices=[...]`` of known constants: a value outside them makes argparse exit (None: any).
    choices: Optional[Tuple[Any, ...]] = None


def _parsed_argv(parser: ParserValue, given: Value) -> Optional[Dict[str, Value]]:
    """``parser.parse_args(["--half", "--lr", "0.1"])``: the options a written list of string
    constants sets, as argparse sets them (a fact of the program, not an assumption); None
    when any argument is not simulated exactly (an unknown or abbreviated option, a
    positional argument, ``nargs``, a custom action, a value that looks like an option)."""
    if not isinstance(given, SequenceValue) or given.items is None or given.container not in ("list", "tuple"):
        return None
    words = [item.const if isinstance(item, StringValue) else None for item in given.items]
    if any(word is None for word in words):
        return None
    result: Dict[str, Value] = {}
    position = 0
    while position < len(words):
        word = words[position]
        position += 1
        flag, _, attached = word.partition("=") if word.startswith("--") else (word, "", "")
        spec = parser.flags.get(flag)
        if spec is None or not word.startswith("-"):
            return None
        if spec.flag_value is not None:
            if attached:
                return None  # argparse: "ignored explicit argument"
            result[spec.dest] = ScalarValue("bool", spec.flag_value)
            continue
        if not attached:
            if position >= len(words) or words[position].startswith("-"):
                return None
            attached = words[position]
            position += 1
        try:
            const = spec.convert(attached)
        except ValueError:
            return None  # argparse exits with a usage error
        if spec.choices is not None and const not in spec.choices:
            return None  # argparse exits: "invalid choice"
        result[spec.dest] = StringValue(const) if isinstance(const, str) else ScalarValue(type(const).__name__, const)
    return result


def _flag_spec(dest: str, action_name: Optional[str], args: CallArgs) -> Optional[_FlagSpec]:
    """How a written argument list sets the option ``add_argument`` declares (None: not
    simulated)."""
    if any(key in args.kw for key in ("nargs", "const")):
        return None
    if action_name in _FLAG_DEFAULTS:
        return _FlagSpec(dest, flag_value=not _FLAG_DEFAULTS[action_name])
    if action_name not in (None, "store"):
        return None
    kind = args.kw.get("type")
    # choices=sorted(REGISTRY) of unknown items: a value argparse takes is one of them, so the
    # written value is what the program sees (a value outside them never gets past parse_args)
    choices = _known_choices(args.kw.get("choices"))
    if kind is None:
        return _FlagSpec(dest, convert=str, choices=choices)
    convert = _CONVERTERS.get(kind.qualname) if isinstance(kind, SymbolValue) else None
    if convert is None or convert is bool:
        return None
    return _FlagSpec(dest, convert=convert, choices=choices)


def _known_choices(value: Optional[Value]) -> Optional[Tuple[Any, ...]]:
    """The constants of a ``choices=`` list or tuple where every one is known, else None."""
    if not isinstance(value, SequenceValue) or value.items is None:
        return None
    consts = [item.const if isinstance(item, (StringValue, ScalarValue)) else None for item in value.items]
    return None if any(const is None for const in consts) else tuple(consts)


def _add_argument(parser: ParserValue, args: CallArgs, node: Any) -> None:
    flags = [a.const for a in args.pos if isinstance(a, StringValue) and a.const]
    if args.has_star or len(flags) != len(args.pos) or not flags:
        return  # names not known: the option cannot be read back by name
    dest_value = args.kw.get("dest")
    long = next((f for f in flags if f.startswith("--")), flags[0])
    if isinstance(dest_value, StringValue) and dest_value.const:
        dest = dest_value.const
    else:
        dest = long.lstrip("-").replace("-", "_")
    if not flags[0].startswith("-") or _truthy_const(args.kw.get("required")):
        parser.options[dest] = TOP  # always given on the command line
        return
    action = args.kw.get("action")
    action_name = action.const if isinstance(action, StringValue) else None
    if action is not None and action_name is None:
        parser.options[dest] = TOP  # a custom Action class: what it stores is unknown
        return
    if _picks_device(dest, args.kw.get("default")):
        parser.options[dest] = TOP  # which device runs is the run's choice: both stay possible (GPU rules)
        return
    spec = _flag_spec(dest, action_name, args)
    for flag in flags:
        parser.flags[flag] = spec
    if "default" in args.kw:
        default = _converted(args.kw["default"], args.kw.get("type"))
    elif action_name in _FLAG_DEFAULTS:
        default = ScalarValue("bool", _FLAG_DEFAULTS[action_name])
    else:
        default = NoneValue()
    parser.options[dest] = _as_default(default, node, long if long.startswith("-") else "--" + dest)


def _picks_device(dest: str, default: Optional[Value]) -> bool:
    """``--device cpu``, ``--no-cuda``, ``--gpu 0``: an option choosing where the program runs."""
    words = dest.lower().replace("-", "_").split("_")
    if any(word in _DEVICE_WORDS for word in words):
        return True
    text = default.const if isinstance(default, StringValue) and default.const else ""
    return text.split(":")[0] in _DEVICE_WORDS


def _converted(default: Value, kind: Optional[Value]) -> Value:
    """argparse passes a string default through ``type=`` (``type=int, default="3"`` gives 3;
    ``type=bool, default="False"`` gives True); other defaults are kept as written."""
    if not isinstance(default, StringValue) or kind is None:
        return default
    convert = _CONVERTERS.get(kind.qualname) if isinstance(kind, SymbolValue) else None
    if convert is None or default.const is None:
        return TOP
    try:
        const = convert(default.const)
    except ValueError:
        return TOP  # argparse itself exits with a usage error
    return StringValue(const) if isinstance(const, str) else ScalarValue(type(const).__name__, const)


def _truthy_const(value: Optional[Value]) -> bool:
    return isinstance(value, ScalarValue) and value.const is True


def _as_default(value: Value, node: Any, flag: str) -> Value:
    """``value`` marked as the default of ``flag`` (only values whose constant a message can
    show; the rest are kept as they are)."""
    if isinstance(value, (ScalarValue, StringValue)) and value.const is not None:
        shown = f"{flag}={value.const!r}" if isinstance(value, StringValue) else f"{flag}={value.const}"
    elif isinstance(value, NoneValue):
        shown = f"{flag} not given"
    else:
        return value
    origin = ConfigOrigin(node, f"the default of {flag}", None, shown)
    return dataclasses.replace(value, origin=origin)


# --------------------------------------------------------------------------- assumptions


def config_truth(interp: "Interpreter", test: Value) -> Optional[bool]:
    """Whether a condition made of a command-line default holds on the default's path (and
    that path recorded as an assumption); None when ``test`` is no such default."""
    origin = getattr(test, "origin", None)
    if not isinstance(origin, ConfigOrigin):
        return None
    if isinstance(test, NoneValue):
        truth = False
    elif isinstance(test, (ScalarValue, StringValue)) and test.const is not None:
        truth = bool(test.const)
    else:
        return None
    assume(interp, origin)
    return truth


def note_read(interp: "Interpreter", value: Value) -> Value:
    """A value read from an attribute: a number or string default of an option is an
    assumption (a string picks a dtype or a registry entry: a path; a number gives sizes)."""
    origin = getattr(value, "origin", None)
    if isinstance(origin, ConfigOrigin):
        if isinstance(value, StringValue):
            assume(interp, origin)
        elif isinstance(value, ScalarValue) and value.pytype != "bool":
            assume(interp, origin, SIZE)
    return value


#: The kinds of assumption: a path the default takes (every message names it) or a size
#: (only shape messages name it: a dtype does not depend on how many there are).
PATH, SIZE = "path", "size"


def assume(interp: "Interpreter", origin: ConfigOrigin, kind: str = PATH) -> None:
    assumptions = interp.config_assumptions  # a dict: ordered, no repeats
    if assumptions.get(origin.shown) != PATH:
        assumptions[origin.shown] = kind


def assumption_note(assumptions: Dict[str, str], shape_rule: bool) -> str:
    """What a message starts with when the analysis followed the default configuration (a
    shape rule's message names the sizes read from options too): first, so that the concise
    format's headline keeps it."""
    named = [shown for shown, kind in assumptions.items() if kind == PATH] + (
        [shown for shown, kind in assumptions.items() if kind == SIZE] if shape_rule else [])
    if not named:
        return ""
    shown: List[str] = named[:_SHOWN_ASSUMPTIONS]
    more = len(named) - len(shown)
    return f"With the default configuration ({', '.join(shown)}{f' and {more} more' if more else ''}): "


def derived(result: Value, *operands: Value) -> Value:
    """``result`` computed from ``operands`` (``args.fp16 + 0``, ``bool(args.fp16)``): a known
    constant made from a command-line default is still one (a branch it decides is named)."""
    origin = next((v.origin for v in operands if isinstance(getattr(v, "origin", None), ConfigOrigin)), None)
    if origin is None or not isinstance(result, ScalarValue) or result.const is None:
        return result
    return dataclasses.replace(result, origin=origin)


# --------------------------------------------------------------------------- comparisons


def folded_comparison(left: Value, op: str, right: Value) -> Optional[Value]:
    """``a == b`` / ``a != b`` / ``a < b`` (and the other orderings) / ``a in (...)`` of known
    constants (strings, ints, bools, None; no ordering with None): the bool it gives, carrying
    a command-line default's origin when one side has it; None when not both are known."""
    if op in ("==", "!=") and (isinstance(left, ChoiceValue) or isinstance(right, ChoiceValue)):
        # one of several constants: known where every option answers alike
        answers = {(a == b) if op == "==" else (a != b)
                   for a in _possible(left) for b in _possible(right)}
        if len(answers) != 1 or _UNKNOWN in _possible(left) + _possible(right):
            return None
        result = answers.pop()
    elif op in ("==", "!="):
        a, b = _constant(left), _constant(right)
        if a is _UNKNOWN or b is _UNKNOWN:
            return None
        result = (a == b) if op == "==" else (a != b)
    elif op in _ORDERINGS:
        a, b = _constant(left), _constant(right)
        if a is _UNKNOWN or b is _UNKNOWN or a is None or b is None or isinstance(a, str) != isinstance(b, str) \
                or isinstance(a, (tuple, list)) or isinstance(b, (tuple, list)):
            return None
        result = _ORDERINGS[op](a, b)  # `if max_pos > self.weights.size(0):` of known sizes
    elif op in ("in", "not in") and isinstance(right, SequenceValue) and right.items is not None \
            and right.container in ("list", "tuple", "set"):
        items = [_constant(item) for item in right.items]
        if _UNKNOWN in _possible(left) or any(item is _UNKNOWN for item in items):
            return None
        answers = {(a in items) if op == "in" else (a not in items) for a in _possible(left)}
        if len(answers) != 1:
            return None
        result = answers.pop()
    else:
        return None
    origin = next((v.origin for v in (left, right) if isinstance(getattr(v, "origin", None), ConfigOrigin)),
                  None)
    return ScalarValue("bool", result, origin)


#: Ordering comparisons of known constants (ints, bools, strings; never a float: rounding).
_ORDERINGS = {"<": lambda a, b: a < b, "<=": lambda a, b: a <= b, ">": lambda a, b: a > b,
              ">=": lambda a, b: a >= b}

#: Marks a value whose constant is not known.
_UNKNOWN = object()


def _possible(value: Value) -> List[Any]:
    """Every constant ``value`` may be (one of a choice's options), or [_UNKNOWN]."""
    if isinstance(value, ChoiceValue):
        return list(value.options)
    return [_constant(value)]


def _constant(value: Value) -> Any:
    if isinstance(value, NoneValue):
        return None
    if isinstance(value, StringValue) and value.const is not None:
        return value.const
    # floats compare with rounding surprises: only exact kinds are folded
    if isinstance(value, ScalarValue) and value.pytype in ("int", "bool") and value.const is not None:
        return value.const
    if isinstance(value, SequenceValue) and value.container in ("tuple", "list") and value.items is not None:
        # `x.shape == y.shape`, `out.size() == (8, 8)` of known sizes: compared as Python compares
        # them (a torch.Size is a tuple, never equal to a list)
        items = [_constant(item) for item in value.items]
        if any(item is _UNKNOWN for item in items):
            return _UNKNOWN
        return tuple(items) if value.container == "tuple" else items
    return _UNKNOWN
