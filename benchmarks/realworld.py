"""Lint the whole downloaded corpus with every rule (opt-in TTL9xx excluded) and summarise.

    python benchmarks/corpus.py            # once: downloads into benchmarks/corpus/
    python benchmarks/realworld.py         # writes benchmarks/corpus/realworld.json and prints a summary

The summary gives, per package and overall: files (``.py`` and ``.ipynb``, notebooks also counted
apart), lines, findings per rule, findings per 1,000 files, and every finding with its source line
(for a notebook: the line of its cell), ready to be triaged in docs/real-world.md. The corpus's
two halves, tested libraries and what users write (courses, tutorials, research code, notebooks),
are also counted apart.
The linter runs as a user would run it: the CLI, ``--isolated`` (no project configuration),
``--no-cache``, JSON output.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from collections import Counter
from typing import Any, Callable, Dict, List

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
TRIAGE = os.path.join(HERE, "triage.json")
sys.path.insert(0, HERE)

from corpus import CORPUS, EXTRACTED_SUFFIXES, SOURCES, build, source_directory  # noqa: E402
from recall import extract_package, linter_revision  # noqa: E402

#: Corpus directory name -> its kind ("library", "course", ...); torch's own nn is a library.
KINDS: Dict[str, str] = {"torch-nn": "library",
                         **{os.path.basename(source_directory(s)): s.kind for s in SOURCES}}


def code_cells(path: str) -> List[str]:
    """The sources of a notebook's code cells ([] when it is not readable notebook JSON)."""
    try:
        with open(path, encoding="utf-8") as handle:
            cells = json.load(handle).get("cells", [])
        return ["".join(c["source"]) if isinstance(c.get("source"), list) else str(c.get("source", ""))
                for c in cells if isinstance(c, dict) and c.get("cell_type") == "code"]
    except (OSError, ValueError, AttributeError, KeyError, TypeError):
        return []


def count_lines(directory: str) -> tuple:
    """(files, notebooks, lines) of a corpus directory; a notebook's lines are its code cells' lines."""
    files = notebooks = lines = 0
    for root, dirs, names in os.walk(directory):
        dirs.sort()
        for name in names:
            path = os.path.join(root, name)
            if name.endswith(".ipynb"):
                files += 1
                notebooks += 1
                lines += sum(len(cell.splitlines()) for cell in code_cells(path))
            elif name.endswith(".py"):
                files += 1
                with open(path, "rb") as handle:
                    lines += handle.read().count(b"\n")
    return files, notebooks, lines


def source_line(f: Dict[str, Any]) -> str:
    """The reported line: of the file, or of the notebook cell the finding names."""
    row = f["location"]["row"] - 1
    try:
        if f.get("cell"):
            # "cell" is the 1-based position among all cells, markdown included (notebook.py).
            with open(f["filename"], encoding="utf-8") as handle:
                cell = json.load(handle)["cells"][f["cell"] - 1]
            text = "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]
            return text.splitlines()[row].strip()
        with open(f["filename"], encoding="utf-8", errors="replace") as handle:
            return handle.read().splitlines()[row].strip()
    except (OSError, ValueError, IndexError, KeyError, TypeError):
        return ""


def lint(directories: List[str], jobs: int, select: List[str], linter_root: str = ROOT) -> List[Dict[str, Any]]:
    command = [sys.executable, "-m", "torchtype_lint", "check", "--isolated", "--no-cache",
               "--output-format", "json", "--exit-zero", "-j", str(jobs)]
    for code in select:
        command += ["--select", code]
    # `python -m` finds the package in its working directory first: the tree or a commit's copy.
    result = subprocess.run(command + [os.path.abspath(d) for d in directories], capture_output=True, text=True,
                            cwd=linter_root)
    if result.returncode != 0:
        raise SystemExit(f"torchtype-lint failed ({result.returncode}): {result.stderr[-2000:]}")
    return json.loads(result.stdout or "[]")


def _time_one(path: str) -> tuple:
    from torchtype_lint.run.runner import check_bytes_deep
    from torchtype_lint.model.selection import Selection
    from torchtype_lint.model.settings import Settings

    with open(path, "rb") as handle:
        data = handle.read()
    started = time.process_time()
    check_bytes_deep(data, path, Settings(selection=Selection(select=["TTL"], extend_select=["TTL9"])))
    return time.process_time() - started, path, data.count(b"\n")


def per_file_cpu(directories: List[str], jobs: int) -> Dict[str, Any]:
    """CPU seconds of the analysis of every file (in-process, no cache), to show the spread."""
    import multiprocessing

    files = sorted(os.path.join(root, name) for d in directories for root, _, names in os.walk(d)
                   for name in names if name.endswith(EXTRACTED_SUFFIXES))
    with multiprocessing.get_context("fork").Pool(jobs) as pool:
        timed = sorted(pool.map(_time_one, files, chunksize=8), reverse=True)
    cpu = [t for t, _, _ in timed]
    return {"total_cpu_s": round(sum(cpu), 1), "median_ms": round(1000 * cpu[len(cpu) // 2], 1),
            "slowest": [{"cpu_s": round(t, 2), "lines": n, "path": os.path.relpath(p, CORPUS)} for t, p, n in timed[:5]]}


def finding_key(f: Dict[str, Any]) -> str:
    """Stable name of a finding for the triage file: corpus-relative path, (notebook cell,) line, code."""
    cell = f"cell {f['cell']}:" if f.get("cell") else ""
    return f"{f['relpath']}:{cell}{f['location']['row']}:{f['code']}"


def _opt_in(code: str) -> bool:
    return code.startswith("TTL9")


def position(f: Dict[str, Any]) -> str:
    """Where a finding is, as the CLI shows it: path:line, or path:cell N:line in a notebook."""
    cell = f"cell {f['cell']}:" if f.get("cell") else ""
    return f"{f['relpath']}:{cell}{f['location']['row']}"


def _is_user_code(package: Dict[str, Any]) -> bool:
    return package.get("kind", "library") != "library"


def halves(summary: Dict[str, Any], default: List[Dict[str, Any]],
           verdict_of: Callable[[Dict[str, Any]], Dict[str, str]]) -> List[str]:
    """The default rules' numbers for each half of the corpus: tested libraries, what users write."""
    user_dirs = {name for name, pkg in summary["packages"].items() if _is_user_code(pkg)}
    out = ["| half of the corpus | files | of which notebooks | lines | default-rule findings | "
           "false alarms | false alarms per 1,000 files |", "|---|---:|---:|---:|---:|---:|---:|"]
    for label, user in (("tested libraries", False), ("what users write (courses, tutorials, research, notebooks)", True)):
        packages = [pkg for name, pkg in summary["packages"].items() if (name in user_dirs) == user]
        files = sum(pkg["files"] for pkg in packages)
        mine = [f for f in default if (f["relpath"].split(os.sep)[0] in user_dirs) == user]
        false = sum(1 for f in mine if verdict_of(f).get("verdict") == "false alarm")
        out.append(f"| {label} | {files:,} | {sum(pkg.get('notebooks', 0) for pkg in packages):,} | "
                   f"{sum(pkg['lines'] for pkg in packages):,} | {len(mine)} | {false} | "
                   f"{false * 1000 / max(files, 1):.2f} |")
    return out


def user_code_sources(summary: Dict[str, Any]) -> List[str]:
    """The table of what-users-write sources: where each comes from and what its files are."""
    out = ["", "### What users write: the sources", "",
           "Course and tutorial code, research code and notebooks, from the PyPI releases that ship them "
           "(PyPI is where this corpus is downloaded from; `only` keeps the folders named, the rest of such a "
           "package being library code).", "",
           "| source | version | kind | folders kept | files | of which notebooks | what the files are |",
           "|---|---|---|---|---:|---:|---|"]
    for source in SOURCES:
        if source.kind == "library":
            continue
        pkg = summary["packages"].get(os.path.basename(source_directory(source)), {})
        kept = ", ".join(f"`{k}`" for k in source.only) or "all"
        out.append(f"| {source.name} | {source.version} | {source.kind} | {kept} | {pkg.get('files', 0):,} | "
                   f"{pkg.get('notebooks', 0):,} | {source.about} |")
    return out


def write_docs(summary: Dict[str, Any], path: str) -> None:
    """docs/real-world.md: counts per package and rule, then every finding with its verdict.

    Verdicts come from benchmarks/triage.json: ``verdicts`` per finding (path:line:code), and
    ``rule_verdicts`` for opt-in rules whose findings are too many to judge one by one: a verdict
    for the rule as a whole, from the sample named in it."""
    triage: Dict[str, Dict[str, str]] = {}
    rule_verdicts: Dict[str, Dict[str, str]] = {}
    history: List[Dict[str, str]] = []
    if os.path.exists(TRIAGE):
        with open(TRIAGE, encoding="utf-8") as handle:
            data = json.load(handle)
        triage, history = data.get("verdicts", {}), data.get("fixed_during_development", [])
        rule_verdicts = data.get("rule_verdicts", {})

    def verdict_of(f: Dict[str, Any]) -> Dict[str, str]:
        return triage.get(finding_key(f)) or rule_verdicts.get(f["code"]) or {}

    findings = summary["findings"]
    default = [f for f in findings if not _opt_in(f["code"])]
    opt_in = [f for f in findings if _opt_in(f["code"])]
    files = summary["files"]
    verdicts = Counter(verdict_of(f).get("verdict", "untriaged") for f in default)
    internal = sum(1 for f in findings if f["code"] == "TTL000")
    out = ["# Real-world run", "",
           "<!-- Generated by `python benchmarks/realworld.py` (verdicts: benchmarks/triage.json). -->", "",
           f"Every rule, the opt-in TTL9xx ones included (`{summary.get('command', 'torchtype-lint check')}`), over "
           f"the pinned corpus of `benchmarks/corpus.py` on {summary.get('date', '?')}: **{files:,} files "
           f"({summary.get('notebooks', 0):,} of them Jupyter notebooks), {summary['lines']:,} lines, {internal} internal errors (TTL000)**.", "",
           f"**Rules on by default: {len(default)} finding{'' if len(default) == 1 else 's'}** ({len(default) * 1000 / max(files, 1):.2f} per 1,000 "
           f"files): {verdicts.get('true bug', 0)} true bugs, {verdicts.get('false alarm', 0)} false alarms "
           f"({verdicts.get('false alarm', 0) * 1000 / max(files, 1):.2f} per 1,000 files; target: at most 1), "
           f"{verdicts.get('style', 0)} correct but harmless (style)"
           + (f", {verdicts['untriaged']} not yet triaged" if verdicts.get("untriaged") else "") + ".", "",
           f"**Opt-in rules (TTL9xx): {len(opt_in)} findings.** They report what they are defined to report "
           "(conversions of arrays of unknown dtype, silent int-to-float promotions), so a finding is a false "
           "alarm only when its message states something false about the code.", "",
           "Real libraries are tested, so few true bugs are expected there; courses, tutorials, research code "
           "and notebooks are what most users write, and where the linter's false alarms would cost them most. "
           "The point of this run is precision (what a user of the default rules would have to read through) "
           "and robustness (no internal error).", "",
           f"Linter: {summary.get('linter', '?')}.",
           ""]
    out += halves(summary, default, verdict_of)
    out += ["", "## Corpus", "", "| package | kind | files | of which notebooks | lines | findings |",
            "|---|---|---:|---:|---:|---|"]
    for name, pkg in sorted(summary["packages"].items(), key=lambda item: (_is_user_code(item[1]), item[0])):
        shown = ", ".join(f"{c} x{n}" for c, n in sorted(pkg["findings"].items())) or "none"
        out.append(f"| {name} | {pkg.get('kind', '?')} | {pkg['files']:,} | {pkg.get('notebooks', 0):,} | "
                   f"{pkg['lines']:,} | {shown} |")
    out += ["", "A notebook's lines are the lines of its code cells; it is linted as one program, as it runs."]
    out += user_code_sources(summary)
    timing = summary.get("timing")
    if timing:
        out += ["", f"Analysis CPU per file (every rule, in one process, no cache): {timing['total_cpu_s']} s for "
                    f"the whole corpus, median {timing['median_ms']} ms per file; the slowest files:", "",
                "| file | lines | CPU s |", "|---|---:|---:|"]
        out += [f"| `{t['path']}` | {t['lines']:,} | {t['cpu_s']} |" for t in timing["slowest"]]
        worst = timing["slowest"][0]["cpu_s"] if timing["slowest"] else 0
        from torchtype_lint.model.settings import DEFAULT_TIME_BUDGET  # the package that was measured

        out += ["", f"The slowest file takes {worst / DEFAULT_TIME_BUDGET:.0%} of the default per-file time budget "
                    f"({DEFAULT_TIME_BUDGET:g} s)."]
    out += ["", "## Findings per rule", "",
            "| rule | on by default | findings | per 1,000 files | verdicts |",
            "|---|---|---:|---:|---|"]
    for code, n in sorted(summary["by_rule"].items()):
        own = Counter(triage[finding_key(f)]["verdict"] for f in findings
                      if f["code"] == code and finding_key(f) in triage)
        shown = ", ".join(f"{k}: {v}" for k, v in sorted(own.items()))
        rest = n - sum(own.values())
        if rest and code in rule_verdicts:
            shown += (", " if shown else "") + f"{rest} under the rule-level verdict ({rule_verdicts[code]['verdict']}, see below)"
        elif rest:
            shown += (", " if shown else "") + f"untriaged: {rest}"
        out.append(f"| {code} | {'no' if _opt_in(code) else 'yes'} | {n} | {n * 1000 / max(files, 1):.2f} | {shown} |")
    out += ["", "Rules with no row reported nothing on this corpus.", ""]

    def listing(items: List[Dict[str, Any]]) -> None:
        for f in sorted(items, key=finding_key):
            verdict = verdict_of(f)
            how = "" if finding_key(f) in triage or not verdict else " (rule-level verdict, see above)"
            out.append(f"- `{position(f)}` **{f['code']}** — "
                       f"**{verdict.get('verdict', 'untriaged')}**{how}: "
                       f"{verdict.get('reason', '') if finding_key(f) in triage else ''}")
            out.append(f"  - line: `{f['source_line'][:140]}`")
            out.append(f"  - message: {f['message'][:300]}")

    out += ["## Rules on by default: every finding, triaged", ""]
    listing(default)
    if not default:
        out.append("No findings.")
    out += ["", "## Opt-in rules", ""]
    for code, verdict in sorted(rule_verdicts.items()):
        if any(f["code"] == code for f in opt_in):
            out.append(f"- **{code}**, every finding without its own verdict below: **{verdict['verdict']}** — "
                       f"{verdict['reason']}")
    out += ["", "<details><summary>Every opt-in finding</summary>", ""]
    listing(opt_in)
    out += ["", "</details>"]
    if history:
        out += ["", "## False alarms found on this corpus and fixed", "",
                "Earlier runs during development reported these; each was traced to its cause and fixed, "
                "and the run above no longer reports them.", "", "| where | rule | why it was wrong | fix |",
                "|---|---|---|---|"]
        for item in history:
            out.append(f"| `{item['where']}` | {item['rule']} | {item['why']} | {item['fix']} |")
    out += ["", "## Reproduce", "", "```sh", ".venv/bin/python benchmarks/corpus.py",
            ".venv/bin/python benchmarks/realworld.py   # rewrites this page; add verdicts to benchmarks/triage.json",
            "```", ""]
    with open(path, "w", encoding="utf-8") as handle:
        handle.write("\n".join(out))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--select", action="append", default=[],
                        help="rule prefixes (default: TTL and TTL9, i.e. every rule, opt-in ones included)")
    parser.add_argument("--only", action="append", help="only this corpus directory name (repeatable)")
    parser.add_argument("--out", default=os.path.join(CORPUS, "realworld.json"))
    parser.add_argument("--docs", help="markdown page to write (triage verdicts come from benchmarks/triage.json; "
                                       "default: docs/real-world.md, for a full run only: a run narrowed by "
                                       "--select or --only writes no page unless given one)")
    parser.add_argument("--render-only", action="store_true", help="re-render the page from --out, no lint run")
    parser.add_argument("--no-timing", action="store_true", help="skip the per-file CPU measurement (about 1 minute)")
    parser.add_argument("--linter-commit", metavar="REV",
                        help="lint with the torchtype_lint package of this commit (git archive into a temporary "
                             "directory) instead of the working tree's, which others may be editing")
    args = parser.parse_args()
    if args.docs is None and not args.select and not args.only:
        args.docs = os.path.join(ROOT, "docs", "real-world.md")  # a partial run must not overwrite the page
    if args.render_only:
        with open(args.out, encoding="utf-8") as handle:
            write_docs(json.load(handle), args.docs or os.path.join(ROOT, "docs", "real-world.md"))
        return 0
    directories = build()
    if args.only:
        directories = [d for d in directories if os.path.basename(d) in args.only]
    if not args.linter_commit:
        return measure(args, directories, ROOT, linter_revision())
    with tempfile.TemporaryDirectory(prefix="realworld-linter-") as tmp:
        commit = extract_package(args.linter_commit, tmp)
        # The in-process timing imports the package too: the commit's copy comes first on the path.
        sys.path.insert(0, tmp)
        try:
            return measure(args, directories, tmp, linter_revision(commit))
        finally:
            sys.path.remove(tmp)


def measure(args: argparse.Namespace, directories: List[str], linter_root: str, revision: str) -> int:
    """Lint ``directories`` with the package under ``linter_root``, time it, write the JSON and the page."""
    started = time.time()
    findings = lint(directories, args.jobs, args.select or ["TTL", "TTL9"], linter_root)
    elapsed = time.time() - started
    per_package: Dict[str, Dict[str, Any]] = {}
    total_files = total_notebooks = total_lines = 0
    for d in directories:
        files, notebooks, lines = count_lines(d)
        total_files += files
        total_notebooks += notebooks
        total_lines += lines
        per_package[os.path.basename(d)] = {"files": files, "notebooks": notebooks, "lines": lines,
                                            "kind": KINDS.get(os.path.basename(d), "?"), "findings": Counter()}
    for f in findings:
        rel = os.path.relpath(f["filename"], CORPUS)
        f["relpath"] = rel
        per_package.setdefault(rel.split(os.sep)[0], {"files": 0, "lines": 0, "findings": Counter()})[
            "findings"][f["code"]] += 1
        f["source_line"] = source_line(f)
    by_rule = Counter(f["code"] for f in findings)
    summary = {"linter": revision, "files": total_files, "notebooks": total_notebooks, "lines": total_lines,
               "wall_s": round(elapsed, 1),
               "by_rule": dict(sorted(by_rule.items())),
               "per_1000_files": {c: round(n * 1000 / max(total_files, 1), 2) for c, n in sorted(by_rule.items())},
               "packages": {k: {**v, "findings": dict(v["findings"])}
                            for k, v in per_package.items()},
               "findings": findings}
    if not args.no_timing:
        summary["timing"] = per_file_cpu(directories, args.jobs)
    summary["date"] = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    summary["command"] = " ".join(["torchtype-lint check --isolated --no-cache"] +
                                  [f"--select {c}" for c in (args.select or ["TTL", "TTL9"])])
    with open(args.out, "w", encoding="utf-8") as handle:
        json.dump(summary, handle, indent=1)
    if args.docs:
        write_docs(summary, args.docs)
    print(f"{total_files} files ({total_notebooks} notebooks), {total_lines} lines, "
          f"{len(findings)} findings in {elapsed:.0f}s wall")
    if "timing" in summary:
        print(f"analysis CPU: {summary['timing']['total_cpu_s']} s in all, median "
              f"{summary['timing']['median_ms']} ms per file, slowest {summary['timing']['slowest'][0]}")
    for code, n in sorted(by_rule.items()):
        print(f"  {code}: {n} ({n * 1000 / max(total_files, 1):.2f} per 1,000 files)")
    for f in findings:
        print(f"{position(f)}:{f['location']['column']}: {f['code']} {f['message'][:160]}")
        print(f"    | {f['source_line'][:150]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
