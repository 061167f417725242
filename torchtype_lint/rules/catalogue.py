"""Importing this module registers every rule. Add new rule modules here."""
from . import casts, tool  # noqa: F401
