"""Jupyter notebooks: lint the code cells of an ``.ipynb`` as one program, report per cell.

The code cells are joined, in order, into one Python text (a variable made in cell 1 and
misused in cell 3 is one program, as it is when the notebook runs), separated by a boundary
comment line so the text can be cut back into cells after fixing. IPython syntax that is not
Python is neutralised *without shifting any line*: a cell whose first line is a cell magic
(``%%time``, ``%%bash``, ...) is left out, and in a cell that does not parse as Python, each
line magic (``%matplotlib inline``), shell line (``!pip install ...``), ``x = !ls`` /
``x = %timeit -o f()`` and help line (``obj?``, ``?obj``) becomes ``pass`` at the same
indentation. Cells that parse are taken verbatim, so ``a % b`` on a continuation line is never
mistaken for a magic. Markdown and raw cells are ignored, and so are notebooks whose kernel
language is not Python.

Findings are reported as ``notebook.ipynb:cell 3:2:5: TTL101 ...``: cell numbers are 1-based
positions among *all* cells of the notebook (markdown cells count: the number finds the cell
in any notebook viewer and is ``cells[n - 1]`` in the JSON), lines are 1-based within the cell.

Fixing rewrites only the ``source`` of changed code cells; every other field of the notebook
(outputs, metadata, ids, key order, indentation) is written back as it was read.

A notebook is a kind of source, as in ruff: this module only reads it and joins its code cells
(with a cell map, ``Notebook.locate``) and writes fixed cells back (``split_fixed``,
``set_cell_source``). The checker receives the joined program and maps its findings back to the
cells (``checker/notebooks.py``): nothing here calls back up into the analysis.
"""
from __future__ import annotations

import bisect
import json
import re
from dataclasses import dataclass
from typing import Any, Dict, Iterable, List, Optional, Sequence, Tuple

from .lines import line_breaks

NOTEBOOK_SUFFIX = ".ipynb"
#: Written between cells in the joined text; a comment, so it is valid at any indentation.
CELL_BOUNDARY = "# torchtype-lint: cell boundary"
#: Stands in for a line of IPython syntax (restored when a fixed notebook is written back).
MAGIC_PLACEHOLDER = "pass  # torchtype-lint: ipython syntax"

_MAGIC_LINE = re.compile(r"^[ \t]*(?:[%!]|\?|[\w.\[\], ]+=\s*[%!]|[^#\n]*\?\s*$)")
_PY_CF_ALLOW_TOP_LEVEL_AWAIT = 0x2000  # notebooks may ``await`` at the top level


# --------------------------------------------------------------------------- reading


class NotebookError(ValueError):
    pass


@dataclass
class CodeCell:
    number: int  # 1-based position among all cells
    source: str  # as written in the notebook
    text: str  # what is analysed: the source with IPython syntax neutralised, ending in "\n"
    magic_lines: List[str]  # original lines replaced by MAGIC_PLACEHOLDER, in order
    first_line: int = 0  # 1-based line of the cell's first line in the joined text


@dataclass
class Notebook:
    data: Dict[str, Any]
    cells: List[CodeCell]
    indent: Optional[int]
    trailing_newline: bool

    def joined(self) -> str:
        """The code cells as one Python text, a boundary line between cells."""
        parts = []
        line = 1
        for cell in self.cells:
            cell.first_line = line
            parts.append(cell.text)
            line += line_breaks(cell.text) + 1  # lines as libcst counts them in the joined text
        return f"{CELL_BOUNDARY}\n".join(parts)

    def locate(self, line: int) -> Tuple[CodeCell, int]:
        """Joined-text line -> (cell, 1-based line within it); a boundary line maps to the next cell."""
        starts = [c.first_line for c in self.cells]
        index = max(bisect.bisect_right(starts, line) - 1, 0)
        cell = self.cells[index]
        last = cell.first_line + line_breaks(cell.text) - 1
        if line > last and index + 1 < len(self.cells):
            return self.cells[index + 1], 1
        return cell, max(line - cell.first_line + 1, 1)


def _cell_source(cell: Dict[str, Any]) -> str:
    source = cell["source"]  # validate() made sure it is a string or a list of strings
    return "".join(source) if isinstance(source, list) else source


def _parses(text: str) -> bool:
    try:
        compile(text, "<cell>", "exec", flags=0x400 | _PY_CF_ALLOW_TOP_LEVEL_AWAIT, dont_inherit=True)
    except (SyntaxError, ValueError):
        return False
    return True


def neutralise(source: str) -> Tuple[str, List[str]]:
    """The cell's text with IPython-only lines replaced (same line count), and those lines."""
    text = source if source.endswith("\n") or not source else source + "\n"
    if _parses(text):
        return text, []
    lines = text.split("\n")
    replaced: List[str] = []
    for i, starts_statement in enumerate(_statement_starts(lines)):
        if starts_statement and _is_magic(lines[i]):
            replaced.append(lines[i])
            lines[i] = lines[i][: len(lines[i]) - len(lines[i].lstrip())] + MAGIC_PLACEHOLDER
    return "\n".join(lines), replaced


def _is_magic(line: str) -> bool:
    stripped = line.lstrip()
    return bool(stripped) and not stripped.startswith("#") and _MAGIC_LINE.match(line) is not None


def _statement_starts(lines: Sequence[str]) -> List[bool]:
    """For each line, whether it begins a new statement: not inside brackets, a triple-quoted
    string or after a backslash continuation (IPython only sees magics there, and ``% 2``
    continuing an expression is Python)."""
    starts = []
    depth = 0
    quote: Optional[str] = None  # the open triple quote, if any
    continued = False
    for line in lines:
        starts.append(depth == 0 and quote is None and not continued)
        if starts[-1] and _is_magic(line):
            continue  # IPython syntax, not Python: its brackets and quotes mean nothing here
        i = 0
        while i < len(line):
            if quote is not None:
                end = line.find(quote, i)
                if end < 0:
                    break
                quote, i = None, end + 3
                continue
            char = line[i]
            if char == "#":
                break
            if char in "\"'":
                if line.startswith(char * 3, i):
                    quote, i = char * 3, i + 3
                    continue
                end = i + 1
                while end < len(line) and line[end] != char:
                    end += 2 if line[end] == "\\" else 1
                i = end + 1
                continue
            if char in "([{":
                depth += 1
            elif char in ")]}":
                depth = max(depth - 1, 0)
            i += 1
        continued = line.endswith("\\") and quote is None
    return starts


def is_python_notebook(data: Dict[str, Any]) -> bool:
    """Whether the kernel language is Python (or unstated); ``data`` passed ``validate``."""
    metadata = data.get("metadata") or {}
    language = ((metadata.get("language_info") or {}).get("name")
                or (metadata.get("kernelspec") or {}).get("language"))
    return language is None or str(language).lower() == "python"


def _kind(value: Any) -> str:
    """How a JSON value is named in messages (JSON's words, not Python's)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    return "an array" if isinstance(value, list) else "an object"


def _check_text(text: str, where: str) -> None:
    """json.loads accepts a lone surrogate ("\\ud800"), which no Python source can hold."""
    bad = next((char for char in text if 0xD800 <= ord(char) <= 0xDFFF), None)
    if bad is not None:
        raise NotebookError(f"not a valid notebook: {where} contains a lone surrogate (U+{ord(bad):04X}), "
                            "which is not valid Unicode")


def _optional_object(parent: Dict[str, Any], key: str, where: str) -> Dict[str, Any]:
    """``parent[key]`` if it is an object, {} if absent or null; otherwise a NotebookError."""
    value = parent.get(key)
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise NotebookError(f"not a valid notebook: `{where}` must be an object, not {_kind(value)}")
    return value


def _optional_string(parent: Dict[str, Any], key: str, where: str) -> None:
    value = parent.get(key)
    if value is not None and not isinstance(value, str):
        raise NotebookError(f"not a valid notebook: `{where}` must be a string, not {_kind(value)}")


def validate(data: Any) -> None:
    """Raise NotebookError, naming the field, unless ``data`` has the nbformat 4 structure this
    module reads: the version, the kernel language, and each cell's type and (for code cells)
    source. Fields it does not read (outputs, ids, cell metadata) are not checked."""
    if not isinstance(data, dict):
        raise NotebookError(f"not a valid notebook: the top level must be an object, not {_kind(data)}")
    version = data.get("nbformat")
    if "nbformat" not in data:
        raise NotebookError("not a valid notebook: no `nbformat` version (only nbformat 4 is supported)")
    if not isinstance(version, int) or isinstance(version, bool):
        shown = repr(version) if isinstance(version, float) else _kind(version)
        raise NotebookError(f"not a valid notebook: `nbformat` must be an integer, not {shown}")
    if version != 4:
        raise NotebookError(f"not a valid notebook: nbformat {version} is not supported (only nbformat 4)")
    minor = data.get("nbformat_minor", 0)
    if not isinstance(minor, int) or isinstance(minor, bool) or minor < 0:
        shown = minor if isinstance(minor, int) and not isinstance(minor, bool) else _kind(minor)
        raise NotebookError(f"not a valid notebook: `nbformat_minor` must be a non-negative integer, not {shown}")
    metadata = _optional_object(data, "metadata", "metadata")
    _optional_string(_optional_object(metadata, "language_info", "metadata.language_info"),
                     "name", "metadata.language_info.name")
    _optional_string(_optional_object(metadata, "kernelspec", "metadata.kernelspec"),
                     "language", "metadata.kernelspec.language")
    cells = data.get("cells")
    if not isinstance(cells, list):
        found = "none" if "cells" not in data else _kind(cells)
        raise NotebookError(f"not a valid notebook: `cells` must be an array, found {found}")
    for number, cell in enumerate(cells, start=1):
        where = f"cell {number} (`cells[{number - 1}]`)"
        if not isinstance(cell, dict):
            raise NotebookError(f"not a valid notebook: {where} must be an object, not {_kind(cell)}")
        kind = cell.get("cell_type")
        if not isinstance(kind, str):
            found = "missing" if "cell_type" not in cell else _kind(kind)
            raise NotebookError(f"not a valid notebook: {where} needs a string `cell_type`, found {found}")
        if kind != "code":
            continue  # markdown and raw cells are never read
        source = cell.get("source")
        if isinstance(source, str):
            _check_text(source, f"the source of {where}")
        elif isinstance(source, list):
            for index, line in enumerate(source):
                if not isinstance(line, str):
                    raise NotebookError(f"not a valid notebook: the source of {where} must be a string or an "
                                        f"array of strings; item {index} is {_kind(line)}")
                _check_text(line, f"the source of {where}")
        else:
            found = "missing" if "source" not in cell else _kind(source)
            raise NotebookError(f"not a valid notebook: the source of {where} must be a string or an array "
                                f"of strings, found {found}")


def parse_notebook(raw: str) -> Notebook:
    try:
        data = json.loads(raw)
    except json.JSONDecodeError as exc:
        raise NotebookError(f"not a valid notebook: invalid JSON ({exc.msg} at line {exc.lineno})") from None
    except RecursionError:  # json's parser recurses once per nesting level
        raise NotebookError("not a valid notebook: JSON nested too deeply to read") from None
    except ValueError as exc:  # e.g. an integer longer than sys.get_int_max_str_digits()
        raise NotebookError(f"not a valid notebook: invalid JSON ({' '.join(str(exc).split())[:200]})") from None
    validate(data)
    cells = code_cells((number, _cell_source(cell)) for number, cell in enumerate(data["cells"], start=1)
                       if cell["cell_type"] == "code")
    indent_match = re.search(r"\n( +)\S", raw)
    indent = len(indent_match.group(1)) if indent_match else None
    return Notebook(data, cells, indent, raw.endswith("\n"))


def code_cells(sources: Iterable[Tuple[int, str]]) -> List[CodeCell]:
    """The code cells to analyse from (cell number, source) pairs, IPython syntax neutralised.
    Also used by the language server, which receives cells rather than a file."""
    cells = []
    for number, source in sources:
        if source.lstrip().startswith("%%"):
            continue  # a cell magic: the whole cell is another language or runs under IPython rules
        text, magic = neutralise(source)
        cells.append(CodeCell(number, source, text, magic))
    return cells


def dump_notebook(notebook: Notebook) -> str:
    """The notebook's JSON, formatted like nbformat writes it (and like it was read)."""
    text = json.dumps(notebook.data, indent=notebook.indent, ensure_ascii=False)
    return text + ("\n" if notebook.trailing_newline else "")


# --------------------------------------------------------------------------- fixing


def split_fixed(notebook: Notebook, fixed: str) -> Optional[List[str]]:
    """Cut a fixed joined text back into cell sources (IPython lines restored); None if the
    fix disturbed the cell structure, in which case nothing is written."""
    parts = fixed.split(f"{CELL_BOUNDARY}\n")
    if len(parts) != len(notebook.cells):
        return None
    sources = []
    for cell, part in zip(notebook.cells, parts):
        if part == cell.text:
            sources.append(cell.source)
            continue
        lines = part.split("\n")
        magic = iter(cell.magic_lines)
        for i, line in enumerate(lines):
            if line.strip() == MAGIC_PLACEHOLDER:
                original = next(magic, None)
                if original is None:
                    return None
                lines[i] = original
        if next(magic, None) is not None:
            return None
        text = "\n".join(lines)
        if not cell.source.endswith("\n") and text.endswith("\n"):
            text = text[:-1]  # joined() added the newline; the cell did not have one
        sources.append(text)
    return sources


def set_cell_source(notebook: Notebook, cell: CodeCell, text: str) -> None:
    """Write ``text`` into the notebook's JSON as the source of ``cell``."""
    entry = notebook.data["cells"][cell.number - 1]
    # Keep the notebook's own representation: nbformat writes a list of lines.
    # nbformat's own split (str.splitlines): only how the JSON lists the text, which "".join restores.
    entry["source"] = text.splitlines(keepends=True) if isinstance(entry.get("source"), list) else text
