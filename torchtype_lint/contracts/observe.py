"""Observe every op-contract pair on a device (developer tool; imports torch; meant for a GPU).

For each OpInfo op of the installed torch and each of the twelve tracked dtypes, the op's own
sample inputs are built on the device in that dtype and run, by the rule the CPU probe uses
(``generate.probe_variants``): the dtype is supported as soon as one variant runs one sample,
and fails only when every sample of every variant fails with an error about a dtype; anything
else is unverified. On a CPU (``device="cpu"``) the same code reproduces the table's CPU column,
which is how it is tested on machines without a GPU.

Pairs the linter could report (not declared on the device) run first, so that a run cut short
by its time budget still settles the findings; a pair not run stays declared-only in the table.
"""
from __future__ import annotations

import datetime
import platform
import re
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Dict, Iterable, List, Optional, Sequence, Set

from . import generate as G
from .observations import OBSERVATIONS_DIR, Observation, OpObservation, Provenance

#: What a full run covers, written into the provenance.
SCOPE_ALL = "every tracked dtype of every OpInfo op with a public name (12 x {ops} pairs)"


@dataclass(frozen=True)
class Pair:
    op: str
    dtype: str


@dataclass(frozen=True)
class Outcome:
    pair: Pair
    result: str      # "ok", "fails", "unverified"
    message: str


def variants_by_op(op_db: Iterable) -> Dict[str, list]:
    """OpInfo entries per op name, as the table merges them (``with_dtype`` variants left out,
    entries without a public name too: the table has no row for them)."""
    grouped: Dict[str, list] = {}
    for op in op_db:
        if op.variant_test_name in G.DTYPE_ARGUMENT_VARIANTS or not G.public_names(op):
            continue
        grouped.setdefault(op.name, []).append(op)
    return grouped


def pairs_in_order(grouped: Dict[str, list], device: str) -> List[Pair]:
    """Every (op, tracked dtype): first those no variant declares on ``device`` (the ones the
    rules may report), then the declared ones (controls)."""
    undeclared: List[Pair] = []
    declared: List[Pair] = []
    for name in sorted(grouped):
        supported: Set[str] = set()
        for op in grouped[name]:
            supported |= G.tracked(op.supported_dtypes(device))
        for dtype in G.UNIVERSE:
            (declared if dtype in supported else undeclared).append(Pair(name, dtype))
    return undeclared + declared


def _context_broken(device: str) -> bool:
    """True when the CUDA context is unusable (a device-side assert poisons every later call)."""
    if not device.startswith("cuda"):
        return False
    torch = G._torch()
    try:
        torch.ones(1, device=device).add_(1)
        torch.cuda.synchronize()
    except Exception:  # noqa: BLE001 - any error here means the context is gone
        return True
    return False


def run_pairs(grouped: Dict[str, list], pairs: Sequence[Pair], device: str,
              budget_s: Optional[float] = None,
              progress: Callable[[int, int], None] = lambda done, total: None) -> tuple:
    """Run ``pairs`` on ``device``; returns (outcomes, complete, why it stopped)."""
    start = time.monotonic()
    outcomes: List[Outcome] = []
    for index, pair in enumerate(pairs):
        if budget_s is not None and time.monotonic() - start > budget_s:
            return outcomes, False, f"time budget of {budget_s:.0f} s spent after {index} pairs"
        result = G.probe_variants(grouped[pair.op], pair.dtype, device=device)
        if result.outcome != "ok" and _context_broken(device):
            # This pair's errors may come from the broken context, not the dtype: drop it.
            return outcomes, False, f"CUDA context broken at {pair.op} {pair.dtype}: {result.message}"
        outcomes.append(Outcome(pair, result.outcome, result.message))
        progress(index + 1, len(pairs))
    return outcomes, True, ""


def to_observation(outcomes: Iterable[Outcome], provenance: Provenance) -> Observation:
    ok: Dict[str, Set[str]] = {}
    fails: Dict[str, Dict[str, str]] = {}
    unverified: Dict[str, Dict[str, str]] = {}
    for o in outcomes:
        if o.result == "ok":
            ok.setdefault(o.pair.op, set()).add(o.pair.dtype)
        elif o.result == "fails":
            fails.setdefault(o.pair.op, {})[o.pair.dtype] = o.message
        else:
            unverified.setdefault(o.pair.op, {})[o.pair.dtype] = o.message
    names = sorted(set(ok) | set(fails) | set(unverified))
    return Observation(provenance, {
        n: OpObservation(frozenset(ok.get(n, ())), fails.get(n, {}), unverified.get(n, {})) for n in names})


def _project_commit() -> str:
    """The checkout's short commit, when this runs from a git checkout ("" otherwise)."""
    try:
        done = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=Path(__file__).parent,
                              capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return ""
    return done.stdout.strip() if done.returncode == 0 else ""


def environment(device: str) -> Dict[str, str]:
    """GPU name, compute capability, torch and CUDA versions of this machine ("-" off-GPU)."""
    torch = G._torch()
    on_gpu = device.startswith("cuda")
    return {
        "gpu": torch.cuda.get_device_name(device) if on_gpu else "-",
        "capability": ".".join(map(str, torch.cuda.get_device_capability(device))) if on_gpu else "-",
        "torch": torch.__version__,
        "cuda": torch.version.cuda or "-",
    }


def default_path(env: Dict[str, str], date: str) -> Path:
    """``data/cuda_observations/<date>-<gpu>-torch<version>.json``."""
    gpu = re.sub(r"[^a-z0-9]+", "-", env["gpu"].lower().replace("nvidia", "")).strip("-")
    return OBSERVATIONS_DIR / f"{date}-{gpu}-torch{env['torch'].split('+')[0]}.json"


def observe(device: str, command: str, ops: Optional[Sequence[str]] = None,
            budget_s: Optional[float] = None,
            progress: Callable[[int, int], None] = lambda done, total: None) -> Observation:
    """Observe every pair (or those of ``ops``) on ``device``. Must run in a fresh process:
    op_db is imported with the capability flags ``generate.load_op_db`` sets."""
    torch = G._torch()
    if device.startswith("cuda") and not torch.cuda.is_available():
        raise RuntimeError("no CUDA device: run this on a GPU machine (or pass --device cpu for a dry run)")
    start = time.monotonic()
    grouped = variants_by_op(G.load_op_db())
    if ops is not None:
        missing = sorted(set(ops) - set(grouped))
        if missing:
            raise ValueError(f"not OpInfo ops with a public name: {', '.join(missing)}")
        grouped = {name: grouped[name] for name in ops}
    outcomes, complete, why = run_pairs(grouped, pairs_in_order(grouped, device), device, budget_s, progress)
    scope = SCOPE_ALL.format(ops=len(grouped)) if ops is None else f"every tracked dtype of {', '.join(ops)}"
    provenance = Provenance(
        device="cuda" if device.startswith("cuda") else device, **environment(device),
        date=datetime.datetime.now(datetime.timezone.utc).date().isoformat(), command=command,
        scope=scope, complete=complete, python=platform.python_version(),
        project_commit=_project_commit(), seconds=round(time.monotonic() - start, 1), notes=why)
    return to_observation(outcomes, provenance)
