"""``torchtype-lint confirm``: every rule's runtime claim checked against the installed torch,
and the linter checked against the fixtures' ``# expect:`` labels, in one run.

Runtime side: each ``bad_*.py`` must fail the way the rule's ``RuntimeClaim`` says on every
device the claim lists (and run cleanly on a device it does not list: behaviour that differs
by device is recorded per device); each ``good_*.py`` must run cleanly everywhere. A device
that does not exist is "skipped", never "confirmed".

Lint side: each bad fixture must be flagged at its labelled lines, each good one must be
silent. Counted against torch's verdict, this gives the linter's precision and recall.
"""
from __future__ import annotations

import json
import re
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Dict, Iterable, List, Optional, Sequence, Set, Tuple

from ..rules.base import RuntimeClaim, all_rules
from . import fixtures as fx
from .pool import DEVICES, DeviceRun, Workers

CONFIRMED, CONTRADICTED, SKIPPED, UNVERIFIED = "confirmed", "contradicted", "skipped", "unverified"
RECORD_PATH = Path(__file__).resolve().parents[1] / "data" / "confirmations.json"


@dataclass
class FixtureVerdict:
    fixture: fx.Fixture
    device: str
    verdict: str
    reason: str
    observed: str = ""        # "RuntimeError: first line" or "ran without error"
    failed_line: Optional[int] = None


@dataclass
class RuleStatus:
    code: str
    device: str
    status: str
    message: str = ""          # what torch printed for the first bad fixture (record/docs)
    fixture: str = ""
    verdicts: List[FixtureVerdict] = field(default_factory=list)
    claim: Optional[RuntimeClaim] = None


@dataclass
class LintAgreement:
    code: str
    true_positive: List[Tuple[str, int, str]] = field(default_factory=list)
    false_negative: List[Tuple[str, int, str]] = field(default_factory=list)
    false_positive: List[Tuple[str, int, str]] = field(default_factory=list)
    #: Labels in bad fixtures torch did not confirm: not counted either way.
    unbacked: List[Tuple[str, int, str]] = field(default_factory=list)

    @property
    def precision(self) -> Optional[float]:
        flagged = len(self.true_positive) + len(self.false_positive)
        return len(self.true_positive) / flagged if flagged else None

    @property
    def recall(self) -> Optional[float]:
        positives = len(self.true_positive) + len(self.false_negative)
        return len(self.true_positive) / positives if positives else None


@dataclass
class ConfirmReport:
    torch_version: str
    devices: Tuple[str, ...]
    available: Dict[str, bool]
    statuses: Dict[str, Dict[str, RuleStatus]]      # code -> device -> status
    lint: Dict[str, LintAgreement]
    fixtures_run: int
    seconds: float
    worker_errors: Dict[str, str] = field(default_factory=dict)
    lint_seconds: float = 0.0
    hardware: Dict[str, str] = field(default_factory=dict)   # device -> GPU name and capability

    @property
    def contradictions(self) -> List[RuleStatus]:
        return [s for by_device in self.statuses.values() for s in by_device.values()
                if s.status == CONTRADICTED]

    @property
    def exit_code(self) -> int:
        return 1 if self.contradictions or self.worker_errors else 0


# --------------------------------------------------------------------------- judging


def _first_line(text: str, limit: int = 300) -> str:
    line = (text or "").strip().splitlines()[0] if (text or "").strip() else ""
    return line if len(line) <= limit else line[: limit - 3] + "..."


def describe_result(result: Dict[str, Any]) -> str:
    if result.get("outcome") == "ok":
        return "ran without error"
    if result.get("outcome") in ("raised", "timeout"):
        return f"{result.get('exception')}: {_first_line(result.get('message', ''))}".rstrip(": ")
    return result.get("message") or str(result.get("outcome"))


def claim_matches(claim: RuntimeClaim, result: Dict[str, Any], device: str = "cpu") -> bool:
    """Did the run fail the way ``claim`` says? (exception class or a base of it, and the
    message pattern; an AssertionError must come from the script's own assert; a warning
    class also matches a recorded warning of that category.) On a device outside the
    claim's ``pattern_devices`` only the failure itself is claimed."""
    if claim.pattern_devices is not None and device not in claim.pattern_devices:
        return result.get("outcome") == "raised" and (
            claim.exception != "AssertionError" or bool(result.get("in_script")))
    pattern = re.compile(claim.pattern) if claim.pattern else None
    if result.get("outcome") == "raised":
        names = result.get("mro") or [result.get("exception")]
        if claim.exception in names and (pattern is None or pattern.search(result.get("message", ""))):
            return claim.exception != "AssertionError" or bool(result.get("in_script"))
    if result.get("outcome") == "ok" and claim.exception.endswith("Warning"):
        return any(category == claim.exception and (pattern is None or pattern.search(message))
                   for category, message in result.get("warnings", []))
    return False


def judge(claim: Optional[RuntimeClaim], fixture: fx.Fixture, device: str,
          result: Optional[Dict[str, Any]]) -> FixtureVerdict:
    if result is None or result.get("outcome") == "unavailable":
        return FixtureVerdict(fixture, device, SKIPPED, f"no {device.upper()} device")
    observed = describe_result(result)
    line = result.get("line")
    if result.get("outcome") in ("timeout", "crashed"):
        return FixtureVerdict(fixture, device, CONTRADICTED, f"{observed}", observed, line)
    if fixture.kind == "good":
        if result.get("outcome") == "ok":
            return FixtureVerdict(fixture, device, CONFIRMED, "good fixture runs cleanly", observed)
        return FixtureVerdict(fixture, device, CONTRADICTED,
                              f"good fixture failed at line {line}: {observed}", observed, line)
    if claim is None:
        return FixtureVerdict(fixture, device, UNVERIFIED, "rule states no runtime claim", observed, line)
    if device not in claim.devices:
        if result.get("outcome") == "ok":
            return FixtureVerdict(fixture, device, CONFIRMED,
                                  f"runs cleanly on {device}, as the claim (only {', '.join(claim.devices)}) says",
                                  observed)
        return FixtureVerdict(fixture, device, CONTRADICTED,
                              f"claim excludes {device} but it failed at line {line}: {observed}", observed, line)
    if claim_matches(claim, result, device):
        return FixtureVerdict(fixture, device, CONFIRMED, "fails as claimed", observed, line)
    expected = claim.exception + (f" matching /{claim.pattern}/" if claim.pattern else "")
    if claim.exception == "AssertionError" and result.get("exception") == "AssertionError":
        expected += " raised by the fixture's own assert"
    return FixtureVerdict(fixture, device, CONTRADICTED,
                          f"expected {expected}; got {observed}" + (f" (line {line})" if line else ""),
                          observed, line)


def summarise(code: str, device: str, claim: Optional[RuntimeClaim],
              verdicts: List[FixtureVerdict]) -> RuleStatus:
    if not verdicts:
        return RuleStatus(code, device, UNVERIFIED, "no fixtures", claim=claim)
    kinds = {v.verdict for v in verdicts}
    if CONTRADICTED in kinds:
        status = CONTRADICTED
    elif kinds == {SKIPPED}:
        status = SKIPPED
    elif claim is None or not any(v.fixture.kind == "bad" for v in verdicts):
        status = UNVERIFIED
    else:
        status = CONFIRMED
    bad = [v for v in verdicts if v.fixture.kind == "bad" and v.verdict != SKIPPED]
    message, fixture = "", ""
    if status == SKIPPED:
        message = verdicts[0].reason
    elif bad:
        message, fixture = bad[0].observed, bad[0].fixture.name
    elif claim is None:
        message = "rule states no runtime claim"
    else:
        message = "no bad fixture"
    return RuleStatus(code, device, status, message, fixture, verdicts, claim)


# --------------------------------------------------------------------------- linting fixtures


def lint_fixture(fixture: fx.Fixture) -> Set[Tuple[int, str]]:
    """(line, code) of every finding, with the fixture's own (possibly opt-in) rules on."""
    from ..checker.check import Settings, check_path
    from ..model.selection import Selection

    extra = sorted({fixture.code} | {code for _, code in fixture.labels})
    settings = Settings(selection=Selection(select=["TTL"], extend_select=extra))
    result = check_path(str(fixture.path), settings)
    return {(f.line, f.code) for f in result.findings}


def agree(code: str, fixtures_: Sequence[fx.Fixture], torch_says_bad: Dict[str, bool],
          findings: Dict[str, Set[Tuple[int, str]]]) -> LintAgreement:
    out = LintAgreement(code)
    for fixture in fixtures_:
        found = findings[fixture.ident]
        expected = set(fixture.labels)
        backed = fixture.kind == "bad" and torch_says_bad.get(fixture.ident, False)
        for line, rule in sorted(expected):
            item = (fixture.name, line, rule)
            if not backed:
                out.unbacked.append(item)
            elif (line, rule) in found:
                out.true_positive.append(item)
            else:
                out.false_negative.append(item)
        for line, rule in sorted(found - expected):
            out.false_positive.append((fixture.name, line, rule))
    return out


# --------------------------------------------------------------------------- the run


def claims_of_rules() -> Dict[str, Optional[RuntimeClaim]]:
    return {rule.code: rule.runtime for rule in all_rules()}


def confirm(codes: Optional[Iterable[str]] = None, devices: Sequence[str] = ("cpu",),
            root: Optional[Path] = None, claims: Optional[Dict[str, Optional[RuntimeClaim]]] = None,
            lint: bool = True, parallel: Optional[int] = None, timeout: float = 60.0) -> ConfirmReport:
    """Run every fixture of ``codes`` (default: every rule with fixtures) on ``devices``.

    ``claims`` overrides the registered rules' claims (the tests plant wrong ones)."""
    started = time.perf_counter()
    root = root or fx.default_root()
    if root is None:
        raise ValueError("no fixtures/ directory found; run from a checkout of torchtype-lint")
    if not root.is_dir():
        raise ValueError(f"fixtures directory {str(root)!r} does not exist")
    claims = claims if claims is not None else claims_of_rules()
    wanted = {c.upper() for c in codes} if codes else None
    found = fx.discover(root, wanted)
    selected = sorted(wanted if wanted is not None else
                      (set(found) | {c for c, claim in claims.items() if claim is not None}))
    jobs = [{"id": f.ident, "path": str(f.path)} for code in selected for f in found.get(code, [])]
    runs: Dict[str, DeviceRun] = {d: DeviceRun(d, d == "cpu") for d in devices}
    runner = None
    if jobs:
        # torch runs the fixtures in its worker while this process lints them.
        workers = Workers(devices, parallel, timeout)
        runner = threading.Thread(target=lambda: runs.update(workers.run({d: jobs for d in devices})))
        runner.start()
    findings: Dict[str, Set[Tuple[int, str]]] = {}
    lint_started = time.perf_counter()
    if lint:
        findings = {f.ident: lint_fixture(f) for code in selected for f in found.get(code, [])}
    lint_seconds = time.perf_counter() - lint_started
    if runner is not None:
        runner.join()
    statuses: Dict[str, Dict[str, RuleStatus]] = {}
    torch_says_bad: Dict[str, bool] = {}
    for code in selected:
        claim = claims.get(code)
        statuses[code] = {}
        for device in devices:
            run = runs[device]
            verdicts = [judge(claim, f, device, run.results.get(f.ident) if run.available else None)
                        for f in found.get(code, [])]
            statuses[code][device] = summarise(code, device, claim, verdicts)
            if device == "cpu":
                for v in verdicts:
                    torch_says_bad[v.fixture.ident] = (v.fixture.kind == "bad" and v.verdict == CONFIRMED)
    agreement: Dict[str, LintAgreement] = {}
    if lint:
        for code in selected:
            agreement[code] = agree(code, found.get(code, []), torch_says_bad, findings)
    version = next((r.torch for r in runs.values() if r.torch != "?"), "?")
    return ConfirmReport(version, tuple(devices), {d: r.available for d, r in runs.items()},
                         statuses, agreement, len(jobs), time.perf_counter() - started,
                         {d: r.error for d, r in runs.items() if r.error}, lint_seconds,
                         {d: r.hardware for d, r in runs.items() if r.hardware})


# --------------------------------------------------------------------------- output


def _ratio(value: Optional[float]) -> str:
    return "-" if value is None else f"{value:.2f}"


def _cell(status: RuleStatus) -> str:
    if status.status == SKIPPED:
        return f"skipped ({status.message.replace('device', '').strip()})"
    return status.status


def render(report: ConfirmReport) -> str:
    lines = [f"Runtime claims against torch {report.torch_version}: {report.fixtures_run} fixtures "
             f"per device in {report.seconds:.1f}s (linting them: {report.lint_seconds:.1f}s, overlapped)"]
    lines += [f"{device}: {hardware}" for device, hardware in report.hardware.items()] + [""]
    header = ["rule"] + list(report.devices)
    rows = [[code] + [_cell(by_device[d]) for d in report.devices]
            for code, by_device in report.statuses.items()]
    lines += _table(header, rows)
    lines.append("")
    problems = []
    for code, by_device in report.statuses.items():
        for device, status in by_device.items():
            for v in status.verdicts:
                if v.verdict == CONTRADICTED:
                    problems.append(f"  {code} {device} {v.fixture.name}: {v.reason}")
            if status.status == UNVERIFIED:
                problems.append(f"  {code} {device}: unverified ({status.message})")
    for device, error in report.worker_errors.items():
        problems.append(f"  {device} worker: {error}")
    if problems:
        lines += ["Problems:"] + problems + [""]
    notes = located_elsewhere(report)
    if notes:
        lines += ["Notes (torch failed as claimed, but not on the labelled line):"] + notes + [""]
    for device in report.devices:
        counts: Dict[str, int] = {}
        for by_device in report.statuses.values():
            counts[by_device[device].status] = counts.get(by_device[device].status, 0) + 1
        shown = ", ".join(f"{n} {status}" for status, n in sorted(counts.items()))
        absent = "" if report.available.get(device) else f" (no {device.upper()} device: nothing confirmed there)"
        lines.append(f"{device}: {shown}{absent}")
    if report.lint:
        lines += ["", "Linter against torch (labelled lines; positives are bad fixtures torch confirmed)", ""]
        rows = []
        totals = LintAgreement("total")
        for code, a in report.lint.items():
            rows.append([code, str(len(a.true_positive)), str(len(a.false_negative)),
                         str(len(a.false_positive)), _ratio(a.precision), _ratio(a.recall)])
            totals.true_positive += a.true_positive
            totals.false_negative += a.false_negative
            totals.false_positive += a.false_positive
        rows.append(["total", str(len(totals.true_positive)), str(len(totals.false_negative)),
                     str(len(totals.false_positive)), _ratio(totals.precision), _ratio(totals.recall)])
        lines += _table(["rule", "flagged", "missed", "false alarms", "precision", "recall"], rows)
        disagreements = []
        for code, a in report.lint.items():
            disagreements += [f"  {code} {n}:{line}: {rule} expected but not reported"
                              for n, line, rule in a.false_negative]
            disagreements += [f"  {code} {n}:{line}: {rule} reported but not labelled"
                              for n, line, rule in a.false_positive]
            disagreements += [f"  {code} {n}:{line}: {rule} labelled but torch did not confirm the fixture"
                              for n, line, rule in a.unbacked]
        if disagreements:
            lines += ["", "Disagreements:"] + disagreements
    return "\n".join(lines) + "\n"


def located_elsewhere(report: ConfirmReport) -> List[str]:
    """Bad fixtures whose error (not a silent-bug assert) came from another line than the label:
    fine when the error surfaces later (e.g. in ``backward()``), suspicious otherwise."""
    out = []
    for code, by_device in report.statuses.items():
        for device, status in by_device.items():
            claim = status.claim
            if claim is None or claim.exception == "AssertionError" or device not in claim.devices:
                continue
            for v in status.verdicts:
                labelled = sorted({line for line, _ in v.fixture.labels})
                if v.fixture.kind == "bad" and v.verdict == CONFIRMED and v.failed_line not in labelled:
                    out.append(f"  {code} {device} {v.fixture.name}: failed at line {v.failed_line}, "
                               f"labelled {', '.join(map(str, labelled)) or 'nowhere'}")
    return out


def _table(header: List[str], rows: List[List[str]]) -> List[str]:
    widths = [max(len(str(r[i])) for r in [header] + rows) for i in range(len(header))]
    fmt = "  ".join(f"{{:<{w}}}" for w in widths)
    out = [fmt.format(*header).rstrip(), fmt.format(*("-" * w for w in widths)).rstrip()]
    out += [fmt.format(*row).rstrip() for row in rows]
    return out


def to_json(report: ConfirmReport) -> Dict[str, Any]:
    """Every verdict of the run, fixture by fixture, for ``confirm --json`` (a GPU run's
    results are committed from this)."""
    rules: Dict[str, Any] = {}
    for code, by_device in report.statuses.items():
        rules[code] = {device: {"status": status.status, "message": status.message,
                                "fixtures": [{"fixture": v.fixture.name, "kind": v.fixture.kind,
                                              "verdict": v.verdict, "reason": v.reason,
                                              "observed": v.observed, "line": v.failed_line}
                                             for v in status.verdicts]}
                       for device, status in by_device.items()}
    return {"torch": report.torch_version, "devices": list(report.devices), "available": report.available,
            "hardware": report.hardware, "fixtures_per_device": report.fixtures_run,
            "seconds": round(report.seconds, 2), "worker_errors": report.worker_errors, "rules": rules}


def record(report: ConfirmReport, path: Path = RECORD_PATH) -> Path:
    """Merge this run into the data file read by ``confirmations.py`` (rule docs)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        data = {}
    data["torch"] = report.torch_version
    rules = data.setdefault("rules", {})
    for code, by_device in report.statuses.items():
        entry = rules.setdefault(code, {})
        for device, status in by_device.items():
            entry[device] = {"status": status.status, "message": status.message}
            if status.fixture:
                entry[device]["fixture"] = status.fixture
            if status.claim is not None:
                # Whether the bad fixtures fail here (False: the claim says they run cleanly).
                entry[device]["fails"] = device in status.claim.devices
    data["rules"] = {code: rules[code] for code in sorted(rules)}
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    return path


# --------------------------------------------------------------------------- command line


def run_command(args: Any) -> int:
    """Entry point for ``torchtype-lint confirm``; returns the exit code."""
    import sys

    from .pool import TorchMissing

    devices = DEVICES if args.device == "all" else (args.device,)
    codes = [c.strip().upper() for v in (args.rule or []) for c in v.split(",") if c.strip()] or None
    try:
        report = confirm(codes, devices, Path(args.fixtures) if args.fixtures else None,
                         lint=not args.no_lint)
    except (TorchMissing, ValueError) as exc:  # no torch, or no fixtures directory
        print(f"torchtype-lint: error: {exc}", file=sys.stderr)
        return 2
    sys.stdout.write(render(report))
    if getattr(args, "json", None):
        Path(args.json).write_text(json.dumps(to_json(report), indent=1) + "\n", encoding="utf-8")
    if args.record:
        path = record(report)
        print(f"Recorded {len(report.statuses)} rules to {path}", file=sys.stderr)
    return report.exit_code
