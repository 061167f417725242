"""Build the op dtype-contract table from the installed torch (developer tool; imports torch).

Three sources, kept apart in the output so that each claim says where it comes from:

* **Declarations.** torch's OpInfo database (``op_db``) declares, for every operator it tests,
  the dtypes supported on CPU (``supported_dtypes("cpu")``) and on CUDA
  (``supported_dtypes("cuda")``; reading it needs no GPU). torch's own CI checks these
  declarations in both directions on real hardware (its ``test_dtypes`` fails when a declared
  dtype does not work and when an undeclared one does); on CUDA they are kept as the
  declared-only fallback for pairs no GPU run has observed.
* **Observations on CPU.** Every dtype an op does *not* declare on CPU is what the linter would
  report, so each such pair is run here, on CPU, with the op's own ``sample_inputs`` in that
  dtype. A pair counts as unsupported only when every sample fails with an error that names a
  dtype; a pair that runs is recorded as a contradiction (OpInfo was conservative) and the table
  trusts the observation; a pair that cannot be exercised stays out of the "unsupported" set.
* **Observations on a GPU.** The CUDA declarations are conservative too (on an H100, 177 of
  304 pairs declared without a CUDA kernel ran), and a development machine has no GPU:
  ``observe`` runs the same probe on a GPU machine and writes a file into ``data/cuda_observations/``, and the
  newest such file is merged in (``merge.py``). The rules only report CUDA failures that were
  observed; a pair that was only declared stays silent.

Only the twelve dtypes a user meets in practice are tracked (see ``DTYPE_CODES``); OpInfo's
declarations for uint16/32/64, complex32 and float8 are partial and are ignored.
"""
from __future__ import annotations

import contextlib
import io
import itertools
import json
import re
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Dict, Iterable, List, Optional, Set, Tuple

from .merge import merge
from .observations import Observation, newest
from .table import DATA_FILE, DTYPE_CODES, FORMAT_VERSION

CODE_OF = {name: code for code, name in DTYPE_CODES.items()}
UNIVERSE: Tuple[str, ...] = tuple(DTYPE_CODES.values())

#: OpInfo variants that pass ``dtype=`` (the op then computes in that dtype, so any input works).
#: They are left out of the union; the rule stays silent on calls that pass a dtype.
DTYPE_ARGUMENT_VARIANTS = frozenset({"with_dtype"})

#: How many of an op's sample inputs to try before calling a dtype unsupported: every one
#: must fail, so that a calling convention that works (``reduction="none"``, a 1-element
#: input) keeps the dtype out of the reported set.
SAMPLES_PER_PROBE = 12

#: Words that make an error message about the dtype rather than about the sample's values.
_DTYPE_WORDS = re.compile(
    r"not implemented for|dtype|Long|Int\b|Short|Byte|Char|Bool|Half|BFloat16|Float|Double|"
    r"Complex|integer|integral|floating|complex|boolean|bool|scalar type|type promotion|"
    r"can't be cast|cannot be cast|must be .*float|unsupported|\b(u?int|float|bfloat|complex)\d+",
    re.IGNORECASE,
)


# --------------------------------------------------------------------------- torch access


def _torch():
    import torch  # noqa: PLC0415 - only the generator imports torch

    return torch


#: OpInfo evaluates some CUDA declarations against the GPU of the machine importing it
#: (``dtypesIfCUDA=... *[torch.bfloat16] if SM53OrLater ...``); on a machine without a GPU
#: those flags are False and bfloat16 would silently drop out of the CUDA sets. The generator
#: reads the declarations as torch's CI does on a compute-capability 8.0 GPU (A100 class).
CUDA_CAPABILITY_FLAGS = ("SM53OrLater", "SM60OrLater", "SM70OrLater", "SM75OrLater", "SM80OrLater")
CUDA_MODEL = "compute capability 8.0 (A100 class)"


def load_op_db() -> list:
    import sys  # noqa: PLC0415

    if "torch.testing._internal.common_methods_invocations" in sys.modules:
        raise RuntimeError("op_db was imported before the generator could set the CUDA "
                           "capability flags; call load_op_db() first in a fresh process")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from torch.testing._internal import common_cuda  # noqa: PLC0415

        for flag in CUDA_CAPABILITY_FLAGS:
            setattr(common_cuda, flag, True)
        from torch.testing._internal.common_methods_invocations import op_db  # noqa: PLC0415
    return list(op_db)


def dtype_name(dtype: Any) -> str:
    return str(dtype).replace("torch.", "")


def tracked(dtypes: Iterable[Any]) -> Set[str]:
    return {dtype_name(d) for d in dtypes} & set(UNIVERSE)


def resolve_public(path: str) -> Any:
    """The object at ``torch.<path>`` (dotted), or None."""
    obj: Any = _torch()
    for part in path.split("."):
        obj = getattr(obj, part, None)
        if obj is None:
            return None
    return obj


def _is_private(path: str) -> bool:
    return any(part.startswith("_") and not (part.startswith("__") and part.endswith("__"))
               for part in path.split("."))


def _is_callable_function(obj: Any) -> bool:
    torch = _torch()
    return callable(obj) and not isinstance(obj, (type, torch.dtype))


def _tensor_method(name: str) -> Any:
    obj = getattr(_torch().Tensor, name, None)
    return obj if _is_callable_function(obj) else None


@dataclass
class PublicName:
    name: str        # "torch.abs", "Tensor.abs_", "torch.nn.functional.relu"
    kind: str        # "function", "method", "inplace"
    direct: bool     # OpInfo calls exactly this object (its samples fit the public signature)


def public_names(op: Any) -> List[PublicName]:
    """The public spellings of one OpInfo entry (its aliases included)."""
    out: List[PublicName] = []
    entries = [(op.name, op.op, op.method_variant, op.inplace_variant)]
    for alias in getattr(op, "aliases", ()) or ():
        entries.append((alias.name, alias.op, alias.method_variant, alias.inplace_variant))
    for name, function, method, inplace in entries:
        name = name[len("torch."):] if name.startswith("torch.") else name
        if _is_private(name):
            continue
        if "__" not in name:
            obj = resolve_public(name)
            if obj is not None and _is_callable_function(obj):
                out.append(PublicName("torch." + name, "function", obj is function))
        leaf = name.rsplit(".", 1)[-1]
        if method is not None and "." not in name:
            obj = _tensor_method(leaf)
            if obj is not None:
                out.append(PublicName("Tensor." + leaf, "method", obj is method))
        if inplace is not None and "." not in name:
            obj = _tensor_method(leaf + "_")
            if obj is not None:
                out.append(PublicName("Tensor." + leaf + "_", "inplace", obj is inplace))
    if not out and not _is_private(op.name) and "." not in op.name:
        # Tensor-only ops whose OpInfo calls them through a lambda (``item``, ``resize_``).
        obj = _tensor_method(op.name)
        if obj is not None:
            kind = "inplace" if op.name.endswith("_") and not op.name.endswith("__") else "method"
            out.append(PublicName("Tensor." + op.name, kind, False))
    return out


# --------------------------------------------------------------------------- CPU probe


@dataclass
class ProbeResult:
    outcome: str     # "ok", "fails", "unverified"
    message: str = ""


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0] if text else ''}"[:300]


def _has_empty(value: Any) -> bool:
    torch = _torch()
    if isinstance(value, torch.Tensor):
        return value.numel() == 0
    if isinstance(value, (list, tuple)):
        return not value or any(_has_empty(v) for v in value)
    return False


def sample_inputs(op: Any, dtype: str, samples: int = SAMPLES_PER_PROBE,
                  device: str = "cpu") -> Tuple[list, str]:
    """Up to ``samples`` of the op's own sample inputs in ``dtype``, built on ``device``.

    Many sample builders cannot make their inputs in a dtype the op does not support (they
    draw from ``randn``, which has no integer kernel); then the samples are built in a
    declared dtype and their tensors of that dtype are converted, leaving index tensors and
    other fixed-dtype arguments as they were. Returns (samples, why none)."""
    torch = _torch()
    target = getattr(torch, dtype)

    def take(dtype_: Any) -> list:
        # Empty inputs prove nothing: many kernels return before dispatching on the dtype.
        return list(itertools.islice(
            (s for s in op.sample_inputs(device, dtype_, requires_grad=False) if not _has_empty(s.input)),
            samples))

    try:
        built = take(target)
        if built:
            return built, ""
        why = "no samples"
    except Exception as exc:  # noqa: BLE001 - torch's sample builders raise anything
        why = "no samples: " + _first_line(exc)
    # The fallback dtype must be one the device declares, or building the samples fails too.
    declared = [d for d in ("float64", "float32", "int64", "bool") if d in tracked(op.supported_dtypes(device))]
    if not declared:
        return [], why
    source = getattr(torch, declared[0])
    try:
        built = take(source)
    except Exception as exc:  # noqa: BLE001
        return [], why + "; converted: " + _first_line(exc)
    from torch.utils._pytree import tree_map  # noqa: PLC0415

    def convert(value: Any) -> Any:
        if isinstance(value, torch.Tensor) and value.dtype == source:
            return value.detach().to(target)
        return value

    return [type(s)(tree_map(convert, s.input), args=tree_map(convert, s.args),
                    kwargs=tree_map(convert, s.kwargs)) for s in built], why


def probe(op: Any, dtype: str, call: Optional[Any] = None,
          samples: int = SAMPLES_PER_PROBE, device: str = "cpu") -> ProbeResult:
    """Run ``op`` (or ``call(sample)``) on ``device`` on up to ``samples`` of its sample inputs
    in ``dtype``: "ok" when one runs, "fails" when all fail with an error that names a dtype,
    "unverified" when no sample could be built or the errors are about something else."""
    torch = _torch()
    torch.manual_seed(0)  # sample builders draw random values: same table every run
    # CUDA reports kernel errors when it next synchronises: wait for each call, so that an
    # error belongs to the sample that caused it.
    synchronize = torch.cuda.synchronize if device.startswith("cuda") else (lambda: None)
    quiet = io.StringIO()
    with warnings.catch_warnings(), contextlib.redirect_stderr(quiet), \
            contextlib.redirect_stdout(quiet):
        warnings.simplefilter("ignore")
        inputs, why = sample_inputs(op, dtype, samples, device)
        if not inputs:
            return ProbeResult("unverified", why)
        messages: List[str] = []
        for sample in inputs:
            try:
                if call is None:
                    op(sample.input, *sample.args, **sample.kwargs)
                else:
                    call(sample)
                synchronize()
            except Exception as exc:  # noqa: BLE001 - classified below
                messages.append(_first_line(exc))
            else:
                return ProbeResult("ok")
    dtype_related = [m for m in messages if _DTYPE_WORDS.search(m)]
    if len(dtype_related) == len(messages):
        return ProbeResult("fails", messages[0])
    return ProbeResult("unverified", messages[0])


# --------------------------------------------------------------------------- the table


@dataclass
class OpContract:
    op: str
    variants: List[str] = field(default_factory=list)
    cpu_declared: Set[str] = field(default_factory=set)
    cuda_declared: Set[str] = field(default_factory=set)
    #: CPU dtypes not declared but observed to run (OpInfo was conservative).
    cpu_observed_ok: Dict[str, str] = field(default_factory=dict)
    #: CPU dtypes not declared and observed to fail: dtype -> torch's message.
    cpu_observed_fail: Dict[str, str] = field(default_factory=dict)
    #: CPU dtypes not declared that could not be exercised: dtype -> why.
    cpu_unverified: Dict[str, str] = field(default_factory=dict)
    out: bool = False
    names: Dict[str, PublicName] = field(default_factory=dict)

    @property
    def cpu(self) -> Set[str]:
        """CPU dtypes the linter treats as supported: everything not observed to fail."""
        return set(UNIVERSE) - set(self.cpu_observed_fail)


def collect(op_db: Optional[list] = None, run_probe: bool = True) -> Dict[str, OpContract]:
    """One contract per OpInfo name, variants merged (a dtype counts as supported when any
    variant supports it: the linter must not report what some calling convention allows)."""
    contracts: Dict[str, OpContract] = {}
    by_name: Dict[str, list] = {}
    for op in op_db if op_db is not None else load_op_db():
        names = public_names(op)
        if not names or op.variant_test_name in DTYPE_ARGUMENT_VARIANTS:
            continue
        contract = contracts.setdefault(op.name, OpContract(op.name))
        contract.variants.append(op.variant_test_name or "")
        contract.cpu_declared |= tracked(op.supported_dtypes("cpu"))
        contract.cuda_declared |= tracked(op.supported_dtypes("cuda"))
        contract.out = contract.out or bool(op.supports_out)
        for public in names:
            previous = contract.names.get(public.name)
            if previous is None or (public.direct and not previous.direct):
                contract.names[public.name] = public
        by_name.setdefault(op.name, []).append(op)
    if run_probe:
        for name, contract in contracts.items():
            for dtype in UNIVERSE:
                if dtype in contract.cpu_declared:
                    continue
                _record_probe(contract, dtype, by_name[name])
    else:
        for contract in contracts.values():
            for dtype in set(UNIVERSE) - contract.cpu_declared:
                contract.cpu_unverified[dtype] = "not probed"
    return contracts


def probe_variants(variants: list, dtype: str, device: str = "cpu") -> ProbeResult:
    """The rule for one (op, dtype) pair, shared by the CPU probe and ``observe``: "ok" as soon
    as one variant runs (its name is the message), "fails" only when every variant fails with
    a dtype error (the first message), "unverified" when any could not be exercised."""
    fail_message = ""
    unverified = ""
    for op in variants:
        result = probe(op, dtype, device=device)
        if result.outcome == "ok":
            variant = "." + op.variant_test_name if op.variant_test_name else ""
            return ProbeResult("ok", f"{op.name}{variant} runs")
        if result.outcome == "fails":
            fail_message = fail_message or result.message
        else:
            unverified = unverified or result.message
    if unverified or not variants:
        return ProbeResult("unverified", unverified or "no OpInfo entry")
    return ProbeResult("fails", fail_message)


def _record_probe(contract: OpContract, dtype: str, variants: list) -> None:
    """Probe every variant that does not declare ``dtype``: one that runs makes it supported."""
    undeclared = [op for op in variants if dtype not in tracked(op.supported_dtypes("cpu"))]
    result = probe_variants(undeclared, dtype)
    if result.outcome == "ok":
        contract.cpu_observed_ok[dtype] = result.message
    elif result.outcome == "fails":
        contract.cpu_observed_fail[dtype] = result.message
    else:
        contract.cpu_unverified[dtype] = result.message


# --------------------------------------------------------------------------- serialisation


def codes(dtypes: Iterable[str]) -> str:
    """A dtype set as a short string, in the table's canonical order."""
    chosen = set(dtypes)
    return "".join(CODE_OF[d] for d in UNIVERSE if d in chosen)


class _Sets:
    """Deduplicated dtype sets, referred to by index."""

    def __init__(self) -> None:
        self.items: List[str] = []
        self._index: Dict[str, int] = {}

    def ref(self, dtypes: Iterable[str]) -> int:
        key = codes(dtypes)
        if key not in self._index:
            self._index[key] = len(self.items)
            self.items.append(key)
        return self._index[key]


def build_table(contracts: Dict[str, OpContract],
                observation: Optional[Observation] = None) -> Dict[str, Any]:
    """The table of ``contracts``, with the CUDA observations of ``observation`` merged in
    (none: every CUDA pair is declared-only)."""
    torch = _torch()
    sets = _Sets()
    ops: List[Dict[str, Any]] = []
    names: Dict[str, List[int]] = {}
    merged: Dict[str, Tuple[Set[str], Set[str], Set[str], List[int]]] = {}
    for index, contract in enumerate(sorted(contracts.values(), key=lambda c: c.op)):
        ops.append({
            "op": contract.op,
            "variants": sorted(v for v in contract.variants if v),
            "cpu_declared": sets.ref(contract.cpu_declared),
            "cuda_declared": sets.ref(contract.cuda_declared),
            "cpu_observed_ok": {CODE_OF[d]: why for d, why in sorted(contract.cpu_observed_ok.items())},
            "cpu_observed_fail": {CODE_OF[d]: msg for d, msg in sorted(contract.cpu_observed_fail.items())},
            "cpu_unverified": {CODE_OF[d]: why for d, why in sorted(contract.cpu_unverified.items())},
            "out": contract.out,
            "names": {n: [p.kind, p.direct] for n, p in sorted(contract.names.items())},
        })
        for name in contract.names:
            # A public name reached from several OpInfo entries (aliases, e.g. torch.abs and
            # torch.absolute sharing kernels) gets the union: supported if any entry says so.
            cpu, cpu_declared, cuda, owners = merged.setdefault(name, (set(), set(), set(), []))
            cpu |= contract.cpu
            cpu_declared |= contract.cpu_declared
            cuda |= contract.cuda_declared
            owners.append(index)
    for name in sorted(merged):
        cpu, cpu_declared, cuda, owners = merged[name]
        names[name] = [sets.ref(cpu), sets.ref(cpu_declared), sets.ref(cuda)] + owners
    # The declared part first, in the layout ``merge`` extends with the observation columns.
    return merge({
        "format": FORMAT_VERSION,
        "torch": torch.__version__,
        "source": "torch.testing._internal.common_methods_invocations.op_db "
                  "(OpInfo supported_dtypes('cpu') / supported_dtypes('cuda')); "
                  "CPU gaps probed with each op's sample_inputs",
        "cuda_model": CUDA_MODEL,
        "dtype_codes": DTYPE_CODES,
        "sets": sets.items,
        "names_columns": ["cpu", "cpu_declared", "cuda_declared", "ops..."],
        "names": names,
        "ops": ops,
    }, observation)


def dumps(table: Dict[str, Any]) -> str:
    """Compact, but one op / one name per line so that diffs between torch versions read well."""
    lines = ["{"]
    keys = list(table)
    for i, key in enumerate(keys):
        comma = "," if i < len(keys) - 1 else ""
        value = table[key]
        if key in ("names", "ops", "sets"):
            items = value.items() if isinstance(value, dict) else enumerate(value)
            rows = [
                (json.dumps(k) + ": " if isinstance(value, dict) else "")
                + json.dumps(v, separators=(",", ":"), ensure_ascii=False)
                for k, v in items
            ]
            opener, closer = ("{", "}") if isinstance(value, dict) else ("[", "]")
            lines.append(f"{json.dumps(key)}: {opener}")
            lines.append(",\n".join(rows))
            lines.append(closer + comma)
        else:
            lines.append(f"{json.dumps(key)}: {json.dumps(value, separators=(',', ':'))}{comma}")
    lines.append("}")
    return "\n".join(lines) + "\n"


def generate(path: Path = DATA_FILE, run_probe: bool = True) -> Dict[str, Any]:
    """Rebuild the table from this torch's op_db and CPU probe, with the newest CUDA
    observation file of ``torchtype_lint/data/cuda_observations/`` merged in."""
    table = build_table(collect(load_op_db(), run_probe=run_probe), newest())
    path.write_text(dumps(table), encoding="utf-8")
    return table


def declarations(table: Dict[str, Any]) -> Dict[str, Any]:
    """The part of a table that comes from OpInfo declarations alone (cheap to regenerate)."""
    sets = table["sets"]
    return {
        "torch": table["torch"],
        "ops": {
            op["op"]: {
                "cpu_declared": sets[op["cpu_declared"]],
                "cuda_declared": sets[op["cuda_declared"]],
                "variants": op["variants"],
                "out": op["out"],
                "names": op["names"],
                # Every undeclared CPU dtype must have been probed: its outcome is in exactly
                # one of the three observation maps.
                "probed": "".join(sorted(
                    list(op["cpu_observed_ok"]) + list(op["cpu_observed_fail"])
                    + list(op["cpu_unverified"]))),
            }
            for op in table["ops"]
        },
    }


def stale_report(committed: Dict[str, Any], op_db: Optional[list] = None) -> List[str]:
    """Differences between the committed table and torch's current declarations (no probing:
    the observations are checked by the test that runs torch on a sample of pairs), and
    whether it carries the newest CUDA observation file."""
    return compare(committed, build_table(collect(op_db, run_probe=False))) + cuda_staleness(committed)


def cuda_staleness(committed: Dict[str, Any]) -> List[str]:
    """A problem when the table's CUDA columns are not the newest observation file, merged."""
    observation = newest()
    if merge(committed, observation) == committed:
        return []
    carried = (committed.get("cuda_observations") or {}).get("file", "no observation file")
    wanted = observation.file if observation is not None else "no observation file"
    return [f"CUDA observations: the table carries {carried}, the newest is {wanted}: "
            f"run `python -m torchtype_lint.contracts merge`"]


def compare(committed: Dict[str, Any], fresh_table: Dict[str, Any]) -> List[str]:
    """What differs between a committed table and a freshly built one, declarations only;
    every undeclared CPU dtype of the committed table must carry an observation."""
    fresh = declarations(fresh_table)
    fresh_ops = fresh["ops"]
    for op in fresh_ops.values():
        op["probed"] = "".join(sorted(set(DTYPE_CODES) - set(op["cpu_declared"])))
    old = declarations(committed)
    problems: List[str] = []
    # The local build tag (+cpu, +cu126) does not change OpInfo or the CPU kernels.
    if old["torch"].split("+")[0] != fresh["torch"].split("+")[0]:
        problems.append(f"table is for torch {old['torch']}, installed torch is {fresh['torch']}")
    for name in sorted(set(old["ops"]) | set(fresh_ops)):
        if name not in fresh_ops:
            problems.append(f"{name}: in the table but no longer in op_db")
        elif name not in old["ops"]:
            problems.append(f"{name}: in op_db but missing from the table")
        elif old["ops"][name] != fresh_ops[name]:
            changed = sorted(k for k in fresh_ops[name] if fresh_ops[name][k] != old["ops"][name].get(k))
            problems.append(f"{name}: {', '.join(changed)} changed")
    return problems


# --------------------------------------------------------------------------- verification


@dataclass
class Check:
    name: str
    dtype: str
    claim: str        # "unsupported" (the linter reports it) or "supported"
    outcome: str      # "fails", "ok", "unverified"
    message: str = ""

    @property
    def contradiction(self) -> bool:
        return (self.claim == "unsupported" and self.outcome == "ok") or (
            self.claim == "supported" and self.outcome == "fails")


def _stable_key(*parts: str) -> str:
    import hashlib  # noqa: PLC0415

    return hashlib.sha1("|".join(parts).encode()).hexdigest()


def sample_pairs(table: Dict[str, Any], per_claim: int) -> List[Tuple[str, str, str, str]]:
    """Deterministic sample of (public name, dtype, claim, OpInfo op) across the table:
    ``per_claim`` pairs the table says fail on CPU and as many it says work.

    Only names that OpInfo calls directly are sampled (their sample inputs fit the public
    signature); in-place names only for "unsupported" claims, since an in-place call can
    also fail because its result dtype cannot be written back into the input."""
    unsupported, supported = [], []
    for row in table["ops"]:
        fails = {table["dtype_codes"][c] for c in row["cpu_observed_fail"]}
        unverified = {table["dtype_codes"][c] for c in row["cpu_unverified"]}
        for name, (kind, direct) in row["names"].items():
            if not direct:
                continue
            for dtype in UNIVERSE:
                if dtype in unverified:
                    continue
                pair = (name, dtype, "unsupported" if dtype in fails else "supported", row["op"])
                if pair[2] == "supported" and kind == "inplace":
                    continue
                (unsupported if dtype in fails else supported).append(pair)
    pick = []
    for pool in (unsupported, supported):
        pool.sort(key=lambda p: _stable_key(p[0], p[1]))
        seen_ops: Set[Tuple[str, str]] = set()
        # Spread the sample: at most one pair per (op, claim) first, then fill up.
        first = [p for p in pool if (p[3], p[2]) not in seen_ops and not seen_ops.add((p[3], p[2]))]
        rest = [p for p in pool if p not in first]
        pick.extend((first + rest)[:per_claim])
    return pick


def _public_call(name: str) -> Any:
    """A function calling public ``name`` with a sample's arguments."""
    if name.startswith("Tensor."):
        method = name[len("Tensor."):]
        if method.endswith("_") and not method.endswith("__"):
            return lambda s: getattr(s.input.clone(), method)(*s.args, **s.kwargs)
        return lambda s: getattr(s.input, method)(*s.args, **s.kwargs)
    function = resolve_public(name[len("torch."):])
    return lambda s: function(s.input, *s.args, **s.kwargs)


def verify(table: Dict[str, Any], per_claim: int = 150, op_db: Optional[list] = None) -> List[Check]:
    """Run a deterministic sample of the table's CPU claims in torch, through the public
    names (not OpInfo's wrappers), with OpInfo's sample inputs."""
    ops_by_name: Dict[str, list] = {}
    for op in op_db if op_db is not None else load_op_db():
        if op.variant_test_name not in DTYPE_ARGUMENT_VARIANTS:
            ops_by_name.setdefault(op.name, []).append(op)
    checks = []
    for name, dtype, claim, op_name in sample_pairs(table, per_claim):
        results = []
        for op in ops_by_name.get(op_name, ()):
            results.append(probe(op, dtype, call=_public_call(name)))
            if results[-1].outcome == "ok":
                break
        if results and results[-1].outcome == "ok":
            outcome, message = "ok", ""
        elif results and all(r.outcome == "fails" for r in results):
            outcome, message = "fails", results[0].message
        else:
            outcome = "unverified"
            message = next((r.message for r in results if r.outcome == "unverified"), "no OpInfo entry")
        checks.append(Check(name, dtype, claim, outcome, message))
    return checks
