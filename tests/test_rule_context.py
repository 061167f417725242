"""The seam between engine and rules: rules see a RuleContext, never the interpreter, keep no
module-level state, and the checker keeps one report per root cause."""
from __future__ import annotations

import ast
import pathlib

import libcst as cst

from torchtype_lint.checker.check import check_source, run_rules
from torchtype_lint.checker.root_causes import one_report_per_root_cause
from torchtype_lint.rules.base import Report, Rule
from torchtype_lint.rules.context import RuleContext
from torchtype_lint.model.settings import Settings
from torchtype_lint.model.selection import Selection

RULES = pathlib.Path(__file__).resolve().parent.parent / "torchtype_lint" / "rules"


def _rule_files():
    return sorted(p for p in RULES.rglob("*.py") if p.name != "context.py")


def test_rules_never_import_the_engine():
    offenders = []
    for path in _rule_files():
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module and "engine" in node.module.split("."):
                offenders.append(f"{path.name}:{node.lineno}")
    assert offenders == []


def test_rules_keep_no_module_level_per_analysis_state():
    offenders = []
    for path in _rule_files():
        text = path.read_text()
        if "WeakKeyDictionary" in text or "_interpreter" in text:
            offenders.append(path.name)
    assert offenders == []


def _report(node, code="TTL201", explains=None, cause_warning=False):
    return Report(code, node, "m", "error", explains=explains, cause_warning=cause_warning)


def test_one_report_per_root_cause_keeps_the_first_use_only():
    cause, use1, use2 = cst.Name("a"), cst.Name("b"), cst.Name("c")
    reports = [_report(use1, explains=cause), _report(use1, "TTL401", explains=cause),
               _report(use2, explains=cause)]
    kept = one_report_per_root_cause(reports, settled=())
    assert [(r.code, r.node) for r in kept] == [("TTL201", use1), ("TTL401", use1)]


def test_cause_warning_goes_when_explained_or_settled_and_stays_otherwise():
    cause, other, use = cst.Name("a"), cst.Name("b"), cst.Name("c")
    warning = _report(cause, "TTL301", explains=cause, cause_warning=True)
    other_warning = _report(other, "TTL301", explains=other, cause_warning=True)
    assert one_report_per_root_cause([warning, _report(use, explains=cause)], ()) == [
        _report(use, explains=cause)]
    assert one_report_per_root_cause([warning, other_warning], settled={cause}) == [other_warning]
    assert one_report_per_root_cause([warning], ()) == [warning]


def test_explicit_cast_later_settles_the_numpy_conversion_end_to_end():
    base = "import numpy as np\nimport torch\na = np.random.rand(3, 2)\nx = torch.from_numpy(a)\n"
    settings = Settings(selection=Selection(select=["TTL"]))
    promoted = "y = x * torch.ones(3, 2)\n"  # float32 data turned float64: TTL301's harm
    assert [f.code for f in check_source(base + promoted, "t.py", settings).findings] == ["TTL301"]
    assert check_source(base + "x = x.float()\n" + promoted, "t.py", settings).findings == []
    layer = base + "layer = torch.nn.Linear(2, 4)\nlayer(x)\nlayer(x)\n"
    found = check_source(layer, "t.py", settings).findings
    assert [(f.code, f.line) for f in found] == [("TTL401", 6)]  # the first failing use only
    assert "converted by `torch.from_numpy(a)`" in found[0].message


def test_rules_get_a_context_with_state_that_lives_one_analysis():
    seen = []

    class Probe(Rule):
        code = "TTL999"
        listens = (cst.Call,)

        def visit(self, node, ctx):  # noqa: ANN001
            assert isinstance(ctx, RuleContext)
            counter = ctx.state(dict)
            counter[len(counter)] = ctx.default_float
            seen.append((ctx.in_autocast, ctx.in_no_grad, len(counter)))

    source = "import torch\nx = torch.ones(2)\nwith torch.no_grad():\n    y = torch.zeros(2)\n"
    module = cst.parse_module(source)
    for _ in range(2):
        run_rules(module, [Probe], 10.0, lambda report, ctx: None)
    # `torch.no_grad()` is a call too; the state slot starts empty in each analysis
    one_analysis = [(False, False, 1), (False, False, 2), (False, True, 3)]
    assert seen == one_analysis * 2
