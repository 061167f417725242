"""Attributes stored by name at run time: ``setattr(obj, name, value)``,
``obj.__dict__[name] = value`` and ``obj.__dict__.update(mapping)``.

A known name is an ordinary attribute store (the later one wins, as for ``self.x = ...``). An
unknown name may replace any attribute, so every attribute the engine knew of the object
becomes unknown (precision first: ``for n in names: setattr(self, n, nn.Linear(16, 8))`` may
have replaced ``self.fc``). For a model class of the file a ``__dict__`` store makes a plain
attribute: module casts (``model.half()``) leave a tensor stored there alone, as torch does.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Optional

import libcst as cst

from ..knowledge.module_dtypes import store_module_attribute
from ..knowledge.nn_modules import CONTAINERS, layers_unknown
from ..model.values import TOP, InstanceValue, ModuleValue, SequenceValue, StringValue, Value, join

if TYPE_CHECKING:
    from .interpreter import Interpreter

#: ``nn.Parameter(...)``: stored under a name, an attribute module casts convert.
_PARAMETER_CALLS = ("Parameter", "nn.Parameter", "torch.nn.Parameter")


def store_named(interp: "Interpreter", owner: Value, name: Value, value: Value, value_node: Any = None) -> None:
    """``setattr(owner, name, value)``: a store of a known name, else every attribute forgotten."""
    if not isinstance(owner, (InstanceValue, ModuleValue)):
        return
    if not (isinstance(name, StringValue) and name.const is not None):
        forget_attributes(interp, owner)
        return
    weak = interp._weak_update(owner)  # a store in a branch or loop may not happen
    if isinstance(owner, ModuleValue):
        store_module_attribute(owner, name.const, value, weak)
    else:
        if weak and name.const in owner.attrs:
            value = join(owner.attrs[name.const], value)
        interp.journal(owner)  # an unrolled loop's recording pass puts it back
        owner.attrs[name.const] = value
        if _is_parameter_call(value_node):
            owner.cast_attrs.add(name.const)  # a parameter: model.half() converts it
    interp.heap_version += 1


def forget_attributes(interp: "Interpreter", owner: Value) -> None:
    """An attribute of unknown name was stored: none of ``owner``'s attributes is known now."""
    if isinstance(owner, InstanceValue):
        interp.journal(owner)
        for attr in list(owner.attrs):
            owner.attrs[attr] = TOP
    elif isinstance(owner, ModuleValue):
        owner.param_dtypes = None  # the weight itself may have been replaced
        if owner.short_name in CONTAINERS:
            layers_unknown(owner)  # or any of its layers
        for attr in list(owner.stored):
            owner.stored[attr] = TOP
    interp.heap_version += 1


def dict_owner(interp: "Interpreter", node: Any) -> Optional[Value]:
    """The object whose ``__dict__`` ``node`` is (``self.__dict__``, ``vars(self)``), already
    evaluated; None when ``node`` is not one."""
    if isinstance(node, cst.Attribute) and node.attr.value == "__dict__":
        return interp.value(node.value)
    if isinstance(node, cst.Call) and isinstance(node.func, cst.Name) and node.func.value == "vars" and \
            len(node.args) == 1 and node.args[0].keyword is None and not node.args[0].star:
        return interp.value(node.args[0].value)
    return None


def store_in_dict(interp: "Interpreter", owner: Value, key_node: Any, value: Value, value_node: Any) -> None:
    """``owner.__dict__[key] = value``."""
    store_named(interp, owner, interp.value(key_node) if key_node is not None else TOP, value, value_node)


def update_dict(interp: "Interpreter", owner: Value, mapping: Value) -> None:
    """``owner.__dict__.update(mapping)``: each known key stored, else every attribute forgotten."""
    if isinstance(mapping, SequenceValue) and mapping.container == "dict" and mapping.keys is not None \
            and mapping.items is not None:
        for key, value in zip(mapping.keys, mapping.items):
            store_named(interp, owner, StringValue(key), value)
        return
    if isinstance(owner, (InstanceValue, ModuleValue)):
        forget_attributes(interp, owner)


def _is_parameter_call(node: Any) -> bool:
    if not isinstance(node, cst.Call):
        return False
    func = node.func
    text = func.value if isinstance(func, cst.Name) else (
        f"{_dotted(func.value)}.{func.attr.value}" if isinstance(func, cst.Attribute) else "")
    return text in _PARAMETER_CALLS


def _dotted(node: Any) -> str:
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        return f"{_dotted(node.value)}.{node.attr.value}"
    return "?"
