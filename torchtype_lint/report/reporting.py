"""Output formats for ``check --output-format``: each turns a list of findings into text.

A formatter is ``format(findings, sources) -> str``; ``sources`` maps a finding's path to the
file's text when the caller has it (the ``full`` format reads the file otherwise). Register a
new one in ``FORMATTERS``.

Positions: ``Location`` holds 1-based lines and 0-based columns in code points; every format
here prints 1-based columns (like ruff and flake8), SARIF declares ``unicodeCodePoints``.

The human formats (concise, full) pass every text the project controls (file names, messages
quoting its source, provenance, fixes) through ``printable.py``: no control character, so no
forged line (a CI workflow command) and no terminal escape. The machine formats escape for
their own syntax (JSON strings; the github format's ``%0A``/``%3A``).
"""
from __future__ import annotations

import json
import os
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence

from .. import __version__
from ..model.findings import Finding, Location, rule_url, step_path
from ..source.lines import source_lines
from .printable import printable, printable_path

TOOL_NAME = "torchtype-lint"
TOOL_URL = "https://github.com/torchtype-lint/torchtype-lint"
SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"

Formatter = Callable[[Sequence[Finding], Mapping[str, str]], str]


def render(name: str, findings: Sequence[Finding], sources: Optional[Mapping[str, str]] = None) -> str:
    return FORMATTERS[name](findings, sources or {})


# --------------------------------------------------------------------------- concise


def format_concise(findings: Sequence[Finding], sources: Mapping[str, str]) -> str:
    """One line per finding, its message cut to the headline (headline.py): ``full`` and the
    JSON formats keep the whole message."""
    # ``check --confirm`` adds torch's verdicts as indented lines under their finding.
    return "".join(printable_path(f.concise()) + "\n" + "".join(f"    {printable(c)}\n" for c in f.confirmations)
                   for f in findings)


# --------------------------------------------------------------------------- full


def _source_lines(path: str, sources: Mapping[str, str], cache: Dict[str, List[str]]) -> List[str]:
    if path not in cache:
        text = sources.get(path)
        if text is None:
            from ..source.reading import read_source  # capped, never blocks, never through a link leaving the project

            try:
                text = read_source(path).decode("utf-8", errors="replace")
            except OSError:
                text = ""
        cache[path] = source_lines(text)
    return cache[path]


def format_full(findings: Sequence[Finding], sources: Mapping[str, str]) -> str:
    """Each finding with the source line, a caret under the reported span, where the value came
    from (the provenance chain, nearest step first) and the fix, like ruff's ``full``."""
    cache: Dict[str, List[str]] = {}
    blocks = []
    for f in findings:
        # Notebook findings (notebook.py) count lines within their cell.
        lines = source_lines(f.cell_source) if getattr(f, "cell", None) else _source_lines(f.path, sources, cache)
        out = [printable_path(f.full_line())]  # a name or quoted code holding a newline stays one line
        loc = f.location
        text = lines[loc.line - 1].expandtabs(1) if 1 <= loc.line <= len(lines) else ""
        # No excerpt of binary or undecodable lines, nor of one with a control character (an
        # escaped copy would put the carets off): what is shown is already printable.
        if text.isprintable() and text.strip():
            gutter = " " * len(str(loc.line))
            # A span on one line gets carets under it (at least one); a longer one, up to the end.
            end = max(loc.end_column, loc.column + 1) if loc.end_line == loc.line else len(text)
            width = max(1, min(end, len(text)) - loc.column)
            out += [f"{gutter} |", f"{loc.line} | {text}", f"{gutter} | {' ' * loc.column}{'^' * width}"]
        if f.provenance:
            out.append("  = where the value comes from:")
            out += [f"      {printable(step.render())}" for step in f.provenance]
        if f.fix is not None:
            kind = "safe fix" if f.fix.safe else "unsafe fix, needs --unsafe-fixes"
            out.append(f"  = help: {printable(f.fix.description)} ({kind})")
        out += [f"  = torch: {printable(c)}" for c in f.confirmations]
        out.append(f"  = docs: {rule_url(f.code)}")
        blocks.append("\n".join(out) + "\n")
    return "\n".join(blocks)


# --------------------------------------------------------------------------- json


def _point(line: int, column: int) -> Dict[str, int]:
    return {"row": line, "column": column + 1}


def finding_to_dict(f: Finding) -> Dict[str, Any]:
    """One finding as ruff-style JSON (rows 1-based, columns 1-based)."""
    fix = None
    if f.fix is not None:
        edits = []
        if f.fix.location is not None and f.fix.new_text is not None:
            edits.append({"content": f.fix.new_text,
                          "location": _point(f.fix.location.line, f.fix.location.column),
                          "end_location": _point(f.fix.location.end_line, f.fix.location.end_column)})
        fix = {"applicability": "safe" if f.fix.safe else "unsafe", "message": f.fix.description, "edits": edits}
    return {
        "code": f.code,
        "name": rule_name(f.code),
        "message": f.message,
        "severity": f.severity,
        "filename": f.path,
        "location": _point(f.location.line, f.location.column),
        "end_location": _point(f.location.end_line, f.location.end_column),
        "noqa_row": f.location.line,
        "fix": fix,
        "provenance": [{"row": s.line, "column": s.column + 1, "code": s.snippet, "note": s.note,
                        **({"filename": step_path(f.path, s)} if s.path else {}),
                        # where the value's expression ends (1-based, past its last character)
                        **({"end_location": _point(*s.end)} if s.end_line is not None else {})}
                       for s in f.provenance],
        "url": rule_url(f.code),
        "confirmations": list(f.confirmations),
        **({"cell": f.cell} if getattr(f, "cell", None) else {}),  # notebooks: rows count within the cell
    }


def format_json(findings: Sequence[Finding], sources: Mapping[str, str]) -> str:
    return json.dumps([finding_to_dict(f) for f in findings], indent=2) + "\n"


def format_json_lines(findings: Sequence[Finding], sources: Mapping[str, str]) -> str:
    """The json objects, one per line (streams well into ``jq`` and log collectors)."""
    return "".join(json.dumps(finding_to_dict(f)) + "\n" for f in findings)


# --------------------------------------------------------------------------- github


def _escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


def format_github(findings: Sequence[Finding], sources: Mapping[str, str]) -> str:
    """GitHub Actions workflow commands: one ``::error``/``::warning`` annotation per finding."""
    out = []
    for f in findings:
        level = "error" if f.severity == "error" else "warning"
        loc = f.location
        props = [f"file={_escape_property(f.path)}"]
        cell = _notebook_cell(f)
        if cell is None:
            props += [f"line={loc.line}", f"col={loc.column + 1}", f"endLine={loc.end_line}",
                      f"endColumn={loc.end_column + 1}"]
        props.append(f"title={_escape_property(f'{TOOL_NAME} ({f.code})')}")
        # A notebook's lines count within a cell, not within the .ipynb file GitHub shows:
        # annotate the file and say where in the message.
        where = f"cell {cell}, line {loc.line}, column {loc.column + 1}: " if cell is not None else ""
        out.append(f"::{level} {','.join(props)}::{_escape_data(f'{f.code} {where}{f.message}')}\n")
    return "".join(out)


# --------------------------------------------------------------------------- sarif


def _artifact(path: str) -> Dict[str, str]:
    """Relative to the working directory (the repository root in CI) when possible."""
    absolute = os.path.abspath(path)
    cwd = os.getcwd()
    rel = os.path.relpath(absolute, cwd) if absolute.startswith(cwd + os.sep) else None
    import pathlib  # here, not at the top: only SARIF needs URIs
    import urllib.parse

    if rel is not None:
        return {"uri": urllib.parse.quote(rel.replace(os.sep, "/")), "uriBaseId": "%SRCROOT%"}
    return {"uri": pathlib.Path(absolute).as_uri()}


def _region(loc: Location) -> Dict[str, int]:
    region = {"startLine": loc.line, "startColumn": loc.column + 1}
    if (loc.end_line, loc.end_column) > (loc.line, loc.column):
        region.update(endLine=loc.end_line, endColumn=loc.end_column + 1)
    return region


def _notebook_cell(finding: Finding) -> Optional[int]:
    """The cell number of a notebook finding (notebook.py), whose lines count within the cell."""
    return getattr(finding, "cell", None) or None


def _sarif_level(severity: str) -> str:
    return "error" if severity == "error" else "warning"


def format_sarif(findings: Sequence[Finding], sources: Mapping[str, str]) -> str:
    """SARIF 2.1.0 for GitHub code scanning: every rule (with its docs as helpUri), one result
    per finding, the provenance as relatedLocations and as a codeFlow (origin first)."""
    from ..rules.base import all_rules

    rules = all_rules()
    index = {r.code: i for i, r in enumerate(rules)}
    sarif_rules = []
    for r in rules:
        sarif_rules.append({
            "id": r.code,
            "name": r.name,
            "shortDescription": {"text": r.summary},
            "fullDescription": {"text": r.summary},
            "help": {"text": r.summary, "markdown": r.documentation()},
            "helpUri": rule_url(r.code),
            "defaultConfiguration": {"level": _sarif_level(r.severity), "enabled": bool(r.default_enabled)},
            "properties": {"fix": r.fix_safety},
        })
    results = []
    for f in findings:
        artifact = _artifact(f.path)
        cell = _notebook_cell(f)
        if cell is not None:
            # Lines within a notebook cell are not lines of the .ipynb file: no region, the
            # cell and line go into the message and the properties.
            primary: Dict[str, Any] = {"physicalLocation": {"artifactLocation": artifact}}
            text = f"cell {cell}, line {f.location.line}, column {f.location.column + 1}: {f.message}"
        else:
            primary = {"physicalLocation": {"artifactLocation": artifact, "region": _region(f.location)}}
            text = f.message
        result: Dict[str, Any] = {
            "ruleId": f.code,
            "level": _sarif_level(f.severity),
            "message": {"text": text},
            "locations": [primary],
        }
        if cell is not None:
            result["properties"] = {"notebookCell": cell, "cellLine": f.location.line,
                                    "cellColumn": f.location.column + 1}
        if f.code in index:
            result["ruleIndex"] = index[f.code]
        # A notebook's steps in its own cells have no region of the .ipynb file; steps in an
        # imported module (``data.py:6``) do.
        located = [step for step in f.provenance if cell is None or step.path]
        if located:
            related = []
            for i, step in enumerate(located):
                related.append({
                    "id": i + 1,
                    "physicalLocation": {"artifactLocation": _artifact(step_path(f.path, step))
                                         if step.path else artifact,
                                         "region": _region(Location(step.line, step.column, *step.end))},
                    "message": {"text": step.render()},
                })
            result["relatedLocations"] = related
            # The flow runs from where the value was made to where it goes wrong.
            flow = [{"location": {"physicalLocation": r["physicalLocation"], "message": r["message"]}}
                    for r in reversed(related)]
            flow.append({"location": {**primary, "message": {"text": f.message}}})
            result["codeFlows"] = [{"threadFlows": [{"locations": flow}]}]
        if cell is None and f.fix is not None and f.fix.location is not None and f.fix.new_text is not None:
            result["fixes"] = [{
                "description": {"text": f.fix.description},
                "artifactChanges": [{
                    "artifactLocation": artifact,
                    "replacements": [{"deletedRegion": _region(f.fix.location),
                                      "insertedContent": {"text": f.fix.new_text}}],
                }],
            }]
        results.append(result)
    document = {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {"name": TOOL_NAME, "version": __version__, "informationUri": TOOL_URL,
                                "rules": sarif_rules}},
            "results": results,
            "columnKind": "unicodeCodePoints",
            "originalUriBaseIds": {"%SRCROOT%": {"uri": _cwd_uri()}},
            # Findings were produced (a run that failed exits 2 and prints no SARIF).
            "invocations": [{"executionSuccessful": True, "workingDirectory": {"uri": _cwd_uri()}}],
        }],
    }
    return json.dumps(document, indent=2) + "\n"


def _cwd_uri() -> str:
    import pathlib

    uri = pathlib.Path(os.getcwd()).as_uri()
    return uri if uri.endswith("/") else uri + "/"


def rule_name(code: str) -> str:
    from ..rules.base import get_rule

    rule = get_rule(code)
    return rule.name if rule is not None else ""


FORMATTERS: Dict[str, Formatter] = {
    "concise": format_concise,
    "full": format_full,
    "json": format_json,
    "json-lines": format_json_lines,
    "github": format_github,
    "sarif": format_sarif,
}
