"""Fold a CUDA observation file into the op-contract table (no torch).

``generate`` calls it on the table it builds; ``python -m torchtype_lint.contracts merge`` calls
it on the committed table, so that a new GPU run lands without re-running the CPU probe.

Per OpInfo op the table gets two code strings: ``cuda_observed_ok`` (ran on the GPU) and
``cuda_observed_fail`` (every sample failed with a dtype error); every other dtype is
declared-only (OpInfo's ``dtypesIfCUDA``, not run). Per public name, reached from one or more
ops: observed to run when any of its ops ran, observed to fail only when all of its ops failed
(the same "some calling convention works, so the dtype is supported" rule as on CPU).
"""
from __future__ import annotations

from typing import Any, Dict, FrozenSet, List, Optional

from .observations import Observation
from .table import DTYPE_CODES, FORMAT_VERSION, NAMES_COLUMNS

_CODE_OF = {name: code for code, name in DTYPE_CODES.items()}
_ORDER = tuple(DTYPE_CODES.values())


def _codes(dtypes: Any) -> str:
    chosen = set(dtypes)
    return "".join(_CODE_OF[d] for d in _ORDER if d in chosen)


def _decode(codes: str) -> FrozenSet[str]:
    return frozenset(DTYPE_CODES[c] for c in codes)


class _SetIndex:
    """The table's deduplicated dtype sets: existing indices stay, new sets are appended."""

    def __init__(self, items: List[str]) -> None:
        self.items = list(items)
        self._index = {key: i for i, key in enumerate(self.items)}

    def ref(self, dtypes: Any) -> int:
        key = _codes(dtypes)
        if key not in self._index:
            self._index[key] = len(self.items)
            self.items.append(key)
        return self._index[key]


def provenance_record(observation: Observation) -> Dict[str, Any]:
    """What the table says about the run its CUDA observations come from."""
    p = observation.provenance
    return {"file": observation.file, "gpu": p.gpu, "capability": p.capability, "torch": p.torch,
            "cuda": p.cuda, "date": p.date, "complete": p.complete, "scope": p.scope}


def merge(table: Dict[str, Any], observation: Optional[Observation]) -> Dict[str, Any]:
    """A copy of ``table`` whose CUDA observation columns come from ``observation``
    (all empty, every pair declared-only, when it is None). ``table`` may be a table of the
    previous format, whose name rows lack the two observation columns."""
    first_op = table["names_columns"].index("ops...")  # where a name row's op indices start
    ops: List[Dict[str, Any]] = []
    for row in table["ops"]:
        seen = observation.ops.get(row["op"]) if observation is not None else None
        new_row = dict(row)
        new_row["cuda_observed_ok"] = _codes(seen.ok) if seen else ""
        # A dtype that ran is supported, whatever else the file says about it.
        new_row["cuda_observed_fail"] = _codes(set(seen.fails) - seen.ok) if seen else ""
        ops.append(new_row)
    sets = _SetIndex(table["sets"])
    names: Dict[str, List[int]] = {}
    for name, row in table["names"].items():
        owners = row[first_op:]
        ran = frozenset().union(*(_decode(ops[i]["cuda_observed_ok"]) for i in owners))
        # A name fails only where every op it may reach failed (aliases share kernels).
        failed = frozenset.intersection(*(_decode(ops[i]["cuda_observed_fail"]) for i in owners)) - ran \
            if owners else frozenset()
        names[name] = row[:3] + [sets.ref(ran), sets.ref(failed)] + owners
    merged: Dict[str, Any] = {}
    for key, value in table.items():
        if key == "cuda_observations":
            continue  # rewritten right after cuda_model, below
        merged[key] = value
        if key == "cuda_model":
            merged["cuda_observations"] = provenance_record(observation) if observation else None
    merged.update(format=FORMAT_VERSION, sets=sets.items, names_columns=list(NAMES_COLUMNS),
                  names=names, ops=ops)
    return merged


def pair_counts(table: Dict[str, Any]) -> Dict[str, int]:
    """(op, dtype) pairs per CUDA status, over the table's OpInfo ops."""
    ok = sum(len(row.get("cuda_observed_ok", "")) for row in table["ops"])
    fails = sum(len(row.get("cuda_observed_fail", "")) for row in table["ops"])
    total = len(table["ops"]) * len(DTYPE_CODES)
    return {"observed-ok": ok, "observed-fails": fails, "declared-only": total - ok - fails}
