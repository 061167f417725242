"""The abstract interpreter: one pass over a libcst module that gives every expression a value.

It executes the file abstractly, statement by statement, with an environment of abstract
values (see ``values.py``): branches are analysed separately and joined, loops iterate to a
fixed point (capped, then widened to TOP), functions and methods are analysed at their
definition (parameters from annotations) and again at call sites with the arguments' values
(bounded context sensitivity), ``nn.Module`` subclasses keep the attributes set in
``__init__``.

Mutable things (modules, instances of the file's classes, lists and dicts) are updated in
place, and every binding that holds them sees the change. An update that may not happen is a
*weak* update (the old and new values are joined): one made on a branch, inside a call made on
a branch, or by a function analysed speculatively after the module body (one never called from
module level: whether and when it runs is unknown) on an object that existed before it ran.
A method analysed on its own sees ``self`` as built by ``__init__``, minus the attributes any
other method reassigns, and works on a private copy of it.

Rules do not walk the tree again: they register listeners for node types, and the
interpreter calls them right after it evaluated such a node, while the values of the node's
children *in the current context* are available through :meth:`Interpreter.value`. Listeners
only run on the final, stable pass over a loop body, so a rule never sees a half-iterated
value.

The engine is split by concern. This module holds the ``Interpreter``: its state, statements
and control flow, assignment targets. ``expressions.py`` evaluates expressions, ``calls.py``
resolves calls and attribute access, ``functions.py`` runs the file's own functions and
classes, ``builtins.py`` is Python's builtins, ``annotations.py`` reads annotations,
``flow.py`` joins environments, ``syntax.py`` answers questions about nodes and
``runtime.py`` holds frames and bindings. Those are plain functions taking the interpreter:
its underscore attributes are private to the engine package, not to this module. Every fact
about torch, numpy and jaxtyping comes from ``knowledge/``.
"""
from __future__ import annotations

import time
from typing import Any, Callable, Dict, FrozenSet, List, Optional, Sequence, Tuple

import libcst as cst

from ..knowledge import torch_api as T
from ..knowledge.autocast import AUTOCAST_CONTEXTS, autocast_dtype
from ..knowledge.data_pipeline import DataLoaderValue, TensorDatasetValue, first_batch
from ..knowledge.defaults import forget_uncertain_default
from ..knowledge.functional import PARAMETER_CLASSES
from ..knowledge.indexing import index_first
from ..knowledge.module_dtypes import store_module_attribute
from ..knowledge.nn_modules import exact_children, layer_replaced, layers_unknown
from ..knowledge.torch_objects import (
    NO_GRAD_CONTEXTS, array_attribute_assigned, in_place_result, library_object,
)
from ..model.values import (
    Callee,
    FLOAT32, TOP, ArrayValue, Origin, ClassValue, FunctionValue, InstanceValue, ModuleValue, NoneValue, ScalarValue,
    ChoiceValue, SequenceValue, StringValue, SymbolValue, TensorValue, Value, join, join_all,
)
from .annotations import annotation_value, declared_attribute
from .builtins import BUILTIN_NAMES, iterate, list_of, with_element, with_keyed_element
from .configuration import config_truth
from .calls import parameter_replaced, replace_array, replace_container, replace_tensor
from .dynamic_attributes import dict_owner, store_in_dict
from .expressions import EXPRESSION_HANDLERS, binary
from .counted_loops import count_appended_lists, iteration_count
from .flow import envs_equal, join_envs, widen
from .functions import MAX_CALL_DEPTH, analyse_standalone
from .modules import (
    Home, LazyName, ModuleNamespace, assign_namespace_attribute, import_from, import_module, resolve_lazy,
)
from .runtime import AnalysisBudgetExceeded, Assignment, BoundMethod, Frame, SuperValue
from .units import AFTER_BODY, END, STANDALONE, STATEMENT, GlobalState, Unit, UnitSelection
from .syntax import (OPERATOR_SYMBOLS, child_expressions, dotted_name, is_dataclass_decorated, leaves_early,
                     names_bound_in, target_names)

__all__ = [
    "AnalysisBudgetExceeded", "Assignment", "BoundMethod", "DataLoaderValue", "DEFAULT_TIME_BUDGET",
    "Frame", "Interpreter", "Listener", "MAX_CALL_DEPTH", "MAX_LOOP_ITERATIONS", "SuperValue",
    "TensorDatasetValue", "analyse",
]

Listener = Callable[[Any, "Interpreter"], None]

#: How often a loop body is re-analysed before the values still changing are widened to TOP.
MAX_LOOP_ITERATIONS = 3
#: Loops over at most this many known items run item by item (see Interpreter._unrollable).
MAX_UNROLLED = 6
#: An outermost unrolled loop may have this many: a VGG-style ``cfg = [64, "M", 128, ...]`` that
#: builds a network layer by layer (an inner loop still stops at MAX_UNROLLED, so the cost stays
#: at most MAX_UNROLLED_OUTER * MAX_UNROLLED body runs).
MAX_UNROLLED_OUTER = 24
#: How many unrolled loops may nest (an epoch loop over range(2) around a loop over topk=(1, 5)).
MAX_UNROLLED_NESTING = 2
#: Loops nested deeper than this inside loops being analysed run their body once, with the
#: names it rebinds unknown (Interpreter._havoc_loop): a fixed point per level would cost the
#: product of every level's passes (12 nested loops: 5**12 bodies).
MAX_FIXPOINT_NESTING = 4
#: Per-file time budget (seconds); exceeding it raises AnalysisBudgetExceeded.
DEFAULT_TIME_BUDGET = 20.0


class Interpreter:
    def __init__(self, module: cst.Module, listeners: Optional[Dict[type, List[Listener]]] = None,
                 time_budget: float = DEFAULT_TIME_BUDGET, project: Any = None):
        self.module = module
        #: The file's text when the checker has it (rules' cheap whole-file text tests).
        self.source_text: Optional[str] = None
        self.listeners: Dict[type, List[Listener]] = listeners or {}
        #: What listeners get as their second argument (the interpreter itself by default;
        #: the checker gives rules a RuleContext instead).
        self.listener_context: Any = self
        #: The node whose listeners are running.
        self.notifying: Any = None
        self.default_float = FLOAT32
        #: dtypes a default may have produced since a set_default_dtype that may or may not
        #: run; values with any of them become unknown (None: the default is certain).
        self.uncertain_defaults: Optional[frozenset] = None
        #: After torch.set_default_device / set_default_tensor_type, factories may create
        #: tensors on any device: their device becomes unknown instead of "cpu".
        self.default_device_unknown = False
        self.tenv = T.Env(FLOAT32)
        #: Joined value of every expression node seen while recording.
        self.values: Dict[Any, Value] = {}
        #: The value of each node in the evaluation currently under way.
        self._current: Dict[Any, Value] = {}
        self._callees: Dict[Any, Callee] = {}
        self.assignments: List[Assignment] = []
        self.recording = True
        self.autocast_depth = 0
        #: dtype of each enclosing autocast region (None: not knowable), innermost last.
        self.autocast_dtypes: List[Optional[str]] = []
        self.no_grad_depth = 0
        self.branch_depth = 0
        self.moves_to_cuda = False
        #: A module's training mode may have changed where the engine could not see it
        #: (``m.eval()`` of an unknown ``m``): no ``module.training`` is known from then on.
        self.training_unknown = False
        self._call_stack: List[Any] = []
        self._memo: Dict[Any, Value] = {}
        self._prototypes: Dict[Any, InstanceValue] = {}
        #: module node -> attribute names stored there on objects other than a method's self
        #: (engine/syntax.py attributes_stored_from_outside), read once per module.
        self.outside_stores: Dict[Any, FrozenSet[str]] = {}
        #: (function, the frame it was defined in, the top-level statement that defined it).
        self._pending_functions: List[Tuple[FunctionValue, Frame, int]] = []
        #: What runs now: a top-level statement, a standalone analysis, or the end of the file.
        self.unit = Unit(STATEMENT, 0)
        #: Top-level statement index -> the global state before / after it ran.
        self.states_before: Dict[int, GlobalState] = {}
        self.states_after: Dict[int, GlobalState] = {}
        self.final_state: Optional[GlobalState] = None
        #: The top-level statement control cannot get past (``raise SystemExit``), if any.
        self.terminated_at: Optional[int] = None
        #: The entry function (engine/units.py: ``Unit.sub``) whose body statements are units,
        #: set by the language server's incremental analysis; None: no body is split.
        self.entry_function: Any = None
        #: Its body statement index -> the global state before / after it ran, and whether
        #: the body stopped before its last statement (a ``return`` halfway).
        self.entry_states_before: Dict[int, GlobalState] = {}
        self.entry_states_after: Dict[int, GlobalState] = {}
        self.entry_stopped = False
        #: The partial run under way (``run(selection)``).
        self.selection: Optional[UnitSelection] = None
        #: Functions seen to contain ``yield`` (found while running their body: a libcst
        #: visitor per function costs more than analysing it). Calling one gives a generator.
        self._generators: set = set()
        self._unrolling = 0
        #: First iterations of ``range`` loops being run on their own (_peeled): one at a time.
        self._peeling_range = 0
        #: Loops being analysed around the current statement (fixed points and unrolled ones).
        self._loop_nesting = 0
        #: Loop statement -> the names its body may rebind (syntax.names_bound_in), found once.
        self._bound_names: Dict[Any, FrozenSet[str]] = {}
        #: Unmodelled expression -> the sub-expressions it evaluates (syntax.child_expressions).
        self._child_expressions: Dict[Any, Tuple[Any, ...]] = {}
        #: Listeners run although nothing is recorded: the item-by-item passes of an unrolled
        #: loop, whose every iteration runs (what a rule finds in one of them happens).
        self._probing = False
        #: List comprehensions being evaluated item by item (expressions.py): one at a time.
        self._comprehension_unrolling = 0
        #: Functions defined inside another function's body -> the frame they were defined in.
        self.closures: Dict[Any, Frame] = {}
        #: Each closure (a FunctionValue made by running a nested ``def``) -> the frame it closes over.
        self.closure_frames: Dict[FunctionValue, Frame] = {}
        self._analysed_standalone: set = set()
        #: Function node -> the unit its standalone analysis ran in (engine/units.py).
        self.standalone_units: Dict[Any, Unit] = {}
        self._deadline = time.monotonic() + time_budget
        self._ticks = 0
        # The analysed file runs as the script: `if __name__ == "__main__":` is taken
        self.globals = Frame({"__name__": StringValue("__main__")})
        self.frame = self.globals
        #: The front end's view of the user's project (project/imports.py), None for a lone
        #: text: it finds and parses the modules this file imports (engine/modules.py).
        self.project = project
        #: The analysed file as a module; ``home`` is the module whose code runs now.
        self.main_home = Home(getattr(project, "path", None), module, self.globals)
        self.home = self.main_home
        #: Functions and methods defined in imported project modules -> their module.
        self.homes: Dict[Any, Home] = {}
        #: Path -> each project module loaded so far (None: it could not be).
        self.loaded: Dict[str, Optional[Home]] = {}
        #: Path -> the defaults (dtype, device) when a module was first imported: its body runs
        #: in them, however late it is loaded.
        self.import_states: Dict[str, Any] = {}
        #: Path -> names imported from a module not loaded yet (bound when it loads).
        self.pending_lazy: Dict[str, List[LazyName]] = {}
        #: Modules whose imports are being resolved (importing one of them back is a cycle).
        self.importing: set = set()
        self.annotated_returns: Dict[Any, Value] = {}
        #: The file's module-level aliases and whether it imports torchshapeflow, read once
        #: when an annotation first needs them (engine/annotations.py).
        self.annotation_facts: Optional[Tuple[Dict[str, Any], bool]] = None
        #: id(tensor) -> (tensor, module) for the tensors ``model.parameters()`` gave.
        self.parameter_owners: Dict[int, Tuple[Any, Any]] = {}
        #: Each parameter's default value, evaluated where its ``def`` ran.
        self.param_defaults: Dict[Any, Value] = {}
        #: True once the module body ran and only speculative standalone analyses remain.
        self._speculative = False
        #: How many function activations under way were entered from inside a branch.
        self._conditional_calls = 0
        #: ids of modules/instances created by the standalone analysis under way.
        self._fresh_ids: set = set()
        #: Bumped whenever a mutable value (module dtype, instance attribute) changes, so a
        #: memoised call result computed before ``model.double()`` is not reused after it.
        self.heap_version = 0
        #: While an unrolled loop's recording pass runs: each instance whose attributes it
        #: stores to, with the attributes it had before (the pass repeats what the silent
        #: iterations did; their result is what holds after the loop).
        self._replay_journal: Optional[Dict[int, Tuple[InstanceValue, Dict[str, Value]]]] = None
        #: The command-line defaults the analysis followed so far (engine/configuration.py),
        #: in order, each a path or a size: reports made after them name them.
        self.config_assumptions: Dict[str, str] = {}
        #: The paths the analysis is on that a finding made there names ("on the loop's last
        #: iteration (`i` = 992)"), innermost last.
        self.path_notes: List[str] = []

    # ------------------------------------------------------------------ public API

    def run(self, selection: Optional[UnitSelection] = None) -> "Interpreter":
        """Analyse the file: its top-level statements in order, then its functions on their own.

        ``selection`` (the language server's incremental re-analysis) runs only some top-level
        statements and some standalone analyses, each under the global state (default dtype,
        device) it had in the full analysis it replays; ``unit`` always names what is running,
        so every report can be attributed to the statement or analysis that made it."""
        if time.monotonic() > self._deadline:  # parsing may have used the whole budget
            raise AnalysisBudgetExceeded()
        self.selection = selection
        for index, stmt in enumerate(self.module.body):
            if selection is not None:
                if index not in selection.statements:
                    continue
                state = selection.states_before.get(index)
                if state is not None:  # None: a new statement, after the one that ran before it
                    self.set_global_state(state)
            self.unit = Unit(STATEMENT, index)
            self.states_before[index] = self.global_state()
            terminated = self.exec_stmt(stmt)
            self.states_after[index] = self.global_state()
            # Rules listening to cst.Module settle what they deferred (TTL103 waits for the
            # `if isinstance(...)` around a comparison) at the end of each unit.
            self._notify(self.module)
            if terminated:
                self.terminated_at = index
                break
        if selection is not None:
            self.set_global_state(selection.final_state)
        self.final_state = self.global_state()
        # Functions never called from module level are analysed once on their own, with
        # parameters known only from annotations. When (or whether) they run is unknown, so
        # what they do to objects that outlive them (a module-level model, a prototype's
        # layers) is only a possibility: weak updates, see _weak_update().
        self._speculative = True
        while self._pending_functions:
            fn, frame, owner = self._pending_functions.pop(0)
            if fn.node in self._analysed_standalone:
                continue
            if selection is not None and owner not in selection.standalone:
                continue
            self._analysed_standalone.add(fn.node)
            self._fresh_ids = set()
            self.unit = Unit(STANDALONE, owner)
            analyse_standalone(self, fn, frame)
            self._notify(self.module)
        # The module node is "evaluated" last: rules listening to cst.Module see the whole
        # file's facts (e.g. to drop a warning whose root cause a later error explained).
        self.unit = Unit(END, 0)
        self._notify(self.module)
        return self

    def exec_entry_body(self, statements: Sequence[Any]) -> bool:
        """The entry function's body, called from the top-level statement that runs now: each
        statement a unit of its own (only the selected ones in a partial run)."""
        index = self.unit.index
        selection = self.selection
        chosen = selection.entry_statements if selection is not None else None
        for number, stmt in enumerate(statements):
            if chosen is not None:
                if number not in chosen:
                    continue
                state = selection.entry_states.get(number)  # type: ignore[union-attr]
                if state is not None:
                    self.set_global_state(state)
            self.unit = Unit(STATEMENT, index, number)
            self.entry_states_before[number] = self.global_state()
            terminated = self.exec_stmt(stmt)
            self.entry_states_after[number] = self.global_state()
            self._notify(self.module)  # TTL103 settles per unit, as at module level
            if terminated:
                self.entry_stopped = number < len(statements) - 1
                self.unit = Unit(STATEMENT, index, AFTER_BODY)
                return True
        self.unit = Unit(STATEMENT, index, AFTER_BODY)
        return False

    def global_state(self) -> GlobalState:
        """The switches a statement may flip for all later ones (``torch.set_default_dtype``,
        a move to CUDA): the incremental re-analysis checks they replay identically."""
        return GlobalState(self.default_float, self.uncertain_defaults, self.default_device_unknown,
                           self.moves_to_cuda, self.training_unknown)

    def set_global_state(self, state: GlobalState) -> None:
        self.default_float, self.uncertain_defaults = state.default_float, state.uncertain_defaults
        self.default_device_unknown, self.moves_to_cuda = state.default_device_unknown, state.moves_to_cuda
        self.training_unknown = state.training_unknown
        self.tenv.default_float = state.default_float

    def value(self, node: Any) -> Value:
        """The value of ``node`` in the current context (for listeners)."""
        return self._current.get(node, TOP)

    def joined_value(self, node: Any) -> Value:
        """The value of ``node`` joined over every context it was analysed in."""
        return self.values.get(node, TOP)

    def callee(self, node: cst.Call) -> Optional[Callee]:
        """What ``node`` called in the current context, with argument values."""
        return self._callees.get(node)

    # ------------------------------------------------------------------ helpers

    def _tick(self) -> None:
        self._ticks += 1
        if self._ticks & 255 == 0 and time.monotonic() > self._deadline:
            raise AnalysisBudgetExceeded()

    def check_deadline(self) -> None:
        """Raise when the file's budget is spent (before work that ticks do not cover, such as
        parsing an imported module)."""
        if time.monotonic() > self._deadline:
            raise AnalysisBudgetExceeded()

    def _notify(self, node: Any) -> None:
        if self.recording or self._probing:
            listeners = self.listeners.get(type(node))
            if listeners:
                self.notifying = node
                context = self.listener_context
                for listener in listeners:
                    listener(node, context)

    def _set(self, node: Any, value: Value) -> Value:
        self._current[node] = value
        if self.recording:
            prev = self.values.get(node)
            self.values[node] = value if prev is None or prev is value else join(prev, value)
        return value

    def _weak_update(self, obj: Any) -> bool:
        """Whether a change to a mutable object may not happen: it is made on one branch, or by
        a function analysed speculatively on an object that existed before it ran."""
        if self.branch_depth > 0:
            return True
        if self._conditional_calls or self._speculative:
            return id(obj) not in self._fresh_ids
        return False

    def journal(self, owner: InstanceValue) -> None:
        """``owner``'s attributes are about to be stored to: an unrolled loop's recording pass
        under way keeps what they were, to put them back after it (_unrolled)."""
        if self._replay_journal is not None and id(owner) not in self._replay_journal:
            self._replay_journal[id(owner)] = (owner, dict(owner.attrs))

    def _note_fresh(self, value: Value) -> Value:
        if (self._speculative or self._conditional_calls) and isinstance(value, (ModuleValue, InstanceValue)):
            self._fresh_ids.add(id(value))
        return value

    def lookup(self, name: str) -> Value:
        frame: Optional[Frame] = self.frame
        while frame is not None:
            if name in frame.vars:
                value = frame.vars[name]
                # A name imported from a project module: its module is loaded on first use.
                return resolve_lazy(self, value) if type(value) is LazyName else value
            frame = frame.parent
        if name in BUILTIN_NAMES:
            return SymbolValue("builtins." + name)
        return TOP

    def bind(self, name: str, value: Value) -> None:
        frame = self.frame
        if frame.declared_global and name in frame.declared_global and frame is not self.globals:
            # A write through ``global``: in a branch or a loop it may not happen (weak update).
            previous = self.globals.vars.get(name)
            weak = self.branch_depth or self._conditional_calls or self._speculative
            self.globals.vars[name] = value if previous is None or not weak else join(
                previous, value)
            self.heap_version += 1
            return
        frame.vars[name] = value

    # ------------------------------------------------------------------ statements

    def exec_block(self, statements: Sequence[Any]) -> bool:
        """Execute statements in order; True if control cannot fall through the end."""
        for stmt in statements:
            if self.exec_stmt(stmt):
                return True
        return False

    def exec_body(self, body: Any) -> bool:
        if isinstance(body, cst.IndentedBlock):
            return self.exec_block(body.body)
        if isinstance(body, cst.SimpleStatementSuite):
            return self.exec_block(body.body)
        return self.exec_block([body])

    def exec_stmt(self, stmt: Any) -> bool:
        self._tick()
        handler = _STATEMENT_HANDLERS.get(type(stmt))
        if handler is None:
            return False
        terminated = handler(self, stmt)
        self._notify(stmt)
        return bool(terminated)

    def _simple_line(self, stmt: cst.SimpleStatementLine) -> bool:
        for small in stmt.body:
            if self.exec_stmt(small):
                return True
        return False

    def _expr_stmt(self, stmt: cst.Expr) -> bool:
        self.eval(stmt.value)
        return False

    def _assign(self, stmt: cst.Assign) -> bool:
        value = self.eval(stmt.value)
        for target in stmt.targets:
            self.assign_target(target.target, value, stmt)
        return False

    def _ann_assign(self, stmt: cst.AnnAssign) -> bool:
        declared = annotation_value(self, stmt.annotation.annotation)
        if stmt.value is not None:
            value = self.eval(stmt.value)
            if value is TOP:
                value = declared
            self.assign_target(stmt.target, value, stmt)
        elif isinstance(stmt.target, cst.Name) and self.frame.function is not None:
            self.assign_target(stmt.target, declared, stmt)
        return False

    def _aug_assign(self, stmt: cst.AugAssign) -> bool:
        left = self.eval(stmt.target)
        right = self.eval(stmt.value)
        op = OPERATOR_SYMBOLS.get(type(stmt.operator).__name__.replace("Assign", ""), "?")
        result = binary(self, left, right, op, stmt)
        if isinstance(left, TensorValue) and isinstance(result, TensorValue):
            result = in_place_result(left, result)
        self.assign_target(stmt.target, result, stmt)
        return False

    def _return(self, stmt: cst.Return) -> bool:
        value = self.eval(stmt.value) if stmt.value is not None else NoneValue()
        self.frame.returns.append(value)
        return True

    def _raise(self, stmt: Any) -> bool:
        if getattr(stmt, "exc", None) is not None:
            self.eval(stmt.exc)
        return True

    def _terminator(self, stmt: Any) -> bool:
        return True

    def _import(self, stmt: cst.Import) -> bool:
        for alias in stmt.names:
            dotted = dotted_name(alias.name)
            if dotted is None:
                continue
            if self.project is not None and import_module(self, alias):
                continue  # a module of the user's project, not a library
            if alias.asname is not None and isinstance(alias.asname.name, cst.Name):
                self.bind(alias.asname.name.value, SymbolValue(dotted))
            else:
                head = dotted.split(".", 1)[0]
                self.bind(head, SymbolValue(head))
        return False

    def _import_from(self, stmt: cst.ImportFrom) -> bool:
        if self.project is not None and import_from(self, stmt):
            return False  # names of the user's project modules
        if stmt.relative or stmt.module is None or isinstance(stmt.names, cst.ImportStar):
            return False
        base = dotted_name(stmt.module)
        if base is None:
            return False
        for alias in stmt.names:
            name = dotted_name(alias.name)
            if name is None:
                continue
            local = alias.asname.name.value if alias.asname is not None and isinstance(
                alias.asname.name, cst.Name) else name
            self.bind(local, library_object(f"{base}.{name}"))
        return False

    def _global(self, stmt: Any) -> bool:
        if self.frame is not self.globals and isinstance(stmt, cst.Global):
            if self.frame.declared_global is None:
                self.frame.declared_global = set()
            self.frame.declared_global.update(item.name.value for item in stmt.names)
        return False

    def _assert(self, stmt: Any) -> bool:
        self.eval(stmt.test)
        if stmt.msg is not None:
            self.eval(stmt.msg)
        return False

    def _del(self, stmt: Any) -> bool:
        targets = stmt.target.elements if isinstance(stmt.target, (cst.Tuple, cst.List)) else [stmt.target]
        for target in targets:
            node = getattr(target, "value", target) if isinstance(target, cst.Element) else target
            if isinstance(node, cst.Name):
                if node.value in self.frame.vars:
                    self.frame.vars[node.value] = TOP
            else:
                self.eval(node)
                container = self._current.get(node.value) if isinstance(node, cst.Subscript) else None
                if isinstance(container, ModuleValue):
                    layers_unknown(container)  # del seq[-1]: its layers are not followed
                    self.heap_version += 1
        return False

    def known_truth(self, test: Value) -> Optional[bool]:
        """Whether a condition's value is certainly true or false here: a bool constant or
        None, in an analysis where it is certain (not a standalone analysis, whose literal
        defaults stand for any value a caller could pass)."""
        if self._speculative:
            return None
        config = config_truth(self, test)  # `if args.half:`: the default's branch, an assumption
        if config is not None:
            return config
        if isinstance(test, ScalarValue) and test.pytype == "bool" and isinstance(test.const, bool):
            return test.const
        if isinstance(test, ScalarValue) and test.pytype == "int" and isinstance(test.const, int):
            return bool(test.const)  # `if args.fp16:` of a written `--fp16 1`
        if isinstance(test, StringValue) and test.const is not None:
            return bool(test.const)
        if isinstance(test, NoneValue):
            return False
        if isinstance(test, ChoiceValue) and len({bool(option) for option in test.options}) == 1:
            return bool(next(iter(test.options)))  # None or "" alike: false on every path
        if isinstance(test, SequenceValue) and test.container == "dict" and test.keys:
            return True  # `x if norm_cfg else ...` with norm_cfg=dict(type="LN"): keys known, not empty
        return None

    def _if(self, stmt: cst.If) -> bool:
        truth = self.known_truth(self.eval(stmt.test))
        if truth is True:
            return self.exec_body(stmt.body)  # `if half:` with half=True: only this branch runs
        if truth is False:
            if stmt.orelse is None:
                return False
            if isinstance(stmt.orelse, cst.If):
                return self.exec_stmt(stmt.orelse)
            return self.exec_body(stmt.orelse.body)
        before = dict(self.frame.vars)
        self.branch_depth += 1
        try:
            ended_body = self.exec_body(stmt.body)
            after_body = self.frame.vars
            self.frame.vars = dict(before)
            ended_else = False
            if stmt.orelse is not None:
                if isinstance(stmt.orelse, cst.If):
                    ended_else = self.exec_stmt(stmt.orelse)
                else:
                    ended_else = self.exec_body(stmt.orelse.body)
            after_else = self.frame.vars
        finally:
            self.branch_depth -= 1
        if ended_body and ended_else:
            self.frame.vars = after_else
            return True
        if ended_body:
            self.frame.vars = after_else
        elif ended_else:
            self.frame.vars = after_body
        else:
            self.frame.vars = join_envs(after_body, after_else)
        return False

    def _loop(self, stmt: Any) -> bool:
        """for / while: iterate the body silently to a fixed point, then once more recording.
        A first iteration known better than the others (a loader's full first batch) runs on
        its own first (_peeled)."""
        before: Optional[Dict[str, Value]] = None
        if isinstance(stmt, cst.For):
            iterable = self.eval(stmt.iter)
            element = iterate(iterable)
            if self._loop_nesting >= MAX_FIXPOINT_NESTING:
                return self._havoc_loop(stmt, element)
            items = self._unrollable(stmt, iterable)
            if items is not None:
                return self._unrolled(stmt, items)
            first = self._first_iteration(stmt, iterable)
            if first is not None:
                before = dict(self.frame.vars)
                self._peeled(stmt, first)
            last = self._range_last(stmt)
        else:
            self.eval(stmt.test)
            element = TOP
            last = None
            if self._loop_nesting >= MAX_FIXPOINT_NESTING:
                return self._havoc_loop(stmt, element)
        recording = self.recording
        self.recording = False
        self.branch_depth += 1
        entry = dict(self.frame.vars)
        state = entry
        targets = target_names(stmt.target) if isinstance(stmt, cst.For) else []
        loop_frame = self.frame
        loop_frame.loop_targets.extend(targets)
        self._loop_nesting += 1
        try:
            for iteration in range(MAX_LOOP_ITERATIONS + 1):
                self.frame.vars = dict(state)
                if isinstance(stmt, cst.For):
                    self.assign_target(stmt.target, element, stmt, record=False)
                self.exec_body(stmt.body)
                new_state = join_envs(state, self.frame.vars)
                if envs_equal(new_state, state):
                    break
                if iteration == MAX_LOOP_ITERATIONS - 1:
                    new_state = widen(state, new_state)
                state = new_state
            self.frame.vars = dict(state)
            self.recording = recording
            if isinstance(stmt, cst.For):
                self.assign_target(stmt.target, element, stmt)
            self.exec_body(stmt.body)
            if last is not None:
                # the last index of a known range (X[i:i + bs] then holds the remainder), over
                # the state any iteration starts from
                any_iteration = self.frame.vars
                self.frame.vars = dict(state)
                self.assign_target(stmt.target, last, stmt)
                # what is found only here names the path (rules/context.py: with_assumptions)
                self.path_notes.append(f"on the loop's last iteration (`{self.module.code_for_node(stmt.target)}` = "
                                       f"{last.const})")  # type: ignore[attr-defined]
                try:
                    self.exec_body(stmt.body)
                finally:
                    self.path_notes.pop()
                self.frame.vars = join_envs(any_iteration, self.frame.vars)
            self.frame.vars = join_envs(state, self.frame.vars)
            if isinstance(stmt, cst.For):  # xs.append(...) once per iteration: as many items as iterations
                count_appended_lists(self, stmt, iteration_count(self, stmt.iter, iterable),
                                     before if before is not None else entry)
        finally:
            self.recording = recording
            self.branch_depth -= 1
            self._loop_nesting -= 1
            if targets:
                del loop_frame.loop_targets[-len(targets):]
        if stmt.orelse is not None:
            self.exec_body(stmt.orelse.body)
        return False

    def _havoc_loop(self, stmt: Any, element: Value) -> bool:
        """A loop deep inside others: every name its body may rebind is unknown at the body's
        start, and the body runs once (recorded as the enclosing pass is), standing for any
        iteration; after the loop those names are unknown too (it may not have run)."""
        names = self._bound_names.get(stmt)
        if names is None:
            names = self._bound_names[stmt] = names_bound_in(stmt.body) | frozenset(
                target_names(stmt.target) if isinstance(stmt, cst.For) else ())
        self.branch_depth += 1
        try:
            for name in names:
                self.frame.vars[name] = TOP
            entry = dict(self.frame.vars)
            if isinstance(stmt, cst.For):
                self.assign_target(stmt.target, element, stmt)
            self.exec_body(stmt.body)
            self.frame.vars = join_envs(entry, self.frame.vars)
        finally:
            self.branch_depth -= 1
        if stmt.orelse is not None:
            self.exec_body(stmt.orelse.body)
        return False

    def _first_iteration(self, stmt: cst.For, iterable: Value) -> Optional[Value]:
        """What the first iteration of ``stmt`` binds when it is known better than any
        iteration's: a loader whose last batch falls short yields a full batch first
        (``for x, y in loader``, ``for i, (x, y) in enumerate(loader)``). None otherwise, and
        for a body that may stop an iteration early (its state at the stop is not kept)."""
        if stmt.orelse is not None or leaves_early(stmt.body):
            return None
        if isinstance(iterable, DataLoaderValue):
            return first_batch(iterable)
        callee = self._callees.get(stmt.iter) if isinstance(stmt.iter, cst.Call) else None
        if callee is not None and callee.kind == "symbol" and callee.name == "builtins.enumerate" \
                and len(callee.args.pos) == 1 and not callee.args.kw and not callee.args.has_star \
                and isinstance(callee.args.pos[0], DataLoaderValue):
            first = first_batch(callee.args.pos[0])
            return None if first is None else SequenceValue("tuple", TOP, (ScalarValue("int", 0), first))
        start = self._range_start(stmt.iter)
        if start is None and callee is not None and callee.kind == "symbol" and callee.name == "builtins.enumerate" \
                and len(callee.args.pos) == 1 and not callee.args.kw and not callee.args.has_star:
            inner = self._range_start(callee.args.pos_nodes[0])
            return None if inner is None else SequenceValue("tuple", TOP, (ScalarValue("int", 0), inner))
        return start

    def _range_start(self, node: Any) -> Optional[Value]:
        """The first int of ``range(...)`` of known ints that is not empty, for a loop outside
        any other (a range loop in a loop, or in a first iteration already run on its own,
        is not peeled: the cost stays bounded)."""
        numbers = self._outer_range(node)
        return ScalarValue("int", numbers[0]) if numbers else None

    def _range_last(self, stmt: cst.For) -> Optional[Value]:
        """The last int of a ``range(...)`` of known ints with at least two, for a loop outside
        any other whose every iteration runs to its end: that iteration certainly runs once the
        loop does (its index may differ from every other: ``X[i:i + bs]`` holds ``N % bs`` rows
        on the last one). None otherwise."""
        if stmt.orelse is not None or leaves_early(stmt.body):
            return None
        numbers = self._outer_range(stmt.iter)
        return ScalarValue("int", numbers[-1]) if numbers is not None and len(numbers) >= 2 else None

    def _outer_range(self, node: Any) -> Optional[range]:
        """The numbers of ``range(...)`` of known ints iterated by a loop outside any other (and
        outside a first iteration run on its own); None otherwise."""
        if self._loop_nesting or self._peeling_range or not isinstance(node, cst.Call):
            return None
        callee = self._callees.get(node)
        if callee is None or callee.kind != "symbol" or callee.name != "builtins.range" or callee.args.kw \
                or callee.args.has_star or not 1 <= len(callee.args.pos) <= 3:
            return None
        bounds = [a.const if isinstance(a, ScalarValue) and isinstance(a.const, int) and not isinstance(a.const, bool)
                  else None for a in callee.args.pos]
        if None in bounds or len(bounds) == 3 and bounds[2] == 0:
            return None
        return range(*bounds)  # type: ignore[arg-type]

    def _peeled(self, stmt: cst.For, first: Value) -> None:
        """The first iteration on its own, recorded, outside any branch: it certainly runs once
        the loop is reached (the loader holds a full batch), so what it finds holds; the loop
        then goes on from its end over any iteration (maybe none)."""
        targets = target_names(stmt.target)
        loop_frame = self.frame
        loop_frame.loop_targets.extend(targets)
        self._peeling_range += 1
        try:
            self.assign_target(stmt.target, first, stmt)
            self.exec_body(stmt.body)
        finally:
            self._peeling_range -= 1
            if targets:
                del loop_frame.loop_targets[-len(targets):]

    def _unrollable(self, stmt: cst.For, iterable: Value) -> Optional[Tuple[Value, ...]]:
        """The items of a ``for`` over a few known items whose every iteration runs to its end,
        run item by item (``for h in (32, 16): layers += [nn.Linear(width, h)]`` then knows each
        layer; ``for layer in model.layers: setattr(layer, ...)`` changes each layer itself);
        not inside another unrolled loop, so the cost stays bounded. None: not unrolled."""
        if isinstance(iterable, SequenceValue) and iterable.container in ("list", "tuple"):
            items = iterable.items
        elif isinstance(iterable, ModuleValue):
            items = exact_children(iterable)  # an nn.Sequential / nn.ModuleList known layer by layer
        else:
            items = None
        limit = MAX_UNROLLED_OUTER if self._unrolling == 0 else MAX_UNROLLED
        if (self._unrolling < MAX_UNROLLED_NESTING and items is not None and 0 < len(items) <= limit
                and stmt.orelse is None and not leaves_early(stmt.body)):
            return items
        return None

    def _unrolled(self, stmt: cst.For, items: Tuple[Value, ...]) -> bool:
        """Run the body once per item, silently, in order; then once recording, over the join of
        the iterations' entry states (what rules and explain see holds for every iteration);
        the state after the loop is the last iteration's."""
        recording, probing = self.recording, self._probing
        self.recording = False
        self._probing = recording or probing  # rules see each iteration with its own item
        self._unrolling += 1
        self._loop_nesting += 1
        entries = []
        targets = target_names(stmt.target)
        loop_frame = self.frame
        loop_frame.loop_targets.extend(targets)
        try:
            for item in items:
                entries.append(dict(self.frame.vars))
                self.assign_target(stmt.target, item, stmt, record=False)
                self.exec_body(stmt.body)
            after = self.frame.vars
            state = entries[0]
            for entry in entries[1:]:
                state = join_envs(state, entry)
            self.frame.vars = dict(state)
            self.recording, self._probing = recording, probing
            self.branch_depth += 1  # the recording pass stands for any one iteration
            outer_journal, self._replay_journal = self._replay_journal, {}
            try:
                self.assign_target(stmt.target, join_all(items), stmt)
                self.exec_body(stmt.body)
            finally:
                self.branch_depth -= 1
                self._restore_journal(outer_journal)
            self.frame.vars = after
        finally:
            self.recording, self._probing = recording, probing
            self._unrolling -= 1
            self._loop_nesting -= 1
            if targets:
                del loop_frame.loop_targets[-len(targets):]
        return False

    def _restore_journal(self, outer: Optional[Dict[int, Tuple[InstanceValue, Dict[str, Value]]]]) -> None:
        """After an unrolled loop's recording pass: the instances it stored to get back the
        attributes the silent iterations left (``self.heads.append(layer)`` per item is not
        done once more); an enclosing pass keeps what they were before this one."""
        journal, self._replay_journal = self._replay_journal or {}, outer
        for key, (owner, attrs) in journal.items():
            owner.attrs.clear()
            owner.attrs.update(attrs)
            if outer is not None:
                outer.setdefault(key, (owner, attrs))
        if journal:
            self.heap_version += 1

    def _with(self, stmt: cst.With) -> bool:
        autocast = no_grad = 0
        for item in stmt.items:
            value = self.eval(item.item)
            name = self._callee_name(item.item)
            if name in AUTOCAST_CONTEXTS:
                autocast += 1
                self.autocast_dtypes.append(autocast_dtype(name, self._callees.get(item.item)))
            if name in NO_GRAD_CONTEXTS:
                no_grad += 1
            if item.asname is not None:
                self.assign_target(item.asname.name, TOP if autocast or no_grad else value, stmt)
        self.autocast_depth += autocast
        self.no_grad_depth += no_grad
        try:
            return self.exec_body(stmt.body)
        finally:
            self.autocast_depth -= autocast
            self.no_grad_depth -= no_grad
            if autocast:
                del self.autocast_dtypes[-autocast:]

    def is_loop_variable(self, name: str) -> bool:
        """Is ``name`` the target of a ``for`` loop being executed in the current frame?
        (Rebinding it changes only the loop variable, not the items iterated over.)"""
        return name in self.frame.loop_targets

    def _callee_name(self, node: Any) -> Optional[str]:
        callee = self._callees.get(node) if isinstance(node, cst.Call) else None
        if callee is not None and callee.kind == "symbol":
            return callee.name
        value = self._current.get(node)
        return value.qualname if isinstance(value, SymbolValue) else None

    def _try(self, stmt: Any) -> bool:
        before = dict(self.frame.vars)
        self.branch_depth += 1
        try:
            ended = self.exec_body(stmt.body)
            if stmt.orelse is not None and not ended:
                ended = self.exec_body(stmt.orelse.body)
            outcomes = [] if ended else [self.frame.vars]
            for handler in stmt.handlers:
                self.frame.vars = join_envs(before, dict(self.frame.vars)) if outcomes else dict(before)
                if handler.name is not None:
                    self.assign_target(handler.name.name, TOP, handler)
                if not self.exec_body(handler.body):
                    outcomes.append(self.frame.vars)
        finally:
            self.branch_depth -= 1
        if not outcomes:
            self.frame.vars = before
            ended_all = True
        else:
            env = outcomes[0]
            for other in outcomes[1:]:
                env = join_envs(env, other)
            self.frame.vars = env
            ended_all = False
        if stmt.finalbody is not None:
            self.exec_body(stmt.finalbody.body)
        return ended_all

    def _function_def(self, stmt: cst.FunctionDef) -> bool:
        fn = FunctionValue(stmt, owner=self.frame.instance)
        if self.frame.function is not None:
            self.closures[stmt] = self.frame  # defined in a function: its free names are that frame's
            self.closure_frames[fn] = self.frame  # this closure's own (pipeline(f) and pipeline(g) differ)
        if self.home is not self.main_home:
            self.homes[stmt] = self.home  # runs in its own module's globals (engine/modules.py)
        for deco in stmt.decorators:
            self.eval(deco.decorator)
        self._evaluate_defaults(stmt)
        self.bind(stmt.name.value, fn)
        self._pending_functions.append((fn, self.frame, self.unit.index))
        if stmt.returns is not None:
            self.annotated_returns[stmt] = annotation_value(self, stmt.returns.annotation)
        return False

    def _evaluate_defaults(self, fnode: cst.FunctionDef) -> None:
        """Python evaluates parameter defaults once, where the ``def`` runs: a call that omits
        the argument gets that value (``def build(dtype=torch.float64)``)."""
        params = fnode.params
        for param in list(params.posonly_params) + list(params.params) + list(params.kwonly_params):
            if param.default is not None:
                self.param_defaults[param] = self.eval(param.default)

    def _class_def(self, stmt: cst.ClassDef) -> bool:
        bases = []
        for arg in stmt.bases:
            base = self.eval(arg.value)
            if isinstance(base, SymbolValue):
                bases.append(base.qualname)
            elif isinstance(base, ClassValue):
                bases.extend(base.bases)
                bases.append("<local>." + base.name)
        methods: Dict[str, Any] = {}
        cls = ClassValue(stmt, tuple(bases), methods)
        # Inherit methods of base classes defined in this file (the first base wins).
        local_bases = tuple(b for b in (self._current.get(arg.value) for arg in stmt.bases)
                            if isinstance(b, ClassValue))
        cls.base_classes = local_bases
        for base in reversed(local_bases):
            methods.update(base.methods)
        class_frame = Frame({}, parent=self.frame)
        outer = self.frame
        self.frame = class_frame
        try:
            for item in stmt.body.body if isinstance(stmt.body, cst.IndentedBlock) else ():
                if isinstance(item, cst.FunctionDef):
                    fn = FunctionValue(item, owner=cls)
                    if self.home is not self.main_home:
                        self.homes[item] = self.home
                    methods[item.name.value] = fn
                    self._evaluate_defaults(item)
                    if item.returns is not None:
                        self.frame = outer
                        self.annotated_returns[item] = annotation_value(self, item.returns.annotation)
                        self.frame = class_frame
                else:
                    self.exec_stmt(item)
        finally:
            self.frame = outer
        inherited = {k: v for base in reversed(local_bases) for k, v in base.attrs.items()}
        cls.attrs = {**inherited, **{k: v for k, v in class_frame.vars.items() if k not in methods}}
        own_fields = tuple(item.body[0].target.value for item in (
            stmt.body.body if isinstance(stmt.body, cst.IndentedBlock) else ())
            if isinstance(item, cst.SimpleStatementLine) and len(item.body) == 1
            and isinstance(item.body[0], cst.AnnAssign) and isinstance(item.body[0].target, cst.Name))
        base_fields = tuple(f for base in local_bases for f in base.fields)
        cls.fields = base_fields + tuple(f for f in own_fields if f not in base_fields)
        cls.is_dataclass = is_dataclass_decorated(stmt)
        self.bind(stmt.name.value, cls)
        for fn in methods.values():
            if fn.owner is cls:
                self._pending_functions.append((fn, outer, self.unit.index))
        return False

    # ------------------------------------------------------------------ targets

    def assign_target(self, target: Any, value: Value, stmt: Any, record: bool = True) -> None:
        if isinstance(target, cst.Name):
            self.bind(target.value, value)
            self._set(target, value)
            if record and self.recording:
                self.assignments.append(Assignment(target, target.value, value))
        elif isinstance(target, (cst.Tuple, cst.List)):
            elements = target.elements
            items: Optional[Sequence[Value]] = None
            if isinstance(value, SequenceValue) and value.items is not None and len(value.items) == len(elements):
                items = value.items
            starred = [i for i, e in enumerate(elements) if isinstance(e, cst.StarredElement)]
            if isinstance(value, SequenceValue) and value.items is not None and len(starred) == 1 and \
                    len(value.items) >= len(elements) - 1:
                star = starred[0]
                after = len(elements) - star - 1
                middle = value.items[star:len(value.items) - after]
                items = value.items[:star] + (list_of(middle),) + value.items[len(value.items) - after:]
            for i, element in enumerate(elements):
                if isinstance(element, cst.StarredElement):
                    rest = items[i] if items is not None else (
                        SequenceValue("list", value.element) if isinstance(value, SequenceValue) else TOP)
                    self.assign_target(element.value, rest, stmt, record)
                    continue
                if items is not None:
                    item = items[i]
                elif isinstance(value, SequenceValue):
                    item = value.element
                elif isinstance(value, TensorValue) and value.shape:
                    item = index_first(value)
                else:
                    item = TOP
                self.assign_target(element.value, item, stmt, record)
        elif isinstance(target, cst.Attribute):
            owner = self.eval(target.value)
            if isinstance(owner, InstanceValue):
                name = target.attr.value
                if isinstance(stmt, (cst.Assign, cst.AnnAssign)) and isinstance(stmt.value, cst.Call) \
                        and self._callee_name(stmt.value) in PARAMETER_CLASSES:
                    owner.cast_attrs.add(name)
                if value is TOP:  # an unknown value still keeps what the class declares for it
                    value = declared_attribute(self, owner.cls, name)
                if self._weak_update(owner) and name in owner.attrs:
                    value = join(owner.attrs[name], value)
                self.journal(owner)
                owner.attrs[name] = value
                self.heap_version += 1
                self._set(target, value)
                if record and self.recording:
                    self.assignments.append(Assignment(target, "self." + name if isinstance(
                        target.value, cst.Name) and target.value.value == "self" else name, value))
            elif isinstance(owner, ModuleNamespace):
                # config.dtype = torch.float64: the module's functions read the new value
                assign_namespace_attribute(self, owner, target.attr.value, value)
            elif isinstance(owner, ModuleValue):
                # layer.weight = nn.Parameter(...): the layer's parameters may now differ;
                # self.linear.weight = QuantWeight(...): reads give the new value
                store_module_attribute(owner, target.attr.value, value, self._weak_update(owner),
                                       Origin(target, ""))
                self.heap_version += 1
            elif isinstance(owner, ArrayValue) and target.attr.value in ("shape", "dtype"):
                # a.shape = (3, 4) reshapes a (self.buf.shape = ... too); a.dtype = ... reinterprets it
                replace_array(self, target.value, owner, array_attribute_assigned(owner, target.attr.value, value))
            elif isinstance(owner, TensorValue) and target.attr.value == "data":
                # t.data = other swaps t's storage: t takes other's dtype and shape (and a
                # module's parameter changes the module)
                if not parameter_replaced(self, owner, value, target):
                    replace_tensor(self, target.value, owner, value)
        elif isinstance(target, cst.Subscript):
            container = self.eval(target.value)
            if isinstance(container, ModuleValue):
                # seq[-1] = nn.Linear(512, 10) at a known index, surely run: that layer replaced
                if not layer_replaced(container, [self.eval(e.slice.value) for e in target.slice
                                                  if isinstance(e.slice, cst.Index)], value,
                                      certain=not self._weak_update(container)):
                    layers_unknown(container)
                self.heap_version += 1
            index_values = [self.eval(element.slice.value) for element in target.slice
                            if isinstance(element.slice, cst.Index)]
            owner = dict_owner(self, target.value)
            if owner is not None:  # self.__dict__[name] = value stores an attribute by name
                key = target.slice[0].slice if len(target.slice) == 1 else None
                store_in_dict(self, owner, getattr(key, "value", None), value, getattr(stmt, "value", None))
                return
            if isinstance(container, SequenceValue) and container.container in ("list", "dict"):
                key = index_values[0] if len(index_values) == len(target.slice) == 1 else None
                if container.container == "dict" and isinstance(key, StringValue) and key.const is not None:
                    updated = with_keyed_element(container, key.const, value)  # d["x"] = v
                else:
                    updated = with_element(container, value)
                replace_container(self, target.value, container, updated)
        elif isinstance(target, cst.StarredElement):
            self.assign_target(target.value, TOP, stmt, record)

    # ------------------------------------------------------------------ expressions

    @property
    def default_float_certain(self) -> bool:
        """False once a set_default_dtype call that may or may not run was seen."""
        return self.uncertain_defaults is None

    def eval(self, node: Any) -> Value:
        handler = EXPRESSION_HANDLERS.get(type(node))
        value = handler(self, node) if handler is not None else self._eval_children(node)
        if self.uncertain_defaults is not None:
            value = forget_uncertain_default(value, self.uncertain_defaults)
        self._set(node, value)
        self._notify(node)
        return value

    def _eval_children(self, node: Any) -> Value:
        # Unmodelled expression: still evaluate sub-expressions so rules see nested calls.
        parts = self._child_expressions.get(node)
        if parts is None:  # libcst's node.children rebuilds the node: found once per node
            parts = self._child_expressions[node] = child_expressions(node)
        for child in parts:
            self.eval(child)
        return TOP


_STATEMENT_HANDLERS: Dict[type, Callable[[Interpreter, Any], Any]] = {
    cst.SimpleStatementLine: Interpreter._simple_line,
    cst.Expr: Interpreter._expr_stmt,
    cst.Assign: Interpreter._assign,
    cst.AnnAssign: Interpreter._ann_assign,
    cst.AugAssign: Interpreter._aug_assign,
    cst.Return: Interpreter._return,
    cst.Raise: Interpreter._raise,
    cst.Break: Interpreter._terminator,
    cst.Continue: Interpreter._terminator,
    cst.Import: Interpreter._import,
    cst.ImportFrom: Interpreter._import_from,
    cst.Global: Interpreter._global,
    cst.Nonlocal: Interpreter._global,
    cst.Assert: Interpreter._assert,
    cst.Del: Interpreter._del,
    cst.If: Interpreter._if,
    cst.For: Interpreter._loop,
    cst.While: Interpreter._loop,
    cst.With: Interpreter._with,
    cst.Try: Interpreter._try,
    cst.FunctionDef: Interpreter._function_def,
    cst.ClassDef: Interpreter._class_def,
}
if hasattr(cst, "TryStar"):
    _STATEMENT_HANDLERS[cst.TryStar] = Interpreter._try


def analyse(module: cst.Module, listeners: Optional[Dict[type, List[Listener]]] = None,
            time_budget: float = DEFAULT_TIME_BUDGET) -> Interpreter:
    """Run the abstract interpreter over a parsed module and return it (with its facts)."""
    return Interpreter(module, listeners, time_budget).run()
