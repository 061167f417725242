"""Equality comparison chains: their links, and what an always-false equality evaluates to."""
from __future__ import annotations

from typing import Any

import libcst as cst


_EQUALITY = (cst.Equal, cst.NotEqual, cst.Is, cst.IsNot)


def _comparison_pairs(node: cst.Comparison):
    """(left node, operator, right node) for each link of a comparison chain."""
    left = node.left
    for target in node.comparisons:
        yield left, target.operator, target.comparator
        left = target.comparator


def _always(operator: Any) -> str:
    return "True" if isinstance(operator, (cst.NotEqual, cst.IsNot)) else "False"
