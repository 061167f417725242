"""Code that runs on CPU and raises on CUDA, as observed on a real GPU (no torch here).

The facts are cases of a measurement that ran the same small programs on CPU and on CUDA in
one process (``shared/gpu/mixed_dtype_divergence.py``: 2,800 cases of ``nn`` modules with
parameters of one dtype and input of another, parameterless ops and pools on every dtype,
losses, indexed writes, binary ops). ``torchtype_lint/data/gpu_only_failures.json`` keeps the
cases that ran on CPU and raised on CUDA, each with torch's first line on CUDA, and the run's
provenance (GPU, compute capability, torch version, date). The TTL26x rules (``rules/gpu/``)
report a call only when it matches one of these cases exactly (same op, same dtypes), so every
report rests on an observed failure; ``tests/test_gpu_only_rules.py`` checks the CPU half of
every case against the installed torch.

Re-observe on a GPU machine, then derive the data file from the measurement:

    python3 mixed_dtype_divergence.py OUT.json cpu cuda
    python -m torchtype_lint.knowledge.gpu_only derive OUT.json --capability 9.0 --date YYYY-MM-DD
"""
from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, Tuple

DATA_FILE = Path(__file__).resolve().parent.parent / "data" / "gpu_only_failures.json"
FORMAT_VERSION = 1
ABOUT = ("cases that ran on CPU and raised on CUDA when the same program ran on both devices in one "
         "process (the rows of the measurement whose cpu column is 'ok' and whose cuda column is not); "
         "each keeps the measurement's case name and torch's first line on CUDA. Written by "
         "'python -m torchtype_lint.knowledge.gpu_only derive'; read by the TTL26x rules.")


@dataclass(frozen=True)
class Provenance:
    """The GPU run the cases come from."""

    gpu: str            # torch.cuda.get_device_name(0)
    capability: str     # compute capability, "9.0"
    torch: str          # torch.__version__ on that machine (the CPU column ran with it too)
    date: str           # YYYY-MM-DD of the run
    source: str         # the measurement file the cases were selected from
    command: str        # how the measurement was made
    cases_run: int      # cases in the measurement
    divergent: int      # cases where CPU and CUDA disagreed (either way)

    def seen_on(self) -> str:
        """How a message names the run: "NVIDIA H100 80GB HBM3, torch 2.11.0+cu130"."""
        return f"{self.gpu}, torch {self.torch}"


@dataclass(frozen=True)
class GpuOnlyCase:
    """One program that ran on CPU and raised on CUDA: ``name`` is the measurement's name for
    what ran (``LayerNorm``, ``MaxPool2d``, ``x[mask]=v0d``, ``matmul``, ``einsum.ij,jk``),
    ``dtypes`` the dtype of each role in it (``params``, ``input``, ``dest``, ``src``, ``a``...)."""

    family: str
    case: str                               # the measurement's case name, verbatim
    name: str
    dtypes: Tuple[Tuple[str, str], ...]     # (role, dtype), in the case name's order
    cuda: str                               # "<Exception>: <first line>" torch raised on CUDA

    def dtype(self, role: str) -> Optional[str]:
        return dict(self.dtypes).get(role)

    @property
    def exception(self) -> str:
        return self.cuda.split(":", 1)[0]

    @property
    def message(self) -> str:
        """torch's words on CUDA, without the exception class."""
        return self.cuda.split(": ", 1)[1] if ": " in self.cuda else self.cuda


def parse_case(family: str, case: str, cuda: str) -> GpuOnlyCase:
    """``"LayerNorm params=float32 input=float16"``: the name, then ``role=dtype`` words."""
    name, *words = case.split(" ")
    dtypes = tuple(tuple(word.split("=", 1)) for word in words)  # type: ignore[misc]
    return GpuOnlyCase(family, case, name, dtypes, cuda)  # type: ignore[arg-type]


@lru_cache(maxsize=1)
def _data() -> Dict[str, Any]:
    try:
        data = json.loads(DATA_FILE.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if data.get("format") == FORMAT_VERSION else {}


@lru_cache(maxsize=1)
def cases() -> Tuple[GpuOnlyCase, ...]:
    """Every case of the shipped data file (none when it is missing or of another format)."""
    return tuple(parse_case(row["family"], row["case"], row["cuda"]) for row in _data().get("cases", ()))


@lru_cache(maxsize=1)
def provenance() -> Optional[Provenance]:
    found = _data().get("provenance")
    return Provenance(**found) if found else None


@lru_cache(maxsize=None)
def _index() -> Dict[str, Tuple[GpuOnlyCase, ...]]:
    by_name: Dict[str, List[GpuOnlyCase]] = {}
    for found in cases():
        by_name.setdefault(found.name, []).append(found)
    return {name: tuple(found) for name, found in by_name.items()}


def cuda_failure(name: str, **dtypes: str) -> Optional[GpuOnlyCase]:
    """The observed case of ``name`` whose roles have exactly these dtypes (roles not given
    are free: the index dtype of a masked write), or None when no such case failed on CUDA."""
    for found in _index().get(name, ()):
        if all(found.dtype(role) == dtype for role, dtype in dtypes.items()):
            return found
    return None


def seen_on() -> str:
    """The GPU run as a message names it ("a GPU" when the data file is missing)."""
    found = provenance()
    return found.seen_on() if found else "a GPU"


# --------------------------------------------------------------------------- deriving the file


def derive(measurement: Dict[str, Any], capability: str, date: str, source: str) -> Dict[str, Any]:
    """The data file for a measurement of ``mixed_dtype_divergence.py`` run on ``cpu cuda``:
    its rows that ran on CPU and raised on CUDA, in the measurement's order."""
    meta = measurement["meta"]
    if list(meta.get("devices", ())) != ["cpu", "cuda"]:
        raise ValueError(f"the measurement ran on {meta.get('devices')}, not on cpu and cuda")
    rows = [{"family": row["family"], "case": row["case"], "cuda": row["cuda"]}
            for row in measurement["rows"] if row["cpu"] == "ok" and row["cuda"] != "ok"]
    return {
        "format": FORMAT_VERSION,
        "about": ABOUT,
        "provenance": {"gpu": meta["gpu"], "capability": capability, "torch": meta["torch"], "date": date,
                       "source": source, "command": "python3 mixed_dtype_divergence.py OUT.json cpu cuda",
                       "cases_run": meta["cases"], "divergent": meta["divergent"]},
        "cases": rows,
    }


def dumps(data: Dict[str, Any]) -> str:
    """The file's text: one case a line, so a new measurement reads as a short diff."""
    head = {key: value for key, value in data.items() if key != "cases"}
    lines = [json.dumps(head, ensure_ascii=False)[:-1] + ', "cases": [']
    lines += [json.dumps(row, ensure_ascii=False) + ("," if i < len(data["cases"]) - 1 else "")
              for i, row in enumerate(data["cases"])]
    return "\n".join(lines) + "\n]}\n"


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m torchtype_lint.knowledge.gpu_only",
                                     description="Derive the GPU-only failure cases from a CPU-vs-CUDA measurement.")
    sub = parser.add_subparsers(dest="subcommand", required=True)
    der = sub.add_parser("derive", help=f"rewrite {DATA_FILE.name} from a measurement")
    der.add_argument("measurement", type=Path)
    der.add_argument("--capability", required=True, help="the GPU's compute capability, e.g. 9.0")
    der.add_argument("--date", required=True, help="the day of the measurement, YYYY-MM-DD")
    der.add_argument("--out", type=Path, default=DATA_FILE)
    args = parser.parse_args(argv)
    measurement = json.loads(args.measurement.read_text(encoding="utf-8"))
    data = derive(measurement, args.capability, args.date, args.measurement.name)
    args.out.write_text(dumps(data), encoding="utf-8")
    print(f"{len(data['cases'])} of {data['provenance']['cases_run']} cases ran on CPU and raised on CUDA "
          f"-> {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
