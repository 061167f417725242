"""Torch's real messages for each rule, recorded by ``torchtype-lint confirm --record``.

The data file is written by the runtime harness (the only part that imports torch) and read
here without torch, so rule docs can show what torch printed.
"""
from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path
from typing import Dict, Optional

DATA_FILE = Path(__file__).with_name("data") / "confirmations.json"


@lru_cache(maxsize=1)
def _load() -> Dict[str, dict]:
    try:
        return json.loads(DATA_FILE.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}


def runtime_message(code: str) -> Optional[Dict[str, str]]:
    """{'torch': version, 'message': first line} recorded for ``code`` on CPU, if any."""
    entry = _load().get("rules", {}).get(code)
    if not entry:
        return None
    return {"torch": _load().get("torch", "?"), "message": entry.get("cpu", {}).get("message", "")}
