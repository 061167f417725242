"""Lint the whole downloaded corpus with every rule (opt-in TTL9xx excluded) and summarise.

    python benchmarks/corpus.py            # once: downloads into benchmarks/corpus/
    python benchmarks/realworld.py         # writes benchmarks/corpus/realworld.json and prints a summary

The summary gives, per package and overall: files, lines, findings per rule, findings per 1,000
files, and every finding with its source line, ready to be triaged in docs/real-world.md.
The linter runs as a user would run it: the CLI, ``--isolated`` (no project configuration),
``--no-cache``, JSON output.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from collections import Counter
from typing import Any, Dict, List

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from corpus import CORPUS, build  # noqa: E402


def count_lines(directory: str) -> tuple:
    files = lines = 0
    for root, dirs, names in os.walk(directory):
        dirs.sort()
        for name in names:
            if name.endswith(".py"):
                files += 1
                with open(os.path.join(root, name), "rb") as handle:
                    lines += handle.read().count(b"\n")
    return files, lines


def lint(directories: List[str], jobs: int, select: List[str]) -> List[Dict[str, Any]]:
    command = [sys.executable, "-m", "torchtype_lint", "check", "--isolated", "--no-cache",
               "--output-format", "json", "--exit-zero", "-j", str(jobs)]
    for code in select:
        command += ["--select", code]
    result = subprocess.run(command + directories, capture_output=True, text=True)
    if result.returncode != 0:
        raise SystemExit(f"torchtype-lint failed ({result.returncode}): {result.stderr[-2000:]}")
    return json.loads(result.stdout or "[]")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--select", action="append", default=[], help="rule prefixes (default: TTL)")
    parser.add_argument("--only", action="append", help="only this corpus directory name (repeatable)")
    parser.add_argument("--out", default=os.path.join(CORPUS, "realworld.json"))
    args = parser.parse_args()
    directories = build()
    if args.only:
        directories = [d for d in directories if os.path.basename(d) in args.only]
    started = time.time()
    findings = lint(directories, args.jobs, args.select or ["TTL"])
    elapsed = time.time() - started
    per_package: Dict[str, Dict[str, Any]] = {}
    total_files = total_lines = 0
    for d in directories:
        files, lines = count_lines(d)
        total_files += files
        total_lines += lines
        per_package[os.path.basename(d)] = {"files": files, "lines": lines, "findings": Counter()}
    for f in findings:
        rel = os.path.relpath(f["filename"], CORPUS)
        f["relpath"] = rel
        per_package.setdefault(rel.split(os.sep)[0], {"files": 0, "lines": 0, "findings": Counter()})[
            "findings"][f["code"]] += 1
        try:
            with open(f["filename"], encoding="utf-8", errors="replace") as handle:
                f["source_line"] = handle.read().splitlines()[f["location"]["row"] - 1].strip()
        except (OSError, IndexError):
            f["source_line"] = ""
    by_rule = Counter(f["code"] for f in findings)
    summary = {"files": total_files, "lines": total_lines, "wall_s": round(elapsed, 1),
               "by_rule": dict(sorted(by_rule.items())),
               "per_1000_files": {c: round(n * 1000 / max(total_files, 1), 2) for c, n in sorted(by_rule.items())},
               "packages": {k: {"files": v["files"], "lines": v["lines"], "findings": dict(v["findings"])}
                            for k, v in per_package.items()},
               "findings": findings}
    with open(args.out, "w", encoding="utf-8") as handle:
        json.dump(summary, handle, indent=1)
    print(f"{total_files} files, {total_lines} lines, {len(findings)} findings in {elapsed:.0f}s wall")
    for code, n in sorted(by_rule.items()):
        print(f"  {code}: {n} ({n * 1000 / max(total_files, 1):.2f} per 1,000 files)")
    for f in findings:
        print(f"{f['relpath']}:{f['location']['row']}:{f['location']['column']}: {f['code']} {f['message'][:160]}")
        print(f"    | {f['source_line'][:150]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
