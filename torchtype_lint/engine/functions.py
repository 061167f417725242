"""Functions and classes defined in the analysed file: calling them, binding their parameters,
instantiating classes, and the standalone analysis of functions nobody calls.

A user function is analysed at each call site with its arguments' values (bounded by
MAX_CALL_DEPTH and memoised on the arguments and the heap version); one that is never
called with informative arguments is analysed once on its own, parameters known only from
annotations. Kept apart from calls.py, which resolves what a call refers to.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Dict, FrozenSet, List, Optional

import libcst as cst

from ..model.values import (
    CallArgs,
    TOP, ClassValue, FunctionValue, InstanceValue, NoneValue, Origin, ScalarValue, SequenceValue, Value, join,
    join_all,
)
from ..knowledge.autocast import AUTOCAST_CONTEXTS, autocast_dtype
from ..knowledge.named_tuples import NAMEDTUPLE_BASES, class_statement_instance
from ..knowledge.symbolic_dims import SizeSymbol
from .annotations import annotation_value
from .builtins import LITERAL_HANDLERS, name_value
from .modules import entered, home_of, running_call
from .runtime import Assignment, Frame
from .units import BEFORE_BODY, STATEMENT
from .syntax import (
    attributes_stored_from_outside, first_param, function_name, has_decorator, is_transparent,
    self_attributes_assigned,
)

if TYPE_CHECKING:
    from .interpreter import Interpreter

#: How deep call-site re-analysis of user functions may nest. Real programs reach a layer
#: through main -> a constructor -> a factory -> the layer's __init__, or main -> a model's
#: forward -> a block's forward -> its helper method: beyond this a call is not followed
#: (its instance keeps no attributes, its result is unknown).
MAX_CALL_DEPTH = 6


def instantiate(interp: "Interpreter", cls: ClassValue, args: CallArgs, node: Any) -> Value:
    """``Cls(...)`` for a class defined in the file: a new instance, built by ``__init__``."""
    if NAMEDTUPLE_BASES & set(cls.bases):  # class Out(NamedTuple): a tuple of its fields
        return class_statement_instance(cls.name, cls.fields, cls.attrs, args, node) or TOP
    instance = InstanceValue(cls, Origin(node, f"{cls.name}(...)"))
    interp._note_fresh(instance)
    init = cls.methods.get("__init__")
    if init is not None:
        call_function(interp, init, args, node, instance, force=True)
    elif cls.is_dataclass:
        _dataclass_fields(instance, args)
        post_init = cls.methods.get("__post_init__")
        if post_init is not None:
            call_function(interp, post_init, CallArgs(), node, instance, force=True)
    if interp._speculative:
        # Built in a function analysed on its own, whose callers' order is unknown: another
        # class may rebuild what this __init__ set (a decoder's _init_cache storing
        # `layer.cache = ...`) before any use, as for the class's prototype.
        for attr in _stored_from_outside(interp, cls):
            if attr in instance.attrs:
                instance.attrs[attr] = TOP
    return instance


def _dataclass_fields(instance: InstanceValue, args: CallArgs) -> None:
    """The ``__init__`` a dataclass generates: each field from its argument (by position, then
    by keyword), else its default; unknown when neither is known (``field(...)`` defaults)."""
    fields = instance.cls.fields
    for name in fields:
        instance.attrs[name] = TOP
    if args.has_star:
        return
    for name, value in zip(fields, args.pos):
        instance.attrs[name] = value
    for name in fields[len(args.pos):]:
        if name in args.kw:
            instance.attrs[name] = args.kw[name]
        elif name in instance.cls.attrs:
            instance.attrs[name] = instance.cls.attrs[name]


def call_function(interp: "Interpreter", fn: FunctionValue, args: CallArgs, node: Any,
                  self_value: Optional[Value] = None, force: bool = False) -> Value:
    """The value of calling a function defined in the file (``self_value``: the receiver of a
    method call). ``force``: analyse the body even when no argument is informative."""
    fnode = fn.node
    if any(not is_transparent(d.decorator) and not _opens_autocast(interp, d.decorator)
           for d in getattr(fnode, "decorators", ())):  # a lambda has none
        return TOP
    annotated = interp.annotated_returns.get(fnode, TOP)
    if fnode in interp._call_stack or len(interp._call_stack) >= MAX_CALL_DEPTH or args.has_star:
        return annotated
    params = bind_params(interp, fn, args, self_value)
    informative = force or _built_instance(self_value) or any(
        _informative(k, v, fnode) for k, v in params.items()
        if not (self_value is not None and k == first_param(fnode)))
    if not informative:
        defaults = _defaults(interp)  # before the body runs (it may set the default itself)
        ensure_standalone(interp, fn)
        if interp._memo.get((fnode, _STANDALONE_DEFAULTS)) == defaults:
            return annotated if annotated is not TOP else interp._memo.get((fnode, "standalone"), TOP)
        # analysed on its own under another default dtype: what it builds now differs (layers
        # made after torch.set_default_dtype(torch.float64)), so it runs here
    try:
        key = (fnode, tuple(sorted(params.items(), key=lambda kv: kv[0])), (interp.recording, interp._probing),
               interp.heap_version, tuple(interp.autocast_dtypes), _defaults(interp))
        hash(key)
    except TypeError:
        key = None
    if fnode in interp.closures:
        key = None  # a nested function reads its enclosing frame, which the key does not cover
    if key is not None and key in interp._memo and not force:
        return interp._memo[key]
    with running_call(interp, fnode, node):  # a call into another module's code: its reports are the call's
        result = run_function(interp, fn, params)
    if key is not None:
        interp._memo[key] = result
    inferred = result
    return inferred if inferred is not TOP else annotated


def _built_instance(self_value: Optional[Value]) -> bool:
    """Whether a method's receiver is an instance the file built (``Model(16, 32)``), whose
    attributes its ``__init__`` set from known arguments: ``self.init_hidden()`` then gives
    what those attributes make, not what the class's prototype (unknown arguments) makes.
    The prototype and its copies (``self`` of a method analysed on its own) are not."""
    if not isinstance(self_value, InstanceValue) or self_value.origin is None:
        return False
    return self_value.origin.node is not self_value.cls.node


#: The memo slot of the default dtype a function's standalone analysis ran under.
_STANDALONE_DEFAULTS = "standalone defaults"


def _defaults(interp: "Interpreter") -> Any:
    """The default dtype state a body's layers and factory tensors are made under: part of
    every memo key, so that what a call built before ``torch.set_default_dtype`` is not
    reused after it."""
    return interp.default_float, interp.uncertain_defaults


def _informative(name: str, value: Value, fnode: Any) -> bool:
    """Does this argument tell the body more than its standalone analysis knows? A ``*args`` or
    ``**kwargs`` bound to a known tuple or dict does only through a known item: every call of a
    ``forward(self, x, *args)`` would otherwise re-run the body for the empty tuple."""
    params = fnode.params
    variadic = {p.name.value for p in (params.star_arg, params.star_kwarg) if isinstance(p, cst.Param)}
    if name in variadic and isinstance(value, SequenceValue):
        return any(item is not TOP for item in value.items or ())
    return value is not TOP


def bind_params(interp: "Interpreter", fn: FunctionValue, args: CallArgs,
                self_value: Optional[Value], standalone: bool = False, sizes: bool = False) -> Dict[str, Value]:
    """Parameter name -> value for a call: arguments, else defaults, else annotations.
    ``standalone``: no call, so a parameter may hold anything a caller passes: only literal
    defaults are taken (as before), never the value its ``def`` computed. ``sizes``: no
    caller gave values, so an int parameter of unknown value is a symbolic size."""
    params = fn.node.params
    names: List[cst.Param] = list(params.posonly_params) + list(params.params)
    bound: Dict[str, Value] = {}
    positional = list(args.pos)
    if self_value is not None and names and not has_decorator(fn.node, "staticmethod"):
        bound[names[0].name.value] = self_value
        names = names[1:]
    for i, param in enumerate(names):
        pname = param.name.value
        if i < len(positional):
            bound[pname] = positional[i]
        elif pname in args.kw:
            bound[pname] = args.kw[pname]
        elif param.default is not None:
            bound[pname] = _default_value(interp, param, standalone)
        else:
            bound[pname] = TOP
    for param in params.kwonly_params:
        pname = param.name.value
        bound[pname] = args.kw.get(pname, _default_value(interp, param, standalone)
                                   if param.default is not None else TOP)
    for param in (params.star_arg, params.star_kwarg):
        if isinstance(param, cst.Param):
            bound[param.name.value] = TOP
    if not (standalone or sizes or args.has_star):
        _bind_variadic(params, names, args, bound)  # a call's own arguments: known one by one
    # An argument of unknown value still gets the parameter's annotation.
    for param in list(params.posonly_params) + list(params.params) + list(params.kwonly_params):
        pname = param.name.value
        if bound.get(pname) is TOP and param.annotation is not None:
            bound[pname] = annotation_value(interp, param.annotation.annotation)
    if sizes:
        _unknown_ints_as_sizes(interp, fn, bound)
    return bound


def _bind_variadic(params: Any, names: List[cst.Param], args: CallArgs, bound: Dict[str, Value]) -> None:
    """``def pipeline(*steps)`` called as ``pipeline(f, g)``: ``steps`` is the tuple ``(f, g)``;
    ``def build(**cfg)`` called as ``build(width=4)``: ``cfg`` is the dict of the extra keywords."""
    if isinstance(params.star_arg, cst.Param):
        extra = tuple(args.pos[len(names):])
        bound[params.star_arg.name.value] = SequenceValue("tuple", join_all(extra) if extra else TOP, extra)
    if isinstance(params.star_kwarg, cst.Param):
        taken = {p.name.value for p in list(names) + list(params.kwonly_params)}
        keys = tuple(k for k in args.kw if k not in taken)
        items = tuple(args.kw[k] for k in keys)
        bound[params.star_kwarg.name.value] = SequenceValue("dict", join_all(items) if items else TOP, items,
                                                            None, keys)


def _unknown_ints_as_sizes(interp: "Interpreter", fn: FunctionValue, bound: Dict[str, Value]) -> None:
    """In an analysis no caller gave values to, an ``int`` parameter of unknown value
    (``d_in: int``, or ``n=DIM``) is one fixed size throughout: a symbol named after it,
    which the shapes made from it carry (``torch.randn(d_out, d_in)``). ``__init__``'s belong
    to the instance, so the class's other methods share them through ``self``."""
    init = isinstance(fn.owner, ClassValue) and function_name(fn.node) == "__init__"
    params = fn.node.params
    for param in list(params.posonly_params) + list(params.params) + list(params.kwonly_params):
        pname = param.name.value
        value = bound.get(pname)
        if value is TOP and param.default is not None:
            value = interp.param_defaults.get(param, TOP)  # `n=DIM`: an int, whatever a caller passes
            if isinstance(value, ScalarValue):
                value = ScalarValue(value.pytype, None, value.origin)
        if isinstance(value, ScalarValue) and value.pytype == "int" and value.const is None and value.size is None:
            symbol = SizeSymbol(pname, fn.node, fn.owner.node if init else None)  # type: ignore[union-attr]
            bound[pname] = ScalarValue("int", None, value.origin, symbol)


def _default_value(interp: "Interpreter", param: cst.Param, standalone: bool = False) -> Value:
    if not standalone and param in interp.param_defaults:
        return interp.param_defaults[param]  # evaluated when the def ran
    default = param.default
    if isinstance(default, (cst.Integer, cst.Float, cst.SimpleString)):
        return LITERAL_HANDLERS[type(default)](interp, default)
    if isinstance(default, cst.Name) and default.value in ("True", "False", "None"):
        return name_value(interp, default)
    return TOP


def ensure_standalone(interp: "Interpreter", fn: FunctionValue) -> None:
    """Analyse ``fn`` on its own now, unless that was done already."""
    if fn.node not in interp._analysed_standalone:
        interp._analysed_standalone.add(fn.node)
        analyse_standalone(interp, fn, home_of(interp, fn.node).frame)


def analyse_standalone(interp: "Interpreter", fn: FunctionValue, frame: Frame) -> None:
    """Analyse ``fn`` with parameters known only from annotations (``self`` from the class's
    prototype); its result is memoised for uninformative calls."""
    interp.standalone_units.setdefault(fn.node, interp.unit)
    self_value: Optional[Value] = None
    if isinstance(fn.owner, ClassValue) and not has_decorator(fn.node, "staticmethod"):
        # A copy: what one method does to ``self`` on its own must not leak into another
        # method's standalone analysis (their call order is unknown).
        proto = prototype(interp, fn.owner)
        self_value = InstanceValue(proto.cls, proto.origin)
        interp._note_fresh(self_value)  # a private copy: its own attributes update strongly
        self_value.attrs.update(proto.attrs)
        self_value.cast_attrs.update(proto.cast_attrs)
    outer = interp.frame
    interp.frame = frame
    try:
        params = bind_params(interp, fn, CallArgs(), self_value, standalone=True, sizes=True)
    finally:
        interp.frame = outer
    defaults = _defaults(interp)
    result = run_function(interp, fn, params, frame)
    interp._memo[(fn.node, "standalone")] = result
    interp._memo[(fn.node, _STANDALONE_DEFAULTS)] = defaults


def prototype(interp: "Interpreter", cls: ClassValue) -> InstanceValue:
    """The instance ``self`` stands for when a method is analysed on its own:
    attributes come from analysing ``__init__`` with unknown arguments, under the default
    dtype of now (an instance built after ``torch.set_default_dtype`` has layers of it)."""
    proto = interp._prototypes.get((cls.node, _defaults(interp)))
    if proto is None:
        proto = InstanceValue(cls, Origin(cls.node, f"self ({cls.name})"))
        interp._prototypes[(cls.node, _defaults(interp))] = proto
        init = cls.methods.get("__init__")
        if init is not None and init.node not in interp._call_stack:
            recording = interp.recording
            interp.recording = False
            try:
                params = bind_params(interp, init, CallArgs(), proto, sizes=True)
                run_function(interp, init, params)
            finally:
                interp.recording = recording
        # Another method may reassign an attribute before this one runs (a reset(), a
        # setup()): on its own, a method can only trust attributes no other method sets.
        for name, method in cls.methods.items():
            if name == "__init__" or has_decorator(method.node, "staticmethod"):
                continue
            owner_name = first_param(method.node)
            if owner_name is None:
                continue
            imported = home_of(interp, method.node) is not interp.main_home  # a tree analyses share
            for attr in self_attributes_assigned(method.node.body, owner_name, keep=imported):
                if attr in proto.attrs:
                    proto.attrs[attr] = TOP
        # Code of another class or function may rebuild it too (`layer.cache = (True, {...})`
        # in a decoder's _init_cache): such attributes are no more trusted than those.
        for attr in _stored_from_outside(interp, cls):
            if attr in proto.attrs:
                proto.attrs[attr] = TOP
    return proto


def _stored_from_outside(interp: "Interpreter", cls: ClassValue) -> FrozenSet[str]:
    """Attribute names stored on objects other than a method's self, in the module defining
    ``cls`` or in the analysed file."""
    modules = {home_of(interp, method.node).module for method in cls.methods.values()}
    modules.add(interp.main_home.module)
    names: FrozenSet[str] = frozenset()
    for module in modules:
        stored = interp.outside_stores.get(module)
        if stored is None:
            stored = interp.outside_stores[module] = attributes_stored_from_outside(module)
        names |= stored
    return names


def run_function(interp: "Interpreter", fn: FunctionValue, params: Dict[str, Value],
                 parent: Optional[Frame] = None) -> Value:
    """Execute ``fn``'s body in a new frame, in the module that defined it; the join of what
    it returns."""
    home = home_of(interp, fn.node)
    if home is interp.home:
        return _run_body(interp, fn, params, parent)
    with entered(interp, home):  # a function of an imported project module, or called back from one
        return _run_body(interp, fn, params, parent)


def _opens_autocast(interp: "Interpreter", decorator: Any) -> bool:
    """``@torch.autocast("cpu", dtype=torch.bfloat16)``: a decorator that runs the body in an
    autocast region (``autocast_regions``), which the analysis follows."""
    return isinstance(decorator, cst.Call) and interp._callee_name(decorator) in AUTOCAST_CONTEXTS


def autocast_regions(interp: "Interpreter", fnode: Any) -> List[Optional[str]]:
    """The dtypes of the autocast regions a function's decorators open around its body, outermost
    first (None: a region whose dtype is not known)."""
    return [autocast_dtype(interp._callee_name(d.decorator), interp._callees.get(d.decorator))
            for d in getattr(fnode, "decorators", ()) if _opens_autocast(interp, d.decorator)]


def _run_body(interp: "Interpreter", fn: FunctionValue, params: Dict[str, Value],
              parent: Optional[Frame]) -> Value:
    fnode = fn.node
    # a nested function sees the names of the function it was defined in (a closure)
    frame = Frame(dict(params), parent=parent or interp.closure_frames.get(fn) or interp.closures.get(fnode)
                  or interp.globals, function=fn)
    outer = interp.frame
    branch_depth = interp.branch_depth
    interp.frame = frame
    interp.branch_depth = 0
    # A call made on one branch only may happen or not: its effects on objects that
    # outlive it are weak updates too.
    conditional = branch_depth > 0
    if conditional and not interp._conditional_calls and not interp._speculative:
        interp._fresh_ids = set()  # objects created by this call are its own
    interp._conditional_calls += conditional
    interp._call_stack.append(fnode)
    regions = autocast_regions(interp, fnode)  # @torch.autocast(...): the body runs in the region
    interp.autocast_dtypes.extend(regions)
    interp.autocast_depth += len(regions)
    try:
        for name, value in params.items():
            _record_param(interp, fnode, name, value)
        if isinstance(fnode, cst.Lambda):
            frame.returns.append(interp.eval(fnode.body))  # its body is the returned expression
            ended = True
        elif fnode is interp.entry_function and len(interp._call_stack) == 1 \
                and interp.unit.kind == STATEMENT and interp.unit.sub == BEFORE_BODY:
            # The entry function called from its one top-level statement: its body statements
            # are units of their own (engine/units.py).
            ended = interp.exec_entry_body(fnode.body.body)
        else:
            ended = interp.exec_body(fnode.body)
        if not ended:
            frame.returns.append(NoneValue())
    finally:
        if regions:
            del interp.autocast_dtypes[-len(regions):]
            interp.autocast_depth -= len(regions)
        interp._call_stack.pop()
        interp.frame = outer
        interp.branch_depth = branch_depth
        interp._conditional_calls -= conditional
    if fnode in interp._generators:
        # a generator: iterating it gives what any of its yields gives
        return SequenceValue("list", join_all(frame.yields), None) if frame.yields else TOP
    result: Optional[Value] = None
    for value in frame.returns:
        result = value if result is None else join(result, value)
    return result if result is not None else TOP


def _record_param(interp: "Interpreter", fnode: Any, name: str, value: Value) -> None:
    if not interp.recording:
        return
    for param in list(fnode.params.posonly_params) + list(fnode.params.params) + list(
            fnode.params.kwonly_params):
        if param.name.value == name:
            interp._set(param.name, value)
            if name not in ("self", "cls"):
                interp.assignments.append(Assignment(param.name, name, value, is_parameter=True))
            return
