"""``python -m torchtype_lint.contracts generate|check`` (developer tool; imports torch)."""
from __future__ import annotations

import argparse
import json
import sys
import time
from typing import List, Optional


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m torchtype_lint.contracts",
        description="Generate or check the op dtype-contract table from the installed torch.")
    sub = parser.add_subparsers(dest="command", required=True)
    gen = sub.add_parser("generate", help="rewrite torchtype_lint/data/op_contracts.json")
    gen.add_argument("--no-probe", action="store_true",
                     help="skip the CPU probe of undeclared dtypes (marks them unverified)")
    chk = sub.add_parser("check", help="exit 1 when the committed table is stale for this torch")
    chk.add_argument("--verify", type=int, default=0, metavar="N",
                     help="also run N sampled 'fails on CPU' claims and N 'works' claims in torch")
    chk.add_argument("--json", metavar="PATH", help="write the results as JSON to PATH")
    args = parser.parse_args(argv)

    from . import generate as G  # noqa: PLC0415 - imports torch
    from .table import DATA_FILE  # noqa: PLC0415

    if args.command == "generate":
        start = time.monotonic()
        table = G.generate(DATA_FILE, run_probe=not args.no_probe)
        print(f"wrote {DATA_FILE} for torch {table['torch']}: {len(table['ops'])} ops, "
              f"{len(table['names'])} public names, {len(table['sets'])} distinct dtype sets "
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
