"""Read the op dtype-contract table (no torch): which dtypes a public op supports per device.

The data file is loaded on first use and kept (one ``json.loads``, a few milliseconds); files
whose calls never reach a contract lookup never load it.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Dict, FrozenSet, Optional, Tuple

DATA_FILE = Path(__file__).resolve().parent.parent / "data" / "op_contracts.json"
#: 2: name rows carry the CUDA observation columns (observed to run / to fail on a real GPU).
FORMAT_VERSION = 2
#: What a name row holds, in order; the op indices fill the rest of the row.
NAMES_COLUMNS = ("cpu", "cpu_declared", "cuda_declared", "cuda_observed_ok", "cuda_observed_fail",
                 "ops...")

#: One character per tracked dtype, in promotion order (numpy-like type codes; E = bfloat16).
DTYPE_CODES: Dict[str, str] = {
    "?": "bool", "B": "uint8", "b": "int8", "h": "int16", "i": "int32", "l": "int64",
    "e": "float16", "E": "bfloat16", "f": "float32", "d": "float64",
    "F": "complex64", "D": "complex128",
}
#: The dtypes the table speaks about; for any other dtype it knows nothing.
TRACKED_DTYPES: FrozenSet[str] = frozenset(DTYPE_CODES.values())


@dataclass(frozen=True)
class Contract:
    """What the table says about one public name (``torch.X``, ``Tensor.X``, ``Tensor.X_``,
    ``torch.nn.functional.X``, ``torch.linalg.X``...)."""

    name: str
    #: CPU dtypes treated as supported: every tracked dtype not observed to fail on CPU.
    cpu: FrozenSet[str]
    #: CPU dtypes OpInfo declares.
    cpu_declared: FrozenSet[str]
    #: CUDA dtypes OpInfo declares (``dtypesIfCUDA``; a declaration, not an observation).
    cuda: FrozenSet[str]
    #: OpInfo entries the name comes from.
    ops: Tuple[str, ...]
    #: CUDA dtypes that ran on a real GPU (newest observation file, see ``cuda_provenance``).
    cuda_observed_ok: FrozenSet[str] = frozenset()
    #: CUDA dtypes that failed on a real GPU with every sample and calling convention.
    cuda_observed_fail: FrozenSet[str] = frozenset()

    def fails_on_cpu(self, dtype: str) -> bool:
        """Observed on CPU to fail for ``dtype`` (tracked dtypes only)."""
        return dtype in TRACKED_DTYPES and dtype not in self.cpu

    def fails_on_cuda(self, dtype: str) -> bool:
        """Observed on a real GPU to fail for ``dtype``; a pair only declared is never a failure."""
        return dtype in self.cuda_observed_fail

    def runs_on_cuda(self, dtype: str) -> bool:
        """Observed to run on a GPU, or declared there and not observed to fail."""
        return dtype in self.cuda_observed_ok or (dtype in self.cuda and dtype not in self.cuda_observed_fail)

    def cuda_status(self, dtype: str) -> str:
        """"observed-ok", "observed-fails" or "declared-only" (not run on a GPU, or could not
        be exercised there)."""
        if dtype in self.cuda_observed_ok:
            return "observed-ok"
        if dtype in self.cuda_observed_fail:
            return "observed-fails"
        return "declared-only"

    def cuda_only_gap(self, dtype: str) -> bool:
        """Declared on CPU and observed to fail on a real GPU: works on CPU, no CUDA kernel."""
        return dtype in self.cpu_declared and self.fails_on_cuda(dtype)

    def cpu_message(self, dtype: str) -> Optional[str]:
        """torch's error for ``dtype`` on CPU as the generator observed it, if recorded."""
        code = _CODE_OF.get(dtype)
        for op in self.ops:
            message = _op_rows().get(op, {}).get("cpu_observed_fail", {}).get(code)
            if message:
                return message
        return None


_CODE_OF = {name: code for code, name in DTYPE_CODES.items()}


@lru_cache(maxsize=1)
def _data() -> dict:
    try:
        data = json.loads(DATA_FILE.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    if data.get("format") != FORMAT_VERSION or data.get("dtype_codes") != DTYPE_CODES:
        return {}
    return data


@lru_cache(maxsize=1)
def _decoded_sets() -> Tuple[FrozenSet[str], ...]:
    return tuple(frozenset(DTYPE_CODES[c] for c in codes) for codes in _data().get("sets", ()))


@lru_cache(maxsize=1)
def _op_rows() -> Dict[str, dict]:
    return {row["op"]: row for row in _data().get("ops", ())}


@lru_cache(maxsize=4096)
def contract(name: str) -> Optional[Contract]:
    """The contract of a public name, or None when the table does not cover it."""
    row = _data().get("names", {}).get(name)
    if row is None:
        return None
    sets = _decoded_sets()
    ops = _data()["ops"]
    cpu, cpu_declared, cuda, cuda_ok, cuda_fail = (sets[i] for i in row[:5])
    return Contract(name, cpu, cpu_declared, cuda, tuple(ops[i]["op"] for i in row[5:]),
                    cuda_ok, cuda_fail)


def supported(name: str, device: str) -> Optional[FrozenSet[str]]:
    """Dtypes ``name`` is treated as supporting on ``device`` ("cpu": not observed to fail;
    "cuda": observed to run, or declared and not observed to fail), or None when the table
    does not cover the name or the device."""
    found = contract(name)
    if found is None:
        return None
    if device == "cpu":
        return found.cpu
    if device == "cuda":
        return frozenset(d for d in TRACKED_DTYPES if found.runs_on_cuda(d))
    return None


def cuda_provenance() -> Optional[dict]:
    """The GPU run the table's CUDA observations come from (gpu, capability, torch, cuda,
    date, file...), or None when the table has none."""
    return _data().get("cuda_observations")


def torch_version() -> str:
    """The torch version the table was generated from ("" when the table is missing)."""
    return _data().get("torch", "")


def public_names() -> Tuple[str, ...]:
    return tuple(_data().get("names", {}))
