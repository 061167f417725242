"""A module's state as a collection: ``model.state_dict()`` holds *every* parameter and buffer
(BatchNorm's int64 ``num_batches_tracked`` included), and so do the collections made from it
entry for entry: ``sd.values()`` / ``sd.items()``, ``list(...)`` / ``tuple(...)`` /
``sorted(...)`` / ``reversed(...)`` of those.

Such a collection carries a :class:`StateEntriesOrigin` naming the module; a loop over it
visits each entry, so what its body does unconditionally to the entry it also does to the
int64 counter (TTL214). A collection made any other way (a comprehension, which may filter, a
slice) is a new value without it.

``model.state_dict()`` also remembers the shapes of the entries it holds, as they were when it
was taken (``state_shapes``): only entries certain to be there, of a shape known for every
value the module could have (TTL528 compares them with the module a dict is loaded into).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Dict, Optional, Tuple

import libcst as cst

from ..model.values import TOP, InstanceValue, ModuleValue, Origin, SequenceValue, Value
from . import nn_modules as NN
from .module_dtypes import MODULE_BASES

#: What iterating a state collection gives: its keys (the dict itself), its entries
#: (``.values()``) or (key, entry) pairs (``.items()``).
KEYS, ENTRIES, PAIRS = "keys", "entries", "pairs"

#: How deep ``structure`` looks into nested modules.
_MAX_STRUCTURE_DEPTH = 8


@dataclass(frozen=True)
class StateEntriesOrigin(Origin):
    """The origin of a collection holding every state entry of ``module``; ``gives`` says
    what iterating it yields (KEYS, ENTRIES or PAIRS)."""

    module: Any = field(default=None, compare=False, hash=False, repr=False)
    gives: str = KEYS
    #: ``(key, shape)`` of the entries known when ``model.state_dict()`` was taken (None: not
    #: a whole state dict); two state dicts of one call with other shapes are not equal.
    shapes: Optional[Tuple[Tuple[str, Tuple[int, ...]], ...]] = None
    whole = True  # a join with another collection is not every entry any more


def state_dict_of(module: Value, node: Any) -> Value:
    """``module.state_dict()`` (no arguments) of a library or user module: a dict of unknown
    entries that remembers it holds them all."""
    shapes = tuple(state_shapes(module).items())
    return SequenceValue("dict", origin=StateEntriesOrigin(node, "model.state_dict()", None, module, KEYS, shapes))


def state_entries(value: Value) -> Optional[StateEntriesOrigin]:
    """The origin of ``value`` when it is a collection of every state entry of a module."""
    origin = value.origin if isinstance(value, SequenceValue) else None
    return origin if isinstance(origin, StateEntriesOrigin) else None


def entries_view(seq: SequenceValue, method: str) -> Optional[StateEntriesOrigin]:
    """The origin ``sd.values()`` / ``sd.items()`` / ``sd.keys()`` of a state dict keeps
    (None: ``seq`` is no state dict, or the method gives no collection of all its entries)."""
    origin = state_entries(seq)
    if origin is None or origin.gives != KEYS:
        return None
    gives = {"values": ENTRIES, "items": PAIRS, "keys": KEYS}.get(method)
    if gives is None:
        return None
    return StateEntriesOrigin(origin.node, f"model.state_dict().{method}()", origin.parent, origin.module, gives)


def same_entries(value: Value) -> Optional[StateEntriesOrigin]:
    """The origin ``list(x)`` / ``tuple(x)`` / ``sorted(x)`` / ``reversed(x)`` keeps: the same
    entries in another container (a dict gives its keys)."""
    return state_entries(value)


def structure(module: Value, depth: int = 0) -> Optional[Tuple[Any, ...]]:
    """What decides how many state entries ``module`` has and in what order, as a comparable
    key: the class and constructor arguments of each layer, the user class and its module
    attributes; None when a part is not known. Two modules with equal keys have state dicts of
    the same length (``zip`` over both visits every entry of each)."""
    if depth > _MAX_STRUCTURE_DEPTH:
        return None
    if isinstance(module, ModuleValue):
        parts = tuple(structure(child, depth + 1) for child in module.children)
        if any(part is None for part in parts):
            return None
        try:
            config = tuple(sorted((k, repr(v)) for k, v in module.config.items()))
        except TypeError:
            return None
        return (module.qualname, config, parts, tuple(sorted(module.stored)))
    if isinstance(module, InstanceValue):
        attrs = []
        for name, attr in module.attrs.items():
            if name == "training":
                continue  # the mode: no state entry
            if isinstance(attr, (ModuleValue, InstanceValue)):
                part = structure(attr, depth + 1)
                if part is None:
                    return None
                attrs.append((name, part))
            elif attr is TOP:
                return None  # may be a module with state of its own
            else:
                attrs.append((name, attr.kind))
        return (id(module.cls), tuple(attrs))
    return None


#: The methods and hooks through which a class of the file may change what its state dict holds
#: or how one is loaded (a class mentioning any of them has no known entries).
_STATE_OVERRIDES = ("state_dict", "_load_from_state_dict", "_save_to_state_dict", "_state_dict_hook",
                    "_state_dict_pre_hook", "parametriz", "weight_norm", "spectral_norm", "prune")


def state_shapes(module: Value, depth: int = 0) -> Dict[str, Tuple[int, ...]]:
    """The entries ``module.state_dict()`` certainly holds whose shapes are known, by key
    (``"encoder.0.weight"``): the parameters and buffers of the torch layers whose shapes
    their constructor arguments fix (``Linear``, the convolutions, ``BatchNorm``, ``LayerNorm``,
    ``GroupNorm``, ``Embedding``), under the names the module tree gives them (an
    ``nn.Sequential`` or an ``nn.ModuleList`` known layer by layer, the submodule attributes
    of a class of the file extending ``nn.Module`` alone). An entry not certain to be there,
    or of a shape not known, is left out; so is every entry of a part not known."""
    if depth > _MAX_STRUCTURE_DEPTH:
        return {}
    if isinstance(module, ModuleValue):
        if module.short_name in ("Sequential", "ModuleList"):
            children = NN.exact_children(module)
            names = module.config.get(NN.CHILD_NAMES, tuple(str(i) for i in range(len(module.children))))
            if children is None or names is None or len(names) != len(children):
                return {}
            return _prefixed(zip(names, children), depth)
        return _layer_shapes(module)
    if isinstance(module, InstanceValue) and _plain_module_class(module.cls, 0):
        certain = _set_in_init(module.cls, 0)
        parts = [(name, attr) for name, attr in module.attrs.items()
                 if name in certain and isinstance(attr, (ModuleValue, InstanceValue))]
        return _prefixed(parts, depth)
    return {}


def _prefixed(parts: Any, depth: int) -> Dict[str, Tuple[int, ...]]:
    out: Dict[str, Tuple[int, ...]] = {}
    for name, child in parts:
        for key, shape in state_shapes(child, depth + 1).items():
            out[f"{name}.{key}"] = shape
    return out


def _plain_module_class(cls: Any, depth: int) -> bool:
    """A class of the file extending ``nn.Module`` (directly or through classes of the file
    that do), none of which changes how its state is saved or loaded."""
    if depth > _MAX_STRUCTURE_DEPTH or any(name in cls.methods for name in ("load_state_dict", "state_dict")):
        return False
    try:
        text = _CODE.code_for_node(cls.node)
    except Exception:  # noqa: BLE001 - a node that does not print is a class not known
        return False
    if any(word in text for word in _STATE_OVERRIDES):
        return False
    in_file = {base.name: base for base in cls.base_classes}
    if not cls.bases:
        return False
    for base in cls.bases:
        if base in MODULE_BASES:
            continue
        parent = in_file.get(base.rsplit(".", 1)[-1])
        if parent is None or not _plain_module_class(parent, depth + 1):
            return False
    return True


def _set_in_init(cls: Any, depth: int) -> frozenset:
    """The attributes every ``__init__`` of ``cls`` sets (on ``self``, in a statement of its
    body itself, before any statement that may return): an attribute set on a branch, in a
    loop, by another method or from outside the class may be missing."""
    names = set()
    init = cls.methods.get("__init__")
    node = getattr(init, "node", None)
    params = node.params.params if isinstance(node, cst.FunctionDef) else ()
    if params and isinstance(node.body, cst.IndentedBlock):
        owner = params[0].name.value
        for stmt in node.body.body:
            if not isinstance(stmt, cst.SimpleStatementLine):
                if _may_return(stmt):
                    break
                continue
            for small in stmt.body:
                if isinstance(small, cst.Return):
                    return frozenset(names)
                targets = [t.target for t in small.targets] if isinstance(small, cst.Assign) else (
                    [small.target] if isinstance(small, cst.AnnAssign) and small.value is not None else [])
                names.update(t.attr.value for t in targets if isinstance(t, cst.Attribute)
                             and isinstance(t.value, cst.Name) and t.value.value == owner)
    if depth < _MAX_STRUCTURE_DEPTH:
        for base in cls.base_classes:
            names.update(_set_in_init(base, depth + 1))
    return frozenset(names)


def _may_return(stmt: Any) -> bool:
    found = []

    class Finder(cst.CSTVisitor):
        def visit_Return(self, node: cst.Return) -> None:
            found.append(node)

        def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
            return False  # a nested function's return leaves that function

    stmt.visit(Finder())
    return bool(found)


def _layer_shapes(module: ModuleValue) -> Dict[str, Tuple[int, ...]]:
    """The state entries of one torch layer, from its constructor arguments (absent: torch's
    default; given but not known: that entry is left out)."""
    name, cfg = module.short_name, module.config
    out: Dict[str, Tuple[int, ...]] = {}
    if name == "Linear":
        out["weight"] = (cfg.get("out_features"), cfg.get("in_features"))
        if cfg.get("bias", True) is True:
            out["bias"] = (cfg.get("out_features"),)
    elif name == "Embedding":
        out["weight"] = (cfg.get("num_embeddings"), cfg.get("embedding_dim"))
    elif NN.conv_weight_shape(module) is not None:
        out["weight"] = NN.conv_weight_shape(module)
        if cfg.get("bias", True) is True:
            out["bias"] = (cfg.get("out_channels"),)
    elif name in ("BatchNorm1d", "BatchNorm2d", "BatchNorm3d"):
        channels = (cfg.get("num_features"),)
        if cfg.get("affine", True) is True:
            out["weight"] = out["bias"] = channels
        if cfg.get("track_running_stats", True) is True:
            out["running_mean"] = out["running_var"] = channels
            out["num_batches_tracked"] = ()
    elif name == "GroupNorm":
        if cfg.get("affine", True) is True:
            out["weight"] = out["bias"] = (cfg.get("num_channels"),)
    elif name == "LayerNorm":
        given = cfg.get("normalized_shape")
        shape = (given,) if isinstance(given, int) else given
        if cfg.get("elementwise_affine", True) is True and isinstance(shape, tuple):
            out["weight"] = shape
            if cfg.get("bias", True) is True:
                out["bias"] = shape
    # a size not known, or an entry the code assigned itself (``layer.weight = ...``), is left out
    return {key: shape for key, shape in out.items()
            if key not in module.stored and all(type(d) is int and d >= 0 for d in shape)}


_CODE = cst.Module(body=[])


def size_mismatch_message(key: str, saved: Tuple[int, ...], current: Tuple[int, ...]) -> str:
    """What ``load_state_dict`` says of an entry whose shape is not the module's (strict or
    not): one line of its RuntimeError."""
    def size(shape: Tuple[int, ...]) -> str:
        return f"torch.Size([{', '.join(str(d) for d in shape)}])"
    return (f"size mismatch for {key}: copying a param with shape {size(saved)} from checkpoint, "
            f"the shape in current model is {size(current)}.")


def loads_with_size_mismatch(saved: Tuple[int, ...], current: Tuple[int, ...]) -> bool:
    """Whether ``load_state_dict`` refuses an entry of shape ``saved`` for a parameter or buffer
    of shape ``current``: any other shape, but a 1-dim entry for a 0-dim one, which torch
    loads as its first element (a checkpoint of torch 0.3)."""
    return saved != current and not (len(current) == 0 and len(saved) == 1)
