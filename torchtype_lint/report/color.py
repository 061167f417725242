"""Colour on a terminal, never in a pipe, a file or a CI log that did not ask for it.

``--color always|never`` decides; with ``auto`` (the default) the environment does, as ruff
reads it: ``FORCE_COLOR`` (non-empty) or ``CLICOLOR_FORCE`` (not ``0``) turn colour on,
``NO_COLOR`` (non-empty, https://no-color.org) or ``CLICOLOR=0`` turn it off, and otherwise
colour follows whether the output is a terminal.
"""
from __future__ import annotations

import os
import re
from typing import IO, Mapping, Optional

CHOICES = ("auto", "always", "never")

_BOLD, _RED, _GREEN, _CYAN, _RESET = "\033[1m", "\033[31m", "\033[32m", "\033[36m", "\033[0m"
#: The start of a concise or full line: ``path[:cell N]:line:col: CODE ``.
_FINDING = re.compile(r"^(?P<path>.+?)(?P<pos>(?::cell \d+)?:\d+:\d+:) (?P<code>TTL\d+) ", re.MULTILINE)


def wants_color(choice: str, stream: Optional[IO[str]], env: Optional[Mapping[str, str]] = None) -> bool:
    if choice == "always":
        return True
    if choice == "never" or stream is None:
        return False
    env = os.environ if env is None else env
    if env.get("FORCE_COLOR"):
        return True
    if env.get("CLICOLOR_FORCE", "0") != "0":
        return True
    if env.get("NO_COLOR") or env.get("CLICOLOR") == "0":
        return False
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty())


def paint_findings(text: str) -> str:
    """Bold paths and red codes at the start of each finding line (concise and full)."""
    return _FINDING.sub(lambda m: f"{_BOLD}{m['path']}{_RESET}{_CYAN}{m['pos']}{_RESET} "
                                  f"{_BOLD}{_RED}{m['code']}{_RESET} ", text)


def green(text: str) -> str:
    return f"{_BOLD}{_GREEN}{text}{_RESET}"
