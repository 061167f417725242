"""Torch's real messages for each rule, recorded by ``torchtype-lint confirm --record``.

The data file is written by the runtime harness (the only part that imports torch) and read
here without torch, so rule docs can show what torch printed.
"""
from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path
from typing import Dict, Optional

DATA_FILE = Path(__file__).resolve().parent.parent / "data" / "confirmations.json"


@lru_cache(maxsize=1)
def _load() -> Dict[str, dict]:
    try:
        return json.loads(DATA_FILE.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}


def runtime_message(code: str) -> Optional[Dict[str, str]]:
    """{'torch': version, 'message': first line} of the failure recorded for ``code``: on CPU,
    else on CUDA (claims that hold only there), and only where the harness confirmed it."""
    entry = _load().get("rules", {}).get(code)
    if not entry:
        return None
    for device in ("cpu", "cuda"):
        observed = entry.get(device, {})
        # "fails" is False where the claim says the bad fixture runs cleanly on this device.
        if observed.get("status") == "confirmed" and observed.get("fails", True) and observed.get("message"):
            return {"torch": _load().get("torch", "?"), "message": observed["message"]}
    return None
