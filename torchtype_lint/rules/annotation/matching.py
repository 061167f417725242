"""An inferred tensor matched against a shape annotation (any dialect) read as a contract.

``Float[Tensor, "b c"]`` (or ``Annotated[Tensor, Shape("b", "c")]``, ``TensorType["b", "c"]``)
says two things: the dtypes it admits and a shape in which named dimensions are bound once
per call. The engine infers the shapes and dtypes of arguments
and return values; the rules report where the inferred facts contradict the annotation
(only known ints and known dtype sets, never symbolic dims).
"""
from __future__ import annotations

from typing import Any, Dict, Optional, Sequence, Tuple

from ...knowledge.jaxtyping_shapes import DimSpec
from ...values import COMMON_DTYPES, TensorValue, describe_dtypes, describe_shape
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
            known = all(isinstance(d, int) for d in group)
            name = "*" + str(middle.value)
            if known:
                if name in bound and bound[name] != group:
                    return (f"binds `{name}` to {describe_shape(group)} while it is already "
                            f"{describe_shape(bound[name])}")
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
