"""Project modules parsed once in a long-lived front-end process (the flake8 plugin's), so the
children it forks, one a file (``bounded.call_bounded``), inherit the trees instead of each
parsing every module its file imports again.

A child tells its parent which modules it parsed (``parsed_keys``); the parent then parses
them itself (``adopt``), into the same per-process table ``sources.py`` looks in
(path and SHA-256 of the bytes), so the next child forked finds them there. The parent parses
only bytes a child already parsed under the memory cap and deadline of ``call_bounded`` (same
path, same hash), so no input reaches the parent's parser that was not proven harmless, and it
keeps at most ``SHARED_PARSE_CHARS`` characters of them (about 16 bytes of tree a character).
"""
from __future__ import annotations

from collections import OrderedDict
from typing import Iterable, List, Tuple

from . import sources

#: Characters of parsed modules a parent keeps for its children (about 64 MB of trees).
SHARED_PARSE_CHARS = 4_000_000
#: (path, sha256) -> characters of the module the parent adopted, oldest first.
_adopted: "OrderedDict[Tuple[str, str], int]" = OrderedDict()


def parsed_keys() -> List[Tuple[str, str]]:
    """(path, sha256) of every module this process holds parsed (a child's answer)."""
    return [key for key, module in sources._parsed.items() if module is not None]


def adopt(keys: Iterable[Tuple[str, str]]) -> None:
    """Parse here, once, the modules a child parsed (``keys``: its ``parsed_keys``), so that
    children forked later inherit them; a file changed since (another hash) is left out."""
    for key in keys:
        if key in _adopted:
            _adopted.move_to_end(key)
            continue
        if key in sources._parsed:
            continue  # parsed here already (this process analysed in-process)
        path, digest = key
        data = sources.read_module_bytes(path)
        if data is None or sources.content_hash(data) != digest:
            continue  # changed or gone since the child read it: not proven harmless
        module = sources._parse(data)
        if module is None:
            continue
        sources.remember_parse(key, module)
        _adopted[key] = len(data)  # bytes: about its characters, without rendering the tree
        _evict()


def _evict() -> None:
    """Drop the oldest adopted trees beyond ``SHARED_PARSE_CHARS`` (and those the table's own
    bound dropped already)."""
    total = sum(_adopted.values())
    while _adopted and total > SHARED_PARSE_CHARS:
        key, size = _adopted.popitem(last=False)
        sources._parsed.pop(key, None)
        total -= size
    for key in [k for k in _adopted if k not in sources._parsed]:
        del _adopted[key]
