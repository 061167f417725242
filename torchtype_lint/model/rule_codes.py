"""Every rule code there is, without importing a rule.

Each rule lives in a file named after its code (``rules/dtype/ttl210_float_tensor_index.py``,
docs/architecture.md), so the codes are the file names: checking ``--select TTL999`` against
them costs a directory listing, where importing the rules would cost libcst and the engine on a
run the cache would otherwise answer (tests/test_rule_codes.py checks the two agree).
"""
from __future__ import annotations

import os
import re
from functools import lru_cache
from typing import FrozenSet

_RULE_FILE = re.compile(r"(ttl[0-9]{3})_\w+\.py\Z")


@lru_cache(maxsize=1)
def known_codes() -> FrozenSet[str]:
    rules = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "rules")
    codes = set()
    for _, _, files in os.walk(rules):
        codes.update(m.group(1).upper() for m in map(_RULE_FILE.match, files) if m)
    return frozenset(codes)


def is_known_prefix(prefix: str) -> bool:
    """Does some rule's code start with ``prefix`` (``TTL``, ``TTL5``, ``TTL101``)?"""
    return any(code.startswith(prefix) for code in known_codes())
