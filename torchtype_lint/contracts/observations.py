"""CUDA observation files: what torch did, pair by pair, when each op ran on a real GPU (no torch).

``python -m torchtype_lint.contracts observe`` writes one file per GPU run into
``torchtype_lint/data/cuda_observations/``; ``generate`` and ``merge`` fold the newest one into
the op-contract table. A file says, per OpInfo op, which tracked dtypes ran on the device
(``ok``), which failed with a dtype error for every sample and calling convention (``fails``,
with torch's first message line) and which could not be exercised (``unverified``, with why).
A pair the file does not mention was not run: the table keeps it as declared-only.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Dict, FrozenSet, List, Mapping, Optional

from .table import DTYPE_CODES

OBSERVATIONS_DIR = Path(__file__).resolve().parent.parent / "data" / "cuda_observations"
OBSERVATION_FORMAT = 1
_CODE_OF = {name: code for code, name in DTYPE_CODES.items()}
#: Canonical order of the tracked dtypes, so that a dtype set always prints the same.
_ORDER = tuple(DTYPE_CODES.values())


@dataclass(frozen=True)
class Provenance:
    """Where and how the observations were made."""

    device: str            # "cuda" for a real run ("cpu" only for a dry run of the command)
    gpu: str               # torch.cuda.get_device_name(0)
    capability: str        # compute capability, "9.0"
    torch: str             # torch.__version__ on that machine
    cuda: str              # torch.version.cuda
    date: str              # YYYY-MM-DD (UTC) of the run
    command: str           # the command that produced the observations
    scope: str             # which (op, dtype) pairs were run
    complete: bool         # False when the run stopped early (budget, broken CUDA context)
    python: str = ""
    project_commit: str = ""
    seconds: float = 0.0
    notes: str = ""


@dataclass(frozen=True)
class OpObservation:
    """One OpInfo op on the device: dtype names that ran, failed, or could not be exercised."""

    ok: FrozenSet[str] = frozenset()
    fails: Mapping[str, str] = field(default_factory=dict)       # dtype -> torch's message
    unverified: Mapping[str, str] = field(default_factory=dict)  # dtype -> why

    def status(self, dtype: str) -> Optional[str]:
        """"ok", "fails", "unverified", or None when the pair was not run."""
        if dtype in self.ok:
            return "ok"
        if dtype in self.fails:
            return "fails"
        if dtype in self.unverified:
            return "unverified"
        return None


@dataclass(frozen=True)
class Observation:
    provenance: Provenance
    ops: Mapping[str, OpObservation]
    #: The file it was read from ("" for one built in memory).
    file: str = ""

    def counts(self) -> Dict[str, int]:
        """Pairs per outcome, for summaries and the table's provenance record."""
        return {"ok": sum(len(o.ok) for o in self.ops.values()),
                "fails": sum(len(o.fails) for o in self.ops.values()),
                "unverified": sum(len(o.unverified) for o in self.ops.values())}


def _codes(dtypes: Any) -> str:
    chosen = set(dtypes)
    return "".join(_CODE_OF[d] for d in _ORDER if d in chosen)


def _coded(mapping: Mapping[str, str]) -> Dict[str, str]:
    return {_CODE_OF[d]: mapping[d] for d in _ORDER if d in mapping}


def dumps(observation: Observation) -> str:
    """Compact JSON, one op per line, so that the diff between two GPU runs reads well."""
    rows: List[str] = []
    for name in sorted(observation.ops):
        op = observation.ops[name]
        row: Dict[str, Any] = {}
        # Empty keys are left out: most ops have no failure and nothing unverified.
        if op.ok:
            row["ok"] = _codes(op.ok)
        if op.fails:
            row["fails"] = _coded(op.fails)
        if op.unverified:
            row["unverified"] = _coded(op.unverified)
        rows.append(json.dumps(name) + ": " + json.dumps(row, separators=(",", ":"), ensure_ascii=False))
    head = {
        "format": OBSERVATION_FORMAT,
        "about": "torch op x dtype observed on a device with OpInfo's sample inputs "
                 "(python -m torchtype_lint.contracts observe); a pair not listed was not run",
        "provenance": vars(observation.provenance),
        "counts": observation.counts(),
        "dtype_codes": DTYPE_CODES,
    }
    lines = ["{"] + [f"{json.dumps(k)}: {json.dumps(v, separators=(',', ':'))}," for k, v in head.items()]
    return "\n".join(lines + ['"ops": {', ",\n".join(rows), "}", "}"]) + "\n"


def loads(text: str, file: str = "") -> Observation:
    """Parse an observation file; ValueError when it is not one this version understands."""
    data = json.loads(text)
    if data.get("format") != OBSERVATION_FORMAT:
        raise ValueError(f"{file or 'observation'}: format {data.get('format')!r}, expected {OBSERVATION_FORMAT}")
    codes = data["dtype_codes"]  # the file's own code table, so a reordering cannot misread it
    ops = {
        name: OpObservation(
            ok=frozenset(codes[c] for c in row.get("ok", "")),
            fails={codes[c]: m for c, m in row.get("fails", {}).items()},
            unverified={codes[c]: m for c, m in row.get("unverified", {}).items()})
        for name, row in data["ops"].items()
    }
    return Observation(Provenance(**data["provenance"]), ops, file)


def read(path: Path) -> Observation:
    return loads(path.read_text(encoding="utf-8"), path.name)


def newest(directory: Path = OBSERVATIONS_DIR) -> Optional[Observation]:
    """The most recent run on a real GPU in ``directory`` (by date, then file name), or None.
    Dry runs on CPU never count: they say nothing about CUDA."""
    found = [read(path) for path in sorted(directory.glob("*.json"))] if directory.is_dir() else []
    real = [o for o in found if o.provenance.device == "cuda"]
    return max(real, key=lambda o: (o.provenance.date, o.file)) if real else None
