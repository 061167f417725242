"""libcst's ``parse_module`` without validating again each node it builds from valid Python.

Every libcst node checks itself when it is constructed (``CSTNode.__post_init__`` calls
``_validate``: whitespace against regular expressions, balanced parentheses...), about a third
of a parse. libcst's own comment there says validation could be skipped when parsing a file.
It is skipped only for text CPython's parser accepted (the screen compiles every text first):
libcst's grammar takes some code Python refuses (``f(a=1, b)``) that only validation rejects.
Nodes built any other way (a fix's replacement node) are validated as always.
"""
from __future__ import annotations

import threading

import libcst as cst
from libcst._nodes.base import CSTNode

from . import cst_identity  # noqa: F401 - imported for its effect: nodes hash in C (every parse comes here)

#: The switch is the class's, so every parse holds this while it runs: a parse that validates
#: never runs while another has validation off.
_lock = threading.Lock()
_validating_post_init = CSTNode.__post_init__


def _no_validation(self: CSTNode) -> None:
    return None


def parse_module(source: str, python_accepts: bool) -> cst.Module:
    """``cst.parse_module(source)``, the same tree; its nodes not validated again when
    CPython's parser accepted ``source`` (``screen.screen_for_parse`` says whether it did)."""
    with _lock:
        if not python_accepts:
            return cst.parse_module(source)
        CSTNode.__post_init__ = _no_validation  # type: ignore[method-assign]
        try:
            return cst.parse_module(source)
        finally:
            CSTNode.__post_init__ = _validating_post_init  # type: ignore[method-assign]
