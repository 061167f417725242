"""What a rule may know while it visits a node: the typed seam between the engine and rules.

Rules never see the interpreter. The checker wraps it in one ``RuleContext`` per analysis and
hands that to every rule: values of expressions in the context being analysed, what a call
resolved to, the analysis-wide facts rules judge by (default dtype, autocast, no_grad), a
per-analysis state slot for facts rules share, and the root causes a rule settled without a
report. The "one root cause, one report" policy itself is the checker's
(``torchtype_lint/checker/root_causes.py``).
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, Dict, List, Optional, Set, Tuple, TypeVar

import libcst as cst

from ..engine.configuration import assumption_note
from ..knowledge.ops import OpCall, op_call, operator_call
from ..knowledge.torch_api import Env
from ..model.values import Callee, Value

if TYPE_CHECKING:  # the engine is only wrapped, never imported at run time by rules
    from ..engine.interpreter import Interpreter

S = TypeVar("S")


class RuleContext:
    """One analysis of one file, as rules see it."""

    def __init__(self, interpreter: "Interpreter"):
        self._interpreter = interpreter
        # The two hot lookups go straight to the engine (no wrapper frame per call).
        self.value: Callable[[Any], Value] = interpreter.value
        self.callee: Callable[[Any], Optional[Callee]] = interpreter.callee
        self._slots: Dict[Callable[[], Any], Any] = {}
        #: Root causes (e.g. a numpy conversion) a rule found to be the user's explicit choice:
        #: warnings about them are dropped as if an error had explained them.
        self.settled_causes: Set[Any] = set()
        #: (unit, cause) for each settle_cause call, in order (engine/units.py).
        self.settled_by_unit: List[Tuple[Any, Any]] = []
        #: node -> (what it resolved to in the evaluation under way, its OpCall)
        self._op_calls: Dict[Any, Any] = {}

    # ------------------------------------------------------------------ values

    @property
    def node(self) -> Any:
        """The node whose listeners are running (for front ends that snapshot facts)."""
        return self._interpreter.notifying

    def call_site(self) -> Any:
        """The analysed file's call whose run of another project module's code is under way,
        when the node being judged is in that code (a report made now belongs to the call);
        None in the analysed file's own code."""
        interpreter = self._interpreter
        calls = interpreter.main_home.calls_out
        return calls[-1] if calls and interpreter.home is not interpreter.main_home else None

    @property
    def source(self) -> Optional[str]:
        """The file's text, when the front end gave it (for cheap whole-file text tests)."""
        return self._interpreter.source_text

    def with_assumptions(self, report: Any) -> Any:
        """``report``, its message naming the command-line defaults the analysis followed to
        get here (engine/configuration.py), if any."""
        assumptions = self._interpreter.config_assumptions
        paths = self._interpreter.path_notes
        if paths:
            report.message = f"{paths[-1][0].upper()}{paths[-1][1:]}: {report.message}"
        if assumptions:
            report.message = assumption_note(assumptions, report.code.startswith("TTL5")) + report.message
        return report

    @property
    def unit(self) -> Any:
        """The unit of the analysis that runs now (``engine/units.py``): reports are kept by it."""
        return self._interpreter.unit

    @property
    def module(self) -> Any:
        """The file's libcst syntax tree (for rules that look at the whole file)."""
        return self._interpreter.module

    def value(self, node: Any) -> Value:  # replaced per instance by the engine's own method
        """The value of ``node`` in the context under analysis (unknown: ``TOP``)."""
        return self._interpreter.value(node)

    def joined_value(self, node: Any) -> Value:
        """The value of ``node`` joined over every context it was analysed in."""
        return self._interpreter.joined_value(node)

    def known_truth(self, test: Any) -> Optional[bool]:
        """Whether the condition ``test`` (an expression the engine evaluated) is certainly true
        or false here, as the engine decides which branch of an ``if`` runs; None when not."""
        return self._interpreter.known_truth(self.value(test))

    def callee(self, node: Any) -> Optional[Callee]:  # replaced per instance, as value()
        """What the call ``node`` resolved to in this context, with its argument values."""
        return self._interpreter.callee(node)

    @property
    def function_node(self) -> Optional[Any]:
        """The ``FunctionDef`` whose body is under analysis (None at module level)."""
        function = self._interpreter.frame.function
        return function.node if function is not None else None

    def op_call(self, node: Any) -> Optional[OpCall]:
        """The call or operator ``node`` as the op it is (``knowledge/ops.py``): its one name
        whatever the spelling, arguments bound by parameter name; None when it is no torch op."""
        # What the node's parts evaluated to identifies the evaluation under way: a function
        # analysed in another context gives other values (another Callee) for the same node.
        cached = self._op_calls.get(node)
        # type(): no libcst class derives from BinaryOperation, and a failed isinstance against
        # a libcst class runs ABCMeta's Python-level check (most nodes asked about are calls)
        if type(node) is cst.BinaryOperation:
            left, right, result = self.value(node.left), self.value(node.right), self.value(node)
            if cached is not None and cached[0][0] is left and cached[0][1] is right \
                    and cached[0][2] is result:
                return cached[1]  # resolved once per evaluation, however many rules ask
            key: Any = (left, right, result)
            call = operator_call(node, type(node.operator).__name__, left, right, result)
        else:
            key = self.callee(node)
            if key is None:
                return None
            if cached is not None and cached[0] is key:
                return cached[1]
            receiver = node.func.value if isinstance(node.func, cst.Attribute) else None
            call = op_call(node, key, receiver)
        self._op_calls[node] = (key, call)
        return call

    def lookup(self, name: str) -> Value:
        """The value bound to ``name`` in the scope under analysis."""
        return self._interpreter.lookup(name)

    def is_loop_variable(self, name: str) -> bool:
        return self._interpreter.is_loop_variable(name)

    # ------------------------------------------------------------------ analysis-wide facts

    @property
    def default_float(self) -> str:
        """torch's default floating dtype here (``torch.set_default_dtype`` changes it)."""
        return self._interpreter.default_float

    @property
    def in_autocast(self) -> bool:
        """Inside a ``torch.autocast`` region, where ops may compute in another precision."""
        return self._interpreter.autocast_depth > 0

    @property
    def in_no_grad(self) -> bool:
        """Inside ``torch.no_grad()`` / ``inference_mode()``: nothing is trained here."""
        return self._interpreter.no_grad_depth > 0

    @property
    def analysed_on_its_own(self) -> bool:
        """In the analysis of a function nobody in the file calls (or before its callers): its
        parameters' defaults and its object's attributes stand for whatever a caller passes, and
        type tests (``isinstance``) decide nothing, so a value's kind may not be the one it has."""
        return self._interpreter._speculative

    @property
    def uses_cuda(self) -> bool:
        """The file moves tensors or modules to a CUDA device somewhere (``.cuda()``,
        ``.to("cuda")``): CUDA-only failures matter in it."""
        return self._interpreter.moves_to_cuda

    @property
    def torch_env(self) -> Env:
        """The knowledge layer's environment, for rules that ask it what an op would give."""
        return self._interpreter.tenv

    # ------------------------------------------------------------------ state and causes

    def state(self, factory: Callable[[], S]) -> S:
        """The per-analysis object ``factory()`` made the first time it was asked for: rules
        that share facts (a table filled by one visit, read by another) keep them here, so
        nothing outlives the analysis of one file."""
        slot = self._slots.get(factory)
        if slot is None:
            slot = self._slots[factory] = factory()
        return slot

    def settle_cause(self, node: Any) -> None:
        """``node`` (a root cause) is handled by the code itself: warnings about it go."""
        self.settled_causes.add(node)
        self.settled_by_unit.append((self._interpreter.unit, node))
