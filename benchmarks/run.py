"""Side-by-side benchmark: torchtype-lint, TorchFix, flake8 (pyflakes) and a bare libcst parse.

    python benchmarks/run.py                       # torch/nn, writes docs/performance.md
    python benchmarks/run.py --corpus kornia-0.9.0 --out /tmp/kornia.md

Besides the side-by-side table it measures what a user gets at the defaults (``check`` without
``-j``, plain ``flake8`` with the plugin installed), ``-j1`` against ``-j2`` (on the corpus and on
``--jobs-corpus``, timm by default), the language server's first open and edits
(``lsp_latency.py``), and a CPU-bound loop at the start and the end that says how busy the
machine was.

Every tool runs on the same copy of the same files, one after the other, in one run. Each
command runs under a small wrapper process that reports the command's wall time, the CPU time
(user + sys) of the command and every process it waited for (``RUSAGE_CHILDREN``: worker pools
included), and the peak RSS of its largest process.

Tools outside this project run from their own virtual environments so that nothing they
install reaches ours (TorchFix's flake8 plugin would otherwise slow every flake8 run):

* ``--torchfix-venv`` (default ``/tmp/bench-venv``): ``pip install torchfix==0.7.0 flake8==7.5.0``
* ``--flake8-venv`` (default ``/tmp/flake8-venv``): ``pip install flake8==7.5.0`` only
  (the pyflakes baseline with no plugin installed)

They are created on first use. torchtype-lint runs from a snapshot copy of the package taken at
the start, so that edits to the working tree during the run cannot invalidate its cache
between the cold and the warm measurement.
"""
from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile
import textwrap
from typing import Dict, List, Optional, Sequence, Tuple

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)

from corpus import CORPUS, build  # noqa: E402

#: The language server's debounce, read from its source (the benchmark never imports the linter).
with open(os.path.join(ROOT, "torchtype_lint", "frontends", "lsp.py"), encoding="utf-8") as _lsp:
    DEBOUNCE_MS = 1000 * float(re.search(r"^DEBOUNCE_SECONDS = ([\d.]+)", _lsp.read(), re.M).group(1))

#: Runs a command and prints what it cost, measured from a process of its own, so that
#: ``ru_maxrss`` of the children is this command's alone.
WRAPPER = textwrap.dedent("""\
    import json, resource, subprocess, sys, time
    command, cwd, env = json.loads(sys.argv[1])
    start = time.perf_counter()
    done = subprocess.run(command, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    wall = time.perf_counter() - start
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    print(json.dumps({"wall": wall, "cpu": usage.ru_utime + usage.ru_stime, "rss_mib": usage.ru_maxrss / 1024,
                      "rc": done.returncode, "stdout_lines": done.stdout.count(b"\\n"),
                      "stderr_tail": done.stderr.decode(errors="replace")[-400:],
                      "not_analysed": sum(done.stdout.count(c) for c in (b": TTL000 ", b": TTL001 "))}))
""")

#: A CPU-bound loop of a fixed amount of work: its wall time over its CPU time says how much of a
#: core one process got while the benchmark ran (1.0 on an idle machine).
MACHINE_CHECK = "total = 0\nfor i in range(10_000_000):\n    total += i\n"

PARSE_ONLY = textwrap.dedent("""\
    import os, sys
    import {module}
    ok = failed = 0
    for root, dirs, files in os.walk(sys.argv[1]):
        dirs.sort()
        for name in sorted(files):
            if not name.endswith(".py"):
                continue
            with open(os.path.join(root, name), "rb") as handle:
                data = handle.read()
            try:
                {parse}(data.decode("utf-8"))
                ok += 1
            except Exception:
                failed += 1
    print(ok, failed)
""")


def measure(command: Sequence[str], cwd: str, env: Optional[Dict[str, str]] = None) -> Dict[str, float]:
    payload = json.dumps([list(command), cwd, env or dict(os.environ)])
    out = subprocess.run([sys.executable, "-c", WRAPPER, payload], capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


def ensure_venv(path: str, packages: List[str]) -> str:
    python = os.path.join(path, "bin", "python")
    marker = os.path.join(path, ".bench-packages")
    want = " ".join(packages)
    if os.path.exists(marker) and open(marker).read() == want:
        return python
    subprocess.run([sys.executable, "-m", "venv", path], check=True)
    subprocess.run([python, "-m", "pip", "install", "--quiet", *packages], check=True)
    with open(marker, "w") as handle:
        handle.write(want)
    return python


def count(directory: str) -> Dict[str, int]:
    files = lines = 0
    for root, dirs, names in os.walk(directory):
        for name in names:
            if name.endswith(".py"):
                files += 1
                with open(os.path.join(root, name), "rb") as handle:
                    lines += handle.read().count(b"\n")
    return {"files": files, "lines": lines}


def replicate(source: str, target: str, times: int) -> str:
    os.makedirs(target, exist_ok=True)
    for i in range(times):
        shutil.copytree(source, os.path.join(target, f"copy{i}"))
    return target


def most_imported_module(tree: str) -> Tuple[Optional[str], int]:
    """The module of ``tree`` that most files import with ``from .name import`` (and how many)."""
    importers: Dict[str, set] = {}
    for directory, _, names in os.walk(tree):
        for name in names:
            if not name.endswith(".py"):
                continue
            path = os.path.join(directory, name)
            with open(path, encoding="utf-8", errors="replace") as handle:
                for module in re.findall(r"^\s*from \.([A-Za-z_]\w*) import", handle.read(), re.M):
                    target = os.path.join(directory, module + ".py")
                    if os.path.isfile(target):
                        importers.setdefault(target, set()).add(path)
    if not importers:
        return None, 0
    best = max(sorted(importers), key=lambda p: len(importers[p]))
    return best, len(importers[best])


def version_of(python: str, module: str) -> str:
    out = subprocess.run([python, "-c", f"import importlib.metadata as m; print(m.version({module!r}))"],
                         capture_output=True, text=True)
    return out.stdout.strip() or "?"


def generated_file(path: str, lines: int) -> None:
    """Dense generated tensor code: functions with constructors, casts, arithmetic, matmuls."""
    chunk = textwrap.dedent("""\
        def block_{i}(batch):
            x = torch.zeros(8, {k}, dtype=torch.float32)
            y = x * 2 + {i}
            if y.sum() > 0:
                y = y @ torch.ones({k}, 4)
            w = torch.from_numpy(np.zeros((4, 4), dtype=np.float32))
            z = (y @ w).float()
            return z.mean()

        """)
    body = ["import numpy as np\nimport torch\n"]
    n = 0
    while n < lines:
        text = chunk.format(i=n, k=n % 7 + 1)
        body.append(text)
        n += text.count("\n")
    with open(path, "w") as handle:
        handle.write("".join(body))


def autogroup() -> bool:
    """Whether this Linux kernel shares the CPU between sessions rather than processes."""
    try:
        with open("/proc/sys/kernel/sched_autogroup_enabled", encoding="ascii") as handle:
            return handle.read().strip() == "1"
    except OSError:
        return False


def default_jobs() -> int:
    """The workers ``check`` starts without ``-j`` (the package's own rule, not a number typed here)."""
    from torchtype_lint.run.runner import default_jobs as jobs

    return jobs()


def measure_lsp(python: str, env: Dict[str, str], edits: int) -> List[Dict[str, object]]:
    """``lsp_latency.py``'s measurement of the generated 1,000-line script (and of it inside one
    ``main()``), with the snapshot's server: the first open and each kind of edit."""
    import lsp_latency

    results = []
    for label, main_body in (("script", False), ("script, every statement inside one `main()`", True)):
        with tempfile.TemporaryDirectory() as directory:
            path = os.path.join(directory, "train.py")
            text = lsp_latency.generated(1000)
            with open(path, "w", encoding="utf-8") as handle:
                handle.write(lsp_latency.inside_main(text) if main_body else text)
            from pathlib import Path

            result = lsp_latency.measure(Path(path), edits, ["comment", "method", "statement", "burst"], python, env)
        results.append({"label": label, **result})
        print(f"language server, {result['lines']}-line {label}: open {result['open_s'] * 1000:.0f} ms", file=sys.stderr)
    return results


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", default="torch-nn", help="directory name under benchmarks/corpus/")
    parser.add_argument("--out", default=os.path.join(ROOT, "docs", "performance.md"))
    parser.add_argument("--torchfix-venv", default="/tmp/bench-venv")
    parser.add_argument("--flake8-venv", default="/tmp/flake8-venv")
    parser.add_argument("--no-torchfix", action="store_true", help="skip TorchFix (about a minute of CPU)")
    parser.add_argument("--scaling", type=int, nargs="*", default=[1, 2, 4])
    # 50,000 such lines hold more syntax nodes than the screen lets through (400,000): refused unparsed.
    parser.add_argument("--generated-lines", type=int, default=20_000)
    parser.add_argument("--jobs-corpus", metavar="NAME", default="timm-1.0.31",
                        help="also measure -j1 against -j2 on this corpus directory, when it is there "
                             "('' to skip; default: %(default)s, the 300-file library of issue 27)")
    parser.add_argument("--lsp-edits", type=int, default=5, help="edits of each kind for the language server")
    parser.add_argument("--render", metavar="RESULTS_JSON", help="only rewrite --out from a previous run's results.json")
    args = parser.parse_args()
    if args.render:
        with open(args.render, encoding="utf-8") as handle:
            saved = json.load(handle)
        rows = saved["rows"]
        with open(args.out, "w", encoding="utf-8") as handle:
            handle.write(render(saved["meta"], rows, [r for r in rows if r["tool"] == "scaling"],
                                next(r for r in rows if r["tool"] == "generated")))
        return 0

    build(only=[args.corpus] if args.corpus != "torch-nn" else ["torch-nn"])
    source = os.path.join(CORPUS, args.corpus)
    if not os.path.isdir(source):
        raise SystemExit(f"no corpus directory {source}; run benchmarks/corpus.py")
    ours_python = sys.executable
    flake8_python = ensure_venv(args.flake8_venv, ["flake8==7.5.0"])
    torchfix_python = None if args.no_torchfix else ensure_venv(args.torchfix_venv, ["torchfix==0.7.0", "flake8==7.5.0"])

    work = tempfile.mkdtemp(prefix="ttl-bench-")
    snapshot = os.path.join(work, "snapshot")
    shutil.copytree(os.path.join(ROOT, "torchtype_lint"), os.path.join(snapshot, "torchtype_lint"),
                    ignore=shutil.ignore_patterns("__pycache__"))
    # Like a user's install: byte-code compiled once (this environment may disable writing it).
    subprocess.run([ours_python, "-m", "compileall", "-q", snapshot], check=True)
    env = dict(os.environ, PYTHONPATH=snapshot)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    name = os.path.basename(source)
    tree = os.path.join(work, name)
    shutil.copytree(source, tree)
    size = count(tree)
    load_before = os.getloadavg()
    rows: List[Dict[str, object]] = []

    def run(label: str, tool: str, command: Sequence[str], run_env: Optional[Dict[str, str]] = None,
            cwd: str = work, files: Optional[Dict[str, int]] = None) -> Dict[str, object]:
        result = measure(command, cwd, run_env or env)
        row = {"label": label, "tool": tool, **(files or size), **result}
        rows.append(row)
        print(f"{label:<58} cpu {result['cpu']:7.2f}s wall {result['wall']:7.2f}s rss {result['rss_mib']:6.0f} MiB "
              f"rc {result['rc']}", file=sys.stderr)
        return row

    lint = [ours_python, "-m", "torchtype_lint", "check", "--isolated", "--exit-zero"]
    cache = os.path.join(work, "cache")
    # Python startup and imports, for reference: every row below pays them once per process.
    run("python -c pass (interpreter start-up)", "baseline", [ours_python, "-c", "pass"])
    run("CPU-bound loop, 1 process (machine check, at the start)", "machine", [ours_python, "-c", MACHINE_CHECK])
    run("bare libcst parse (libcst.parse_module, 1 process)", "libcst",
        [ours_python, "-c", PARSE_ONLY.format(module="libcst", parse="libcst.parse_module"), tree])
    run("bare ast parse (ast.parse, 1 process)", "ast", [ours_python, "-c", PARSE_ONLY.format(module="ast", parse="ast.parse"), tree])
    run("torchtype-lint -j1 --no-cache", "ours", lint + ["-j", "1", "--no-cache", tree])
    run("torchtype-lint -j2 --no-cache", "ours", lint + ["-j", "2", "--no-cache", tree])
    run(f"torchtype-lint --no-cache (default -j: one worker per core, {default_jobs()} here)", "ours-default",
        lint + ["--no-cache", tree])
    run("torchtype-lint -j2, cold cache (analyse + write)", "ours-cold", lint + ["-j", "2", "--cache-dir", cache, tree])
    run("torchtype-lint -j2, warm cache (unchanged tree)", "ours-warm", lint + ["-j", "2", "--cache-dir", cache, tree])
    run("torchtype-lint -j1, warm cache (unchanged tree)", "ours-warm", lint + ["-j", "1", "--cache-dir", cache, tree])
    edited, importers = most_imported_module(tree)
    if edited is not None:
        # The cache follows imports (issue 15): the edited module and the files importing it are
        # analysed again, every other file is answered from the cache.
        with open(edited, "a", encoding="utf-8") as handle:
            handle.write("\n# edited\n")
        run(f"torchtype-lint -j2, warm cache, `{os.path.relpath(edited, tree)}` edited ({importers} files import it)",
            "ours-edit", lint + ["-j", "2", "--cache-dir", cache, tree])
    flake8_env = dict(os.environ)
    flake8_env.pop("PYTHONPATH", None)
    flake8_env.pop("PYTHONDONTWRITEBYTECODE", None)
    run("flake8 --select=F -j1 (no plugin installed)", "flake8",
        [flake8_python, "-m", "flake8", "--isolated", "--select=F", "-j", "1", tree], flake8_env)
    run("flake8 --select=F -j2 (no plugin installed)", "flake8",
        [flake8_python, "-m", "flake8", "--isolated", "--select=F", "-j", "2", tree], flake8_env)
    run("flake8 --select=F -j2, torchtype-lint plugin installed", "flake8-ours",
        [ours_python, "-m", "flake8", "--isolated", "--select=F", "-j", "2", tree])
    run("flake8 --select=TTL -j2 (torchtype-lint as a flake8 plugin)", "flake8-ours",
        [ours_python, "-m", "flake8", "--isolated", "--select=TTL", "-j", "2", tree])
    # What a user who installs the plugin and runs plain `flake8` gets: every default check, -j auto.
    run("flake8 at its defaults (no --select, -j auto), no plugin installed", "flake8-default",
        [flake8_python, "-m", "flake8", "--isolated", tree], flake8_env)
    run("flake8 at its defaults (no --select, -j auto), torchtype-lint plugin installed", "flake8-ours-default",
        [ours_python, "-m", "flake8", "--isolated", tree])
    if torchfix_python:
        bin_dir = os.path.dirname(torchfix_python)
        run("torchfix (default rules, -j2)", "torchfix", [os.path.join(bin_dir, "torchfix"), tree], flake8_env)
        run("flake8 --select=TOR -j2 (TorchFix plugin)", "torchfix-flake8",
            [torchfix_python, "-m", "flake8", "--isolated", "--select=TOR", "-j", "2", tree], flake8_env)

    scaling = []
    for times in args.scaling:
        target = replicate(source, os.path.join(work, f"x{times}"), times)
        files = count(target)
        row = run(f"torchtype-lint -j1 --no-cache, corpus x{times}", "scaling", lint + ["-j", "1", "--no-cache", target],
                  files=files)
        scaling.append(row)
        shutil.rmtree(target)

    generated = os.path.join(work, "generated", "generated.py")
    os.makedirs(os.path.dirname(generated))
    generated_file(generated, args.generated_lines)
    gen = run(f"torchtype-lint, one generated {args.generated_lines:,}-line file", "generated",
              lint + ["-j", "1", "--no-cache", "--time-budget", "600", generated], files=count(os.path.dirname(generated)))
    run(f"bare libcst parse, the generated {args.generated_lines:,}-line file", "generated-parse",
        [ours_python, "-c", PARSE_ONLY.format(module="libcst", parse="libcst.parse_module"), os.path.dirname(generated)],
        files=count(os.path.dirname(generated)))
    jobs_rows: List[Dict[str, object]] = []
    if args.jobs_corpus and os.path.isdir(os.path.join(CORPUS, args.jobs_corpus)):
        other = os.path.join(CORPUS, args.jobs_corpus)
        other_tree = os.path.join(work, args.jobs_corpus)
        shutil.copytree(other, other_tree)
        for jobs in ("1", "2"):
            jobs_rows.append(run(f"torchtype-lint -j{jobs} --no-cache, {args.jobs_corpus}", "jobs",
                                 lint + ["-j", jobs, "--no-cache", other_tree], files=count(other_tree)))
        shutil.rmtree(other_tree, ignore_errors=True)
    lsp = measure_lsp(ours_python, env, args.lsp_edits)
    run("CPU-bound loop, 1 process (machine check, at the end)", "machine", [ours_python, "-c", MACHINE_CHECK])
    load_after = os.getloadavg()

    meta = {
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "machine": f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}",
        "load": (load_before, load_after),
        "versions": {"libcst": version_of(ours_python, "libcst"), "flake8": version_of(flake8_python, "flake8"),
                     "torchfix": version_of(torchfix_python, "torchfix") if torchfix_python else "not run"},
        "corpus": name, **size, "jobs": default_jobs(), "lsp": lsp, "autogroup": autogroup(),
    }
    with open(args.out, "w", encoding="utf-8") as handle:
        handle.write(render(meta, rows, scaling, gen))
    with open(os.path.join(work, "results.json"), "w") as handle:
        json.dump({"meta": meta, "rows": rows}, handle, indent=1)
    print(f"wrote {args.out}; raw results in {work}/results.json", file=sys.stderr)
    shutil.rmtree(tree, ignore_errors=True)
    return 0


def _find(rows: List[Dict[str, object]], label: str) -> Optional[Dict[str, object]]:
    return next((r for r in rows if r["label"] == label), None)


def time_budget_sentence() -> str:
    """What bounds one file's analysis, from the package's own constants (not a number typed here)."""
    from torchtype_lint.model.settings import DEFAULT_TIME_BUDGET
    from torchtype_lint.run.bounded import hard_deadline

    return (f"Analysis time, parsing included, is bounded per file by `--time-budget` (default "
            f"{DEFAULT_TIME_BUDGET:g} s, then TTL000); a worker still busy at the hard deadline "
            f"({hard_deadline(DEFAULT_TIME_BUDGET):g} s at the default budget) is stopped and replaced.")


def machine_check_sentence(rows: List[Dict[str, object]]) -> str:
    checks = [r for r in rows if r["tool"] == "machine"]
    if not checks:
        return ""
    shares = " and ".join(f"{float(r['cpu']) / float(r['wall']) * 100:.0f}%" for r in checks)
    return (f" A CPU-bound loop run alone got {shares} of a core at the start and at the end of the run "
            "(100% on an idle machine): wall times here are that much longer than an idle machine's.")


def jobs_scaling(rows: List[Dict[str, object]], one: str, two: str) -> Optional[str]:
    j1, j2 = _find(rows, one), _find(rows, two)
    if not j1 or not j2:
        return None
    return (f"{float(j1['wall']) / float(j2['wall']):.2f}x in wall time ({float(j1['wall']):.1f} s -> "
            f"{float(j2['wall']):.1f} s), the two workers together using {float(j2['cpu']) / float(j1['cpu']):.2f} "
            f"times the CPU of one ({float(j1['cpu']):.1f} -> {float(j2['cpu']):.1f} CPU-s)")


def issue27_targets(meta: Dict[str, object], rows: List[Dict[str, object]], gen: Dict[str, object],
                    gen_parse: Optional[Dict[str, object]]) -> List[str]:
    """The speed goals of issue 27, each with what this run measured."""
    parse = _find(rows, "bare libcst parse (libcst.parse_module, 1 process)")
    default = next((r for r in rows if r["tool"] == "ours-default"), None)
    out = []
    if parse and default:
        r = float(default["cpu"]) / float(parse["cpu"])
        out.append(f"At the default settings (`check`, project-wide analysis on, {meta.get('jobs', '?')} workers) "
                   f"total CPU at most 1.5x a bare libcst parse: **{r:.2f}x** ({float(default['cpu']):.2f} s against "
                   f"{float(parse['cpu']):.2f} s) — {'met' if r <= 1.5 else 'NOT met'}.")
    scaled = jobs_scaling(rows, "torchtype-lint -j1 --no-cache", "torchtype-lint -j2 --no-cache")
    if scaled:
        out.append(f"`-j2` against `-j1` on `{meta['corpus']}`: {scaled}.")
    for row in rows:
        if row["tool"] == "jobs" and str(row["label"]).startswith("torchtype-lint -j1"):
            name = str(row["label"]).split(", ", 1)[1]
            scaled = jobs_scaling(rows, str(row["label"]), f"torchtype-lint -j2 --no-cache, {name}")
            if scaled:
                out.append(f"`-j2` against `-j1` on `{name}` ({row['files']} files): {scaled}.")
    if out and len(out) > 1:
        out.append("The goal is at least 1.7x in wall time from 1 to 2 workers on an idle 2-core machine; on a "
                   "busy one each process gets a share of the cores, so the wall ratio says less (see the machine "
                   "check above)"
                   + (". Here the kernel shares the CPU between sessions (`sched_autogroup_enabled`), not between "
                      "processes: while other sessions keep both cores busy, a second worker adds no CPU to the run, "
                      "it halves the first one's share, and the wall ratio cannot show the scaling; see \"Where the "
                      "time goes\" for how evenly the two workers split the work." if meta.get("autogroup") else "."))
    ours = _find(rows, "torchtype-lint -j1 --no-cache")
    if gen_parse or (ours and parse):
        said = []
        if ours and parse:
            r = float(ours["rss_mib"]) / float(parse["rss_mib"])
            said.append(f"on `{meta['corpus']}` `-j1` peaks at {float(ours['rss_mib']):.0f} MiB (its worker) against "
                        f"{float(parse['rss_mib']):.0f} MiB for a bare parse of every file in one process, whose "
                        f"peak is its largest file's ({r:.2f}x)")
        if gen_parse and not gen.get("not_analysed"):
            r = float(gen["rss_mib"]) / float(gen_parse["rss_mib"])
            said.append(f"the generated {gen['lines']:,}-line file peaks at {float(gen['rss_mib']):.0f} MiB against "
                        f"{float(gen_parse['rss_mib']):.0f} MiB ({r:.2f}x)")
        ratios = [float(ours["rss_mib"]) / float(parse["rss_mib"])] if ours and parse else []
        if gen_parse and not gen.get("not_analysed"):
            ratios.append(float(gen["rss_mib"]) / float(gen_parse["rss_mib"]))
        out.append("Peak memory at most 1.1x libcst's own parse of the largest file: " + "; ".join(said)
                   + f" — {'met' if ratios and max(ratios) <= 1.1 else 'NOT met'}.")
    for result in meta.get("lsp", ()):  # type: ignore[union-attr]
        if result["label"] != "script":
            continue
        edits = [result[k]["median_s"] * 1000 for k in ("comment", "method", "statement")]
        out.append(f"Language server, {result['lines']:,}-line script: first diagnostics "
                   f"{result['open_s'] * 1000:.0f} ms after open (goal 300 ms: "
                   f"{'met' if result['open_s'] <= 0.3 else 'NOT met'}"
                   + (f"; {result['open_cpu_s'] * 1000:.0f} ms of CPU" if result.get("open_cpu_s") is not None else "")
                   + f"), an edit {min(edits):.0f} to {max(edits):.0f} ms after a pause (goal 50 ms: "
                   f"{'met' if max(edits) <= 50 else 'NOT met'})"
                   + (f"; the last of a burst of keystrokes {result['burst']['median_s'] * 1000:.0f} ms, the "
                      f"{DEBOUNCE_MS:g} ms debounce included" if "burst" in result else "") + ".")
    return out


def lsp_section(meta: Dict[str, object]) -> str:
    results = meta.get("lsp") or []
    lines = ["## Language server", ""]
    if not results:
        return "\n".join(lines + ["Not measured in this run."])
    lines.append("`benchmarks/lsp_latency.py` (below), run by `benchmarks/run.py` with the same snapshot: the server "
                 "started as an editor starts it, a generated script opened, then edits one at a time, each after a "
                 "pause (the first change after a pause is analysed at once); *burst*: three edits 10 ms apart, "
                 f"timed from the last, which waits for the {DEBOUNCE_MS:g} ms debounce; medians of "
                 f"{results[0]['edits']} edits of each kind. *Open* is `didOpen` to the "
                 "first diagnostics, with the CPU seconds the server and its analysis child spent meanwhile (*edit CPU*: the same "
                 "for each kind of edit, medians; the clock ticks by 10 ms); *from "
                 "start* also counts the server's own start, as an editor that starts it for the first file sees.")
    lines.append("")
    lines.append("| Document | comment | method | statement | burst | edit CPU | open | open CPU | from start |")
    lines.append("|---|---|---|---|---|---|---|---|---|")
    kinds = ("comment", "method", "statement")
    for result in results:
        burst = f"{result['burst']['median_s'] * 1000:.0f} ms" if "burst" in result else "–"
        cpu = f"{result['open_cpu_s'] * 1000:.0f} ms" if result.get("open_cpu_s") is not None else "–"
        edit_cpus = [result[k].get("cpu_median_s") for k in kinds]
        edit_cpu = "–" if None in edit_cpus else "/".join(f"{c * 1000:.0f}" for c in edit_cpus) + " ms"
        lines.append(f"| {result['lines']:,}-line {result['label']} | "
                     + " | ".join(f"{result[k]['median_s'] * 1000:.0f} ms" for k in kinds)
                     + f" | {burst} | {edit_cpu} | {result['open_s'] * 1000:.0f} ms | {cpu} | {result['from_start_s'] * 1000:.0f} ms |")
    return "\n".join(lines)


def render(meta: Dict[str, object], rows: List[Dict[str, object]], scaling: List[Dict[str, object]],
           gen: Dict[str, object]) -> str:
    ours = _find(rows, "torchtype-lint -j1 --no-cache")
    ours2 = _find(rows, "torchtype-lint -j2 --no-cache")
    parse = _find(rows, "bare libcst parse (libcst.parse_module, 1 process)")
    cold = _find(rows, "torchtype-lint -j2, cold cache (analyse + write)")
    warm = _find(rows, "torchtype-lint -j2, warm cache (unchanged tree)")
    torchfix = _find(rows, "torchfix (default rules, -j2)")
    tor = _find(rows, "flake8 --select=TOR -j2 (TorchFix plugin)")
    f_clean = _find(rows, "flake8 --select=F -j2 (no plugin installed)")
    f_ours = _find(rows, "flake8 --select=F -j2, torchtype-lint plugin installed")
    gen_parse = next((r for r in rows if r["tool"] == "generated-parse"), None)

    def cpu(row: Optional[Dict[str, object]]) -> float:
        return float(row["cpu"]) if row else float("nan")

    lines = []
    add = lines.append
    add("# Performance")
    add("")
    add("<!-- Generated by `python benchmarks/run.py`; edit the script, not this file. -->")
    add("")
    add(f"Measured {meta['date']} on {meta['machine']} with libcst {meta['versions']['libcst']}, "
        f"flake8 {meta['versions']['flake8']} and TorchFix {meta['versions']['torchfix']}. Corpus: "
        f"`{meta['corpus']}` ({meta['files']} files, {meta['lines']:,} lines; `torch-nn` is `torch/nn` "
        f"from the installed torch wheel).")
    load = meta["load"]
    add("")
    add(f"Load average (1/5/15 min) at the start: {load[0][0]:.1f}/{load[0][1]:.1f}/{load[0][2]:.1f}; "
        f"at the end: {load[1][0]:.1f}/{load[1][1]:.1f}/{load[1][2]:.1f}. The machine was shared with other "
        "work while this ran, so wall times are noisy; **compare CPU seconds** (user + sys of the command "
        "and of every process it waited for), and compare rows with each other rather than with other runs."
        + machine_check_sentence(rows))
    add("")
    add("## Side by side")
    add("")
    add("| command | files | lines | CPU s | wall s | peak RSS MiB (largest process) | lines per CPU-s | "
        "TorchFix CPU ÷ this CPU | this CPU ÷ bare libcst parse |")
    add("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for row in rows:
        if row["tool"] in ("scaling", "generated", "generated-parse", "machine", "jobs"):
            continue
        c = cpu(row)
        if row["tool"] == "baseline":  # the interpreter alone: no files, no ratios
            add(f"| {row['label']} | – | – | {c:.2f} | {float(row['wall']):.2f} | {float(row['rss_mib']):.0f} "
                "| – | – | – |")
            continue
        ratio_tf = f"{cpu(torchfix) / c:.1f}x" if torchfix and c > 0 else "–"
        ratio_parse = f"{c / cpu(parse):.2f}" if parse and cpu(parse) > 0 else "–"
        add(f"| {row['label']} | {row['files']} | {row['lines']:,} | {c:.2f} | {float(row['wall']):.2f} | "
            f"{float(row['rss_mib']):.0f} | {row['lines'] / c if c > 0 else 0:,.0f} | {ratio_tf} | {ratio_parse} |")
    add("")
    add("## Targets (issue 8)")
    add("")
    if ours and parse:
        r = cpu(ours) / cpu(parse)
        add(f"- Total CPU at most 2.5x a bare libcst parse: **{r:.2f}x** (`-j1`, {cpu(ours):.2f} s against "
            f"{cpu(parse):.2f} s) — {'met' if r <= 2.5 else 'NOT met'}. With `-j2` the CPU total is "
            f"{cpu(ours2):.2f} s ({cpu(ours2) / cpu(parse):.2f}x): the pool adds its workers' start-up.")
    if ours and torchfix:
        r = cpu(torchfix) / cpu(ours)
        add(f"- At least 7x faster than TorchFix: TorchFix's CLI takes **{r:.1f}x** our CPU "
            f"({cpu(torchfix):.1f} s against {cpu(ours):.2f} s) — {'met' if r >= 7 else 'NOT met'}"
            + (f"; `flake8 --select=TOR` takes {cpu(tor) / cpu(ours):.1f}x." if tor else "."))
    if cold and warm:
        r = cpu(cold) / cpu(warm)
        add(f"- Warm cache at least 50x faster than cold: **{r:.0f}x** in CPU ({cpu(cold):.2f} s cold, "
            f"{cpu(warm):.3f} s warm, of which about {cpu(_find(rows, 'python -c pass (interpreter start-up)')):.3f} s "
            f"is the interpreter starting) and {float(cold['wall']) / float(warm['wall']):.0f}x in wall time — "
            f"{'met' if r >= 50 else 'NOT met'}.")
    edit_row = next((r for r in rows if r["tool"] == "ours-edit"), None)
    if edit_row and cold and warm:
        add(f"- The cache follows imports (issue 15): after one module is edited, a warm run re-analyses it and "
            f"the files importing it, {cpu(edit_row):.2f} s CPU against {cpu(warm):.3f} s unchanged and "
            f"{cpu(cold):.2f} s cold (row: {edit_row['label']}).")
    if f_clean and f_ours:
        add(f"- flake8 users who do not select TTL: `flake8 --select=F` costs {cpu(f_ours):.2f} s CPU with our "
            f"plugin installed against {cpu(f_clean):.2f} s without it ({cpu(f_ours) / cpu(f_clean):.2f}x).")
    add("")
    add("## Targets (issue 27)")
    add("")
    for sentence in issue27_targets(meta, rows, gen, gen_parse):
        add(f"- {sentence}")
    add("")
    add("## Scaling")
    add("")
    add("The same corpus copied 1, 2 and 4 times into one tree, `torchtype-lint -j1 --no-cache`:")
    add("")
    add("| copies | files | lines | CPU s | CPU ÷ 1x | wall s | peak RSS MiB |")
    add("|---:|---:|---:|---:|---:|---:|---:|")
    base = cpu(scaling[0]) if scaling else float("nan")
    for row in scaling:
        copies = row["label"].rsplit("x", 1)[-1]
        add(f"| {copies} | {row['files']} | {row['lines']:,} | {cpu(row):.2f} | {cpu(row) / base:.2f} | "
            f"{float(row['wall']):.2f} | {float(row['rss_mib']):.0f} |")
    add("")
    if len(scaling) >= 2:
        last = scaling[-1]
        copies = int(str(last["label"]).rsplit("x", 1)[-1])
        per_copy = cpu(last) / (copies * base)
        same = cpu(ours) if ours else base
        add(f"At {copies}x the corpus, each copy costs {per_copy:.2f} times what the single copy cost. For scale: "
            f"the 1x row and the `torchtype-lint -j1 --no-cache` row of the first table run the same command on the "
            f"same files, and differ by {abs(same - base) / min(same, base) * 100:.0f}% — the noise of this shared "
            "machine.")
        add("")
        add(f"Peak RSS goes from "
            f"{float(scaling[0]['rss_mib']):.0f} MiB to {float(scaling[-1]['rss_mib']):.0f} MiB: each file's tree "
            "and analysis are dropped once its findings are made, and only the findings and the file texts (for "
            "the report) are kept; the rest is the allocator's high-water mark from parsing.")
    add("")
    add("## One large generated file")
    add("")
    add(f"`{gen['lines']:,}` lines of dense generated tensor code (functions with constructors, casts, arithmetic, "
        f"matrix products, numpy conversions) in one file: {cpu(gen):.2f} s CPU, {float(gen['wall']):.2f} s wall, "
        f"peak RSS {float(gen['rss_mib']):.0f} MiB, exit code {gen['rc']}"
        + (" (analysed to the end). " if not gen.get("not_analysed") else
           " — **not analysed** (a TTL000 or TTL001 finding: refused by the screen, or stopped at the time "
           "budget). ")
        + (f"A bare `libcst.parse_module` of the same file takes {cpu(gen_parse):.2f} s CPU and peaks at "
           f"{float(gen_parse['rss_mib']):.0f} MiB: the memory is libcst's syntax tree, which keeps every token "
           "and whitespace run, and grows with the size of one file. "
           if gen_parse else "")
        + time_budget_sentence())
    add("")
    add(lsp_section(meta))
    add("")
    add(PROSE)
    return "\n".join(lines) + "\n"


PROSE = """\
## Where the time goes, and what was done about it

Checking the files of `torch/nn` one after the other in one process (`check_source`, no pool) took
4.75 CPU-s against 3.08 s for `libcst.parse_module` of the same texts (1.54x) when this page was
prepared: parsing is about two thirds of the work, the abstract interpreter and every rule the rest. The design keeps the
analysis to one pass: rules listen to the interpreter instead of walking the tree again, no whole-file
metadata provider runs (positions are resolved only when a file has a finding), and files that never
mention `torch`, `numpy` or `jaxtyping` are not parsed at all.

Found by profiling and fixed while building the benchmark:

- Joining the environments of two branches looped in Python over every variable in scope, so each `if`
  of a long module cost O(names in scope) Python steps. The join now finds the names whose values differ
  at C speed (`map`/`compress` over `dict.get`, identity comparison) and joins only those. It is still
  linear in the names per `if`, with a far smaller constant: under `cProfile`, on a generated
  10,000-line module of straight-line code, the join went from 29.7 s to 6.6 s of profiled time. Such
  modules remain the slowest input (a 40,000-line one needs the time budget), which the budget bounds.
- Two rules built message text (`code_for_node`) for every call or operation they looked at rather than
  for the ones they report; printing a node costs O(its size), which made long method chains
  (`x.abs().abs()...`) quadratic: the robustness test with 1,000 chained calls took 163 s, and 9 s after
  the change (both measured on the same busy machine).
- TTL603 walked every annotation of every function with libcst's generic visitor, about a tenth of the
  analysis of `torch/nn`; annotation trees are now walked directly.
- Every string literal was read through libcst's `evaluated_value`, which runs `ast.literal_eval`: a
  compile per docstring, 8% of the profiled analysis of timm's `vision_transformer.py`. Literals without
  prefix or escape are now read directly.
- flake8 runs every installed plugin whatever `--select` says; the plugin now returns at once when the
  selection cannot include a TTL code, so `flake8 --select=F` costs the same with the plugin installed.
- A fully warm run imported libcst, the engine and the rules (about 0.3 s of CPU, more than everything
  else a warm run does). `Settings` and `FileResult` moved to a module without libcst, and the CLI imports
  the engine only when some file misses the cache.
- Brackets nested deeper than Python accepts (more than 200) are rejected with Python's own message
  before libcst parses them: libcst accepts them but takes about 14 s for 1,000 nested calls.

Issue 27 (2026-11-26, the 2-core machine at a load average of 9 to 12, so CPU seconds only): checking
`torch/nn` file after file in one process took 11.4 CPU-s against 3.6 s for a bare libcst parse (3.1x; the
issue measured 4.6 against 1.68 on a quieter day). Under `cProfile`: libcst's parse of the files and of
the modules they import about 28%, the interpreter about 70% (the standalone analysis of every function
of the file the largest part; the rules' visits, called from `Interpreter._notify`, 29% cumulative),
the screen's CPython compile 4%, and the garbage collector about 12% of the unprofiled time.

- `-j2` against `-j1`: no serial part in the pool and the workers evenly loaded (timm, 331 files: 37.4
  and 36.8 CPU-s in the two workers, both running throughout; the parent about 1 CPU-s, mostly its
  imports and the warm-up before it forks them); what a second worker repeats is parsing the project
  modules both import (63 parses, 8.8 CPU-s, instead of 48 and 6.1 in one process: about 4% of the CPU).
  On an idle 2-core machine that is a wall-time speed-up of about 70 / (37.4 + 1) = 1.8x. The missing
  gain the issue saw was the job beside it: this machine's kernel shares the CPU between sessions
  (`/proc/sys/kernel/sched_autogroup_enabled` is 1), so while another session keeps a core busy a run
  gets about one core however many workers it starts (above: `-j1` 49% of a core, `-j2` 50% for its two
  workers together, in the same minute). Timed in pairs against a changing load, `-j2` took 0.55
  of `-j1`'s wall time on `torch-nn` (median of 3 pairs, 0.99 of its CPU) and 0.89 on timm (2 pairs).
- What an inherited method assigns on `self` (a subclass's prototype asks it of every method of
  `torch.nn.Module`) was worked out again by every analysis: 15,200 walks of method bodies over
  `torch-nn`, now 2,949 (kept per process for the trees of imported modules, which analyses share),
  about 0.5 of 10-12 CPU-s.
- The generated file below had 50,000 lines, more syntax nodes than the screen lets through (400,000):
  it was refused unparsed (TTL001), and its row measured CPython's parse for the screen, not an analysis.
  It has 20,000 lines now, and the page says whether it was analysed to the end.
- This environment sets `PYTHONDONTWRITEBYTECODE`: without byte-code every process compiled the rules
  (0.8 s of CPU under `cProfile`) before its first analysis, a few seconds of the language server's first
  open on the busy machine. A user's install has byte-code; this benchmark compiles its snapshot like one.

## Language server: how an edit is analysed, and earlier measurements

`python benchmarks/lsp_latency.py [--project] [--main] [--lines N]` starts `torchtype-lint lsp` over stdio as
an editor does, opens a generated training script and sends edits one at a time, measuring from `didChange`
to the `publishDiagnostics` of that version. Three kinds of edit: a comment
line added at the end; a literal inside a method of a class in the middle of the file; a module-level
statement in the middle (with `--main`: a statement in the middle of `main()`). Medians measured by hand
2026-11-24 on the 2-core machine when it was quiet (comment / method / statement; "before": the same
benchmark against main at 6db8c83, a full re-analysis in a fresh child after a 300 ms debounce): the
1,004-line script 73 / 71 / 71 ms (before 938 / 926 / 983 ms); 904 lines importing `data.py`
(`--project`) 72 / 69 / 70 ms (before 781 / 777 / 779 ms); 1,011 lines inside one `main()` (`--main`)
65 / 75 / 77 ms (before 977 / 942 / 946 ms); 4,904 lines (`--lines 4900`) 131 / 121 / 120 ms (about
1.3 s in the issue).

An edit re-parses only the edited top-level statements and re-runs only the units of the analysis it can
change (docs/architecture.md, "Editing: what is analysed again"); 50 ms of each of those hand-measured
numbers was the debounce. Since 2026-11-26 the debounce has a leading edge: the first change after a pause
is analysed at once, and only a change that follows another within the debounce waits until 50 ms after the last change
(a burst of keystrokes is analysed once, at its end; the table's *burst* column). The
body of a `main()` called once from module level is parsed statement by statement and split into units too,
so an edit inside it or elsewhere re-runs only the statements of `main` that read what it changed. The
first analysis of a document is a full one (open: 0.65 to 0.75 s for 1,000 lines on 2026-11-24, 2.7 s
for 4,904). Since issue 27 the server forks its analysis child as it starts, from its main thread, and the
child loads the rules and runs a small program through its own incremental checker while the server
imports pygls; before, the server loaded the rules itself and forked the child when the first document
came. On the busy machine, the 1,004-line script's open went from 470-930 ms to 360-650 ms of CPU (server
and child, `didOpen` to diagnostics, three runs each), 0.75-2.0 s to 0.54-1.3 s of wall time; about half
of what is left is libcst parsing the file's statements.
TTL301's test for files that ask for double precision walked the whole tree (0.2 s of 0.66 s on the
1,004-line script); it now walks it only when the text holds one of the words it looks for, which makes
every full analysis cheaper too (the 1,004-line script: 0.66 -> 0.44 s in one process).

## Imported project modules, across files (issue 15)

Measured by hand, back to back on this machine (2 cores, shared with other work: CPU seconds of
the command and of every process it waited for, `resource.getrusage(RUSAGE_CHILDREN)`),
2026-11-24, each command run two or three times (this section is prose in `benchmarks/run.py`:
regenerating the page keeps it as written).

- **flake8.** The plugin analysed each file in a child forked for it, so every project module a
  file imports was read, parsed and run again for each such file: `flake8 --isolated --select=TTL
  -j2` over `torch-nn` took 27.0 and 27.4 CPU-s, against 19.5 and 19.6 with project analysis
  switched off. It now sends its files to one resident child per flake8 process (`resident.py`:
  the same deadline, memory cap and crash reports, a fresh child after a kill, retired when its
  heap grew by half its allowance), which keeps the modules it parsed and the module bodies it
  may reuse: **20.3 and 20.4 CPU-s**, 89% of the added cost gone (17.5 and 17.7 with project
  analysis off). A first version that parsed in the flake8 process the modules a forked child had
  parsed, for the next children to inherit, reached 22.5 and 23.8. `flake8 --isolated
  --select=E9 -j2` costs 9.10 and 9.12 CPU-s with the plugin installed, 9.25 without it.
- **Module bodies kept per process** (`engine/module_cache.py`). Checking torchvision's 185 files
  one after the other in one process, loading imported modules took 6.27 of 26.30 CPU-s, 4.55 of
  them parsing (each module is parsed once per process already): running bodies is about 1.7 s.
  Only bodies that import no other project module and leave only immutable values are reused:
  54 of 595 loads. `torchtype-lint check --no-cache -j1` on torchvision took 24.46, 23.80 and
  26.15 CPU-s without reuse and 23.32, 24.47 and 23.29 with it; on torch-geometric (655 files)
  37.37 and 35.02 without, 36.49 and 38.67 with: within the noise of this machine.
- **Failures inside imported functions at the importer's call** (`project/call_sites.py`): rules
  also judge an imported function while a call of the analysed file runs it.
  `torchtype-lint check --no-cache -j1` on torchvision: 22.52 and 23.31 CPU-s with that switched
  off, 22.97 and 25.19 with it.
  No finding of the new kind on 2,202 files of the corpus (torch-geometric, monai, kornia,
  timm, torchaudio, x-transformers, vit-pytorch, denoising-diffusion-pytorch, torchkbnufft, sbi,
  d2l and the PyTorch tutorials): no false alarm, and no true one either.

## How to reproduce

```sh
python -m venv .venv && .venv/bin/pip install -e '.[test]'
.venv/bin/python benchmarks/corpus.py        # downloads the pinned corpus into benchmarks/corpus/ (not committed)
.venv/bin/python benchmarks/run.py           # makes /tmp/bench-venv (TorchFix) and /tmp/flake8-venv, rewrites this page
```

`benchmarks/run.py --corpus kornia-0.9.0 --out /tmp/kornia.md` runs the same comparison on another corpus
directory; `--no-torchfix` skips TorchFix; `--jobs-corpus ''` skips the `-j` comparison on timm. The real-world findings run is `benchmarks/realworld.py`
(see docs/real-world.md).
"""


if __name__ == "__main__":
    sys.exit(main())
