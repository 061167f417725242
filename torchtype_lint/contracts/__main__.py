"""``python -m torchtype_lint.contracts generate|check|observe|merge|convert`` (developer tool).

``generate``, ``check`` and ``observe`` import torch; ``merge`` and ``convert`` do not.
"""
from __future__ import annotations

import argparse
import json
import os
import shlex
import sys
import time
from pathlib import Path
from typing import List, Optional

#: How a GPU run is started; recorded in the observation file's provenance.
OBSERVE_COMMAND = "python -m torchtype_lint.contracts observe"


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m torchtype_lint.contracts",
        description="Generate or check the op dtype-contract table from the installed torch, "
                    "and observe its CUDA column on a GPU.")
    # "subcommand", not "command": convert has a --command option for the provenance.
    sub = parser.add_subparsers(dest="subcommand", required=True)
    gen = sub.add_parser("generate", help="rewrite torchtype_lint/data/op_contracts.json "
                                          "(newest CUDA observation file merged in)")
    gen.add_argument("--no-probe", action="store_true",
                     help="skip the CPU probe of undeclared dtypes (marks them unverified)")
    chk = sub.add_parser("check", help="exit 1 when the committed table is stale for this torch")
    chk.add_argument("--verify", type=int, default=0, metavar="N",
                     help="also run N sampled 'fails on CPU' claims and N 'works' claims in torch")
    chk.add_argument("--json", metavar="PATH", help="write the results as JSON to PATH")
    obs = sub.add_parser("observe", help="run every (op, dtype) pair on a GPU and write an "
                                         "observation file into torchtype_lint/data/cuda_observations/")
    obs.add_argument("--device", default="cuda",
                     help="cuda (default), or cpu for a dry run (then --out is required)")
    obs.add_argument("--out", type=Path, help="where to write (default: data/cuda_observations/"
                                              "<date>-<gpu>-torch<version>.json)")
    obs.add_argument("--ops", help="comma-separated OpInfo op names (default: every op)")
    obs.add_argument("--budget", type=float, metavar="SECONDS",
                     help="stop after this long; the file is marked incomplete")
    sub.add_parser("merge", help="merge the newest CUDA observation file into the committed "
                                 "table, without torch and without re-running the CPU probe")
    conv = sub.add_parser("convert", help="convert a measurement of the stand-alone GPU script "
                                          "(meta/summary/results) into an observation file")
    conv.add_argument("source", type=Path)
    conv.add_argument("out", type=Path)
    for name in ("gpu", "capability", "torch", "cuda", "date", "command", "scope"):
        conv.add_argument(f"--{name}", required=True)
    conv.add_argument("--project-commit", default="")
    conv.add_argument("--python", default="")
    conv.add_argument("--notes", default="")
    return parser


def main(argv: Optional[List[str]] = None) -> int:
    args = _parser().parse_args(argv)
    if args.subcommand == "merge":
        return _merge()
    if args.subcommand == "convert":
        return _convert(args)
    if args.subcommand == "observe":
        return _observe(args, argv)
    return _generate_or_check(args)


def _merge() -> int:
    from .merge import merge, pair_counts  # noqa: PLC0415
    from .generate import dumps  # noqa: PLC0415 - serialisation only, torch stays unimported
    from .observations import newest  # noqa: PLC0415
    from .table import DATA_FILE  # noqa: PLC0415

    observation = newest()
    table = merge(json.loads(DATA_FILE.read_text(encoding="utf-8")), observation)
    DATA_FILE.write_text(dumps(table), encoding="utf-8")
    source = observation.file if observation else "no observation file (every CUDA pair declared-only)"
    print(f"wrote {DATA_FILE} with {source}: {pair_counts(table)}")
    return 0


def _convert(args: argparse.Namespace) -> int:
    from .convert_reference import from_reference  # noqa: PLC0415
    from .observations import Provenance, dumps  # noqa: PLC0415

    data = json.loads(args.source.read_text(encoding="utf-8"))
    meta = data.get("meta", {})
    provenance = Provenance(
        device="cuda", gpu=args.gpu, capability=args.capability, torch=args.torch, cuda=args.cuda,
        date=args.date, command=args.command, scope=args.scope, complete=bool(meta.get("complete")),
        python=args.python, project_commit=args.project_commit,
        seconds=float(meta.get("total_s", 0.0)), notes=args.notes)
    observation = from_reference(data, provenance)
    args.out.write_text(dumps(observation), encoding="utf-8")
    print(f"wrote {args.out}: {len(observation.ops)} ops, {observation.counts()}")
    return 0


def _observe(args: argparse.Namespace, argv: Optional[List[str]]) -> int:
    if args.device != "cuda" and args.out is None:
        print("a dry run off the GPU needs --out: it must not land among the shipped CUDA observations")
        return 2
    # Kernel errors surface at the call that caused them, not at some later synchronisation.
    os.environ.setdefault("CUDA_LAUNCH_BLOCKING", "1")
    from . import observe as observer  # noqa: PLC0415 - imports torch
    from .observations import dumps  # noqa: PLC0415

    words = sys.argv[1:] if argv is None else argv
    command = OBSERVE_COMMAND + "".join(" " + shlex.quote(w) for w in words[1:])

    def progress(done: int, total: int) -> None:
        if done % 500 == 0 or done == total:
            print(f"{done}/{total} pairs", flush=True)

    ops = args.ops.split(",") if args.ops else None
    observation = observer.observe(args.device, command, ops, args.budget, progress)
    out = args.out or observer.default_path(observer.environment(args.device), observation.provenance.date)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(dumps(observation), encoding="utf-8")
    p = observation.provenance
    where = f"{p.gpu} (compute capability {p.capability}), CUDA {p.cuda}" if p.device == "cuda" else "dry run on CPU"
    print(f"wrote {out}: {where}, torch {p.torch}: {observation.counts()} in {p.seconds:.0f} s"
          + ("" if p.complete else f"; INCOMPLETE: {p.notes}"))
    if args.out is None:
        print("now run `python -m torchtype_lint.contracts merge` and commit both files")
    return 0 if p.complete else 1


def _generate_or_check(args: argparse.Namespace) -> int:
    from . import generate as G  # noqa: PLC0415 - imports torch
    from .merge import pair_counts  # noqa: PLC0415
    from .table import DATA_FILE  # noqa: PLC0415

    if args.subcommand == "generate":
        start = time.monotonic()
        table = G.generate(DATA_FILE, run_probe=not args.no_probe)
        cuda = table["cuda_observations"]
        print(f"wrote {DATA_FILE} for torch {table['torch']}: {len(table['ops'])} ops, "
              f"{len(table['names'])} public names, {len(table['sets'])} distinct dtype sets, "
              f"CUDA from {cuda['file'] if cuda else 'declarations only'} {pair_counts(table)} "
              f"({time.monotonic() - start:.0f} s)")
        return 0
    committed = json.loads(DATA_FILE.read_text(encoding="utf-8"))
    op_db = G.load_op_db()
    problems = G.stale_report(committed, op_db)
    for line in problems:
        print(line)
    checks = G.verify(committed, args.verify, op_db) if args.verify else []
    contradictions = [c for c in checks if c.contradiction]
    for c in contradictions:
        print(f"contradiction: {c.name} on {c.dtype}: table says {c.claim}, torch: {c.outcome} {c.message}")
    if args.verify:
        print(f"verified {len(checks)} pairs: {len(contradictions)} contradictions, "
              f"{sum(c.outcome == 'unverified' for c in checks)} could not be exercised")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as out:
            json.dump({"torch": committed["torch"], "stale": problems,
                       "checks": [vars(c) for c in checks]}, out, indent=1)
    if problems:
        print(f"{DATA_FILE} is stale: run `python -m torchtype_lint.contracts generate`")
        return 1
    print(f"{DATA_FILE} matches torch {committed['torch']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
