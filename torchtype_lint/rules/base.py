"""The rule framework: a rule is a small listener on the interpreter's evaluated nodes.

A rule declares the libcst node types it listens to (``listens``); the checker calls
``visit(node, ctx)`` right after the engine evaluated such a node, with ``ctx``
(``rules/context.py``) giving the values of the node's sub-expressions in the current
context; rules never see the engine itself. The class docstring is the rule's
documentation page, in ruff's format; ``runtime`` states what torch does with the bad
pattern so the harness can confirm it.
"""
from __future__ import annotations

import inspect
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, ClassVar, Dict, FrozenSet, List, Optional, Tuple, Type

import libcst as cst

from ..model.findings import Fix
from ..model.values import ModuleValue, Origin, TensorValue, Value

if TYPE_CHECKING:
    from .context import RuleContext


@dataclass(frozen=True)
class RuntimeClaim:
    """What torch does when a bad fixture runs.

    ``exception`` is the exception class name torch raises and ``pattern`` a regex its message
    matches; for silent bugs ``exception`` is ``"AssertionError"``: the fixture asserts the
    intended behaviour, and the assertion fails. ``devices`` lists where the bad pattern
    fails; on any other device it runs cleanly (behaviour that differs by device).
    ``pattern_devices`` lists where ``exception`` and ``pattern`` were observed, when that is
    fewer devices than ``devices``: elsewhere (e.g. CUDA, never run here) the claim is only
    that it fails, and the harness accepts any exception as confirmation.
    """

    exception: str
    pattern: str = ""
    devices: Tuple[str, ...] = ("cpu", "cuda")
    pattern_devices: Optional[Tuple[str, ...]] = None


@dataclass
class Report:
    code: str
    node: Any
    message: str
    severity: str
    origin: Optional[Origin] = None
    fix: Optional[Fix] = None
    #: The root cause (a node) this report explains, or warns about when ``cause_warning``:
    #: the checker keeps one report per root cause (``torchtype_lint/checker/root_causes.py``).
    explains: Any = None
    cause_warning: bool = False
    #: The analysed file's call whose run of another project module's code made this report
    #: (``RuleContext.call_site``); the report is shown there (``project/call_sites.py``).
    call_site: Any = None
    #: Codes of more specific rules: this report goes when one of them reports the same node.
    defers_to: FrozenSet[str] = frozenset()


class Rule:
    code: ClassVar[str] = ""
    name: ClassVar[str] = ""
    #: One-line summary for the rule list.
    summary: ClassVar[str] = ""
    severity: ClassVar[str] = "error"
    #: Node types the rule wants to see, right after the interpreter evaluated them.
    listens: ClassVar[Tuple[type, ...]] = ()
    #: The ops (``knowledge/ops.py`` names) the rule judges: when set, calls and operators of
    #: other ops never reach ``visit``, whichever way they are spelled.
    ops: ClassVar[FrozenSet[str]] = frozenset()
    #: Only calls of an nn.Module (``layer(x)``, ``model.forward(x)``: ``calls_a_module``) reach
    #: ``visit``: the checker asks once per call for all such rules (most calls are not).
    module_calls: ClassVar[bool] = False
    #: Listeners on every call that gather facts the rule's messages read (where a layer chain
    #: started): each runs once per call, before the rules' visits, however many rules name it.
    call_trackers: ClassVar[Tuple[Callable[..., None], ...]] = ()
    #: Off unless selected (TTL9xx pedantic rules).
    default_enabled: ClassVar[bool] = True
    #: "safe", "unsafe" or "none".
    fix_safety: ClassVar[str] = "none"
    runtime: ClassVar[Optional[RuntimeClaim]] = None
    #: The rule warns about root causes (its reports' ``explains`` is the reported node), and a
    #: warning goes when an error explains that cause or the code settles it.
    warns_at_cause: ClassVar[bool] = False
    #: Codes of rules that explain some of this rule's failures better: where one of them
    #: reports the same node, this rule's report goes (the checker's root-cause policy).
    defers_to: ClassVar[FrozenSet[str]] = frozenset()

    def __init__(self, sink: Callable[[Report], None]):
        self._sink = sink

    def visit(self, node: Any, ctx: "RuleContext") -> None:  # pragma: no cover - abstract
        raise NotImplementedError

    def report(self, node: Any, message: str, origin: Optional[Origin] = None,
               fix: Optional[Fix] = None, explains: Any = None) -> None:
        """Report ``node``. ``{origin}`` in the message is replaced by where the offending
        value came from ("float64 since line 12: `torch.from_numpy(a)`"); ``explains`` is the
        root cause the report explains (one report per root cause)."""
        self._sink(Report(self.code, node, message, self.severity, origin, fix,
                          explains, self.warns_at_cause, defers_to=self.defers_to))

    @classmethod
    def documentation(cls) -> str:
        """The rule's docs page (markdown, ruff's sections)."""
        header = f"# {cls.code}: {cls.name}\n\n"
        meta = (f"*Severity:* {cls.severity} · *Fix:* {cls.fix_safety}"
                f"{'' if cls.default_enabled else ' · *Opt-in*'}\n\n")
        body = inspect.cleandoc(cls.__doc__ or "")
        runtime = ""
        if cls.runtime is not None:
            from ..knowledge.confirmations import runtime_message  # noqa: PLC0415 - optional data file
            observed = runtime_message(cls.code)
            if observed:
                runtime = f"\n\n## What torch {observed['torch']} prints\n\n```text\n{observed['message']}\n```\n"
        return header + meta + body + "\n" + runtime


# --------------------------------------------------------------------------- helpers for rules


def expr_text(node: Any, module: Optional[cst.Module] = None) -> str:
    """Source text of a small expression, for messages."""
    try:
        return (module or _EMPTY_MODULE).code_for_node(node)
    except Exception:  # noqa: BLE001 - messages must never crash a rule
        return "?"


_EMPTY_MODULE = cst.Module(body=[])


def is_tensor(value: Value) -> bool:
    return isinstance(value, TensorValue)


RuleClass = Type[Rule]
_REGISTRY: Dict[str, RuleClass] = {}


def register(cls: RuleClass) -> RuleClass:
    """Class decorator adding a rule to the catalogue."""
    if not cls.code or cls.code in _REGISTRY:
        raise ValueError(f"rule code {cls.code!r} missing or registered twice")
    _REGISTRY[cls.code] = cls
    return cls


def all_rules() -> List[RuleClass]:
    from . import catalogue  # noqa: F401, PLC0415 - importing registers every rule

    return [_REGISTRY[code] for code in sorted(_REGISTRY)]


def get_rule(code: str) -> Optional[RuleClass]:
    all_rules()
    return _REGISTRY.get(code.upper())


def calls_a_module(callee: Any) -> bool:
    """Whether a call's ``Callee`` calls an nn.Module: the layer or model itself, or its
    ``forward`` method (the only calls ``module_calls`` rules see)."""
    return callee is not None and isinstance(callee.receiver, ModuleValue) and (
        callee.kind == "module" or (callee.kind == "method" and callee.name == "forward"))
