"""The interpreter's own runtime objects: scopes (``Frame``), the bindings it records for
``explain`` and hover (``Assignment``), and the values only Python code makes (a bound method,
``super()``). No library knowledge here; every other engine module may import this one.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional

from ..model.values import CallArgs, ClassValue, FunctionValue, InstanceValue, Value


class AnalysisBudgetExceeded(Exception):
    """The per-file time budget ran out (reported as TTL000, never a hang)."""


@dataclass
class Frame:
    """A scope: a module, a function activation or a class body."""

    vars: Dict[str, Value]
    parent: Optional["Frame"] = None
    function: Optional[FunctionValue] = None
    returns: List[Value] = field(default_factory=list)
    #: What a generator function's ``yield``s give (its elements when iterated).
    yields: List[Value] = field(default_factory=list)
    instance: Optional[InstanceValue] = None
    #: Names a ``global`` statement declared in this function: writes go to the module.
    declared_global: Optional[set] = None
    #: Names bound by the targets of the ``for`` loops being executed in this frame.
    loop_targets: List[str] = field(default_factory=list)


class BoundMethod(Value):
    """``instance.method`` before it is called."""

    __slots__ = ("function", "instance", "origin")
    kind = "method"

    def __init__(self, function: FunctionValue, instance: Value):
        self.function = function
        self.instance = instance
        self.origin = None

    def describe(self) -> str:
        return f"bound method {getattr(getattr(self.function.node, 'name', None), 'value', '<lambda>')}"


class PartialValue(Value):
    """``functools.partial(func, *args, **keywords)``: calling it calls ``func`` with these
    arguments first (``norm_layer = partial(nn.LayerNorm, eps=1e-6)``; ``norm_layer(dim)``)."""

    __slots__ = ("func", "args", "origin")
    kind = "partial"

    def __init__(self, func: Value, args: CallArgs):
        self.func = func
        self.args = args
        self.origin = None

    def describe(self) -> str:
        return f"partial({self.func.describe()})"

    def completed(self, args: CallArgs) -> CallArgs:
        """The arguments ``func`` gets: the stored positional ones, then the call's; the call's
        keywords override the stored ones."""
        kw = dict(self.args.kw)
        kw.update(args.kw)
        kw_nodes = dict(self.args.kw_nodes)
        kw_nodes.update(args.kw_nodes)
        return CallArgs(list(self.args.pos) + list(args.pos), kw, list(self.args.pos_nodes) + list(args.pos_nodes),
                        kw_nodes, self.args.has_star or args.has_star, None)


class SuperValue(Value):
    """``super()`` inside a method of ``owner``: attribute lookups start at its bases."""

    __slots__ = ("owner", "instance", "origin")
    kind = "super"

    def __init__(self, owner: ClassValue, instance: InstanceValue):
        self.owner = owner
        self.instance = instance
        self.origin = None

    def describe(self) -> str:
        return f"super({self.owner.name})"


@dataclass
class Assignment:
    """A binding made by an assignment statement (or a parameter), for ``explain`` and hover."""

    node: Any  # the target Name / Attribute node
    name: str
    value: Value
    #: ``value.describe()`` when the binding was made: modules are mutable (``model.double()``
    #: changes them later), and explain must show what was true at this line.
    description: str = ""
    is_parameter: bool = False

    def __post_init__(self) -> None:
        if not self.description:
            self.description = self.value.describe()
