"""Generated documentation stays in sync with the rules; README and CI agree on the test command."""
from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from torchtype_lint.report import rule_docs as docs
from torchtype_lint.cli.main import main
from torchtype_lint.model.findings import RULE_DOCS_BASE, rule_url
from torchtype_lint.rules.base import all_rules

REPO = Path(__file__).resolve().parent.parent
RULES = all_rules()


def test_generated_docs_are_up_to_date():
    stale = docs.stale_files(str(REPO))
    assert stale == [], f"stale generated docs {stale}: run `python -m torchtype_lint.report.rule_docs`"


def test_docs_check_command_exit_codes(tmp_path):
    # A fresh directory has none of the generated files: --check lists them and exits 1,
    # generating them makes --check pass.
    (tmp_path / "README.md").write_text(f"# x\n\n{docs.README_START}\nold\n{docs.README_END}\n")
    assert docs.main(["--check", "--root", str(tmp_path)]) == 1
    assert docs.main(["--root", str(tmp_path)]) == 0
    assert docs.main(["--check", "--root", str(tmp_path)]) == 0
    assert (tmp_path / "docs" / "rules" / "TTL101.md").read_text() == docs.rule_pages()["TTL101.md"]
    assert "[TTL101](docs/rules/TTL101.md)" in (tmp_path / "README.md").read_text()
    # A page for a rule that does not exist is stale too, and removed by the generator.
    (tmp_path / "docs" / "rules" / "TTL999.md").write_text("gone")
    assert docs.stale_files(str(tmp_path)) == [str(Path("docs/rules/TTL999.md"))]
    docs.main(["--root", str(tmp_path)])
    assert not (tmp_path / "docs" / "rules" / "TTL999.md").exists()


@pytest.mark.parametrize("rule", RULES, ids=[r.code for r in RULES])
def test_rule_page_has_ruff_sections(rule):
    page = rule.documentation()
    assert page.startswith(f"# {rule.code}: {rule.name}\n")
    positions = [page.find(s) for s in ("## What it does", "## Why is this bad?", "## Example")]
    assert -1 not in positions and positions == sorted(positions), f"{rule.code}: sections missing or out of order"
    if rule.fix_safety != "none":
        assert "## Fix safety" in page
    assert re.fullmatch(r"TTL\d{3}", rule.code)
    assert re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", rule.name), f"{rule.code}: name must be kebab-case"
    assert rule.summary and rule.severity in ("error", "warning")
    assert rule.fix_safety in ("safe", "unsafe", "none")
    assert rule.default_enabled == (not rule.code.startswith("TTL9"))


def test_rule_command_prints_the_generated_page(capsys):
    for rule in RULES:
        assert main(["rule", rule.code]) == 0
        assert capsys.readouterr().out == (REPO / "docs" / "rules" / f"{rule.code}.md").read_text(encoding="utf-8")


def test_docs_urls_point_at_the_generated_pages():
    assert RULE_DOCS_BASE.endswith("/docs/rules/")
    for rule in RULES:
        url = rule_url(rule.code)
        assert url.startswith(RULE_DOCS_BASE)
        assert (REPO / "docs" / "rules" / url[len(RULE_DOCS_BASE):]).is_file()


def test_readme_rule_list_matches_the_code():
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    listed = re.findall(r"^\| \[(TTL\d{3})\]\(docs/rules/\1\.md\) \| `([a-z0-9-]+)`", readme, flags=re.M)
    assert listed == [(r.code, r.name) for r in RULES]
    catalogue = (REPO / "rules" / "README.md").read_text(encoding="utf-8")
    assert re.findall(r"^\| \[(TTL\d{3})\]", catalogue, flags=re.M) == [r.code for r in RULES]


def _readme_test_command() -> str:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    commands = [line.strip() for line in readme.splitlines() if ".venv/bin/pytest" in line]
    assert commands, "README has no test command"
    return commands[0]


def test_ci_runs_the_readme_test_command_verbatim():
    command = _readme_test_command()
    assert command == "python -m venv .venv && .venv/bin/pip install -e '.[test]' && .venv/bin/pytest -q"
    ci = (REPO / ".ci" / "run").read_text(encoding="utf-8")
    assert ci.startswith("#!/usr/bin/env bash\n")
    assert "set -euo pipefail" in ci
    assert any(line.strip() == command for line in ci.splitlines())


def test_readme_quick_start_has_exactly_two_commands():
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    quick = readme.split("## Quick start", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"```(?:bash|sh|console)\n(.*?)```", quick, flags=re.S)
    commands = [line for block in blocks for line in block.splitlines() if line.strip() and not line.startswith("#")]
    assert len(commands) == 2, commands
    assert "examples/" in commands[0]
    assert commands[1] == _readme_test_command()


def test_demo_example_has_real_findings():
    proc = subprocess.run([sys.executable, "-m", "torchtype_lint", "check", "--isolated", "examples/"],
                          cwd=REPO, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 1, proc.stderr
    for demo in ("demo_training", "demo_tabular"):
        codes = re.findall(rf"^examples/{demo}\.py:\d+:\d+: (TTL\d{{3}}) ", proc.stdout, flags=re.M)
        assert len(codes) >= 3, (demo, proc.stdout)
        assert "TTL000" not in codes and "TTL001" not in codes
    assert "examples/demo_training.py:35:5: TTL101 " in proc.stdout
    # The sample output at the top of the README is real output.
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    sample = re.search(r"```text\n(.*?)```", readme, flags=re.S).group(1).splitlines()
    assert sample and all(line in proc.stdout.splitlines() for line in sample)
