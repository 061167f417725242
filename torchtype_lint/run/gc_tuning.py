"""The cyclic garbage collector's thresholds in the linter's own processes.

Parsing and analysing a file allocates hundreds of thousands of objects that live until the
file is done, and hardly any of them is garbage in a cycle; at Python's default thresholds
(700, 10, 10) the collector walks them again and again while they are being built. Collecting
young objects every 50,000 net allocations instead cut the CPU of checking torch/nn by about
a tenth for about 5 MiB more peak memory (mypy raises its threshold for the same reason).
Only processes the linter owns call this (the CLI, its workers, the language server and its
analysis child); the flake8 plugin runs inside flake8 and leaves the host's collector alone.
"""
from __future__ import annotations

import gc

#: (young generation: net allocations between collections, middle, oldest): collections of one
#: generation between collections of the next.
THRESHOLDS = (50_000, 20, 20)


def tune_collector() -> None:
    """Set ``THRESHOLDS`` (unless the collector is off, as a caller may have chosen)."""
    if gc.isenabled():
        gc.set_threshold(*THRESHOLDS)
