"""The rules' names for jaxtyping shape strings, kept for their importers: the one parser is
``knowledge/jaxtyping_shapes.py`` (``MalformedShape`` is its ``ShapeSpecError``)."""
from __future__ import annotations

from ...knowledge.jaxtyping_shapes import DimSpec, parse_jaxtyping_shape  # noqa: F401
from ...knowledge.jaxtyping_shapes import ShapeSpecError as MalformedShape  # noqa: F401
