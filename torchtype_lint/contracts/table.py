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
FORMAT_VERSION = 1

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
    #: CUDA dtypes OpInfo declares (not verified here: no GPU).
    cuda: FrozenSet[str]
    #: OpInfo entries the name comes from.
    ops: Tuple[str, ...]

    def fails_on_cpu(self, dtype: str) -> bool:
        """Observed on CPU to fail for ``dtype`` (tracked dtypes only)."""
        return dtype in TRACKED_DTYPES and dtype not in self.cpu

    def cuda_only_gap(self, dtype: str) -> bool:
        """Declared on CPU, not declared on CUDA: torch's own tests say CUDA has no kernel."""
        return dtype in self.cpu_declared and dtype not in self.cuda

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
    return Contract(name, sets[row[0]], sets[row[1]], sets[row[2]],
                    tuple(ops[i]["op"] for i in row[3:]))


def supported(name: str, device: str) -> Optional[FrozenSet[str]]:
    """Dtypes ``name`` supports on ``device`` ("cpu": observed, "cuda": OpInfo's
    declaration), or None when the table does not cover the name or the device."""
    found = contract(name)
    if found is None:
        return None
    if device == "cpu":
        return found.cpu
    if device == "cuda":
        return found.cuda
    return None


def torch_version() -> str:
    """The torch version the table was generated from ("" when the table is missing)."""
    return _data().get("torch", "")


def public_names() -> Tuple[str, ...]:
    return tuple(_data().get("names", {}))
