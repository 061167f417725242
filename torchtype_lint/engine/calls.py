"""Calls: what ``f(...)`` refers to and what it gives, and attribute access (which may call a
property). Library calls go to ``knowledge/`` by qualified name, methods by receiver type,
user functions and classes to functions.py. The mutations a call makes through its receiver
(``xs.append(t)``, ``x.unsqueeze_(0)``, ``model.double()``, ``self.register_buffer(...)``)
are applied here too, to every binding that holds the mutated object.

``eval_call`` is the one place that records each call's ``Callee`` (what rules get from
``ev.callee(node)``).
"""
from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any, Optional, Tuple

import libcst as cst

from ..knowledge import dtypes as D
from ..knowledge import nn_modules as NN
from ..knowledge import numpy_api as NP
from ..knowledge import torch_api as T
from ..knowledge.autocast import under_autocast
from ..knowledge.devices import device_origin, moved
from ..knowledge.dtype_info import dtype_info
from ..knowledge.data_pipeline import (
    CONCAT_DATASET_NAMES, DATALOADER_NAMES, PROGRESS_BARS, RANDOM_SPLIT_NAMES, SUBSET_NAMES,
    TENSOR_DATASET_NAMES, DataLoaderValue, SubsetValue, TensorDatasetValue, concat_dataset, dataloader, dataset_size,
    progress_bar, random_split, subset, tensor_dataset,
)
from ..knowledge.defaults import (
    DEFAULT_DEVICE_SETTERS, SET_DEFAULT_DTYPE, forget_default_device, set_default_dtype,
)
from ..knowledge.functional import FUNCTIONAL_PREFIX, PARAMETER_CLASSES, functional, parameter
from ..knowledge.module_dtypes import (
    CAST_METHODS as MODULE_CAST_METHODS, CAST_REGISTRATIONS, MODULE_BASES, MUTATING_METHODS,
    REGISTER_METHODS, SELF_RETURNING_METHODS, construct_module, module_attribute,
    parameter_dtypes, parameter_origin, set_module_dtype,
)
from ..knowledge.module_dtypes import parameter_replaced as module_parameter_replaced
from ..knowledge import vision_transforms as VT
from ..knowledge.sklearn_api import PREFIX as SKLEARN_PREFIX, call_sklearn_function
from ..knowledge.layouts import attribute_result, call_result
from ..knowledge.module_state import entries_view, state_dict_of, state_entries
from ..knowledge.named_tuples import NAMEDTUPLE_FACTORIES, NamedTupleClass, named_field, namedtuple_class
from ..knowledge.named_tuples import instance as namedtuple_instance
from ..knowledge.training_mode import CONSTRUCTED, MODE_METHODS, TRAINING, may_change_mode, mode_set_by, set_training
from ..knowledge.python_math import FLOAT_CONSTANTS as MATH_FLOAT_CONSTANTS
from ..knowledge.vision_transforms import TransformValue
from ..knowledge.python_math import FLOAT_FUNCTIONS as MATH_FLOAT_FUNCTIONS
from ..knowledge.python_math import INT_FUNCTIONS as MATH_INT_FUNCTIONS, int_function as math_int_function
from ..knowledge.python_random import random_call
from ..knowledge.torch_objects import (
    SHAPE_CHANGING_IN_PLACE, library_object, moves_to_cuda, return_types_field,
    returned_through_out, shape_changing_in_place,
)
from ..model.values import (
    CallArgs, Callee,
    TOP, ArrayValue, ClassValue, DeviceValue, DTypeValue, FunctionValue, InstanceValue,
    ModuleValue, NoneValue, Origin, ScalarValue, SequenceValue, StringValue, SymbolValue,
    TensorValue, Value, join, join_all,
)
from .builtins import aliased, appended, call_builtin, iterate, with_element
from .configuration import (
    NAMESPACE_CLASSES, PARSER_CLASSES, ParserValue, namespace_of, new_parser, note_read, parser_method,
)
from .copying import deep_copied
from .dynamic_attributes import dict_owner, update_dict
from .functions import call_function, instantiate
from .modules import ModuleNamespace, namespace_attribute
from .runtime import Assignment, BoundMethod, Frame, PartialValue, SuperValue
from .syntax import first_param, function_name, has_decorator, self_attributes_assigned

if TYPE_CHECKING:
    from .interpreter import Interpreter


def eval_call(interp: "Interpreter", node: cst.Call) -> Value:
    """Evaluate ``node``: the callee, the arguments, then the call, by what the callee is."""
    func = node.func
    receiver: Value = TOP
    # asked once: a failed isinstance against a libcst class runs ABCMeta's Python-level check
    attribute_call = isinstance(func, cst.Attribute)
    if attribute_call:
        receiver = interp.eval(func.value)
        callee_value = get_attribute(interp, receiver, func.attr.value, func)
        interp._set(func, callee_value)
    else:
        callee_value = interp.eval(func)
    args = eval_args(interp, node)
    while isinstance(callee_value, PartialValue):
        # partial(nn.LayerNorm, eps=1e-6)(dim): the function with the stored arguments first
        args = callee_value.completed(args)
        callee_value = callee_value.func
    if attribute_call and func.attr.value in MODE_METHODS and receiver is TOP:
        interp.training_unknown = True  # m.eval() of a module the engine does not know
    if attribute_call and func.attr.value == "update" and len(args.pos) == 1 and not args.kw:
        owner = dict_owner(interp, func.value)
        if owner is not None:  # self.__dict__.update(kwargs) stores attributes by name
            update_dict(interp, owner, args.pos[0])
    callee = Callee("unknown", args=args)
    result: Value = TOP
    if attribute_call and isinstance(receiver, SuperValue) and func.attr.value == "__init__" \
            and callee_value is TOP:
        _library_init(interp, receiver, args, node)  # class FocalLoss(nn.CrossEntropyLoss): its layer
    if attribute_call and isinstance(receiver, (TensorValue, ArrayValue, ModuleValue)):
        callee = Callee("method", func.attr.value, receiver, args)
        result = call_method(interp, receiver, func.attr.value, args, node)
        if isinstance(receiver, TensorValue) and func.attr.value in SHAPE_CHANGING_IN_PLACE:
            # x.unsqueeze_(0) changes x itself
            replace_tensor(interp, func.value, receiver, result)
        elif isinstance(receiver, ArrayValue) and func.attr.value == "resize" and not args.has_star:
            # data.resize((n, 1)) reshapes data itself (ndarray.resize returns None)
            replace_array(interp, func.value, receiver, NP.resized_in_place(receiver, args))
    elif attribute_call and isinstance(receiver, ParserValue):
        callee = Callee("method", func.attr.value, receiver, args)
        result = parser_method(receiver, func.attr.value, args, node)
    elif attribute_call and isinstance(receiver, SequenceValue):
        callee = Callee("method", func.attr.value, receiver, args)
        result = sequence_method(interp, func.value, receiver, func.attr.value, args)
    elif attribute_call and isinstance(receiver, InstanceValue) and \
            callee_value is TOP and _is_module_class(receiver.cls):
        callee = Callee("method", func.attr.value, receiver, args)
        result = module_instance_method(interp, receiver, func.attr.value, args, node)
    elif isinstance(callee_value, SymbolValue):
        callee = Callee("symbol", callee_value.qualname, receiver, args)
        result = call_symbol(interp, callee_value.qualname, args, node)
        if interp.default_device_unknown:
            result = forget_default_device(callee_value.qualname, args, result)
    elif isinstance(callee_value, DTypeValue):
        callee = Callee("symbol", "torch." + callee_value.dtype, receiver, args)
    elif isinstance(callee_value, ModuleValue):
        callee = Callee("module", callee_value.qualname, callee_value, args)
        result = call_library_module(interp, callee_value, args, node)
    elif isinstance(callee_value, FunctionValue):
        callee = Callee("user", function_name(callee_value.node), TOP, args)
        result = call_function(interp, callee_value, args, node)
    elif isinstance(callee_value, BoundMethod):
        callee = Callee("user", function_name(callee_value.function.node), callee_value.instance, args)
        result = call_function(interp, callee_value.function, args, node, callee_value.instance)
    elif isinstance(callee_value, ClassValue):
        callee = Callee("user", callee_value.name, TOP, args)
        result = instantiate(interp, callee_value, args, node)
        if isinstance(result, InstanceValue) and "__init__" not in callee_value.methods:
            # class Head(nn.Linear): pass -- the layer's own __init__ takes the arguments
            _library_init(interp, SuperValue(callee_value, result), args, node)
    elif isinstance(callee_value, NamedTupleClass):
        callee = Callee("user", callee_value.name, TOP, args)
        result = namedtuple_instance(callee_value, args, node) or TOP
    elif isinstance(callee_value, TransformValue):
        # transform(img): a torchvision pipeline, its own steps run here
        if len(args.pos) == 1 and not args.kw and not args.has_star:
            result = VT.apply(callee_value, args.pos[0], node, interp.default_float,
                              lambda step, x: _run_step(interp, step, x, node))
    elif isinstance(callee_value, InstanceValue):
        forward = callee_value.cls.methods.get("forward") or callee_value.cls.methods.get("__call__")
        callee = Callee("module" if forward else "unknown", callee_value.cls.name, callee_value, args)
        part = callee_value.attrs.get(LIBRARY_PART)
        if forward is not None:
            result = call_function(interp, forward, args, node, callee_value)
        elif isinstance(part, ModuleValue):
            # a subclass of an nn layer that keeps the layer's forward: the layer runs
            callee = Callee("module", part.qualname, part, args)
            result = call_library_module(interp, part, args, node)
    result = call_result(callee, result, node)  # its strides, where torch's rule for them is known
    if interp.autocast_dtypes:
        result = under_autocast(callee, result, node, interp.autocast_dtypes[-1])
    callee.result = result
    # The one place a call's Callee is recorded: what rules read through ev.callee(node).
    interp._callees[node] = callee
    if callee.kind == "symbol":
        # callee.result keeps the computed result, which rules compare with ``out=``.
        out = returned_through_out(callee.name, args)
        if out is not None:
            return out
    return result


def _holds_own_modules(module: ModuleValue) -> bool:
    """An ``nn.Sequential`` with one of the file's own modules among its layers, nested
    Sequentials included (``Sequential(body(), head())`` of factories that build them)."""
    return module.short_name == "Sequential" and any(
        isinstance(c, InstanceValue) or isinstance(c, ModuleValue) and _holds_own_modules(c)
        for c in module.children)


def call_library_module(interp: "Interpreter", module: ModuleValue, args: CallArgs, node: Any) -> Value:
    """``module(x)`` of an ``nn`` module; an ``nn.Sequential`` holding the file's own modules
    runs each of them in turn (their ``forward`` is analysed with what the previous gives)."""
    region = interp.autocast_dtypes[-1] if interp.autocast_dtypes else None
    if not _holds_own_modules(module) and not (interp.autocast_dtypes and module.short_name == "Sequential"):
        return NN.call_module(module, args, node)
    if args.has_star or args.kw or len(args.pos) != 1:
        return TOP
    value = args.pos[0]
    for child in module.children:
        if isinstance(child, ModuleValue):
            step = CallArgs([value], {}, [None], {})
            value = call_library_module(interp, child, step, node)
            if interp.autocast_dtypes:  # under autocast each layer runs as autocast runs it
                value = under_autocast(Callee("module", child.qualname, child, step), value, node, region)
        elif isinstance(child, InstanceValue) and "forward" in child.cls.methods:
            value = call_function(interp, child.cls.methods["forward"], CallArgs([value], {}, [None], {}),
                                  node, child)
        elif isinstance(child, InstanceValue) and isinstance(child.attrs.get(LIBRARY_PART), ModuleValue):
            # a subclass of a layer (or a plain nn.Sequential subclass) without a forward: its layer runs
            value = call_library_module(interp, child.attrs[LIBRARY_PART], CallArgs([value], {}, [None], {}), node)
        else:
            return TOP
        if value is TOP:
            return TOP
    return value


def eval_args(interp: "Interpreter", node: cst.Call) -> CallArgs:
    args = CallArgs()
    for arg in node.args:
        value = interp.eval(arg.value)
        if arg.star == "**" and _known_keys(value) and not set(value.keys) & args.kw.keys():  # type: ignore[union-attr]
            # Model(**cfg["model"]) of a config dict whose keys are all known: keyword arguments
            for key, item in zip(value.keys, value.items):  # type: ignore[union-attr]
                args.kw[key] = item
                args.kw_nodes[key] = arg.value
        elif arg.star == "*" and _known_items(value) and not args.kw:
            # f(*read_csv()) of a tuple or list whose items are all known: positional arguments
            args.pos.extend(value.items)  # type: ignore[union-attr]
            args.pos_nodes.extend([None] * len(value.items))  # type: ignore[union-attr,arg-type]
        elif arg.star:
            args.has_star = True
            if arg.star == "*" and len(node.args) == 1:
                args.star = value
        elif arg.keyword is not None:
            args.kw[arg.keyword.value] = value
            args.kw_nodes[arg.keyword.value] = arg.value
        else:
            args.pos.append(value)
            args.pos_nodes.append(arg.value)
    return args


def _known_items(value: Value) -> bool:
    """A tuple or list of a known number of items, a few (``*args`` spreads them one by one)."""
    return isinstance(value, SequenceValue) and value.container in ("tuple", "list") and value.items is not None \
        and len(value.items) <= 16


def _known_keys(value: Value) -> bool:
    """A dict whose every key is a known string (each one a valid keyword)."""
    return isinstance(value, SequenceValue) and value.container == "dict" and value.keys is not None \
        and value.items is not None and all(key.isidentifier() for key in value.keys)


#: ``math.inf``, ``np.inf``, ``np.nan``: their values.
_NON_FINITE = {"math.inf": math.inf, "numpy.inf": math.inf, "math.nan": math.nan, "numpy.nan": math.nan}


def get_attribute(interp: "Interpreter", owner: Value, attr: str, node: Any) -> Value:
    """``owner.attr``; a property of a class defined in the file is called."""
    if isinstance(owner, SymbolValue):
        qualname = f"{owner.qualname}.{attr}"
        if qualname in MATH_FLOAT_CONSTANTS or qualname in NP.FLOAT_CONSTANTS:
            # infinity and NaN are known: a fill or bound of an integer tensor cannot be either
            return ScalarValue("float", _NON_FINITE.get(qualname))
        return library_object(qualname)
    if isinstance(owner, TensorValue):
        return attribute_result(owner, attr, T.tensor_attribute(owner, attr, node), node)
    if isinstance(owner, ArrayValue):
        return NP.ndarray_attribute(owner, attr)
    if isinstance(owner, InstanceValue):
        if attr == TRAINING and (attr in owner.attrs or _is_module_class(owner.cls)):
            # a module's mode: True from construction on, until .eval() / .train(False)
            return TOP if interp.training_unknown else owner.attrs.get(attr, CONSTRUCTED)
        if attr in owner.attrs:
            return note_read(interp, owner.attrs[attr])  # `args.img_size`: its default is an assumption
        method = owner.cls.methods.get(attr)
        if method is not None:
            if has_decorator(method.node, "property"):
                return call_function(interp, method, CallArgs(), node, owner)
            if has_decorator(method.node, "staticmethod"):
                return method
            if has_decorator(method.node, "classmethod"):
                return BoundMethod(method, owner.cls)
            return BoundMethod(method, owner)
        if attr in owner.cls.attrs and attr not in assigned_attributes(owner.cls):
            return owner.cls.attrs[attr]  # a class attribute no method rebinds on the instance
        part = owner.attrs.get(LIBRARY_PART)
        if isinstance(part, ModuleValue):
            return get_attribute(interp, part, attr, node)  # self.weight of a subclass of nn.Conv2d
        return TOP
    if isinstance(owner, ClassValue):
        if attr == "apply" and "forward" in owner.methods and "apply" not in owner.methods \
                and any(base in AUTOGRAD_FUNCTIONS for base in owner.bases):
            # MyFunction.apply(x, alpha) of a torch.autograd.Function runs its forward (after a
            # ctx it gets from torch, unless a setup_context takes that)
            forward = owner.methods["forward"]
            return forward if "setup_context" in owner.methods else PartialValue(forward, CallArgs([TOP], {}, [None], {}))
        method = owner.methods.get(attr)
        if method is not None:
            # Cls.create(...) of a classmethod binds the class; a static or plain function is
            # called as written (Cls.method(instance, ...) passes self explicitly)
            return BoundMethod(method, owner) if has_decorator(method.node, "classmethod") else method
        if attr == "__name__" and attr not in owner.attrs and isinstance(owner.node, cst.ClassDef):
            return StringValue(owner.node.name.value)  # the name its class statement gives it
        return owner.attrs.get(attr, TOP)
    if isinstance(owner, ModuleValue):
        # what the code stored on the layer, else what the layer's class gives
        return owner.stored[attr] if attr in owner.stored else module_attribute(owner, attr, node)
    if isinstance(owner, ModuleNamespace):  # a project module: ``data.make_batch``
        return namespace_attribute(interp, owner, attr)
    if isinstance(owner, SequenceValue):
        field = return_types_field(owner, attr)  # torch.return_types: (values, indices)
        if field is None:
            field = named_field(owner, attr)  # out.logits of a namedtuple
        return field if field is not None else TOP
    if isinstance(owner, SuperValue):
        for base in owner.owner.base_classes:
            method = base.methods.get(attr)
            if method is not None:
                return BoundMethod(method, owner.instance)
        part = owner.instance.attrs.get(LIBRARY_PART)
        if isinstance(part, ModuleValue) and attr != "__init__":
            # super().forward(x) of a subclass of an nn layer: the layer itself is called
            return part if attr == "forward" else get_attribute(interp, part, attr, node)
        return TOP
    return TOP


#: Where an instance of a class of the file that extends an nn layer (``class
#: FocalLoss(nn.CrossEntropyLoss)``) keeps that layer, made by its ``super().__init__(...)``:
#: no name Python code can write. Its parameters are the instance's (casts reach them).
LIBRARY_PART = "super()"


def library_base(cls: ClassValue) -> Optional[str]:
    """The ``torch.nn`` layer class ``cls`` extends (not ``nn.Module`` or a container, except an
    ``nn.Sequential`` whose layers its ``super().__init__(...)`` gives: ``_plain_sequential``)."""
    for base in cls.bases:
        name = base[9:] if base.startswith("torch.nn.") and base.count(".") == 2 else None
        if name is not None and name in NN.KNOWN and (name not in NN.CONTAINERS or (
                name == "Sequential" and _plain_sequential(cls))):
            return base
    return None


#: Methods that add layers to an nn.Sequential after it is built.
_LAYER_ADDING = frozenset({"add_module", "register_module", "append", "extend", "insert"})


def _plain_sequential(cls: ClassValue) -> bool:
    """``class conv_block(nn.Sequential)`` whose layers are exactly those ``super().__init__``
    gets: no ``forward`` of its own, no attribute set on ``self`` (a module attribute would
    become a layer) and no layer added by a method call on ``self``. Found once per class."""
    if cls.plain_sequential is None:
        cls.plain_sequential = _layers_only_from_init(cls)
    return cls.plain_sequential


def _layers_only_from_init(cls: ClassValue) -> bool:
    if "forward" in cls.methods or assigned_attributes(cls):
        return False
    for method in cls.methods.values():
        owner = first_param(method.node)
        stack = [method.node]
        while stack:
            sub = stack.pop()
            if isinstance(sub, cst.Call) and isinstance(sub.func, cst.Attribute) \
                    and sub.func.attr.value in _LAYER_ADDING and isinstance(sub.func.value, cst.Name) \
                    and sub.func.value.value == owner:
                return False
            stack.extend(sub.children)
    return True


def _library_init(interp: "Interpreter", sup: SuperValue, args: CallArgs, node: Any) -> None:
    """``super().__init__(...)`` in a class extending an nn layer: the layer it builds."""
    base = library_base(sup.owner)
    if base is None or args.has_star:
        return
    part = call_symbol(interp, base, args, node)
    if isinstance(part, ModuleValue):
        sup.instance.attrs[LIBRARY_PART] = part
        interp.heap_version += 1


def assigned_attributes(cls: ClassValue) -> frozenset:
    """The names any method of ``cls`` assigns on its first parameter (``self.best = ...``):
    for those, the class attribute of that name is only the value before the assignment."""
    if cls.assigned is None:
        names = set()
        for method in cls.methods.values():
            owner = first_param(method.node)
            if owner is not None:
                names.update(self_attributes_assigned(method.node.body, owner))
        cls.assigned = frozenset(names)
    return cls.assigned


def _is_module_class(cls: ClassValue) -> bool:
    return any(b in MODULE_BASES for b in cls.bases) or library_base(cls) is not None


def call_symbol(interp: "Interpreter", qualname: str, args: CallArgs, node: Any) -> Value:
    """A library function or class by qualified name; the order of the tests matters (the
    specific ``torch.nn.*`` names before the generic ``torch.*`` table)."""
    if qualname in PARSER_CLASSES:
        return new_parser(node)
    if qualname in NAMEDTUPLE_FACTORIES:
        return namedtuple_class(args, node) or TOP
    transform = VT.transform_name(qualname)
    if transform is not None:
        return VT.construct(transform, args, node)
    if qualname in NAMESPACE_CLASSES:
        return namespace_of(args, node, qualname)
    if qualname in ("torch.finfo", "torch.iinfo"):
        return dtype_info(qualname, args, node, interp.default_float)  # torch.finfo(x.dtype).min
    if qualname == "builtins.getattr" and 2 <= len(args.pos) <= 3 and not args.kw and not args.has_star:
        return _named_attribute(interp, args, node)
    if qualname in DEFAULT_DEVICE_SETTERS:
        interp.default_device_unknown = True
        return NoneValue()
    if qualname in MATH_FLOAT_FUNCTIONS:
        return ScalarValue("float")
    if qualname in MATH_INT_FUNCTIONS:
        return math_int_function(qualname, args)
    if qualname.startswith("random."):
        drawn = random_call(qualname)  # random.Random(seed), rnd.random(): Python floats and ints
        if drawn is not None:
            return drawn
    if qualname == "copy.deepcopy" and len(args.pos) == 1 and not args.kw and not args.has_star:
        return deep_copied(args.pos[0], interp._note_fresh)
    if qualname.startswith(FUNCTIONAL_PREFIX):
        return functional(qualname[len(FUNCTIONAL_PREFIX):], args, node, interp.tenv)
    if qualname in PARAMETER_CLASSES:
        return parameter(args, node)
    if qualname in NN.FROM_PRETRAINED:
        return interp._note_fresh(NN.from_pretrained(NN.FROM_PRETRAINED[qualname], args, node))
    if qualname.startswith("torch.nn.") and qualname.count(".") == 2:
        return interp._note_fresh(construct_module(qualname[9:], args, node, interp.default_float,
                                                   interp.uncertain_defaults))
    if qualname == SET_DEFAULT_DTYPE:
        # Only a call that certainly runs, in program order, changes the default: at module
        # level or in a function called from there, not on a branch, not speculatively.
        certain = not interp.branch_depth and not interp._conditional_calls and not interp._speculative
        interp.default_float, interp.uncertain_defaults = set_default_dtype(
            args.get(0), certain, interp.default_float, interp.uncertain_defaults)
        interp.tenv.default_float = interp.default_float
        return NoneValue()
    if qualname in TENSOR_DATASET_NAMES:
        return tensor_dataset(args, node)
    if qualname in PROGRESS_BARS:
        return progress_bar(args)
    if qualname in SUBSET_NAMES:
        return subset(args, node)
    if qualname in RANDOM_SPLIT_NAMES:
        return random_split(args, node, lambda dataset: _dataset_length(interp, dataset, node))
    if qualname in CONCAT_DATASET_NAMES:
        return concat_dataset(args, node, lambda dataset: _dataset_length(interp, dataset, node))
    if qualname == "builtins.len" and len(args.pos) == 1 and not args.kw and not args.has_star \
            and isinstance(args.pos[0], (InstanceValue, TensorDatasetValue, SubsetValue)):
        return _length(interp, args.pos[0], node)
    if qualname == "builtins.len" and len(args.pos) == 1 and not args.kw and not args.has_star \
            and isinstance(args.pos[0], DataLoaderValue) and args.pos[0].last_batch is not None:
        return ScalarValue("int", args.pos[0].last_batch.batches)  # the batches it yields, the last one kept
    if qualname == "functools.partial":
        if not args.pos or args.has_star or args.pos[0] is TOP:
            return TOP
        return PartialValue(args.pos[0], CallArgs(list(args.pos[1:]), dict(args.kw), list(args.pos_nodes[1:]),
                                                  dict(args.kw_nodes)))
    if qualname in DATALOADER_NAMES:
        return dataloader(args, node, lambda dataset: _dataset_item(interp, dataset, node),
                          lambda fn, items: _collate_with(interp, fn, items, node),
                          lambda dataset: _dataset_length(interp, dataset, node))
    if qualname in ("torch.device",):
        device = T.device_of_arg(args.get(0))
        return DeviceValue(device, device_origin(device))  # a device picked at run time says where
    if qualname.startswith("torch."):
        return T.call_torch_function(qualname[6:], args, node, interp.tenv)
    if qualname.startswith("numpy."):
        return NP.call_numpy_function(qualname[6:], args, node)
    if qualname.startswith("builtins."):
        return call_builtin(interp, qualname[9:], args, node)
    if qualname.startswith(SKLEARN_PREFIX):
        return call_sklearn_function(qualname, args, node)
    return TOP


def _run_step(interp: "Interpreter", step: Value, x: Value, node: Any) -> Value:
    """One step of a pipeline that is not a torchvision transform: a function of the file, an
    object with ``__call__``, a library function or layer (``Compose([to_float, ...])``)."""
    args = CallArgs([x], {}, [None], {})
    if isinstance(step, FunctionValue):
        return call_function(interp, step, args, node, force=True)
    if isinstance(step, InstanceValue) and "__call__" in step.cls.methods:
        return call_function(interp, step.cls.methods["__call__"], args, node, step, force=True)
    if isinstance(step, SymbolValue):
        return call_symbol(interp, step.qualname, args, node)
    if isinstance(step, ModuleValue):
        return call_library_module(interp, step, args, node)
    return TOP


def _named_attribute(interp: "Interpreter", args: CallArgs, node: Any) -> Value:
    """``getattr(obj, "name")`` by a known name is ``obj.name`` (``getattr(torch, cfg["dtype"])``);
    with a default, unknown unless the attribute is known to exist."""
    name = args.pos[1]
    if not isinstance(name, StringValue) or not name.const:
        return TOP
    value = get_attribute(interp, args.pos[0], name.const, node)
    if len(args.pos) == 3 and isinstance(value, SymbolValue):
        return TOP  # a library name is made up whether or not it exists: the default may win
    return value


def _dataset_item(interp: "Interpreter", dataset: InstanceValue, node: Any) -> Value:
    """``dataset[i]`` of a dataset class defined in the file (what a DataLoader batches)."""
    getitem = dataset.cls.methods.get("__getitem__")
    if getitem is None:
        return TOP
    return call_function(interp, getitem, CallArgs([ScalarValue("int")], {}, [None], {}), node,
                         dataset, force=True)


def _dataset_length(interp: "Interpreter", dataset: InstanceValue, node: Any) -> Optional[int]:
    """``len(dataset)`` of a dataset class defined in the file, when its ``__len__`` returns a
    known int (``return len(self.y)`` of a tensor whose rows are known), else None."""
    length = dataset.cls.methods.get("__len__")
    if not isinstance(length, FunctionValue):
        return None
    value = call_function(interp, length, CallArgs([], {}, [], {}), node, dataset, force=True)
    if isinstance(value, ScalarValue) and value.pytype == "int" and isinstance(value.const, int) \
            and not isinstance(value.const, bool) and value.const >= 0:
        return value.const
    return None


def _length(interp: "Interpreter", value: Value, node: Any) -> Value:
    """``len(x)`` of a dataset (its items, through subsets) or of an instance of a class of the
    file (what its ``__len__`` returns)."""
    size = dataset_size(value, lambda dataset: _dataset_length(interp, dataset, node))
    if size is not None:
        return ScalarValue("int", size)
    if isinstance(value, InstanceValue) and isinstance(value.cls.methods.get("__len__"), FunctionValue):
        result = call_function(interp, value.cls.methods["__len__"], CallArgs(), node, value, force=True)
        return result if isinstance(result, ScalarValue) and result.pytype == "int" else ScalarValue("int")
    return ScalarValue("int")


def item_of(interp: "Interpreter", container: Value, index: Value, index_node: Any, node: Any) -> Optional[Value]:
    """``container[index]`` of an instance of a class of the file (its ``__getitem__``) or of a
    dataset (a TensorDataset's row, a subset's item); None when neither."""
    if isinstance(container, (TensorDatasetValue, SubsetValue)):
        base = container
        while isinstance(base, SubsetValue):
            base = base.dataset
        if isinstance(base, TensorDatasetValue):
            return base.item if isinstance(index, ScalarValue) and index.pytype == "int" else TOP
        container = base  # a subset of a dataset class: its __getitem__ at some index
        index, index_node = ScalarValue("int"), None
    if isinstance(container, InstanceValue):
        getitem = container.cls.methods.get("__getitem__")
        if isinstance(getitem, FunctionValue):
            return call_function(interp, getitem, CallArgs([index], {}, [index_node], {}), node, container)
    return None


def _collate_with(interp: "Interpreter", fn: Value, items: Value, node: Any) -> Value:
    """What a ``collate_fn`` defined in the file returns for a list of dataset items: a function,
    an object with ``__call__`` (``collate_fn=DataCollator(max_length=16)``), or a partial of
    either (``partial(pad_collate, pad_id=0)``)."""
    args = CallArgs([items], {}, [None], {})
    while isinstance(fn, PartialValue):
        args, fn = fn.completed(args), fn.func  # the stored arguments come first
    if isinstance(fn, FunctionValue):
        return call_function(interp, fn, args, node, force=True)
    if isinstance(fn, BoundMethod):
        return call_function(interp, fn.function, args, node, fn.instance, force=True)
    if isinstance(fn, InstanceValue) and isinstance(fn.cls.methods.get("__call__"), FunctionValue):
        return call_function(interp, fn.cls.methods["__call__"], args, node, fn, force=True)
    return TOP  # a library function (default_collate, pad_sequence wrappers): not run here


def call_method(interp: "Interpreter", receiver: Value, name: str, args: CallArgs, node: Any) -> Value:
    """``receiver.name(...)`` on a tensor, an ndarray or a library module."""
    if isinstance(receiver, TensorValue):
        if name in SHAPE_CHANGING_IN_PLACE:
            return shape_changing_in_place(receiver, name, args, node, interp.tenv)
        result = T.tensor_method(receiver, name, args, node, interp.tenv)
        if moves_to_cuda(name, result):
            interp.moves_to_cuda = True
        return result
    if isinstance(receiver, ArrayValue):
        return NP.ndarray_method(receiver, name, args, node)
    if isinstance(receiver, ModuleValue):
        return module_instance_method(interp, receiver, name, args, node)
    return TOP


#: A list appended to in straight-line code keeps its items up to this many.
_MAX_KNOWN_ITEMS = 64


def sequence_method(interp: "Interpreter", receiver_node: Any, seq: SequenceValue, name: str,
                    args: CallArgs) -> Value:
    """list/dict methods: mutations rebind the container with the new element value."""
    if name == "append" and len(args.pos) == 1 and seq.container == "list" and seq.items is not None \
            and not interp.branch_depth and len(seq.items) < _MAX_KNOWN_ITEMS:
        # straight-line code (an unrolled loop included): the list's items stay known one by one
        replace_container(interp, receiver_node, seq, appended(seq, args.pos[0], args.pos_nodes[0]))
        return NoneValue()
    if name in ("append", "add") and len(args.pos) == 1:
        replace_container(interp, receiver_node, seq, with_element(seq, args.pos[0], args.pos_nodes[0]))
        return NoneValue()
    if name == "extend" and len(args.pos) == 1:
        replace_container(interp, receiver_node, seq, with_element(seq, iterate(args.pos[0])))
        return NoneValue()
    if name == "insert" and len(args.pos) == 2:
        replace_container(interp, receiver_node, seq, with_element(seq, args.pos[1]))
        return NoneValue()
    if name == "update" or name == "setdefault" and len(args.pos) == 2:
        new = aliased(args.pos[1]) if name == "setdefault" else TOP
        replace_container(interp, receiver_node, seq, with_element(seq, new))
        return new if name == "setdefault" else NoneValue()
    if seq.container == "dict":
        if name == "values":
            return SequenceValue("list", seq.element, None, entries_view(seq, name))
        if name == "items" and state_entries(seq) is not None:  # every entry of a module's state
            return SequenceValue("list", SequenceValue("tuple", TOP, (TOP, seq.element)), None,
                                 entries_view(seq, name))
        if name == "items" and seq.keys is not None and seq.items is not None:
            # every key known: one (key, value) pair each, in order
            pairs = tuple(SequenceValue("tuple", join(StringValue(k), v), (StringValue(k), v))
                          for k, v in zip(seq.keys, seq.items))
            return SequenceValue("list", join_all(pairs) if pairs else TOP, pairs)
        if name == "items":
            return SequenceValue("list", SequenceValue("tuple", TOP, (TOP, seq.element)), None)
        if name == "get" and args.pos:
            default = args.get(1, "default") if args.has(1, "default") else NoneValue()
            key = args.pos[0]
            if seq.keys is not None and seq.items is not None and isinstance(key, StringValue) and key.const:
                # every key known: cfg.get("fp16") is the value stored there, else the default
                return seq.value_of(key.const) if key.const in seq.keys else default
            return join(seq.element, default)
        key = args.pos[0] if args.pos else None
        if name == "pop" and isinstance(key, StringValue) and key.const and seq.keys is not None \
                and seq.items is not None and key.const in seq.keys and len(args.pos) <= 2:
            # obj_type = cfg.pop("type"): that key's value, and the dict loses the key
            index = seq.keys.index(key.const)
            rest = seq.items[:index] + seq.items[index + 1:]
            replace_container(interp, receiver_node, seq, SequenceValue(
                "dict", join_all(rest) if rest else TOP, rest, seq.origin, seq.keys[:index] + seq.keys[index + 1:]))
            return seq.items[index]
        if name == "pop" and args.pos:
            return seq.element if len(args.pos) == 1 else join(seq.element, args.pos[1])
    elif name == "pop":
        return seq.element
    if name in ("index", "count") and seq.container in ("list", "tuple") and len(args.pos) >= 1:
        return ScalarValue("int")  # CLASSES.index(label): a position, counts count
    if name == "copy":
        return SequenceValue(seq.container, seq.element, seq.items, seq.origin, seq.keys)  # keys kept
    if name in ("clear", "sort", "reverse", "remove"):
        if name == "clear":
            replace_container(interp, receiver_node, seq, SequenceValue(seq.container, TOP, ()))
        return NoneValue()
    return TOP


#: The bases of a custom autograd function (``class GradReverse(torch.autograd.Function)``).
AUTOGRAD_FUNCTIONS = ("torch.autograd.Function", "torch.autograd.function.Function")

#: nn.Sequential methods that add layers (insert and extend: where, or which, is not followed).
SEQUENTIAL_GROWTH = ("add_module", "register_module", "append", "insert", "extend")

#: Module methods that give the module's parameters (or buffers) one by one.
PARAMETER_ITERATORS = ("parameters", "named_parameters", "buffers", "named_buffers")


def parameters_of(interp: "Interpreter", module: Value, named: bool) -> Value:
    """``model.parameters()``: tensors that *are* the module's parameters, so that replacing
    one's data (``p.data = p.data.half()``) changes the module (``parameter_replaced``)."""
    param = TensorValue(parameter_dtypes(module), None, parameter_origin(module))
    interp.parameter_owners[id(param)] = (param, module)  # keeps param alive: ids stay unique
    element: Value = SequenceValue("tuple", TOP, (StringValue(None), param)) if named else param
    return SequenceValue("list", element, None)


def parameter_replaced(interp: "Interpreter", param: TensorValue, value: Value, node: Any) -> bool:
    """``p.data = value`` on a parameter from ``model.parameters()``: the module may now hold
    ``value``'s dtype (weakly: other parameters may keep theirs). False if ``param`` is none."""
    owner = interp.parameter_owners.get(id(param))
    if owner is None or owner[0] is not param:
        return False
    dtype = value.dtype if isinstance(value, TensorValue) else None
    set_module_dtype(owner[1], dtype, Origin(node, "a parameter's .data replaced"), weak=True)
    interp.heap_version += 1
    return True


#: Keywords of ``Module.to`` that never give a dtype.
_NOT_DTYPE_KEYWORDS = ("device", "non_blocking", "memory_format", "copy")


def module_instance_method(interp: "Interpreter", module: Value, name: str, args: CallArgs,
                           node: Any) -> Value:
    """Module methods that act in place: ``.double()``, ``.to(dtype)``, ``.cuda()``..."""
    if name == "children" and not args.pos and not args.kw and not args.has_star:
        children = _children(module)
        # list(model.children())[:-2] keeps the layers before the head, one by one
        return TOP if children is None else SequenceValue("list", join_all(list(children)) if children else TOP,
                                                          children)
    if name in MUTATING_METHODS:
        interp.heap_version += 1
    if name in MODULE_CAST_METHODS:
        set_module_dtype(module, D.CAST_METHODS[name], Origin(node, f"model.{name}()"),
                         weak=interp._weak_update(module))
        return module
    if name in ("to", "type"):
        nodes = list(args.pos_nodes) + [None] * (len(args.pos) - len(args.pos_nodes))
        given = list(zip(args.pos, nodes)) + [(v, k) for k, v in args.kw.items()]
        for value, where in given:
            dtype = T.dtype_of_arg(value)
            if name == "to" and isinstance(value, TensorValue) and (not isinstance(where, str) or where == "tensor"):
                # model.to(other_tensor) takes that tensor's dtype (and device)
                set_module_dtype(module, value.dtype, Origin(node, "model.to(a tensor)", value.origin),
                                 weak=interp._weak_update(module))
                if value.device == "cuda":
                    interp.moves_to_cuda = True
                continue
            if dtype is not None:
                set_module_dtype(module, dtype, Origin(node, f"model.{name}({dtype})"),
                                 weak=interp._weak_update(module))
            elif T.device_of_arg(value) is not None:
                interp.moves_to_cuda = interp.moves_to_cuda or T.device_of_arg(value) == "cuda"
                _move_module(interp, module, T.device_of_arg(value), node, f"moved by model.{name}()")
            elif value is TOP and where not in _NOT_DTYPE_KEYWORDS and not T.device_like_name(where):
                # `model.to(x)` of an unknown x may be a dtype: the parameters' dtype is unknown
                set_module_dtype(module, None, Origin(node, f"model.{name}(...)"),
                                 weak=interp._weak_update(module))
        return module
    if name == "cuda":
        interp.moves_to_cuda = True
        _move_module(interp, module, "cuda", node, "moved by model.cuda()")
        return module
    if isinstance(module, ModuleValue) and module.short_name == "Sequential" and name in SEQUENTIAL_GROWTH \
            and not args.has_star:
        # seq.add_module("fc", nn.Linear(...)), seq.append(layer): the layer runs after the others
        named = name in ("add_module", "register_module")
        child = args.get(1, "module") if named else args.get(0, "module")
        label: Optional[str] = None  # insert / extend: not followed, the layers become unknown
        if name == "append" and module.config.get(NN.CHILD_NAMES, ()) is not None:
            label = str(len(module.children))
        elif named:
            given = args.get(0, "name")
            label = given.const if isinstance(given, StringValue) else None
        NN.sequential_added(module, label, child, certain=not interp._weak_update(module))
        interp.heap_version += 1
        return module if name in ("append", "extend", "insert") else NoneValue()
    if isinstance(module, ModuleValue) and module.short_name == "ModuleList" and name in ("append", "extend", "insert"):
        added = args.pos[-1] if args.pos else TOP
        module.config.pop(NN.EXACT_CHILDREN, None)  # appended to: its layers one by one are not known
        if name == "append" or name == "insert":
            module.children = module.children + (added,)
        elif isinstance(added, SequenceValue) and added.items is not None:
            module.children = module.children + added.items
        else:
            module.children = ()  # layers we cannot see: iterating gives unknown
        interp.heap_version += 1
        return NoneValue()
    if name in PARAMETER_ITERATORS:
        return parameters_of(interp, module, named=name.startswith("named_"))
    if name == "state_dict" and not args.pos and not args.kw and not args.has_star:
        return state_dict_of(module, node)
    if name in MODE_METHODS:
        set_training(module, mode_set_by(name, args), weak=interp._weak_update(module))
        return module
    if name == "apply" and (len(args.pos) != 1 or not isinstance(args.pos[0], FunctionValue)
                            or may_change_mode(args.pos[0].node)):
        interp.training_unknown = True  # model.apply(fn): fn may set the modes of the submodules
    if name == "apply":
        _apply_to_submodules(interp, module, args, node)
        return module
    if name in SELF_RETURNING_METHODS:
        return module
    if isinstance(module, InstanceValue) and name in REGISTER_METHODS:
        attr = args.get(0, "name")
        if isinstance(attr, StringValue) and attr.const is not None and not args.has_star:
            value = args.get(1, REGISTER_METHODS[name])
            if interp._weak_update(module) and attr.const in module.attrs:
                value = join(module.attrs[attr.const], value)
            module.attrs[attr.const] = value
            if name in CAST_REGISTRATIONS:
                module.cast_attrs.add(attr.const)
            if interp.recording and isinstance(node, cst.Call) and node.args:
                interp.assignments.append(Assignment(node.args[0].value, f"self.{attr.const}", value))
        return NoneValue()
    if isinstance(module, ModuleValue) and name == "forward":
        return NN.call_module(module, args, node)
    return TOP


def _children(module: Value) -> Optional[Tuple[Value, ...]]:
    """What ``module.children()`` yields, in order, where the engine knows every child: the layers
    of an ``nn.Sequential``/``nn.ModuleList``, or the module attributes of a model class of the
    file in the order they were first set (torch's registration order). None otherwise."""
    if isinstance(module, ModuleValue):
        return NN.exact_children(module)
    if isinstance(module, InstanceValue) and LIBRARY_PART not in module.attrs:
        return tuple(v for v in module.attrs.values() if isinstance(v, (ModuleValue, InstanceValue)))
    return None


#: The most submodules ``model.apply(fn)`` runs ``fn`` on one by one; beyond, their dtypes are unknown.
_MAX_APPLIED = 64


def _apply_to_submodules(interp: "Interpreter", module: Value, args: CallArgs, node: Any) -> None:
    """``model.apply(fn)``: ``fn`` called on every submodule, children before their parent, as
    torch does (``def to_half(m): if isinstance(m, nn.Linear): m.half()`` casts the Linear layers
    only). A function not of the file, or too many submodules: the parameters' dtypes may have
    changed, so they are no longer known (never the old ones, which a cast may have replaced)."""
    fn = args.pos[0] if len(args.pos) == 1 and not args.kw and not args.has_star else TOP
    if isinstance(fn, SymbolValue) and fn.qualname.startswith("torch.nn.init."):
        return  # initialisers fill the parameters in place: dtypes and shapes stay
    order: list = []
    if isinstance(fn, (FunctionValue, BoundMethod)):
        _submodules_post_order(module, order, set())
    if not isinstance(fn, (FunctionValue, BoundMethod)) or len(order) > _MAX_APPLIED:
        set_module_dtype(module, None, Origin(node, "model.apply(...)"), weak=True)
        interp.heap_version += 1
        return
    for sub in order:
        step = CallArgs([sub], {}, [None], {})
        if isinstance(fn, BoundMethod):
            call_function(interp, fn.function, step, node, fn.instance, force=True)
        else:
            call_function(interp, fn, step, node, force=True)


def _submodules_post_order(module: Value, order: list, seen: set) -> None:
    """Every module under ``module`` (layers of containers, a class's module attributes), each
    child before its parent, each once: the order ``nn.Module.apply`` visits them."""
    if id(module) in seen or len(order) > _MAX_APPLIED:
        return
    seen.add(id(module))
    if isinstance(module, ModuleValue):
        for child in module.children:
            _submodules_post_order(child, order, seen)
    elif isinstance(module, InstanceValue):
        for value in list(module.attrs.values()):
            if isinstance(value, (ModuleValue, InstanceValue)):
                _submodules_post_order(value, order, seen)
    else:
        return
    order.append(module)


def _move_module(interp: "Interpreter", module: Value, device: str, node: Any, note: str) -> None:
    """A library layer moved to ``device`` (in place, as torch does); where the move may not
    happen (a branch, a loop), its device is known only if it was there already."""
    if not isinstance(module, ModuleValue):
        return  # a model class of the file: its layers are moved with it, unseen here
    device = moved(device, node, note)
    module.device = device if not interp._weak_update(module) or module.device == device else None
    interp.heap_version += 1


def replace_tensor(interp: "Interpreter", node: Any, old: TensorValue, new: Value) -> None:
    """The tensor ``node`` evaluated to (``old``) was changed in place into ``new``: rebind the
    name or attribute that holds it (a library layer's weight widens the layer's dtypes)."""
    replacement: Value = TOP
    if isinstance(new, TensorValue):
        replacement = TensorValue(new.dtypes, new.shape, new.origin, new.device, old.requires_grad)
    if isinstance(node, cst.Name) and interp.lookup(node.value) is old:
        interp.bind(node.value, replacement)
    elif isinstance(node, cst.Attribute):
        holder = interp._current.get(node.value)
        if isinstance(holder, ModuleValue) and node.attr.value in ("weight", "bias"):
            module_parameter_replaced(holder, node.attr.value, new, interp._weak_update(holder),
                                      Origin(node, ""))
            interp.heap_version += 1
        elif isinstance(holder, InstanceValue) and holder.attrs.get(node.attr.value) is old:
            holder.attrs[node.attr.value] = replacement
            interp.heap_version += 1


def replace_array(interp: "Interpreter", node: Any, old: ArrayValue, new: Value) -> None:
    """The ndarray ``node`` evaluated to (``old``) was changed in place (``a.resize(...)``,
    ``a.shape = ...``): rebind the name or instance attribute that holds it. (numpy refuses to
    resize an array another name refers to, so there is no alias to update.)"""
    if isinstance(node, cst.Name) and interp.lookup(node.value) is old:
        interp.bind(node.value, new)
    elif isinstance(node, cst.Attribute):
        holder = interp._current.get(node.value)
        if isinstance(holder, InstanceValue) and holder.attrs.get(node.attr.value) is old:
            holder.attrs[node.attr.value] = new
            interp.heap_version += 1


def replace_container(interp: "Interpreter", node: Any, old: SequenceValue, new: Value) -> None:
    """A list or dict was mutated: every binding we know of that holds it sees the change;
    where the container came from something else, its aliases are unknown afterwards."""
    frame: Optional[Frame] = interp.frame
    found = False
    while frame is not None:
        for name, value in list(frame.vars.items()):
            if value is old:
                frame.vars[name] = new
                found = True
        frame = frame.parent
    instance = interp._current.get(node.value) if isinstance(node, cst.Attribute) else None
    if isinstance(instance, InstanceValue) and instance.attrs.get(node.attr.value) is old:
        interp.journal(instance)
        instance.attrs[node.attr.value] = new
        interp.heap_version += 1
        found = True
    if not found and isinstance(node, cst.Name):
        interp.bind(node.value, new)
    outer = interp._current.get(node.value) if not found and isinstance(node, cst.Subscript) else None
    if isinstance(outer, SequenceValue) and outer.container in ("list", "dict") and outer is not old:
        # rows[i].append(x) changes an item of rows, which one perhaps unknown: every item that
        # may be it may hold either (a weak update), then rows itself is rebound the same way
        def widened(item: Value) -> Value:
            return join(item, new) if item is old or item is outer.element else item
        items = tuple(widened(item) for item in outer.items) if outer.items is not None else None
        replace_container(interp, node.value, outer,
                          SequenceValue(outer.container, widened(outer.element), items, outer.origin, outer.keys))
