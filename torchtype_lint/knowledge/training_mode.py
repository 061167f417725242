"""Training mode of ``nn`` modules: ``module.training`` is True from construction on,
``.eval()`` / ``.train(False)`` make it False and ``.train()`` True again, for the module and
every submodule. A model's forward may return something else in training mode (torchvision's
Inception returns its auxiliary logits in an ``InceptionOutputs`` tuple, dropout and
batch norm behave differently).

The mode is kept on the instances of the file's module classes (their ``training``
attribute); library layers need none (nothing reads theirs). A change the engine cannot see
(``m.eval()`` on a module it does not know, ``model.apply(fn)`` with a function that may call
it) makes every mode unknown from then on (the engine's ``training_unknown``).
"""
from __future__ import annotations

from typing import Any, Optional

import libcst as cst

from ..model.values import CallArgs, InstanceValue, ModuleValue, ScalarValue, Value, join

#: Module methods that set the mode of a module and its submodules.
MODE_METHODS = ("train", "eval")
#: The attribute holding the mode.
TRAINING = "training"
#: A module's mode right after construction.
CONSTRUCTED = ScalarValue("bool", True)


def mode_set_by(name: str, args: CallArgs) -> Value:
    """The mode ``module.<name>(...)`` sets: ``eval()`` False, ``train()`` True, ``train(flag)``
    the flag's constant (an unknown bool when it is not known)."""
    if name == "eval":
        return ScalarValue("bool", False)
    if args.has_star or len(args.pos) + len(args.kw) > 1 or set(args.kw) - {"mode"}:
        return ScalarValue("bool", None)
    if not args.pos and not args.kw:
        return ScalarValue("bool", True)
    flag = args.get(0, "mode")
    if isinstance(flag, ScalarValue) and isinstance(flag.const, bool):
        return ScalarValue("bool", flag.const)
    return ScalarValue("bool", None)


def set_training(module: Value, mode: Value, weak: bool, seen: Optional[set] = None) -> None:
    """``module`` and its submodules are in ``mode`` now (``weak``: maybe, the old mode stays
    possible)."""
    seen = set() if seen is None else seen
    if id(module) in seen:
        return
    seen.add(id(module))
    if isinstance(module, InstanceValue):
        old = module.attrs.get(TRAINING, CONSTRUCTED)
        module.attrs[TRAINING] = join(old, mode) if weak else mode
        parts = list(module.attrs.values())
    elif isinstance(module, ModuleValue):
        parts = list(module.children) + list(module.stored.values())
    else:
        return
    for part in parts:
        if isinstance(part, (InstanceValue, ModuleValue)):
            set_training(part, mode, weak, seen)


def may_change_mode(function_node: Any) -> bool:
    """Whether a function (``model.apply(fn)``'s) may set a module's mode: its code names
    ``train``, ``eval`` or ``training`` as an attribute, or calls ``apply`` again."""
    found = []

    class _Finder(cst.CSTVisitor):
        def visit_Attribute(self, node: cst.Attribute) -> None:
            if node.attr.value in MODE_METHODS + (TRAINING, "apply"):
                found.append(node)

    try:
        function_node.visit(_Finder())
    except AttributeError:
        return True
    return bool(found)
