"""Convert a measurement made before ``observe`` existed into an observation file (no torch).

The first GPU run (2026-11-26, an H100 with torch 2.11) used a stand-alone script whose output
is ``{"meta": {...}, "summary": {...}, "results": [{"op", "dtype", "claim", "cuda",
"message"}, ...]}``: every pair the table of the day reported as failing on CUDA, plus two
declared dtypes per op as a control, each classified by the same rule ``observe`` uses.
``python -m torchtype_lint.contracts convert`` turns it into this project's format; the
provenance the script did not record (date, command, CUDA version) is given on the command line.
"""
from __future__ import annotations

from typing import Any, Dict, Mapping

from .observations import Observation, OpObservation, Provenance
from .table import TRACKED_DTYPES


def from_reference(data: Mapping[str, Any], provenance: Provenance) -> Observation:
    """The reference measurement ``data`` as an Observation with ``provenance``."""
    meta = data.get("meta", {})
    if meta.get("device") != "cuda":
        raise ValueError(f"not a CUDA measurement (device {meta.get('device')!r})")
    # The recorded environment must be the one the provenance claims.
    for key in ("gpu", "capability", "torch"):
        if meta.get(key) != getattr(provenance, key):
            raise ValueError(f"provenance {key} {getattr(provenance, key)!r} but the file says {meta.get(key)!r}")
    ok: Dict[str, set] = {}
    fails: Dict[str, Dict[str, str]] = {}
    unverified: Dict[str, Dict[str, str]] = {}
    for result in data["results"]:
        op, dtype, outcome = result["op"], result["dtype"], result["cuda"]
        if dtype not in TRACKED_DTYPES:
            continue  # the table speaks about twelve dtypes only
        if outcome == "ok":
            ok.setdefault(op, set()).add(dtype)
        elif outcome == "fails":
            fails.setdefault(op, {})[dtype] = result["message"]
        elif outcome == "unverified":
            unverified.setdefault(op, {})[dtype] = result["message"] or "not exercised"
        else:
            raise ValueError(f"{op} {dtype}: unknown outcome {outcome!r}")
    ops = {
        name: OpObservation(frozenset(ok.get(name, ())), fails.get(name, {}), unverified.get(name, {}))
        for name in sorted(set(ok) | set(fails) | set(unverified))
    }
    return Observation(provenance, ops)
