"""Importing this module registers every rule. Add new rule modules here."""
from . import annotations, casts, shapes, tool  # noqa: F401
