"""``check --watch``: check, then check again whenever a Python file, a notebook or a
``pyproject.toml`` under the given paths changes, until interrupted (Ctrl-C, exit 0).

File events come from ``watchfiles`` (Rust's notify underneath: inotify, FSEvents, ...),
an optional dependency: ``pip install 'torchtype-lint[watch]'``.
"""
from __future__ import annotations

import os
import sys
import time
from typing import Callable, Sequence

WATCHED_SUFFIXES = (".py", ".pyi", ".ipynb")
WATCHED_NAMES = ("pyproject.toml",)


class WatchUnavailable(Exception):
    """watchfiles is not installed."""


def is_relevant(path: str) -> bool:
    name = os.path.basename(path)
    return name.endswith(WATCHED_SUFFIXES) or name in WATCHED_NAMES


def watch(paths: Sequence[str], check_once: Callable[[], int], log: Callable[[str], None]) -> int:
    try:
        import watchfiles
    except ImportError:
        raise WatchUnavailable("--watch needs the watchfiles package: pip install 'torchtype-lint[watch]'") from None
    roots = [p for p in paths if os.path.exists(p)] or ["."]
    log(f"[{time.strftime('%H:%M:%S')}] Starting torchtype-lint in watch mode...")
    check_once()
    try:
        for _ in watchfiles.watch(*roots, watch_filter=lambda _change, path: is_relevant(path)):
            log(f"[{time.strftime('%H:%M:%S')}] File change detected...")
            check_once()
            sys.stdout.flush()
    except KeyboardInterrupt:
        pass
    return 0
