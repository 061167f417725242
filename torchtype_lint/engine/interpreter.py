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
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from itertools import compress
from operator import is_not
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

import libcst as cst

from ..knowledge import annotations as A
from ..knowledge import dtypes as D
from ..knowledge import nn_modules as NN
from ..knowledge import numpy_api as NP
from ..knowledge import torch_api as T
from ..knowledge.autocast import AUTOCAST_CONTEXTS, autocast_dtype, under_autocast
from ..knowledge.data_pipeline import (
    DATALOADER_NAMES, TENSOR_DATASET_NAMES, DataLoaderValue, TensorDatasetValue, batch, dataloader,
    tensor_dataset,
)
from ..knowledge.defaults import (
    DEFAULT_DEVICE_SETTERS, SET_DEFAULT_DTYPE, forget_default_device, forget_uncertain_default,
    set_default_dtype,
)
from ..knowledge.functional import FUNCTIONAL_PREFIX, PARAMETER_CLASSES, functional, parameter
from ..knowledge.indexing import (
    ELLIPSIS, SLICE, UNKNOWN_BOUND, index_array, index_first, index_tensor,
)
from ..knowledge.module_dtypes import (
    CAST_METHODS as MODULE_CAST_METHODS, CAST_REGISTRATIONS, MODULE_BASES, MUTATING_METHODS,
    REGISTER_METHODS, SELF_RETURNING_METHODS, construct_module, module_attribute,
    set_module_dtype, widen_module_params,
)
from ..knowledge.torch_objects import (
    NO_GRAD_CONTEXTS, SHAPE_CHANGING_IN_PLACE, TRANSPARENT_BARE_NAMES, TRANSPARENT_DECORATORS,
    library_object, module_children_element, moves_to_cuda, return_types_field,
    shape_changing_in_place,
)
from ..values import (
    CallArgs, Callee,
    BOOL, FLOAT32, INT64, TOP, ArrayValue, ClassValue, DeviceValue, DTypeValue,
    FunctionValue, InstanceValue, ModuleValue, NoneValue, Origin, ScalarValue, SequenceValue,
    StringValue, SymbolValue, TensorValue, Value, join, with_origin,
)

Listener = Callable[[Any, "Interpreter"], None]

#: How often a loop body is re-analysed before the values still changing are widened to TOP.
MAX_LOOP_ITERATIONS = 3
#: How deep call-site re-analysis of user functions may nest.
MAX_CALL_DEPTH = 3
#: Per-file time budget (seconds); exceeding it raises AnalysisBudgetExceeded.
DEFAULT_TIME_BUDGET = 20.0

_BUILTIN_NAMES = {"float", "int", "bool", "complex", "str", "len", "range", "enumerate", "zip",
                  "list", "tuple", "dict", "set", "print", "isinstance", "super", "sum", "min",
                  "max", "abs", "round", "sorted", "reversed", "map", "filter", "open", "type",
                  "getattr", "setattr", "hasattr", "iter", "next", "object", "Exception"}


class AnalysisBudgetExceeded(Exception):
    """The per-file time budget ran out (reported as TTL000, never a hang)."""


class _Return(Exception):
    pass


@dataclass
class Frame:
    """A scope: a module, a function activation or a class body."""

    vars: Dict[str, Value]
    parent: Optional["Frame"] = None
    function: Optional[FunctionValue] = None
    returns: List[Value] = field(default_factory=list)
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
        return f"bound method {self.function.node.name.value}"


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


class Interpreter:
    def __init__(self, module: cst.Module, listeners: Optional[Dict[type, List[Listener]]] = None,
                 time_budget: float = DEFAULT_TIME_BUDGET):
        self.module = module
        self.listeners: Dict[type, List[Listener]] = listeners or {}
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
        self._call_stack: List[Any] = []
        self._memo: Dict[Any, Value] = {}
        self._prototypes: Dict[Any, InstanceValue] = {}
        self._pending_functions: List[Tuple[FunctionValue, Frame]] = []
        #: Functions seen to contain ``yield`` (found while running their body: a libcst
        #: visitor per function costs more than analysing it). Calling one gives a generator.
        self._generators: set = set()
        self._analysed_standalone: set = set()
        self._deadline = time.monotonic() + time_budget
        self._ticks = 0
        self.globals = Frame({})
        self.frame = self.globals
        self.annotated_returns: Dict[Any, Value] = {}
        #: True once the module body ran and only speculative standalone analyses remain.
        self._speculative = False
        #: How many function activations under way were entered from inside a branch.
        self._conditional_calls = 0
        #: ids of modules/instances created by the standalone analysis under way.
        self._fresh_ids: set = set()
        #: Bumped whenever a mutable value (module dtype, instance attribute) changes, so a
        #: memoised call result computed before ``model.double()`` is not reused after it.
        self.heap_version = 0

    # ------------------------------------------------------------------ public API

    def run(self) -> "Interpreter":
        if time.monotonic() > self._deadline:  # parsing may have used the whole budget
            raise AnalysisBudgetExceeded()
        self.exec_block(self.module.body)
        # Functions never called from module level are analysed once on their own, with
        # parameters known only from annotations. When (or whether) they run is unknown, so
        # what they do to objects that outlive them (a module-level model, a prototype's
        # layers) is only a possibility: weak updates, see _weak_update().
        self._speculative = True
        while self._pending_functions:
            fn, frame = self._pending_functions.pop(0)
            if fn.node in self._analysed_standalone:
                continue
            self._analysed_standalone.add(fn.node)
            self._fresh_ids = set()
            self._analyse_standalone(fn, frame)
        # The module node is "evaluated" last: rules listening to cst.Module see the whole
        # file's facts (e.g. to drop a warning whose root cause a later error explained).
        self._notify(self.module)
        return self

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

    def _notify(self, node: Any) -> None:
        if self.recording:
            for listener in self.listeners.get(type(node), ()):
                listener(node, self)

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

    def _note_fresh(self, value: Value) -> Value:
        if (self._speculative or self._conditional_calls) and isinstance(value, (ModuleValue, InstanceValue)):
            self._fresh_ids.add(id(value))
        return value

    def lookup(self, name: str) -> Value:
        frame: Optional[Frame] = self.frame
        while frame is not None:
            if name in frame.vars:
                return frame.vars[name]
            frame = frame.parent
        if name in _BUILTIN_NAMES:
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
        declared = self.annotation_value(stmt.annotation.annotation)
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
        op = _OPERATOR_SYMBOLS.get(type(stmt.operator).__name__.replace("Assign", ""), "?")
        result = self.binary(left, right, op, stmt)
        if isinstance(left, TensorValue) and isinstance(result, TensorValue):
            # In-place: the destination keeps its dtype (or the op raises, which rules report).
            result = TensorValue(left.dtypes, result.shape if result.shape is not None else left.shape,
                                 left.origin, left.device, left.requires_grad)
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
            dotted = _dotted_name(alias.name)
            if dotted is None:
                continue
            if alias.asname is not None and isinstance(alias.asname.name, cst.Name):
                self.bind(alias.asname.name.value, SymbolValue(dotted))
            else:
                head = dotted.split(".", 1)[0]
                self.bind(head, SymbolValue(head))
        return False

    def _import_from(self, stmt: cst.ImportFrom) -> bool:
        if stmt.relative or stmt.module is None or isinstance(stmt.names, cst.ImportStar):
            return False
        base = _dotted_name(stmt.module)
        if base is None:
            return False
        for alias in stmt.names:
            name = _dotted_name(alias.name)
            if name is None:
                continue
            local = alias.asname.name.value if alias.asname is not None and isinstance(
                alias.asname.name, cst.Name) else name
            self.bind(local, self.symbol(f"{base}.{name}"))
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
        return False

    def _if(self, stmt: cst.If) -> bool:
        self.eval(stmt.test)
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
            self.frame.vars = _join_envs(after_body, after_else)
        return False

    def _loop(self, stmt: Any) -> bool:
        """for / while: iterate the body silently to a fixed point, then once more recording."""
        if isinstance(stmt, cst.For):
            iterable = self.eval(stmt.iter)
            element = self.iterate(iterable)
        else:
            self.eval(stmt.test)
            element = TOP
        recording = self.recording
        self.recording = False
        self.branch_depth += 1
        entry = dict(self.frame.vars)
        state = entry
        targets = _target_names(stmt.target) if isinstance(stmt, cst.For) else []
        loop_frame = self.frame
        loop_frame.loop_targets.extend(targets)
        try:
            for iteration in range(MAX_LOOP_ITERATIONS + 1):
                self.frame.vars = dict(state)
                if isinstance(stmt, cst.For):
                    self.assign_target(stmt.target, element, stmt, record=False)
                self.exec_body(stmt.body)
                new_state = _join_envs(state, self.frame.vars)
                if _envs_equal(new_state, state):
                    break
                if iteration == MAX_LOOP_ITERATIONS - 1:
                    new_state = _widen(state, new_state)
                state = new_state
            self.frame.vars = dict(state)
            self.recording = recording
            if isinstance(stmt, cst.For):
                self.assign_target(stmt.target, element, stmt)
            self.exec_body(stmt.body)
            self.frame.vars = _join_envs(state, self.frame.vars)
        finally:
            self.recording = recording
            self.branch_depth -= 1
            if targets:
                del loop_frame.loop_targets[-len(targets):]
        if stmt.orelse is not None:
            self.exec_body(stmt.orelse.body)
        return False

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
                self.frame.vars = _join_envs(before, dict(self.frame.vars)) if outcomes else dict(before)
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
                env = _join_envs(env, other)
            self.frame.vars = env
            ended_all = False
        if stmt.finalbody is not None:
            self.exec_body(stmt.finalbody.body)
        return ended_all

    def _function_def(self, stmt: cst.FunctionDef) -> bool:
        fn = FunctionValue(stmt, owner=self.frame.instance)
        for deco in stmt.decorators:
            self.eval(deco.decorator)
        self.bind(stmt.name.value, fn)
        self._pending_functions.append((fn, self.frame))
        if stmt.returns is not None:
            self.annotated_returns[stmt] = self.annotation_value(stmt.returns.annotation)
        return False

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
                    methods[item.name.value] = fn
                    if item.returns is not None:
                        self.frame = outer
                        self.annotated_returns[item] = self.annotation_value(item.returns.annotation)
                        self.frame = class_frame
                else:
                    self.exec_stmt(item)
        finally:
            self.frame = outer
        self.bind(stmt.name.value, cls)
        for fn in methods.values():
            if fn.owner is cls:
                self._pending_functions.append((fn, outer))
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
                items = value.items[:star] + (_list_of(middle),) + value.items[len(value.items) - after:]
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
                if self._weak_update(owner) and name in owner.attrs:
                    value = join(owner.attrs[name], value)
                owner.attrs[name] = value
                self.heap_version += 1
                self._set(target, value)
                if record and self.recording:
                    self.assignments.append(Assignment(target, "self." + name if isinstance(
                        target.value, cst.Name) and target.value.value == "self" else name, value))
            elif isinstance(owner, ModuleValue) and target.attr.value in ("weight", "bias"):
                # layer.weight = nn.Parameter(...): the layer's parameters may now differ
                widen_module_params(owner, value)
                self.heap_version += 1
            elif isinstance(owner, ArrayValue) and target.attr.value in ("shape", "dtype") and \
                    isinstance(target.value, cst.Name) and self.lookup(target.value.value) is owner:
                # a.shape = ... reshapes in place; a.dtype = ... reinterprets the bytes
                shape = T.shape_from_value(value) if target.attr.value == "shape" else None
                if shape is not None and -1 in shape:
                    shape = None
                self.bind(target.value.value, ArrayValue(
                    owner.dtypes if target.attr.value == "shape" else None, shape, owner.origin))
            elif isinstance(owner, TensorValue) and target.attr.value == "data":
                # t.data = other swaps t's storage: t takes other's dtype and shape
                self._replace_tensor(target.value, owner, value)
        elif isinstance(target, cst.Subscript):
            container = self.eval(target.value)
            for element in target.slice:
                if isinstance(element.slice, cst.Index):
                    self.eval(element.slice.value)
            if isinstance(container, SequenceValue) and container.container in ("list", "dict"):
                self._replace_container(target.value, container, _with_element(container, value))
        elif isinstance(target, cst.StarredElement):
            self.assign_target(target.value, TOP, stmt, record)

    # ------------------------------------------------------------------ expressions

    @property
    def default_float_certain(self) -> bool:
        """False once a set_default_dtype call that may or may not run was seen."""
        return self.uncertain_defaults is None

    def eval(self, node: Any) -> Value:
        handler = _EXPRESSION_HANDLERS.get(type(node))
        value = handler(self, node) if handler is not None else self._eval_children(node)
        if self.uncertain_defaults is not None:
            value = forget_uncertain_default(value, self.uncertain_defaults)
        self._set(node, value)
        self._notify(node)
        return value

    def _eval_children(self, node: Any) -> Value:
        # Unmodelled expression: still evaluate sub-expressions so rules see nested calls.
        for child in node.children:
            if isinstance(child, cst.BaseExpression):
                self.eval(child)
            elif isinstance(child, (cst.Arg, cst.Element, cst.DictElement, cst.StarredDictElement)):
                for grand in child.children:
                    if isinstance(grand, cst.BaseExpression):
                        self.eval(grand)
        return TOP

    def _name(self, node: cst.Name) -> Value:
        return self.lookup(node.value)

    def _integer(self, node: cst.Integer) -> Value:
        try:
            return ScalarValue("int", int(node.value.replace("_", ""), 0))
        except ValueError:
            return ScalarValue("int")

    def _float(self, node: cst.Float) -> Value:
        try:
            return ScalarValue("float", float(node.value.replace("_", "")))
        except ValueError:
            return ScalarValue("float")

    def _imaginary(self, node: Any) -> Value:
        return ScalarValue("complex")

    def _string(self, node: Any) -> Value:
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
        self._eval_children(node)
        return StringValue(None)

    def _collection(self, node: Any) -> Value:
        kind = {cst.List: "list", cst.Tuple: "tuple", cst.Set: "set"}[type(node)]
        items: List[Value] = []
        starred = False
        for element in node.elements:
            v = self.eval(element.value)
            if isinstance(element, cst.StarredElement):
                starred = True
            items.append(v)
        element_value: Value = items[0] if items else TOP
        for v in items[1:]:
            element_value = join(element_value, v)
        return SequenceValue(kind, element_value, None if starred else tuple(items))

    def _dict(self, node: cst.Dict) -> Value:
        element_value: Optional[Value] = None
        for element in node.elements:
            if isinstance(element, cst.DictElement):
                self.eval(element.key)
                v = self.eval(element.value)
            else:
                self.eval(element.value)
                v = TOP
            element_value = v if element_value is None else join(element_value, v)
        # items=() marks a known-empty dict (an element added later is the only one)
        return SequenceValue("dict", element_value or TOP, () if not node.elements else None)

    def _comprehension(self, node: Any) -> Value:
        outer = self.frame
        self.frame = Frame({}, parent=outer, function=outer.function, instance=outer.instance)
        try:
            for_in = node.for_in
            while for_in is not None:
                iterable = self.eval(for_in.iter)
                self.assign_target(for_in.target, self.iterate(iterable), node, record=False)
                for cond in for_in.ifs:
                    self.eval(cond.test)
                for_in = for_in.inner_for_in
            if isinstance(node, cst.DictComp):
                self.eval(node.key)
                element = self.eval(node.value)
                return SequenceValue("dict", element, None)
            element = self.eval(node.elt)
        finally:
            self.frame = outer
        if isinstance(node, cst.GeneratorExp):
            return SequenceValue("generator", element, None)
        return SequenceValue("set" if isinstance(node, cst.SetComp) else "list", element, None)

    def _attribute(self, node: cst.Attribute) -> Value:
        owner = self.eval(node.value)
        return self.get_attribute(owner, node.attr.value, node)

    def symbol(self, qualname: str) -> Value:
        """A library object by name: dtypes become DTypeValues, the rest SymbolValues."""
        return library_object(qualname)

    def get_attribute(self, owner: Value, attr: str, node: Any) -> Value:
        if isinstance(owner, SymbolValue):
            return self.symbol(f"{owner.qualname}.{attr}")
        if isinstance(owner, TensorValue):
            return T.tensor_attribute(owner, attr, node)
        if isinstance(owner, ArrayValue):
            return NP.ndarray_attribute(owner, attr)
        if isinstance(owner, InstanceValue):
            if attr in owner.attrs:
                return owner.attrs[attr]
            method = owner.cls.methods.get(attr)
            if method is not None:
                if _has_decorator(method.node, "property"):
                    return self.call_function(method, CallArgs(), node, owner)
                return BoundMethod(method, owner)
            return TOP
        if isinstance(owner, ModuleValue):
            return module_attribute(owner, attr, node)
        if isinstance(owner, SequenceValue):
            field = return_types_field(owner, attr)  # torch.return_types: (values, indices)
            return field if field is not None else TOP
        if isinstance(owner, SuperValue):
            for base in owner.owner.base_classes:
                method = base.methods.get(attr)
                if method is not None:
                    return BoundMethod(method, owner.instance)
            return TOP
        return TOP

    def _subscript(self, node: cst.Subscript) -> Value:
        container = self.eval(node.value)
        indices: List[Value] = []
        #: position in ``indices`` -> (lower, upper, step) as int constants, None when absent,
        #: UNKNOWN_BOUND when not a known int.
        slices: Dict[int, Tuple[Any, Any, Any]] = {}
        for element in node.slice:
            if isinstance(element.slice, cst.Index):
                if isinstance(element.slice.value, cst.Ellipsis):
                    indices.append(ELLIPSIS)
                else:
                    indices.append(self.eval(element.slice.value))
            else:
                bounds = []
                for part in (element.slice.lower, element.slice.upper, element.slice.step):
                    if part is None:
                        bounds.append(None)
                        continue
                    bound = self.eval(part)
                    bounds.append(bound.const if isinstance(bound, ScalarValue) and bound.pytype == "int"
                                  and isinstance(bound.const, int) else UNKNOWN_BOUND)
                slices[len(indices)] = (bounds[0], bounds[1], bounds[2])
                indices.append(SLICE)
        if isinstance(container, SymbolValue):
            return TOP  # a type expression such as Float[Tensor, "b"]
        if isinstance(container, SequenceValue):
            if len(indices) == 1 and isinstance(indices[0], ScalarValue) and container.items is not None \
                    and isinstance(indices[0].const, int) and -len(container.items) <= indices[0].const < len(container.items):
                return container.items[indices[0].const]
            if len(indices) == 1 and indices[0] is SLICE:
                return SequenceValue(container.container, container.element, None, container.origin)
            return container.element
        if isinstance(container, TensorValue):
            return index_tensor(container, indices, slices)
        if isinstance(container, ArrayValue):
            return index_array(container, indices, slices)
        return TOP

    def _binary(self, node: cst.BinaryOperation) -> Value:
        left = self.eval(node.left)
        right = self.eval(node.right)
        op = _OPERATOR_SYMBOLS.get(type(node.operator).__name__, "?")
        result = self.binary(left, right, op, node)
        if self.autocast_dtypes:
            result = under_autocast(Callee("operator", op), result, node, self.autocast_dtypes[-1])
        return result

    def binary(self, left: Value, right: Value, op: str, node: Any) -> Value:
        if isinstance(left, StringValue):
            return StringValue(None) if op in ("%", "+", "*") else TOP  # "%.2f" % loss
        if isinstance(left, (TensorValue,)) or isinstance(right, TensorValue):
            if op in ("+", "-", "*", "/", "//", "%", "**", "@", "&", "|", "^"):
                return T.binary_op(left, right, op, node, self.tenv)
            return TOP
        if isinstance(left, ArrayValue) or isinstance(right, ArrayValue):
            return NP.binary_op(left, right, op, node)
        if isinstance(left, ScalarValue) and isinstance(right, ScalarValue):
            return _scalar_binary(left, right, op)
        if op == "*" and isinstance(left, SequenceValue) and isinstance(right, ScalarValue) and \
                right.pytype == "int" and left.container in ("list", "tuple"):
            # [x] * n: same elements, count unknown unless both are constants
            count = right.const
            items = left.items * count if left.items is not None and isinstance(count, int) \
                and 0 <= count * len(left.items) <= 64 else None
            return SequenceValue(left.container, left.element, items, left.origin)
        if isinstance(left, SequenceValue) and isinstance(right, SequenceValue) and op == "+":
            return SequenceValue(left.container, join(left.element, right.element), (
                left.items + right.items if left.items is not None and right.items is not None else None))
        return TOP

    def _unary(self, node: cst.UnaryOperation) -> Value:
        operand = self.eval(node.expression)
        if isinstance(node.operator, cst.Not):
            return ScalarValue("bool") if not isinstance(operand, TensorValue) else TOP
        if isinstance(operand, (TensorValue, ArrayValue)):
            return operand
        if isinstance(operand, ScalarValue):
            # -True, +True and ~True are ints
            pytype = "int" if operand.pytype == "bool" else operand.pytype
            const = operand.const
            if not isinstance(const, (int, float)) or isinstance(node.operator, cst.BitInvert) and \
                    not isinstance(const, int):
                return ScalarValue(pytype)
            value = {cst.Minus: lambda c: -c, cst.Plus: lambda c: +c,
                     cst.BitInvert: lambda c: ~c}[type(node.operator)](const)
            return ScalarValue(pytype, value)
        return TOP

    def _comparison(self, node: cst.Comparison) -> Value:
        left = self.eval(node.left)
        result: Value = TOP
        for target in node.comparisons:
            right = self.eval(target.comparator)
            op = _OPERATOR_SYMBOLS.get(type(target.operator).__name__, "?")
            if isinstance(left, TensorValue) or isinstance(right, TensorValue):
                result = T.binary_op(left, right, op, node, self.tenv) if op in T.COMPARISON_OPS else TOP
            elif isinstance(left, ArrayValue) or isinstance(right, ArrayValue):
                result = NP.binary_op(left, right, op, node) if op in T.COMPARISON_OPS else TOP
            else:
                result = ScalarValue("bool")
            left = right
        return result

    def _boolean(self, node: cst.BooleanOperation) -> Value:
        left = self.eval(node.left)
        right = self.eval(node.right)
        return join(left, right)

    def _if_exp(self, node: cst.IfExp) -> Value:
        self.eval(node.test)
        return join(self.eval(node.body), self.eval(node.orelse))

    def _lambda(self, node: cst.Lambda) -> Value:
        return TOP

    def _named_expr(self, node: Any) -> Value:
        value = self.eval(node.value)
        self.assign_target(node.target, value, node)
        return value

    def _yield(self, node: Any) -> Value:
        if node.value is not None:
            self.eval(node.value)
        if self.frame.function is not None:
            self._generators.add(self.frame.function.node)
        return TOP

    def _await(self, node: Any) -> Value:
        self.eval(node.expression)
        return TOP

    # ------------------------------------------------------------------ calls

    def _call(self, node: cst.Call) -> Value:
        func = node.func
        receiver: Value = TOP
        if isinstance(func, cst.Attribute):
            receiver = self.eval(func.value)
            callee_value = self.get_attribute(receiver, func.attr.value, func)
            self._set(func, callee_value)
        else:
            callee_value = self.eval(func)
        args = self.eval_args(node)
        callee = Callee("unknown", args=args)
        result: Value = TOP
        if isinstance(func, cst.Attribute) and isinstance(receiver, (TensorValue, ArrayValue, ModuleValue)):
            callee = Callee("method", func.attr.value, receiver, args)
            result = self.call_method(receiver, func.attr.value, args, node)
            if isinstance(receiver, TensorValue) and func.attr.value in SHAPE_CHANGING_IN_PLACE:
                # x.unsqueeze_(0) changes x itself
                self._replace_tensor(func.value, receiver, result)
        elif isinstance(func, cst.Attribute) and isinstance(receiver, SequenceValue):
            callee = Callee("method", func.attr.value, receiver, args)
            result = self.sequence_method(func.value, receiver, func.attr.value, args)
        elif isinstance(func, cst.Attribute) and isinstance(receiver, InstanceValue) and \
                callee_value is TOP and _is_module_class(receiver.cls):
            callee = Callee("method", func.attr.value, receiver, args)
            result = self.module_instance_method(receiver, func.attr.value, args, node)
        elif isinstance(callee_value, SymbolValue):
            callee = Callee("symbol", callee_value.qualname, receiver, args)
            result = self.call_symbol(callee_value.qualname, args, node)
            if self.default_device_unknown:
                result = forget_default_device(callee_value.qualname, args, result)
        elif isinstance(callee_value, DTypeValue):
            callee = Callee("symbol", "torch." + callee_value.dtype, receiver, args)
        elif isinstance(callee_value, ModuleValue):
            callee = Callee("module", callee_value.qualname, callee_value, args)
            result = NN.call_module(callee_value, args, node)
        elif isinstance(callee_value, FunctionValue):
            callee = Callee("user", callee_value.node.name.value, TOP, args)
            result = self.call_function(callee_value, args, node)
        elif isinstance(callee_value, BoundMethod):
            callee = Callee("user", callee_value.function.node.name.value, callee_value.instance, args)
            result = self.call_function(callee_value.function, args, node, callee_value.instance)
        elif isinstance(callee_value, ClassValue):
            callee = Callee("user", callee_value.name, TOP, args)
            result = self.instantiate(callee_value, args, node)
        elif isinstance(callee_value, InstanceValue):
            forward = callee_value.cls.methods.get("forward") or callee_value.cls.methods.get("__call__")
            callee = Callee("module" if forward else "unknown", callee_value.cls.name, callee_value, args)
            if forward is not None:
                result = self.call_function(forward, args, node, callee_value)
        if self.autocast_dtypes:
            result = under_autocast(callee, result, node, self.autocast_dtypes[-1])
        callee.result = result
        self._callees[node] = callee
        if callee.kind == "symbol" and callee.name.startswith("torch.") and "out" in args.kw:
            # The call returns ``out`` (the result cast into its dtype); callee.result keeps
            # the computed result, which rules compare with ``out``.
            out = args.kw["out"]
            return out if isinstance(out, TensorValue) else TOP
        return result

    def eval_args(self, node: cst.Call) -> CallArgs:
        args = CallArgs()
        for arg in node.args:
            value = self.eval(arg.value)
            if arg.star:
                args.has_star = True
            elif arg.keyword is not None:
                args.kw[arg.keyword.value] = value
                args.kw_nodes[arg.keyword.value] = arg.value
            else:
                args.pos.append(value)
                args.pos_nodes.append(arg.value)
        return args

    def call_symbol(self, qualname: str, args: CallArgs, node: Any) -> Value:
        if qualname in DEFAULT_DEVICE_SETTERS:
            self.default_device_unknown = True
            return NoneValue()
        if qualname.startswith(FUNCTIONAL_PREFIX):
            return functional(qualname[len(FUNCTIONAL_PREFIX):], args, node, self.tenv)
        if qualname in PARAMETER_CLASSES:
            return parameter(args, node)
        if qualname.startswith("torch.nn.") and qualname.count(".") == 2:
            return self._note_fresh(construct_module(qualname[9:], args, node, self.default_float,
                                                     self.uncertain_defaults))
        if qualname == SET_DEFAULT_DTYPE:
            # Only a call that certainly runs, in program order, changes the default: at module
            # level or in a function called from there, not on a branch, not speculatively.
            certain = not self.branch_depth and not self._conditional_calls and not self._speculative
            self.default_float, self.uncertain_defaults = set_default_dtype(
                args.get(0), certain, self.default_float, self.uncertain_defaults)
            self.tenv.default_float = self.default_float
            return NoneValue()
        if qualname in TENSOR_DATASET_NAMES:
            return tensor_dataset(args, node)
        if qualname in DATALOADER_NAMES:
            return dataloader(args, node, lambda dataset: self._dataset_item(dataset, node))
        if qualname in ("torch.device",):
            return DeviceValue(T.device_of_arg(args.get(0)))
        if qualname.startswith("torch."):
            return T.call_torch_function(qualname[6:], args, node, self.tenv)
        if qualname.startswith("numpy."):
            return NP.call_numpy_function(qualname[6:], args, node)
        if qualname.startswith("builtins."):
            return _builtin(self, qualname[9:], args, node)
        return TOP

    def call_method(self, receiver: Value, name: str, args: CallArgs, node: Any) -> Value:
        if isinstance(receiver, TensorValue):
            if name in SHAPE_CHANGING_IN_PLACE:
                return shape_changing_in_place(receiver, name, args, node, self.tenv)
            result = T.tensor_method(receiver, name, args, node, self.tenv)
            if moves_to_cuda(name, result):
                self.moves_to_cuda = True
            return result
        if isinstance(receiver, ArrayValue):
            return NP.ndarray_method(receiver, name, args, node)
        if isinstance(receiver, ModuleValue):
            return self.module_instance_method(receiver, name, args, node)
        return TOP

    def sequence_method(self, receiver_node: Any, seq: SequenceValue, name: str, args: CallArgs) -> Value:
        """list/dict methods: mutations rebind the container with the new element value."""
        if name in ("append", "add") and len(args.pos) == 1:
            self._replace_container(receiver_node, seq, _with_element(seq, args.pos[0]))
            return NoneValue()
        if name == "extend" and len(args.pos) == 1:
            self._replace_container(receiver_node, seq, _with_element(seq, self.iterate(args.pos[0])))
            return NoneValue()
        if name == "insert" and len(args.pos) == 2:
            self._replace_container(receiver_node, seq, _with_element(seq, args.pos[1]))
            return NoneValue()
        if name == "update" or name == "setdefault" and len(args.pos) == 2:
            new = _aliased(args.pos[1]) if name == "setdefault" else TOP
            self._replace_container(receiver_node, seq, _with_element(seq, new))
            return new if name == "setdefault" else NoneValue()
        if seq.container == "dict":
            if name == "values":
                return SequenceValue("list", seq.element, None)
            if name == "items":
                return SequenceValue("list", SequenceValue("tuple", TOP, (TOP, seq.element)), None)
            if name == "get" and args.pos:
                default = args.get(1, "default") if args.has(1, "default") else NoneValue()
                return join(seq.element, default)
            if name == "pop" and args.pos:
                return seq.element if len(args.pos) == 1 else join(seq.element, args.pos[1])
        elif name == "pop":
            return seq.element
        if name == "copy":
            return SequenceValue(seq.container, seq.element, seq.items, seq.origin)
        if name in ("clear", "sort", "reverse", "remove"):
            if name == "clear":
                self._replace_container(receiver_node, seq, SequenceValue(seq.container, TOP, ()))
            return NoneValue()
        return TOP

    def _replace_tensor(self, node: Any, old: TensorValue, new: Value) -> None:
        replacement: Value = TOP
        if isinstance(new, TensorValue):
            replacement = TensorValue(new.dtypes, new.shape, new.origin, new.device, old.requires_grad)
        if isinstance(node, cst.Name) and self.lookup(node.value) is old:
            self.bind(node.value, replacement)
        elif isinstance(node, cst.Attribute):
            holder = self._current.get(node.value)
            if isinstance(holder, ModuleValue) and node.attr.value in ("weight", "bias"):
                widen_module_params(holder, new)
                self.heap_version += 1
            elif isinstance(holder, InstanceValue) and holder.attrs.get(node.attr.value) is old:
                holder.attrs[node.attr.value] = replacement
                self.heap_version += 1

    def _replace_container(self, node: Any, old: SequenceValue, new: Value) -> None:
        """A list or dict was mutated: every binding we know of that holds it sees the change;
        where the container came from something else, its aliases are unknown afterwards."""
        frame: Optional[Frame] = self.frame
        found = False
        while frame is not None:
            for name, value in list(frame.vars.items()):
                if value is old:
                    frame.vars[name] = new
                    found = True
            frame = frame.parent
        instance = self._current.get(node.value) if isinstance(node, cst.Attribute) else None
        if isinstance(instance, InstanceValue) and instance.attrs.get(node.attr.value) is old:
            instance.attrs[node.attr.value] = new
            self.heap_version += 1
            found = True
        if not found and isinstance(node, cst.Name):
            self.bind(node.value, new)

    def module_instance_method(self, module: Value, name: str, args: CallArgs, node: Any) -> Value:
        """Module methods that act in place: ``.double()``, ``.to(dtype)``, ``.cuda()``..."""
        if name in MUTATING_METHODS:
            self.heap_version += 1
        if name in MODULE_CAST_METHODS:
            set_module_dtype(module, D.CAST_METHODS[name], Origin(node, f"model.{name}()"),
                             weak=self._weak_update(module))
            return module
        if name in ("to", "type"):
            for value in list(args.pos) + list(args.kw.values()):
                dtype = T.dtype_of_arg(value)
                if dtype is not None:
                    set_module_dtype(module, dtype, Origin(node, f"model.{name}({dtype})"),
                                     weak=self._weak_update(module))
                elif T.device_of_arg(value) == "cuda":
                    self.moves_to_cuda = True
            return module
        if name == "cuda":
            self.moves_to_cuda = True
            return module
        if name in SELF_RETURNING_METHODS:
            return module
        if isinstance(module, InstanceValue) and name in REGISTER_METHODS:
            attr = args.get(0, "name")
            if isinstance(attr, StringValue) and attr.const is not None and not args.has_star:
                value = args.get(1, REGISTER_METHODS[name])
                if self._weak_update(module) and attr.const in module.attrs:
                    value = join(module.attrs[attr.const], value)
                module.attrs[attr.const] = value
                if name in CAST_REGISTRATIONS:
                    module.cast_attrs.add(attr.const)
                if self.recording and isinstance(node, cst.Call) and node.args:
                    self.assignments.append(Assignment(node.args[0].value, f"self.{attr.const}", value))
            return NoneValue()
        if isinstance(module, ModuleValue) and name == "forward":
            return NN.call_module(module, args, node)
        return TOP

    def instantiate(self, cls: ClassValue, args: CallArgs, node: Any) -> Value:
        instance = InstanceValue(cls, Origin(node, f"{cls.name}(...)"))
        self._note_fresh(instance)
        init = cls.methods.get("__init__")
        if init is not None:
            self.call_function(init, args, node, instance, force=True)
        return instance

    def call_function(self, fn: FunctionValue, args: CallArgs, node: Any,
                      self_value: Optional[Value] = None, force: bool = False) -> Value:
        fnode = fn.node
        if any(not _is_transparent(d.decorator) for d in fnode.decorators):
            return TOP
        if fnode in self._generators:
            return TOP
        annotated = self.annotated_returns.get(fnode, TOP)
        if fnode in self._call_stack or len(self._call_stack) >= MAX_CALL_DEPTH or args.has_star:
            return annotated
        params = self.bind_params(fn, args, self_value)
        informative = force or any(v is not TOP for k, v in params.items()
                                   if not (self_value is not None and k == _first_param(fnode)))
        if not informative:
            self._ensure_standalone(fn)
            return annotated if annotated is not TOP else self._memo.get((fnode, "standalone"), TOP)
        try:
            key = (fnode, tuple(sorted(params.items(), key=lambda kv: kv[0])), self.recording,
                   self.heap_version, tuple(self.autocast_dtypes))
            hash(key)
        except TypeError:
            key = None
        if key is not None and key in self._memo and not force:
            return self._memo[key]
        result = self._run_function(fn, params)
        if key is not None:
            self._memo[key] = result
        inferred = result
        return inferred if inferred is not TOP else annotated

    def bind_params(self, fn: FunctionValue, args: CallArgs, self_value: Optional[Value]) -> Dict[str, Value]:
        params = fn.node.params
        names: List[cst.Param] = list(params.posonly_params) + list(params.params)
        bound: Dict[str, Value] = {}
        positional = list(args.pos)
        if self_value is not None and names and not _has_decorator(fn.node, "staticmethod"):
            bound[names[0].name.value] = self_value
            names = names[1:]
        for i, param in enumerate(names):
            pname = param.name.value
            if i < len(positional):
                bound[pname] = positional[i]
            elif pname in args.kw:
                bound[pname] = args.kw[pname]
            elif param.default is not None:
                bound[pname] = self._default_value(param)
            else:
                bound[pname] = TOP
        for param in params.kwonly_params:
            pname = param.name.value
            bound[pname] = args.kw.get(pname, self._default_value(param) if param.default is not None else TOP)
        for param in (params.star_arg, params.star_kwarg):
            if isinstance(param, cst.Param):
                bound[param.name.value] = TOP
        # An argument of unknown value still gets the parameter's annotation.
        for param in list(params.posonly_params) + list(params.params) + list(params.kwonly_params):
            pname = param.name.value
            if bound.get(pname) is TOP and param.annotation is not None:
                bound[pname] = self.annotation_value(param.annotation.annotation)
        return bound

    def _default_value(self, param: cst.Param) -> Value:
        default = param.default
        if isinstance(default, (cst.Integer, cst.Float, cst.SimpleString)):
            return _EXPRESSION_HANDLERS[type(default)](self, default)
        if isinstance(default, cst.Name) and default.value in ("True", "False", "None"):
            return self._name_constant(default)
        return TOP

    def _ensure_standalone(self, fn: FunctionValue) -> None:
        if fn.node not in self._analysed_standalone:
            self._analysed_standalone.add(fn.node)
            self._analyse_standalone(fn, self.globals)

    def _analyse_standalone(self, fn: FunctionValue, frame: Frame) -> None:
        self_value: Optional[Value] = None
        if isinstance(fn.owner, ClassValue) and not _has_decorator(fn.node, "staticmethod"):
            # A copy: what one method does to ``self`` on its own must not leak into another
            # method's standalone analysis (their call order is unknown).
            proto = self.prototype(fn.owner)
            self_value = InstanceValue(proto.cls, proto.origin)
            self._note_fresh(self_value)  # a private copy: its own attributes update strongly
            self_value.attrs.update(proto.attrs)
            self_value.cast_attrs.update(proto.cast_attrs)
        outer = self.frame
        self.frame = frame
        try:
            params = self.bind_params(fn, CallArgs(), self_value)
        finally:
            self.frame = outer
        result = self._run_function(fn, params, frame)
        self._memo[(fn.node, "standalone")] = result

    def prototype(self, cls: ClassValue) -> InstanceValue:
        """The instance ``self`` stands for when a method is analysed on its own:
        attributes come from analysing ``__init__`` with unknown arguments."""
        proto = self._prototypes.get(cls.node)
        if proto is None:
            proto = InstanceValue(cls, Origin(cls.node, f"self ({cls.name})"))
            self._prototypes[cls.node] = proto
            init = cls.methods.get("__init__")
            if init is not None and init.node not in self._call_stack:
                recording = self.recording
                self.recording = False
                try:
                    params = self.bind_params(init, CallArgs(), proto)
                    self._run_function(init, params)
                finally:
                    self.recording = recording
            # Another method may reassign an attribute before this one runs (a reset(), a
            # setup()): on its own, a method can only trust attributes no other method sets.
            for name, method in cls.methods.items():
                if name == "__init__" or _has_decorator(method.node, "staticmethod"):
                    continue
                owner_name = _first_param(method.node)
                if owner_name is None:
                    continue
                for attr in _self_attributes_assigned(method.node.body, owner_name):
                    if attr in proto.attrs:
                        proto.attrs[attr] = TOP
        return proto

    def _run_function(self, fn: FunctionValue, params: Dict[str, Value],
                      parent: Optional[Frame] = None) -> Value:
        fnode = fn.node
        frame = Frame(dict(params), parent=parent or self.globals, function=fn)
        outer = self.frame
        branch_depth = self.branch_depth
        self.frame = frame
        self.branch_depth = 0
        # A call made on one branch only may happen or not: its effects on objects that
        # outlive it are weak updates too.
        conditional = branch_depth > 0
        if conditional and not self._conditional_calls and not self._speculative:
            self._fresh_ids = set()  # objects created by this call are its own
        self._conditional_calls += conditional
        self._call_stack.append(fnode)
        try:
            for name, value in params.items():
                self._record_param(fnode, name, value)
            ended = self.exec_body(fnode.body)
            if not ended:
                frame.returns.append(NoneValue())
        finally:
            self._call_stack.pop()
            self.frame = outer
            self.branch_depth = branch_depth
            self._conditional_calls -= conditional
        if fnode in self._generators:
            return TOP
        result: Optional[Value] = None
        for value in frame.returns:
            result = value if result is None else join(result, value)
        return result if result is not None else TOP

    def _record_param(self, fnode: Any, name: str, value: Value) -> None:
        if not self.recording:
            return
        for param in list(fnode.params.posonly_params) + list(fnode.params.params) + list(
                fnode.params.kwonly_params):
            if param.name.value == name:
                self._set(param.name, value)
                if name not in ("self", "cls"):
                    self.assignments.append(Assignment(param.name, name, value, is_parameter=True))
                return

    def iterate(self, iterable: Value) -> Value:
        """The value of one element when iterating over ``iterable``."""
        if isinstance(iterable, SequenceValue):
            return iterable.element if iterable.container != "dict" else TOP
        if isinstance(iterable, TensorValue):
            return index_first(iterable)
        if isinstance(iterable, TensorDatasetValue):
            return iterable.item
        if isinstance(iterable, DataLoaderValue):
            return batch(iterable)
        if isinstance(iterable, ModuleValue):
            return module_children_element(iterable)
        return TOP

    def _dataset_item(self, dataset: InstanceValue, node: Any) -> Value:
        """``dataset[i]`` of a dataset class defined in the file (what a DataLoader batches)."""
        getitem = dataset.cls.methods.get("__getitem__")
        if getitem is None:
            return TOP
        return self.call_function(getitem, CallArgs([ScalarValue("int")], {}, [None], {}), node,
                                  dataset, force=True)

    # ------------------------------------------------------------------ annotations

    def annotation_value(self, node: Any) -> Value:
        """The value an annotation promises: Tensor, FloatTensor, jaxtyping, torchtyping."""
        try:
            return self._annotation_value(node)
        except A.ShapeSpecError:
            return TOP

    def _annotation_value(self, node: Any) -> Value:
        recording = self.recording
        self.recording = False
        try:
            if isinstance(node, cst.SimpleString):
                # A forward reference: "Float[Tensor, 'b c']" reads like the unquoted form.
                text = node.evaluated_value
                if not isinstance(text, str) or len(text) > 200:
                    return TOP
                try:
                    parsed = cst.parse_expression(text)
                except Exception:  # noqa: BLE001 - not an expression: not an annotation we read
                    return TOP
                value = self._annotation_value(parsed)
                # Provenance points at the string in the file, not at the re-parsed copy.
                if value.origin is not None:
                    value = with_origin(value, Origin(node, value.origin.note))
                return value
            if isinstance(node, cst.Subscript):
                base = self.eval(node.value)
                if not isinstance(base, SymbolValue):
                    return TOP
                qual = base.qualname
                parts = [el.slice.value for el in node.slice if isinstance(el.slice, cst.Index)]
                if qual.startswith("jaxtyping."):
                    cls_name = qual[10:]
                    if cls_name not in A.JAXTYPING_DTYPES or len(parts) != 2:
                        return TOP
                    array_type = self.eval(parts[0])
                    if not isinstance(array_type, SymbolValue) or array_type.qualname not in (
                            "torch.Tensor",):
                        return TOP
                    spec = parts[1]
                    shape = None
                    if isinstance(spec, cst.SimpleString):
                        text = spec.evaluated_value
                        if isinstance(text, str):
                            shape, _ = A.parse_shape_string(text)
                    return TensorValue(A.JAXTYPING_DTYPES[cls_name], shape,
                                       Origin(node, f"annotated {cls_name}[Tensor, ...]"))
                if qual in ("torchtyping.TensorType", "torchtyping.tensor_type.TensorType"):
                    return self._torchtyping(node)
                if qual in ("typing.Optional",):
                    return TOP
                if qual in ("typing.Tuple", "builtins.tuple", "typing.List", "builtins.list"):
                    items = tuple(self._annotation_value(p) for p in parts)
                    if qual.endswith(("Tuple", "tuple")) and not any(
                            isinstance(p, cst.Ellipsis) for p in parts):
                        element = items[0] if items else TOP
                        for item in items[1:]:
                            element = join(element, item)
                        return SequenceValue("tuple", element, items)
                    return SequenceValue("list", items[0] if items else TOP, None)
                return TOP
            value = self.eval(node)
            if isinstance(value, SymbolValue):
                q = value.qualname
                if q == "torch.Tensor":
                    return TensorValue(None, None, Origin(node, "annotated torch.Tensor"))
                short = q.rsplit(".", 1)[-1]
                if q.startswith("torch.") and short in D.LEGACY_TENSOR_TYPES:
                    return TensorValue(frozenset({D.LEGACY_TENSOR_TYPES[short]}), None,
                                       Origin(node, f"annotated {short}"))
                if q == "builtins.int":
                    return ScalarValue("int")
                if q == "builtins.float":
                    return ScalarValue("float")
                if q == "builtins.bool":
                    return ScalarValue("bool")
            return TOP
        finally:
            self.recording = recording

    def _torchtyping(self, node: cst.Subscript) -> Value:
        """``TensorType["batch", 3, torch.float32]``: str dims are named, ints fixed (-1 any),
        ``...`` any number of dims, ``"name": size`` a named fixed size; dtypes are torch
        dtypes or ``int``/``bool``/``float`` (which torchtyping reads as the default dtype)."""
        dims: List[Any] = []
        variadic = False
        dtypes: Any = None
        for element in node.slice:
            part = element.slice
            if isinstance(part, cst.Slice):  # "name": size
                upper = part.upper
                if isinstance(upper, cst.Integer):
                    size = int(upper.value)
                    dims.append(None if size == -1 else size)
                elif isinstance(upper, cst.SimpleString) and isinstance(upper.evaluated_value, str):
                    dims.append(upper.evaluated_value)
                elif isinstance(upper, cst.Ellipsis):
                    variadic = True
                else:
                    return TOP
                continue
            value_node = part.value
            if isinstance(value_node, cst.Ellipsis):
                variadic = True
            elif isinstance(value_node, cst.SimpleString):
                name = value_node.evaluated_value
                dims.append(name if isinstance(name, str) and name.isidentifier() else None)
            elif isinstance(value_node, (cst.Integer, cst.UnaryOperation)):
                size = self.eval(value_node)
                const = size.const if isinstance(size, ScalarValue) else None
                dims.append(None if not isinstance(const, int) or const == -1 else const)
            else:
                value = self.eval(value_node)
                if isinstance(value, DTypeValue):
                    dtypes = frozenset({value.dtype})
                elif isinstance(value, SymbolValue) and value.qualname in (
                        "builtins.int", "builtins.bool", "builtins.float"):
                    py = value.qualname[9:]
                    dtypes = frozenset({self.default_float if py == "float" else
                                        {"int": INT64, "bool": BOOL}[py]})
                elif isinstance(value, SymbolValue) and value.qualname.endswith("is_float"):
                    dtypes = A.JAXTYPING_DTYPES["Float"]
                elif isinstance(value, NoneValue):
                    dims.append(None)
                else:
                    continue  # layouts and other details say nothing about dtype or shape
        shape = None if variadic or not dims else tuple(dims)
        return TensorValue(dtypes, shape, Origin(node, "annotated TensorType[...]"))

    def _name_constant(self, node: cst.Name) -> Value:
        if node.value == "True":
            return ScalarValue("bool", True)
        if node.value == "False":
            return ScalarValue("bool", False)
        if node.value == "None":
            return NoneValue()
        return self.lookup(node.value)


# ---------------------------------------------------------------------- module-level helpers

_OPERATOR_SYMBOLS = {
    "Add": "+", "Subtract": "-", "Multiply": "*", "Divide": "/", "FloorDivide": "//",
    "Modulo": "%", "Power": "**", "MatrixMultiply": "@", "BitAnd": "&", "BitOr": "|",
    "BitXor": "^", "LeftShift": "<<", "RightShift": ">>",
    "Equal": "==", "NotEqual": "!=", "LessThan": "<", "LessThanEqual": "<=",
    "GreaterThan": ">", "GreaterThanEqual": ">=", "Is": "is", "IsNot": "is not",
    "In": "in", "NotIn": "not in",
}


def _dotted_name(node: Any) -> Optional[str]:
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        head = _dotted_name(node.value)
        return None if head is None else f"{head}.{node.attr.value}"
    return None


def _target_names(target: Any) -> List[str]:
    if isinstance(target, cst.Name):
        return [target.value]
    if isinstance(target, (cst.Tuple, cst.List)):
        return [name for element in target.elements for name in _target_names(element.value)]
    return []


def _join_envs(a: Dict[str, Value], b: Dict[str, Value]) -> Dict[str, Value]:
    out = dict(a)
    # Both sides are copies of one environment, so most values are the very same objects:
    # find the names whose values differ at C speed, join only those (a Python loop over every
    # name made each `if` cost O(names): quadratic on long modules).
    names = list(b)
    for name in compress(names, map(is_not, map(a.get, names), map(b.get, names))):
        prev = a.get(name)
        value = b[name]
        out[name] = value if prev is None else join(prev, value)
    for name in a.keys() - b.keys():
        out[name] = TOP  # bound on one path only: maybe unbound on the other
    return out


def _envs_equal(a: Dict[str, Value], b: Dict[str, Value]) -> bool:
    if a.keys() != b.keys():
        return False
    for name, value in a.items():
        other = b[name]
        if value is other:
            continue
        if type(value) is not type(other):
            return False
        if isinstance(value, TensorValue):
            if (value.dtypes, value.shape, value.device) != (other.dtypes, other.shape, other.device):  # type: ignore[union-attr]
                return False
        elif value != other:
            return False
    return True


def _widen(old: Dict[str, Value], new: Dict[str, Value]) -> Dict[str, Value]:
    """Names whose value still changes after the iteration cap become TOP: loops terminate."""
    out = {}
    for name, value in new.items():
        out[name] = value if name in old and _envs_equal({name: old[name]}, {name: value}) else TOP
    return out


def _with_element(container: SequenceValue, value: Value) -> SequenceValue:
    """The container after one more element (or one element replaced) of ``value``."""
    value = _aliased(value)
    element = value if container.items == () else join(container.element, value)
    return SequenceValue(container.container, element, None, container.origin)


def _aliased(value: Value) -> Value:
    """A mutable container stored inside another one can be mutated through the alias
    (``d.setdefault(k, []).append(i)``), which the engine does not follow: forget its items."""
    if isinstance(value, SequenceValue) and value.container != "tuple" and value.items is not None:
        return SequenceValue(value.container, value.element if value.items else TOP, None, value.origin)
    return value


def _list_of(items: Tuple[Value, ...]) -> SequenceValue:
    element: Value = items[0] if items else TOP
    for item in items[1:]:
        element = join(element, item)
    return SequenceValue("list", element, tuple(items))


def _scalar_binary(left: ScalarValue, right: ScalarValue, op: str) -> Value:
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
                     "//": lambda a, b: a // b, "/": lambda a, b: a / b}.get(op, lambda a, b: None)(
                left.const, right.const)
        except (ZeroDivisionError, OverflowError):
            const = None
        if isinstance(const, int) and abs(const) > 1 << 62:
            const = None
    return ScalarValue(kind, const)


def _is_module_class(cls: ClassValue) -> bool:
    return any(b in MODULE_BASES for b in cls.bases)


def _has_decorator(fnode: Any, name: str) -> bool:
    for deco in fnode.decorators:
        d = _dotted_name(deco.decorator)
        if d is not None and (d == name or d.endswith("." + name)):
            return True
    return False


def _is_transparent(decorator: Any) -> bool:
    target = decorator.func if isinstance(decorator, cst.Call) else decorator
    d = _dotted_name(target)
    if d is None:
        return False
    return any(d == t or t.endswith("." + d) or d.endswith(t.rsplit(".", 1)[-1]) and "." in t
               for t in TRANSPARENT_DECORATORS) or d in TRANSPARENT_BARE_NAMES


def _self_attributes_assigned(body: Any, owner: str) -> List[str]:
    """Names ``X`` of ``owner.X = ...`` statements in a function body (nested blocks included,
    nested functions and classes not). A statement-level walk: far cheaper than a visitor."""
    found: List[str] = []
    stack = [body]
    while stack:
        node = stack.pop()
        if isinstance(node, (cst.IndentedBlock, cst.SimpleStatementSuite)):
            stack.extend(node.body)
        elif isinstance(node, cst.SimpleStatementLine):
            for small in node.body:
                targets: List[Any] = []
                if isinstance(small, cst.Assign):
                    targets = [t.target for t in small.targets]
                elif isinstance(small, (cst.AugAssign, cst.AnnAssign)):
                    targets = [small.target]
                while targets:
                    target = targets.pop()
                    if isinstance(target, (cst.Tuple, cst.List)):
                        targets.extend(e.value for e in target.elements)
                    elif isinstance(target, cst.Attribute) and isinstance(target.value, cst.Name) \
                            and target.value.value == owner:
                        found.append(target.attr.value)
        elif isinstance(node, (cst.If, cst.For, cst.While, cst.With, cst.Try)) or (
                hasattr(cst, "TryStar") and isinstance(node, cst.TryStar)):
            stack.append(node.body)
            orelse = getattr(node, "orelse", None)
            if orelse is not None:
                stack.append(orelse if isinstance(orelse, cst.If) else orelse.body)
            for handler in getattr(node, "handlers", ()):
                stack.append(handler.body)
            final = getattr(node, "finalbody", None)
            if final is not None:
                stack.append(final.body)
    return found


def _first_param(fnode: Any) -> Optional[str]:
    params = list(fnode.params.posonly_params) + list(fnode.params.params)
    return params[0].name.value if params else None


def _builtin(interp: Interpreter, name: str, args: CallArgs, node: Any) -> Value:
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
        return ScalarValue(name, const)
    if name == "abs" and len(args.pos) == 1:
        arg = args.pos[0]
        if isinstance(arg, TensorValue):
            return T.tensor_method(arg, "abs", CallArgs(), node, interp.tenv)
        if isinstance(arg, ScalarValue):
            pytype = {"bool": "int", "complex": "float"}.get(arg.pytype, arg.pytype)
            const = abs(arg.const) if isinstance(arg.const, (int, float, complex)) else None
            return ScalarValue(pytype, const)
        return TOP
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
        return SequenceValue("list", ScalarValue("int"), None)
    if name == "enumerate":
        element = interp.iterate(args.get(0))
        return SequenceValue("list", SequenceValue("tuple", TOP, (ScalarValue("int"), element)), None)
    if name == "zip":
        if args.has_star:
            return TOP
        items = tuple(interp.iterate(v) for v in args.pos)
        return SequenceValue("list", SequenceValue("tuple", TOP, items), None)
    if name in ("list", "tuple", "sorted", "reversed") and args.pos:
        element = interp.iterate(args.pos[0])
        return SequenceValue("list" if name != "tuple" else "tuple", element, None)
    if name == "isinstance":
        return ScalarValue("bool")
    if name == "super" and not args.pos and not args.kw:
        # super() in a method: the owner class's bases, bound to the method's first argument
        fn = interp.frame.function
        if fn is None or not isinstance(fn.owner, ClassValue):
            return TOP
        first = _first_param(fn.node)
        instance = interp.frame.vars.get(first) if first else None
        if not isinstance(instance, InstanceValue):
            return TOP
        return SuperValue(fn.owner, instance)
    return TOP


def _name_or_constant(interp: Interpreter, node: cst.Name) -> Value:
    if node.value in ("True", "False", "None"):
        return interp._name_constant(node)
    return interp.lookup(node.value)


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

_EXPRESSION_HANDLERS: Dict[type, Callable[[Interpreter, Any], Value]] = {
    cst.Name: _name_or_constant,
    cst.Integer: Interpreter._integer,
    cst.Float: Interpreter._float,
    cst.Imaginary: Interpreter._imaginary,
    cst.SimpleString: Interpreter._string,
    cst.ConcatenatedString: Interpreter._string,
    cst.FormattedString: Interpreter._string,
    cst.List: Interpreter._collection,
    cst.Tuple: Interpreter._collection,
    cst.Set: Interpreter._collection,
    cst.Dict: Interpreter._dict,
    cst.ListComp: Interpreter._comprehension,
    cst.SetComp: Interpreter._comprehension,
    cst.DictComp: Interpreter._comprehension,
    cst.GeneratorExp: Interpreter._comprehension,
    cst.Attribute: Interpreter._attribute,
    cst.Subscript: Interpreter._subscript,
    cst.BinaryOperation: Interpreter._binary,
    cst.UnaryOperation: Interpreter._unary,
    cst.Comparison: Interpreter._comparison,
    cst.BooleanOperation: Interpreter._boolean,
    cst.IfExp: Interpreter._if_exp,
    cst.Lambda: Interpreter._lambda,
    cst.NamedExpr: Interpreter._named_expr,
    cst.Await: Interpreter._await,
    cst.Yield: Interpreter._yield,
    cst.Call: Interpreter._call,
}


def analyse(module: cst.Module, listeners: Optional[Dict[type, List[Listener]]] = None,
            time_budget: float = DEFAULT_TIME_BUDGET) -> Interpreter:
    """Run the abstract interpreter over a parsed module and return it (with its facts)."""
    return Interpreter(module, listeners, time_budget).run()
