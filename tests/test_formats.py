"""--output-format: concise, full, json, github, sarif (validated against the SARIF 2.1.0 schema)."""
from __future__ import annotations

import json
import re
import textwrap
from pathlib import Path

import jsonschema
import pytest

from torchtype_lint.cli.main import main
from torchtype_lint.model.findings import Finding, Location, ProvenanceStep, rule_url
from torchtype_lint.model.headline import headline
from torchtype_lint.report.reporting import FORMATTERS, format_github, render

SCHEMA = json.loads((Path(__file__).parent / "data" / "sarif-schema-2.1.0.json").read_text(encoding="utf-8"))

SOURCE = textwrap.dedent("""\
    import torch

    labels = torch.tensor([0, 1, 1, 0])
    labels.float()
    """)


@pytest.fixture
def project(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "train.py").write_text(SOURCE, encoding="utf-8")
    (tmp_path / "broken.py").write_text("import torch\nx = (1,\n", encoding="utf-8")
    return tmp_path


def check(capsys, *argv):
    code = main(["check", "--isolated", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_concise_is_the_default(project, capsys):
    code, out, _ = check(capsys, "train.py")
    assert code == 1
    assert (code, out) == check(capsys, "--output-format", "concise", "train.py")[:2]
    assert out.startswith("train.py:4:1: TTL101 result of `labels.float()` is discarded")


def test_full_shows_excerpt_caret_provenance_and_fix(project, capsys):
    code, out, _ = check(capsys, "--output-format", "full", "train.py")
    assert code == 1
    lines = out.splitlines()
    assert lines[0].startswith("train.py:4:1: TTL101 ")
    assert lines[1:4] == ["  |", "4 | labels.float()", "  | ^^^^^^^^^^^^^^"]
    assert lines[4] == "  = where the value comes from:"
    assert lines[5].startswith("      line 3: `torch.tensor([0, 1, 1, 0])`")
    assert lines[6] == "  = help: Assign the result: `labels = labels.float()` (safe fix)"
    assert lines[7] == f"  = docs: {rule_url('TTL101')}"


def test_json_objects(project, capsys):
    code, out, _ = check(capsys, "--output-format", "json", "train.py", "broken.py")
    assert code == 1
    items = json.loads(out)
    assert [(i["filename"], i["code"]) for i in items] == [("broken.py", "TTL001"), ("train.py", "TTL101")]
    broken, cast = items
    assert broken["location"] == {"row": 2, "column": 5} and broken["fix"] is None
    assert broken["message"] == "syntax error: '(' was never closed"
    assert cast["name"] == "discarded-cast"
    assert cast["severity"] == "warning"
    assert cast["location"] == {"row": 4, "column": 1}
    assert cast["end_location"] == {"row": 4, "column": 15}
    assert cast["url"] == "https://github.com/torchtype-lint/torchtype-lint/blob/main/docs/rules/TTL101.md"
    assert cast["fix"] == {
        "applicability": "safe",
        "message": "Assign the result: `labels = labels.float()`",
        "edits": [{"content": "labels = labels.float()",
                   "location": {"row": 4, "column": 1}, "end_location": {"row": 4, "column": 15}}],
    }
    assert cast["provenance"][0]["row"] == 3 and cast["provenance"][0]["code"] == "torch.tensor([0, 1, 1, 0])"


def test_json_and_concise_agree(project, capsys):
    # concise prints each message's headline; full and json keep the whole message.
    _, concise, _ = check(capsys, "train.py", "broken.py")
    _, full, _ = check(capsys, "--output-format", "full", "train.py", "broken.py")
    _, as_json, _ = check(capsys, "--output-format", "json", "train.py", "broken.py")
    findings = json.loads(as_json)
    steps = [[ProvenanceStep(s["row"], s["column"] - 1, s["code"], s["note"]) for s in i["provenance"]]
             for i in findings]
    where = [f"{i['filename']}:{i['location']['row']}:{i['location']['column']}: {i['code']} " for i in findings]
    assert [w + headline(i["message"], s) for w, i, s in zip(where, findings, steps)] == concise.splitlines()
    assert all(w + i["message"] in full.splitlines() for w, i in zip(where, findings))
    cast = findings[1]
    assert "torch.tensor infers int64" in cast["message"] and "torch.tensor infers int64" not in concise
    assert "(since line 3)" in concise


GITHUB_LINE = re.compile(
    r"^::(?P<level>error|warning) file=(?P<file>[^,]+),line=(?P<line>\d+),col=(?P<col>\d+),"
    r"endLine=(?P<end_line>\d+),endColumn=(?P<end_col>\d+),title=(?P<title>[^,:]+)::(?P<message>.+)$")


def test_github_annotations(project, capsys):
    code, out, _ = check(capsys, "--output-format", "github", "train.py", "broken.py")
    assert code == 1
    lines = out.splitlines()
    assert len(lines) == 2
    matches = [GITHUB_LINE.match(line) for line in lines]
    assert all(matches), lines
    broken, cast = (m.groupdict() for m in matches)
    assert (broken["level"], broken["file"], broken["line"], broken["col"]) == ("error", "broken.py", "2", "5")
    assert broken["message"] == "TTL001 syntax error: '(' was never closed"
    assert (cast["level"], cast["file"], cast["line"], cast["col"], cast["end_line"], cast["end_col"]) == (
        "warning", "train.py", "4", "1", "4", "15")
    assert cast["title"] == "torchtype-lint (TTL101)"
    assert cast["message"].startswith("TTL101 result of `labels.float()` is discarded")


def test_github_escaping():
    finding = Finding("TTL101", "first line\nsecond, with 100%: done", "error", "dir,with:odd/a.py",
                      Location(3, 4, 3, 9))
    assert format_github([finding], {}) == (
        "::error file=dir%2Cwith%3Aodd/a.py,line=3,col=5,endLine=3,endColumn=10,"
        "title=torchtype-lint (TTL101)::TTL101 first line%0Asecond, with 100%25: done\n")


def _sarif(capsys, *paths):
    code, out, _ = check(capsys, "--output-format", "sarif", *paths)
    document = json.loads(out)
    jsonschema.Draft4Validator(SCHEMA).validate(document)
    return code, document


def test_sarif_validates_and_carries_rules_results_provenance_and_fixes(project, capsys):
    code, document = _sarif(capsys, "train.py", "broken.py")
    assert code == 1
    assert document["version"] == "2.1.0"
    run = document["runs"][0]
    driver = run["tool"]["driver"]
    assert driver["name"] == "torchtype-lint"
    rules = {r["id"]: r for r in driver["rules"]}
    assert rules["TTL101"]["helpUri"] == rule_url("TTL101")
    assert rules["TTL101"]["help"]["markdown"].startswith("# TTL101: discarded-cast")
    results = run["results"]
    assert [r["ruleId"] for r in results] == ["TTL001", "TTL101"]
    for result in results:
        assert driver["rules"][result["ruleIndex"]]["id"] == result["ruleId"]
    cast = results[1]
    assert cast["level"] == "warning"
    location = cast["locations"][0]["physicalLocation"]
    assert location["artifactLocation"] == {"uri": "train.py", "uriBaseId": "%SRCROOT%"}
    assert location["region"] == {"startLine": 4, "startColumn": 1, "endLine": 4, "endColumn": 15}
    related = cast["relatedLocations"]
    assert related[0]["physicalLocation"]["region"]["startLine"] == 3
    assert related[0]["message"]["text"].startswith("line 3: `torch.tensor([0, 1, 1, 0])`")
    flow = cast["codeFlows"][0]["threadFlows"][0]["locations"]
    assert [step["location"]["physicalLocation"]["region"]["startLine"] for step in flow] == [3, 4]
    replacement = cast["fixes"][0]["artifactChanges"][0]["replacements"][0]
    assert replacement["insertedContent"]["text"] == "labels = labels.float()"
    assert replacement["deletedRegion"]["startLine"] == 4
    assert results[0]["level"] == "error"
    assert run["invocations"][0]["executionSuccessful"] is True
    assert run["originalUriBaseIds"]["%SRCROOT%"]["uri"] == project.resolve().as_uri() + "/"


def test_sarif_without_findings_is_valid(project, capsys):
    (project / "clean.py").write_text(SOURCE.replace("labels.float()", "labels = labels.float()"))
    code, document = _sarif(capsys, "clean.py")
    assert code == 0
    assert document["runs"][0]["results"] == []


def test_schema_is_the_official_one():
    assert SCHEMA["id"] == "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
    # The validator really validates: a result without a message is rejected.
    bad = {"version": "2.1.0", "runs": [{"tool": {"driver": {"name": "x"}}, "results": [{"ruleId": "X"}]}]}
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.Draft4Validator(SCHEMA).validate(bad)


def test_every_format_renders_an_empty_list():
    for name in FORMATTERS:
        text = render(name, [])
        if name == "json":
            assert json.loads(text) == []
        elif name == "sarif":
            assert json.loads(text)["runs"][0]["results"] == []
        else:
            assert text == ""


def test_full_format_reads_the_file_when_no_source_is_given(tmp_path):
    path = tmp_path / "m.py"
    path.write_text("import torch\nx = 1\n")
    finding = Finding("TTL001", "example", "error", str(path), Location(2, 4, 2, 5),
                      provenance=(ProvenanceStep(1, 0, "import torch", "note"),))
    text = render("full", [finding])
    assert "2 | x = 1\n  |     ^\n" in text
    assert "      line 1: `import torch` (note)" in text


def _notebook(path: Path) -> None:
    cells = [
        {"cell_type": "markdown", "metadata": {}, "source": ["# demo\n"]},
        {"cell_type": "code", "metadata": {}, "execution_count": None, "outputs": [],
         "source": ["import torch\n", "labels = torch.tensor([0, 1])\n"]},
        {"cell_type": "code", "metadata": {}, "execution_count": None, "outputs": [],
         "source": ["%matplotlib inline\n", "labels.float()\n", "print(labels)\n"]},
    ]
    path.write_text(json.dumps({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}))


def test_notebook_findings_in_github_and_sarif(project, capsys):
    _notebook(project / "nb.ipynb")
    code, out, _ = check(capsys, "--output-format", "github", "nb.ipynb")
    assert code == 1
    # No line= for a notebook: its lines count within a cell, not within the .ipynb file.
    assert out.startswith("::warning file=nb.ipynb,title=torchtype-lint (TTL101)::"
                          "TTL101 cell 3, line 2, column 1: result of `labels.float()` is discarded")
    assert out.count("\n") == 1
    code, document = _sarif(capsys, "nb.ipynb")
    result = document["runs"][0]["results"][0]
    assert result["locations"][0]["physicalLocation"] == {"artifactLocation": {"uri": "nb.ipynb",
                                                                               "uriBaseId": "%SRCROOT%"}}
    assert result["message"]["text"].startswith("cell 3, line 2, column 1: result of `labels.float()`")
    assert result["properties"] == {"notebookCell": 3, "cellLine": 2, "cellColumn": 1}


def test_full_format_with_bad_input(project, capsys):
    (project / "binary.py").write_bytes(b"\x00\x01torch\xff")
    (project / "latin.py").write_bytes(b"import torch\ns = 'caf\xe9'\n")
    code, out, _ = check(capsys, "--output-format", "full", "binary.py", "latin.py", "broken.py")
    assert code == 1
    blocks = out.split("\n\n")
    # No excerpt of a binary file; a zero-width location gets a single caret (here: at the
    # byte that is not UTF-8, shown as the replacement character).
    assert blocks[0].splitlines()[1:] == [f"  = docs: {rule_url('TTL001')}"]
    assert blocks[1].splitlines()[1:4] == ["  |", "2 | x = (1,", "  |     ^"]
    assert blocks[2].splitlines()[0].startswith("latin.py:2:9: TTL001 could not decode file")
    assert blocks[2].splitlines()[1:4] == ["  |", "2 | s = 'caf\ufffd'", "  |         ^"]


def test_json_lines_is_the_json_objects_one_per_line(project, capsys):
    _, as_json, _ = check(capsys, "--output-format", "json", "train.py", "broken.py")
    code, lines, _ = check(capsys, "--output-format", "json-lines", "train.py", "broken.py")
    assert code == 1
    assert [json.loads(line) for line in lines.splitlines()] == json.loads(as_json)


def test_sarif_uris_are_percent_encoded(tmp_path, monkeypatch, capsys):
    project = tmp_path / "my project"
    (project / "sub dir").mkdir(parents=True)
    (project / "sub dir" / "t#1.py").write_text(SOURCE, encoding="utf-8")
    outside = tmp_path / "other place" / "o.py"
    outside.parent.mkdir()
    outside.write_text(SOURCE, encoding="utf-8")
    monkeypatch.chdir(project)
    _, document = _sarif(capsys, "sub dir/t#1.py", str(outside))
    run = document["runs"][0]
    uris = [r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in run["results"]]
    assert uris == [outside.as_uri(), "sub%20dir/t%231.py"] or uris == ["sub%20dir/t%231.py", outside.as_uri()]
    assert run["originalUriBaseIds"]["%SRCROOT%"]["uri"].endswith("/my%20project/")
