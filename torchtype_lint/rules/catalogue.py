"""Importing this module registers every rule. Add new rule modules here."""
from . import annotations, casts, contracts, mixing, numpy_casts, pedantic, precision, shapes, tool  # noqa: F401
