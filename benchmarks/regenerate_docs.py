"""Regenerate every generated document, then check that the docs agree with their sources.

    python benchmarks/regenerate_docs.py                 # every generated doc (slow: torch runs, the corpus)
    python benchmarks/regenerate_docs.py --fast          # only the ones that take seconds (the rule docs)
    python benchmarks/regenerate_docs.py --skip performance --skip real-world
    python benchmarks/regenerate_docs.py --only recall   # one of them (repeatable)
    python benchmarks/regenerate_docs.py --render-only   # re-render what saved results allow, measure nothing
    python benchmarks/regenerate_docs.py --check         # no regeneration: what is stale or disagrees (exit 1)
    python benchmarks/regenerate_docs.py --list          # what is generated, by which command, at what cost

The generated documents (``TARGETS``), in the order they are made:

* ``rules``: ``docs/rules/*.md``, ``rules/README.md`` and the README's rule list, from the rules'
  docstrings (``python -m torchtype_lint.report.rule_docs``; seconds);
* ``recall``: ``docs/recall.md``, every program of ``benchmarks/programs`` run under torch and
  linted (``python benchmarks/recall.py --out docs/recall.md``; several minutes, needs torch);
* ``real-world``: ``docs/real-world.md``, the whole corpus linted and timed
  (``python benchmarks/realworld.py``; downloads the corpus on first use, then tens of minutes;
  verdicts from ``benchmarks/triage.json``);
* ``performance``: ``docs/performance.md``, the side-by-side benchmark on ``torch/nn``
  (``python benchmarks/run.py``; tens of minutes, makes two virtual environments in /tmp).

The README and the hand-written docs quote some of their numbers; those are not generated, so
after a regeneration the checks (``--check``, ``tests/test_docs_truth.py``) name any that no
longer agree, to be edited by hand. The checks are cheap (no torch, no benchmark run): a
generated doc that can be seen to be stale (the recall programs it lists are not the ones in
``benchmarks/programs``; a rule page differs from its rule), a doc that says its programs were not
verified, a number in README or docs/ that differs from the doc or the code it comes from (the
language server's debounce, the default time budget).
"""
from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
from dataclasses import dataclass
from typing import Callable, Dict, List, Optional, Sequence, Tuple

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, ROOT)  # the working tree's package, run from anywhere


@dataclass(frozen=True)
class Target:
    name: str
    outputs: Tuple[str, ...]
    command: Tuple[str, ...]  # after the interpreter
    cost: str
    slow: bool
    #: Arguments that re-render the doc from the last run's saved results (None: it cannot be).
    render_only: Optional[Tuple[str, ...]] = None


TARGETS: Tuple[Target, ...] = (
    Target("rules", ("docs/rules/*.md", "rules/README.md", "README.md (the rule list)"),
           ("-m", "torchtype_lint.report.rule_docs"), "seconds", slow=False,
           render_only=("-m", "torchtype_lint.report.rule_docs")),
    Target("recall", ("docs/recall.md",), ("benchmarks/recall.py", "--out", "docs/recall.md"),
           "several minutes: every program run under torch, then linted", slow=True),
    Target("real-world", ("docs/real-world.md",), ("benchmarks/realworld.py",),
           "downloads the corpus on first use (benchmarks/corpus.py), then tens of minutes", slow=True,
           render_only=("benchmarks/realworld.py", "--render-only")),
    Target("performance", ("docs/performance.md",), ("benchmarks/run.py",),
           "tens of minutes; makes /tmp/bench-venv (TorchFix) and /tmp/flake8-venv", slow=True),
)
NAMES = tuple(t.name for t in TARGETS)
#: The targets that take a --linter-commit (lint with a commit's package, not the working tree's).
LINTER_COMMIT = ("recall", "real-world")


def shown(command: Sequence[str]) -> str:
    return " ".join(["python", *command])


# ---------------------------------------------------------------------- reading the docs


def read(relative: str, root: str = ROOT) -> str:
    with open(os.path.join(root, relative), encoding="utf-8") as handle:
        return handle.read()


def flat(text: str) -> str:
    """Markdown with its line breaks and runs of spaces as single spaces (sentences wrap)."""
    return " ".join(text.split())


def number(text: str) -> int:
    return int(text.replace(",", ""))


def section(text: str, heading: str) -> str:
    """The body of a ``## heading`` section ('' when there is none)."""
    match = re.search(rf"^## {re.escape(heading)}\s*$(.*?)(?=^## |\Z)", text, flags=re.M | re.S)
    return match.group(1) if match else ""


@dataclass
class RecallDoc:
    command: str
    verification: str
    pairs: int
    caught: int
    false_alarms: int
    programs: List[Tuple[str, str]]  # (number, slug) of each row of "Per program"
    sources: int  # programs rebuilt from a cited bug report


def recall_doc(root: str = ROOT) -> RecallDoc:
    text = read("docs/recall.md", root)
    header = re.match(r"Generated by `([^`]+)`", text)
    verification = re.search(r"^Torch verification: (.*)$", text, flags=re.M)
    pairs = re.search(r"^\| pairs \| (\d[\d,]*) \|", text, flags=re.M)
    recall = re.search(r"^\| recall \(.*?\) \| \*\*(\d[\d,]*)/(\d[\d,]*) = ", text, flags=re.M)
    alarms = re.search(r"^\| false alarms \(.*?\) \| \*\*(\d[\d,]*)\*\*", text, flags=re.M)
    missing = [name for name, found in (("the `Generated by` line", header), ("the torch verification line",
               verification), ("the pairs row", pairs), ("the recall row", recall), ("the false alarms row", alarms))
               if found is None]
    if missing:
        raise ValueError(f"docs/recall.md: no {', '.join(missing)} (did benchmarks/recall.py change its report?)")
    programs = re.findall(r"^\| (\d+) \| `([^`]+)` \|", section(text, "Per program"), flags=re.M)
    sources = re.findall(r"^- \d+ `[^`]+`: \S", section(text, "Sources"), flags=re.M)
    return RecallDoc(header.group(1), verification.group(1), number(pairs.group(1)), number(recall.group(1)),
                     number(alarms.group(1)), programs, len(sources))


def corpus_pairs(root: str = ROOT) -> List[Tuple[str, str]]:
    """(number, slug) of each pair in benchmarks/programs, as recall.py reads them."""
    names = sorted(os.listdir(os.path.join(root, "benchmarks", "programs")))
    bugs = {m.groups() for m in (re.fullmatch(r"(\d{2,3})_(\w+?)_bug\.py", n) for n in names) if m}
    fixed = {m.groups() for m in (re.fullmatch(r"(\d{2,3})_(\w+?)_fixed\.py", n) for n in names) if m}
    return sorted(bugs | fixed)


# ---------------------------------------------------------------------- the checks
# Each returns what is wrong (an empty list when the docs tell the truth), in words that say
# what to run or edit.

RECALL_COMMAND = shown(TARGETS[1].command)
#: recall.py options that make a report of fewer programs or without the torch verification.
RECALL_PARTIAL = ("--only", "--skip-kept-aside", "--no-verify", "--verify-only")


def check_rule_docs(root: str = ROOT) -> List[str]:
    from torchtype_lint.report import rule_docs

    return [f"{path} is stale: run `{shown(TARGETS[0].command)}`" for path in rule_docs.stale_files(root)]


def check_recall_doc_lists_the_programs(root: str = ROOT) -> List[str]:
    doc, corpus = recall_doc(root), corpus_pairs(root)
    listed = sorted(doc.programs)
    problems = []
    added = sorted(set(corpus) - set(listed), key=lambda p: (int(p[0]), p[1]))
    gone = sorted(set(listed) - set(corpus), key=lambda p: (int(p[0]), p[1]))
    if added:
        problems.append(f"docs/recall.md is stale: {len(added)} of the {len(corpus)} program pairs in "
                        f"benchmarks/programs are not in it (programs added since it was generated: "
                        f"{', '.join(f'{n}_{s}' for n, s in added[:8])}{', ...' if len(added) > 8 else ''}); "
                        f"run `{RECALL_COMMAND}`")
    if gone:
        problems.append(f"docs/recall.md lists {len(gone)} programs that benchmarks/programs no longer has "
                        f"({', '.join(f'{n}_{s}' for n, s in gone[:8])}); run `{RECALL_COMMAND}`")
    if doc.pairs != len(listed):
        problems.append(f"docs/recall.md counts {doc.pairs} pairs but lists {len(listed)}")
    return problems


def check_recall_doc_is_verified(root: str = ROOT) -> List[str]:
    doc = recall_doc(root)
    problems = []
    words = doc.command.split()
    partial = [w.split("=")[0] for w in words if w.split("=")[0] in RECALL_PARTIAL]
    if words[:2] != RECALL_COMMAND.split()[:2] or "docs/recall.md" not in words or partial:
        problems.append(f"docs/recall.md was generated by `{doc.command}`"
                        + (f" ({', '.join(partial)}: not every program, or not verified)" if partial else "")
                        + f", not by `{RECALL_COMMAND}` (with -j or --linter-commit if you like): run that")
    match = re.match(r"(\d[\d,]*) of (\d[\d,]*) programs behave as their header says", doc.verification)
    if match is None:
        problems.append(f"docs/recall.md does not say its programs were verified with torch "
                        f"(\"Torch verification: {doc.verification}\"): run `{RECALL_COMMAND}`")
    elif not (number(match.group(1)) == number(match.group(2)) == 2 * doc.pairs):
        problems.append(f"docs/recall.md: {match.group(0)}, for {doc.pairs} pairs ({2 * doc.pairs} programs)")
    if "**FAILED**" in read("docs/recall.md", root):
        problems.append("docs/recall.md lists programs that failed their torch verification")
    return problems


README_RECALL = re.compile(
    r"\[docs/recall\.md\]\(docs/recall\.md\) \((\d[\d,]*) realistic buggy programs, (\d[\d,]*) of them rebuilt "
    r"from real bug reports[^:]*?, (verified with torch): (\d[\d,]*) caught, (\d[\d,]*) false alarms")


def check_readme_recall_figures(root: str = ROOT) -> List[str]:
    readme = flat(read("README.md", root))
    match = README_RECALL.search(readme)
    if match is None:
        return ["README.md no longer states the recall figures as this check reads them "
                "(`[docs/recall.md](docs/recall.md) (N realistic buggy programs, R of them rebuilt from real bug "
                "reports ..., verified with torch: C caught, F false alarms`): update the check with it"]
    doc = recall_doc(root)
    stated = {"programs": number(match.group(1)), "rebuilt from real bug reports": number(match.group(2)),
              "caught": number(match.group(4)), "false alarms": number(match.group(5))}
    actual = {"programs": doc.pairs, "rebuilt from real bug reports": doc.sources, "caught": doc.caught,
              "false alarms": doc.false_alarms}
    problems = [f"README.md says {stated[k]} {k} in docs/recall.md, which says {actual[k]}"
                for k in stated if stated[k] != actual[k]]
    problems += [f"README.md says the recall programs are verified with torch, but: {p}"
                 for p in check_recall_doc_is_verified(root)]
    return problems


README_REAL_WORLD = re.compile(
    r"\[docs/real-world\.md\]\(docs/real-world\.md\) \(every finding on (\d[\d,]*) files, triaged: (\d[\d,]*) of "
    r"[^()]*? and (\d[\d,]*) of what users write: [^()]*? and (\d[\d,]*) Jupyter notebooks\)")


def real_world_doc(root: str = ROOT) -> Dict[str, int]:
    text = read("docs/real-world.md", root)
    total = re.search(r"\*\*(\d[\d,]*) files \((\d[\d,]*) of them Jupyter notebooks\)", text)
    libraries = re.search(r"^\| tested libraries \| (\d[\d,]*) \|", text, flags=re.M)
    users = re.search(r"^\| what users write [^|]*\| (\d[\d,]*) \| (\d[\d,]*) \|", text, flags=re.M)
    if not (total and libraries and users):
        raise ValueError("docs/real-world.md: no file counts where this check reads them "
                         "(did benchmarks/realworld.py change its page?)")
    return {"files": number(total.group(1)), "notebooks": number(total.group(2)),
            "library files": number(libraries.group(1)), "files of what users write": number(users.group(1)),
            "notebooks of what users write": number(users.group(2))}


def check_readme_real_world_figures(root: str = ROOT) -> List[str]:
    match = README_REAL_WORLD.search(flat(read("README.md", root)))
    if match is None:
        return ["README.md no longer states the real-world figures as this check reads them "
                "(`(every finding on N files, triaged: L of ... and U of what users write: ... and K Jupyter "
                "notebooks)`): update the check with it"]
    doc = real_world_doc(root)
    stated = {"files": number(match.group(1)), "library files": number(match.group(2)),
              "files of what users write": number(match.group(3)), "notebooks": number(match.group(4))}
    return [f"README.md says {stated[k]} {k} in docs/real-world.md, which says {doc[k]}"
            for k in stated if stated[k] != doc[k]]


README_LSP = re.compile(r"on a (\d[\d,]*)-line script, edit to diagnostics in (\d+) to (\d+) ms")


def lsp_latencies(root: str = ROOT) -> Dict[int, List[int]]:
    """Lines of the plain script -> its median edit latencies (ms), from docs/performance.md."""
    rows = re.findall(r"^\| (\d[\d,]*)-line script \| (\d+) ms \| (\d+) ms \| (\d+) ms \|",
                      section(read("docs/performance.md", root), "Language server"), flags=re.M)
    return {number(lines): [int(v) for v in values] for lines, *values in rows}


def check_readme_lsp_latency(root: str = ROOT) -> List[str]:
    match = README_LSP.search(flat(read("README.md", root)))
    if match is None:
        return ["README.md no longer states the language server's edit latency as this check reads it "
                "(`on a N-line script, edit to diagnostics in A to B ms`): update the check with it"]
    lines, low, high = number(match.group(1)), int(match.group(2)), int(match.group(3))
    table = lsp_latencies(root)
    if lines not in table:
        return [f"README.md quotes the edit latency of a {lines}-line script; docs/performance.md's language "
                f"server table has scripts of {sorted(table)} lines"]
    medians = table[lines]
    if (low, high) != (min(medians), max(medians)):
        return [f"README.md says {low} to {high} ms for a {lines}-line script; docs/performance.md's medians "
                f"are {', '.join(map(str, medians))} ms ({min(medians)} to {max(medians)})"]
    return []


def _seconds(value: str, unit: str) -> float:
    return float(value) / (1000.0 if unit == "ms" else 1.0)


#: Where a doc states the language server's debounce: (file, pattern of value and unit).
DEBOUNCE_STATEMENTS = (
    ("docs/integrations.md", r"(\d+(?:\.\d+)?) (ms|s) after the last change"),
    ("docs/performance.md", r"(\d+(?:\.\d+)?) (ms|s) after the last change"),
)


def check_debounce(root: str = ROOT) -> List[str]:
    from torchtype_lint.frontends.lsp import DEBOUNCE_SECONDS

    problems = []
    for relative, pattern in DEBOUNCE_STATEMENTS:
        found = re.findall(pattern, flat(read(relative, root)))
        if not found:
            problems.append(f"{relative} no longer states the debounce as /{pattern}/: update the check")
        for value, unit in found:
            if abs(_seconds(value, unit) - DEBOUNCE_SECONDS) > 1e-9:
                problems.append(f"{relative} says diagnostics come {value} {unit} after the last change; the "
                                f"language server waits {DEBOUNCE_SECONDS * 1000:g} ms "
                                f"(frontends/lsp.py DEBOUNCE_SECONDS)")
    return problems


#: Where a doc states the default per-file time budget (file, pattern of the value in seconds).
TIME_BUDGET_STATEMENTS = (
    ("README.md", r"`--time-budget`, default (\d+(?:\.\d+)?) s"),
    ("docs/performance.md", r"`--time-budget` \(default (\d+(?:\.\d+)?) s"),
    ("docs/real-world.md", r"default per-file time budget \((\d+(?:\.\d+)?) s\)"),
)


def check_time_budget(root: str = ROOT) -> List[str]:
    from torchtype_lint.model.settings import DEFAULT_TIME_BUDGET

    problems = []
    for relative, pattern in TIME_BUDGET_STATEMENTS:
        found = re.findall(pattern, flat(read(relative, root)))
        if not found:
            problems.append(f"{relative} no longer states the default time budget as /{pattern}/: update the check")
        problems += [f"{relative} says the default time budget is {value} s; it is {DEFAULT_TIME_BUDGET:g} s "
                     f"(model/settings.py DEFAULT_TIME_BUDGET)"
                     for value in found if float(value) != DEFAULT_TIME_BUDGET]
    return problems


#: A generated file names the command that makes it ("Generated by `python ...`").
GENERATED_MARK = re.compile(r"[Gg]enerated (?:by|from the rules by) `(python [^`]+)`")


def generated_files(root: str = ROOT) -> Dict[str, str]:
    """Markdown files of the repository that say they are generated -> the command they name."""
    found: Dict[str, str] = {}
    for directory, subdirectories, files in os.walk(root):
        subdirectories[:] = [d for d in subdirectories if not d.startswith(".") and d not in (
            "corpus", "node_modules", "__pycache__", "build", "dist") and "venv" not in d]
        for name in files:
            if name.endswith(".md"):
                path = os.path.join(directory, name)
                with open(path, encoding="utf-8") as handle:
                    match = GENERATED_MARK.search(handle.read())
                if match:
                    found[os.path.relpath(path, root).replace(os.sep, "/")] = match.group(1)
    return found


def check_generated_files_are_regenerated(root: str = ROOT) -> List[str]:
    """Every file that says it is generated is made by one of TARGETS, with the command it names."""
    problems = []
    for relative, command in sorted(generated_files(root).items()):
        owners = [t for t in TARGETS if any(relative == o.split(" ")[0] for o in t.outputs)]
        if not owners:
            problems.append(f"{relative} says it is generated by `{command}`, which "
                            f"benchmarks/regenerate_docs.py does not run: add it to TARGETS")
        elif not (command.startswith(shown(owners[0].command)) or shown(owners[0].command).startswith(command)):
            problems.append(f"{relative} says it is generated by `{command}`; TARGETS runs "
                            f"`{shown(owners[0].command)}`")
    return problems


CHECKS: Dict[str, Callable[[str], List[str]]] = {
    "rule docs": check_rule_docs,
    "recall doc lists the programs": check_recall_doc_lists_the_programs,
    "recall doc is verified": check_recall_doc_is_verified,
    "README recall figures": check_readme_recall_figures,
    "README real-world figures": check_readme_real_world_figures,
    "README language-server latency": check_readme_lsp_latency,
    "debounce": check_debounce,
    "time budget": check_time_budget,
    "generated files": check_generated_files_are_regenerated,
}


def run_checks(root: Optional[str] = None) -> List[str]:
    root = root or ROOT
    problems = []
    for name, check in CHECKS.items():
        try:
            problems += check(root)
        except (OSError, ValueError) as exc:
            problems.append(f"{name}: {exc}")
    return problems


# ---------------------------------------------------------------------- regenerating


def selected(args: argparse.Namespace) -> List[Target]:
    names = set(args.only or NAMES) - set(args.skip or ())
    chosen = [t for t in TARGETS if t.name in names and not (args.fast and t.slow)]
    return chosen


def commands(args: argparse.Namespace) -> List[Tuple[Target, Optional[List[str]]]]:
    """(target, the command that regenerates it, or None when --render-only cannot)."""
    out: List[Tuple[Target, Optional[List[str]]]] = []
    for target in selected(args):
        if args.render_only:
            out.append((target, list(target.render_only) if target.render_only else None))
            continue
        command = list(target.command)
        if args.linter_commit and target.name in LINTER_COMMIT:
            command += ["--linter-commit", args.linter_commit]
        out.append((target, command))
    return out


def _names(value: str) -> List[str]:
    names = [n.strip() for n in value.split(",") if n.strip()]
    unknown = [n for n in names if n not in NAMES]
    if unknown:
        raise argparse.ArgumentTypeError(f"unknown doc {', '.join(unknown)} (choose from {', '.join(NAMES)})")
    return names


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(prog="python benchmarks/regenerate_docs.py",
                                     description=__doc__.splitlines()[0])
    parser.add_argument("--only", type=_names, action="extend", metavar="NAME",
                        help=f"only these (repeatable or comma-separated): {', '.join(NAMES)}")
    parser.add_argument("--skip", type=_names, action="extend", metavar="NAME", help="leave these out")
    parser.add_argument("--fast", action="store_true", help="only the docs that take seconds (skip the slow ones)")
    parser.add_argument("--render-only", action="store_true",
                        help="re-render from the last run's saved results where a generator can (the rule docs; "
                             "docs/real-world.md from benchmarks/corpus/realworld.json), skip the others")
    parser.add_argument("--linter-commit", metavar="REV",
                        help=f"lint with this commit's package ({', '.join(LINTER_COMMIT)}), not the working tree's")
    parser.add_argument("--dry-run", action="store_true", help="print the commands, run nothing")
    parser.add_argument("--check", action="store_true", help="regenerate nothing; report stale docs and numbers "
                                                             "that disagree with their source (exit 1 if any)")
    parser.add_argument("--list", action="store_true", help="list the generated docs and exit")
    args = parser.parse_args(argv)

    if args.list:
        for target in TARGETS:
            print(f"{target.name:<12} {', '.join(target.outputs)}\n{'':<12} `{shown(target.command)}` ({target.cost})")
        return 0
    if args.check:
        problems = run_checks()
        for problem in problems:
            print(f"- {problem}")
        print("docs agree with their sources" if not problems else f"{len(problems)} problem(s)",
              file=sys.stderr)
        return 1 if problems else 0

    failed = []
    for target, command in commands(args):
        if command is None:
            print(f"skip {target.name}: no saved results to re-render it from", file=sys.stderr)
            continue
        print(f"== {target.name}: {shown(command)} ({target.cost})", file=sys.stderr, flush=True)
        if args.dry_run:
            continue
        done = subprocess.run([sys.executable, *command], cwd=ROOT)
        if done.returncode != 0:
            failed.append(f"{target.name} (exit {done.returncode})")
    if args.dry_run:
        return 0
    problems = run_checks()
    for problem in problems:
        print(f"- {problem}", file=sys.stderr)
    if failed:
        print(f"failed: {', '.join(failed)}", file=sys.stderr)
    if problems:
        print("the docs disagree with their sources (above): regenerate what is stale, and edit the numbers "
              "the README and hand-written docs quote", file=sys.stderr)
    return 1 if failed or problems else 0


if __name__ == "__main__":
    sys.exit(main())
