"""An inferred tensor matched against a shape annotation (any dialect) read as a contract.

``Float[Tensor, "b c"]`` (or ``Annotated[Tensor, Shape("b", "c")]``, ``TensorType["b", "c"]``)
says two things: the dtypes it admits and a shape in which named dimensions are bound once
per call. The engine infers the shapes and dtypes of arguments
and return values; the rules report where the inferred facts contradict the annotation:
known ints and known dtype sets, and (``name_conflict``) another annotated size in a named
dim's place, which fits only for special sizes.
"""
from __future__ import annotations

from typing import Any, Dict, FrozenSet, Optional, Sequence, Tuple

from ...knowledge.jaxtyping_shapes import DimSpec
from ...knowledge.symbolic_dims import equality_condition, has_names, names_of
from ...model.values import COMMON_DTYPES, TensorValue, describe_dtypes, describe_shape
from ...knowledge.shape_dialects import ShapeAnnotation
from .shape_annotations import dtype_requirement


def match_shape(dims: Sequence[DimSpec], shape: Tuple[Any, ...], bound: Dict[str, Any]) -> Optional[str]:
    """Check a known-rank shape against parsed dims, binding named dims into ``bound``.

    Returns why they disagree (only from known ints), or None. Named dims already in
    ``bound`` must have the same size; a broadcastable dim of size 1 always passes.
    """
    variadic_at = next((i for i, d in enumerate(dims) if d.variadic), None)
    if variadic_at is None:
        if len(shape) != len(dims):
            return f"has {_dims(len(shape))}, the annotation {len(dims)}"
        pairs = list(zip(dims, shape))
    else:
        fixed_count = len(dims) - 1
        if len(shape) < fixed_count:
            return f"has {_dims(len(shape))}, the annotation at least {fixed_count}"
        after = len(dims) - variadic_at - 1
        pairs = list(zip(dims[:variadic_at], shape[:variadic_at]))
        pairs += list(zip(dims[variadic_at + 1:], shape[len(shape) - after:] if after else ()))
        middle = dims[variadic_at]
        if middle.kind == "named" and not middle.broadcastable:
            group = tuple(shape[variadic_at:len(shape) - after])
            name = "*" + str(middle.value)
            previous = bound.get(name)
            if previous is not None and len(previous) != len(group):
                # The ranks are known even where sizes are not: the groups cannot be the same.
                return (f"binds `{name}` to {_dims(len(group))} {describe_shape(group)} while it is already "
                        f"{_dims(len(previous))} {describe_shape(previous)}")
            if previous is not None and any(_known(x) and _known(y) and x != y for x, y in zip(previous, group)):
                return (f"binds `{name}` to {describe_shape(group)} while it is already "
                        f"{describe_shape(previous)}")
            bound.setdefault(name, group)
    for position, (dim, actual) in enumerate(pairs):
        if not isinstance(actual, int) or isinstance(actual, bool):
            continue
        if dim.broadcastable and actual == 1:
            continue
        if dim.kind == "fixed" and actual != dim.value:
            return f"has size {actual} where the annotation fixes {dim.value}"
        if dim.kind == "named":
            previous = bound.get(dim.value)
            if isinstance(previous, int) and previous != actual:
                return f"binds `{dim.value}` = {actual} while `{dim.value}` is already {previous}"
            bound.setdefault(dim.value, actual)
    return None


def _known(dim: Any) -> bool:
    return isinstance(dim, int) and not isinstance(dim, bool)


def name_conflict(dims: Sequence[DimSpec], shape: Tuple[Any, ...], declared: FrozenSet[str]) -> Optional[str]:
    """Where the value has another annotated size than the annotation names (``(d, b)`` for
    ``"b d"``): equal only for special sizes. Both names (or products of names) must be
    sizes the function's parameter annotations declare; without a variadic dim only."""
    if any(d.variadic for d in dims) or len(dims) != len(shape):
        return None
    for position, (dim, actual) in enumerate(zip(dims, shape)):
        if dim.kind != "named" or dim.broadcastable or not dim.value or dim.value not in declared:
            continue
        if not has_names(actual) or not all(n in declared for n in names_of(actual)):
            continue
        condition = equality_condition(dim.value, actual)
        if condition is not None:
            return (f"has `{actual}` in dimension {position} where the annotation says `{dim.value}` "
                    f"(equal only when {condition}, while the annotations promise any sizes)")
    return None


def _dims(n: int) -> str:
    return "1 dimension" if n == 1 else f"{n} dimensions"


def dtype_conflict(annotation: ShapeAnnotation, value: TensorValue) -> Optional[str]:
    """Why the value's dtypes break the annotation's, when every possible dtype does."""
    allowed = annotation.dtypes
    if allowed is None or value.dtypes is None or not value.dtypes:
        return None
    if not all(d in COMMON_DTYPES for d in value.dtypes):
        return None  # exotic dtypes (float8, uint16...) are not in our class table
    if any(d in allowed for d in value.dtypes):
        return None
    return f"is {describe_dtypes(value.dtypes)}, not {dtype_requirement(annotation)}"
