"""``isinstance(value, classes)`` where the engine knows enough of the value to answer: a tensor
is a ``torch.Tensor`` and no Python container; a tuple, list or dict is its container and no
tensor or array. Anything else (a subclass test, ``nn.Parameter``, an unknown class) is unknown.
``hasattr(value, name)`` likewise for the tensor-only attributes (``hasattr(obj, "ndim")``).

Code guards tensor-only work with these tests (``if isinstance(default, Tensor):
default.contiguous()``): answering them lets the branch a value cannot take go unanalysed.
Checked against Python and torch in tests/test_container_used_as_tensor.py.
"""
from __future__ import annotations

from typing import Optional

from ..model.values import ModuleValue, SequenceValue, StringValue, SymbolValue, TensorValue, Value
from .named_tuples import type_name
from .nn_modules import KNOWN
from .tensor_arguments import TENSOR_ONLY_ATTRIBUTES

#: The builtin classes a container value is an instance of, by the engine's container name.
_CONTAINER_CLASSES = {"tuple": "builtins.tuple", "list": "builtins.list", "dict": "builtins.dict",
                      "set": "builtins.set"}
#: Classes that neither a tensor nor a builtin container is an instance of (numbers, strings, arrays).
_OTHER_CLASSES = frozenset({"builtins.int", "builtins.float", "builtins.bool", "builtins.str",
                            "builtins.bytes", "builtins.complex", "numpy.ndarray"})
_TENSOR = "torch.Tensor"


#: The public ``torch.nn`` classes a known layer class derives from, besides ``nn.Module``
#: (checked with ``issubclass`` over every pair in tests/test_container_used_as_tensor.py).
PUBLIC_BASES = {"ReLU6": ("Hardtanh",), "UpsamplingBilinear2d": ("Upsample",),
                "UpsamplingNearest2d": ("Upsample",), "ZeroPad1d": ("ConstantPad1d",),
                "ZeroPad2d": ("ConstantPad2d",), "ZeroPad3d": ("ConstantPad3d",)}
_NN = "torch.nn."


def _layer_is(layer: ModuleValue, qualname: str) -> Optional[bool]:
    """``isinstance(layer, nn.X)`` of a library layer: its class, a public base or ``nn.Module``;
    False for another layer class the engine knows; None for any other class."""
    if qualname == "torch.nn.Module":
        return True
    short = layer.short_name
    if not layer.qualname.startswith(_NN) or short not in KNOWN or not qualname.startswith(_NN):
        return None
    tested = qualname[len(_NN):]
    if tested not in KNOWN:
        return None  # nn.modules.conv._ConvNd and the like: bases not tabled
    return tested == short or tested in PUBLIC_BASES.get(short, ())


def _one(value: Value, qualname: str) -> Optional[bool]:
    if isinstance(value, ModuleValue):
        return _layer_is(value, qualname)
    if isinstance(value, TensorValue):
        if qualname == _TENSOR:
            return True
        return False if qualname in _OTHER_CLASSES or qualname in _CONTAINER_CLASSES.values() else None
    if isinstance(value, SequenceValue) and value.container in _CONTAINER_CLASSES:
        if qualname == _CONTAINER_CLASSES[value.container]:
            return True  # a namedtuple, torch.Size or OrderedDict is an instance of its builtin base
        if qualname == _TENSOR or qualname in _OTHER_CLASSES or qualname in _CONTAINER_CLASSES.values():
            return False
    return None


def isinstance_truth(value: Value, classes: Value) -> Optional[bool]:
    """``isinstance(value, classes)`` when certain (``classes`` one class or a tuple of them)."""
    if isinstance(classes, SymbolValue):
        names = [classes.qualname]
    elif isinstance(classes, SequenceValue) and classes.container == "tuple" and classes.items is not None \
            and all(isinstance(c, SymbolValue) for c in classes.items):
        names = [c.qualname for c in classes.items]  # type: ignore[union-attr]
    else:
        return None
    answers = [_one(value, name) for name in names]
    if True in answers:
        return True
    return False if answers and all(a is False for a in answers) else None


def hasattr_truth(value: Value, name: Value) -> Optional[bool]:
    """``hasattr(value, "ndim")`` for a tensor-only attribute name, when ``value`` is certainly a
    tensor (True) or a plain tuple or list (False; a namedtuple's fields are its own)."""
    if not isinstance(name, StringValue) or name.const not in TENSOR_ONLY_ATTRIBUTES:
        return None
    if isinstance(value, TensorValue):
        return True
    if isinstance(value, SequenceValue) and value.container in ("tuple", "list") and type_name(value) is None:
        return False
    return None
