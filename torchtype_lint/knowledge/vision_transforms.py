"""``torchvision.transforms`` pipelines: what each step does to a value's dtype and shape.

``Compose([...])`` runs its steps in order; the step that makes a float32 image is
``ToTensor`` only for a uint8 array (any other array keeps its dtype: a float64 array stays
float64, torchvision's documented behaviour), ``ConvertImageDtype``/``v2.ToDtype`` set the
dtype, ``Normalize`` and the geometric steps keep it. A step this table does not know, or an
input it cannot tell (a PIL image), makes the result unknown. Steps that are the file's own
callables (functions, ``Lambda(fn)``, objects with ``__call__``) are run by the engine through
the ``call`` it passes in.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Optional, Tuple

from ..model.values import (
    CallArgs, TOP, UINT8, ArrayValue, Origin, SequenceValue, TensorValue, Value,
)
from .torch_api import dtype_of_arg

#: The modules transforms are imported from (``transforms.v2`` has the same names).
PREFIXES = ("torchvision.transforms.v2.", "torchvision.transforms.")
#: Steps that keep a tensor's dtype and rank (a size may change).
_KEEP_DTYPE = frozenset({
    "Normalize", "Resize", "CenterCrop", "RandomCrop", "RandomResizedCrop", "RandomHorizontalFlip",
    "RandomVerticalFlip", "RandomRotation", "Pad", "GaussianBlur", "RandomErasing", "RandomAffine",
    "RandomPerspective", "ColorJitter", "Grayscale", "RandomGrayscale",
})
#: Steps that keep the size too (elementwise or flips).
_KEEP_SHAPE = frozenset({"Normalize", "RandomHorizontalFlip", "RandomVerticalFlip", "ColorJitter",
                         "GaussianBlur", "RandomErasing"})
#: What the engine runs a step of the file's own with: (callable, argument) -> result.
Caller = Callable[[Value, Value], Value]


@dataclass(frozen=True)
class TransformValue(Value):
    """A transform object: ``name`` is its class (``Compose``, ``ToTensor``...), ``steps`` a
    Compose's callables, ``dtype`` a conversion's target, ``fn`` a Lambda's function."""

    name: str
    steps: Tuple[Value, ...] = ()
    dtype: Optional[str] = None
    fn: Value = TOP
    origin: Optional[Origin] = None
    kind = "transform"

    def describe(self) -> str:
        if self.name == "Compose":
            return f"Compose({', '.join(step.describe() for step in self.steps)})"
        return self.name


def transform_name(qualname: str) -> Optional[str]:
    """``Compose`` for ``torchvision.transforms.Compose`` (or its ``v2``), else None."""
    for prefix in PREFIXES:
        if qualname.startswith(prefix) and "." not in qualname[len(prefix):]:
            return qualname[len(prefix):]
    return None


def construct(name: str, args: CallArgs, node: Any) -> Value:
    """``transforms.<name>(...)``."""
    origin = Origin(node, f"transforms.{name}(...)")
    if args.has_star:
        return TOP
    if name == "Compose":
        steps = args.get(0, "transforms")
        if isinstance(steps, SequenceValue) and steps.items is not None:
            return TransformValue(name, tuple(steps.items), origin=origin)
        return TOP  # a list built elsewhere: its steps are not known one by one
    if name in ("ConvertImageDtype", "ToDtype"):
        dtype = dtype_of_arg(args.get(0, "dtype"))
        return TransformValue(name, dtype=dtype, origin=origin) if dtype else TOP
    if name == "Lambda":
        return TransformValue(name, fn=args.get(0, "lambd"), origin=origin)
    if name in ("ToTensor", "PILToTensor", "ToImage") or name in _KEEP_DTYPE:
        return TransformValue(name, origin=origin)
    return TOP


def apply(transform: TransformValue, x: Value, node: Any, default_float: str, call: Caller) -> Value:
    """``transform(x)``."""
    name = transform.name
    if name == "Compose":
        for step in transform.steps:
            x = apply(step, x, node, default_float, call) if isinstance(step, TransformValue) else call(step, x)
            if x is TOP:
                return TOP
        return x
    if name == "Lambda":
        return call(transform.fn, x)
    if name == "ToTensor":
        return _to_tensor(x, node, default_float)
    if name in ("PILToTensor", "ToImage") and isinstance(x, ArrayValue):
        return TensorValue(x.dtypes, _channels_first(x.shape), Origin(node, f"{name} keeps the array's dtype",
                                                                      x.origin), "cpu")
    if not isinstance(x, TensorValue):
        return TOP  # a PIL image or an unknown value: not followed
    if name in ("ConvertImageDtype", "ToDtype"):
        return TensorValue(frozenset({transform.dtype}), x.shape, Origin(node, f"{name} gives {transform.dtype}"),
                           x.device)
    if name in _KEEP_DTYPE:
        shape = x.shape if name in _KEEP_SHAPE or x.shape is None else tuple(
            d if i < len(x.shape) - 2 else None for i, d in enumerate(x.shape))
        return TensorValue(x.dtypes, shape, x.origin, x.device, x.requires_grad)
    return TOP


def _to_tensor(x: Value, node: Any, default_float: str) -> Value:
    """``ToTensor()(array)``: a uint8 H x W x C array becomes a C x H x W float image in [0, 1];
    any other array keeps its dtype (a float64 array gives a float64 tensor) and is not scaled."""
    if not isinstance(x, ArrayValue) or x.dtype is None:
        return TOP  # a PIL image: its mode decides (an "I" image gives int32)
    shape = _channels_first(x.shape)
    if x.dtype == UINT8:
        return TensorValue(frozenset({default_float}), shape, Origin(node, f"ToTensor scales uint8 to {default_float}"),
                           "cpu")
    return TensorValue(x.dtypes, shape, Origin(node, f"ToTensor keeps a {x.dtype} array's dtype (no scaling)",
                                               x.origin), "cpu")


def _channels_first(shape: Any) -> Any:
    """H x W x C -> C x H x W; H x W -> 1 x H x W; other ranks are refused by torchvision."""
    if shape is None or len(shape) not in (2, 3):
        return None
    return (1,) + tuple(shape) if len(shape) == 2 else (shape[2], shape[0], shape[1])
