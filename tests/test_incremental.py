"""The language server's incremental re-analysis gives exactly what a full analysis gives.

``IncrementalChecker`` re-parses only edited statements and re-runs only the units of the
analysis an edit can change (torchtype_lint/run/incremental). The differential test edits every
fixture and recall program (insert, delete, duplicate lines, change numbers) and compares each
result with ``check_source`` of the same text, message for message.
"""
from __future__ import annotations

import random
import re
from pathlib import Path
from typing import List, Tuple

import pytest

from torchtype_lint.checker.check import check_source
from torchtype_lint.run.incremental.chunks import split_lines_at_statements, split_module
from torchtype_lint.run.incremental.session import IncrementalChecker

ROOT = Path(__file__).resolve().parent.parent
ALL_FILES = sorted(ROOT.glob("fixtures/TTL*/*.py")) + sorted(ROOT.glob("benchmarks/programs/*.py"))
#: A sixth of them keeps the suite fast; all of them (2,100 edits) agreed when this was written.
FILES = ALL_FILES[::6]


def _key(findings) -> List[Tuple]:
    return sorted((f.code, f.line, f.column, f.message, tuple((s.line, s.path) for s in f.provenance))
                  for f in findings)


def _edits(source: str, rng: random.Random, count: int) -> List[str]:
    """A sequence of texts, each one edit (of a kind an editor makes) after the previous."""
    lines = source.splitlines(keepends=True)
    texts = []
    for _ in range(count):
        kind = rng.choice(["duplicate", "delete", "blank", "number", "comment"])
        at = rng.randrange(len(lines)) if lines else 0
        if kind == "duplicate" and lines:
            lines.insert(at, lines[at])
        elif kind == "delete" and lines:
            del lines[at]
        elif kind == "blank":
            lines.insert(at, "\n")
        elif kind == "number":
            numbered = [i for i, line in enumerate(lines) if re.search(r"\b\d+\b", line)]
            if numbered:
                i = rng.choice(numbered)
                lines[i] = re.sub(r"\b(\d+)\b", lambda m: str(int(m.group(1)) + 1), lines[i], count=1)
        elif kind == "comment" and lines and not lines[at].rstrip().endswith("\\"):
            lines[at] = lines[at].rstrip("\n") + "  # edited\n"
        texts.append("".join(lines))
    return texts


def _inside_main(text: str) -> str:
    """The program with its module-level statements (all but imports, classes and defs) moved
    into ``main()``, called under ``if __name__ == "__main__":`` (the entry function layout)."""
    kept, body = [], []
    for chunk in re.split(r"\n(?=\S)", text):
        if chunk.startswith(("import ", "from ", "class ", "def ", "@")):
            kept.append(chunk)
        elif chunk.strip() and not chunk.startswith("#"):
            body.append("    " + chunk.replace("\n", "\n    "))
    return "\n".join(kept) + "\n\n\ndef main():\n" + ("\n".join(body) or "    pass") + \
        '\n\n\nif __name__ == "__main__":\n    main()\n'


@pytest.mark.parametrize("layout", ["module", "main"])
@pytest.mark.parametrize("path", FILES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_edits_give_what_a_full_analysis_gives(path: Path, layout: str) -> None:
    source = path.read_text() if layout == "module" else _inside_main(path.read_text())
    checker = IncrementalChecker()
    checker.check(source, str(path))
    rng = random.Random(path.name)
    for text in _edits(source, rng, 4):
        assert _key(checker.check(text, str(path)).findings) == _key(check_source(text, str(path)).findings)


def test_the_differential_test_exercises_the_incremental_path() -> None:
    reused = 0
    for path in FILES[::3]:
        checker = IncrementalChecker()
        checker.check(path.read_text(), str(path))
        for text in _edits(path.read_text(), random.Random(path.name), 4):
            checker.check(text, str(path))
            reused += checker.last_run.incremental
    assert reused >= 20


BLOCKS = """\
import numpy as np
import torch
import torch.nn as nn

class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(3, 2)

    def forward(self, x):
        return self.fc(x)

model = Net()
features = torch.from_numpy(np.random.rand(4, 3))
out = model(features)
other = torch.ones(2, 2) + 1
"""


def test_an_edit_reruns_only_what_it_can_change() -> None:
    checker = IncrementalChecker()
    first = checker.check(BLOCKS, "blocks.py")
    assert [f.code for f in first.findings] == ["TTL401"]
    edited = BLOCKS.replace("torch.ones(2, 2) + 1", "torch.ones(2, 2) + 2")
    result = checker.check(edited, "blocks.py")
    assert checker.last_run.incremental
    # The edited statement and `import torch` run; the model, data and forward do not.
    assert checker.last_run.statements_run == 2
    assert _key(result.findings) == _key(check_source(edited, "blocks.py").findings)


def test_fixing_the_cause_in_another_statement_clears_the_finding() -> None:
    checker = IncrementalChecker()
    checker.check(BLOCKS, "blocks.py")
    fixed = BLOCKS.replace("np.random.rand(4, 3))", "np.random.rand(4, 3)).float()")
    assert checker.check(fixed, "blocks.py").findings == []
    assert checker.last_run.incremental
    moved = checker.check("\n\n" + BLOCKS, "blocks.py")
    assert checker.last_run.incremental
    assert [(f.code, f.line) for f in moved.findings] == [("TTL401", 13)]  # in forward, two lines down


def test_deleting_an_import_or_a_binding_reaches_its_readers() -> None:
    checker = IncrementalChecker()
    checker.check(BLOCKS, "blocks.py")
    for edited in (BLOCKS.replace("import torch\n", ""), BLOCKS.replace("model = Net()\n", "")):
        assert _key(checker.check(edited, "blocks.py").findings) == _key(check_source(edited, "blocks.py").findings)


def test_a_new_global_switch_falls_back_to_a_full_analysis() -> None:
    checker = IncrementalChecker()
    checker.check(BLOCKS, "blocks.py")
    switched = BLOCKS.replace("model = Net()", "torch.set_default_dtype(torch.float64)\nmodel = Net()")
    result = checker.check(switched, "blocks.py")
    assert _key(result.findings) == _key(check_source(switched, "blocks.py").findings)
    assert not [f for f in result.findings if f.code == "TTL401"]  # the model is float64 now
    back = checker.check(BLOCKS, "blocks.py")
    assert [f.code for f in back.findings] == ["TTL401"]


def test_equal_statements_stay_distinct_nodes() -> None:
    text = BLOCKS + "out = model(features)\n"
    split = split_module(text)
    statements = list(split.module.body)
    assert statements[-1] is not statements[-3] and statements[-1].deep_equals(statements[-3])
    checker = IncrementalChecker()
    checker.check(BLOCKS, "blocks.py")
    assert _key(checker.check(text, "blocks.py").findings) == _key(check_source(text, "blocks.py").findings)


@pytest.mark.parametrize("text", [
    'x = """\nimport torch\n"""\nimport torch\ny = torch.ones(2)\n',  # a column-0 line inside a string
    "import torch\nx = (1 +\n2)\ny = torch.ones(x)\n",  # a continuation at column 0
    "import torch\n@torch.no_grad()\n# comment\ndef f(x):\n    return x\n",  # a decorator and its def
    "import torch\nif True:\n    x = 1\nelse:\n    x = 2\ntry:\n    y = torch.ones(1)\nexcept Exception:\n    pass\n",
])
def test_a_cut_is_never_wrong(text: str) -> None:
    split = split_module(text)
    if split is not None:  # a piece that parses alone is the same statement as in the whole parse
        import libcst as cst

        whole = cst.parse_module(text)
        assert len(whole.body) == len(split.module.body)
        assert all(a.deep_equals(b) for a, b in zip(whole.body, split.module.body))
    assert [p for p, _ in split_lines_at_statements(text)][0] == 1


def test_dynamic_names_and_a_stopped_program_are_analysed_whole() -> None:
    checker = IncrementalChecker()
    dynamic = BLOCKS + 'globals()["model"] = None\n'
    checker.check(dynamic, "blocks.py")
    checker.check(dynamic.replace("+ 1", "+ 3"), "blocks.py")
    assert not checker.last_run.incremental
    stopped = BLOCKS.replace("out = model", "raise SystemExit\nout = model")
    checker.check(stopped, "blocks.py")
    result = checker.check(stopped.replace("+ 1", "+ 3"), "blocks.py")
    assert _key(result.findings) == _key(check_source(stopped.replace("+ 1", "+ 3"), "blocks.py").findings)


def test_a_changed_dependency_is_analysed_whole(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text("")
    data = tmp_path / "data.py"
    data.write_text("import torch\n\ndef batch():\n    return torch.randint(0, 5, (4, 3))\n")
    train = tmp_path / "train.py"
    text = "import torch.nn as nn\nfrom data import batch\n\nlayer = nn.Linear(3, 2)\nout = layer(batch())\n"
    train.write_text(text)
    checker = IncrementalChecker()
    assert [f.code for f in checker.check(text, str(train)).findings] == ["TTL202"]
    data.write_text("import torch\n\ndef batch():\n    return torch.rand(4, 3)\n")
    assert checker.check(text + "# edited\n", str(train)).findings == []
    overlay = {str(data): "import torch\n\ndef batch():\n    return torch.randint(0, 5, (4, 3))\n"}
    assert [f.code for f in checker.check(text, str(train), overlay=overlay).findings] == ["TTL202"]


MAIN = """\
import numpy as np
import torch
import torch.nn as nn

class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(3, 2)

    def forward(self, x):
        return self.fc(x)

def make_batch():
    return torch.from_numpy(np.random.rand(4, 3))

def main():
    model = Net()
    out = model(make_batch())
    other = torch.ones(2, 2) + 1
    labels = torch.zeros(4, dtype=torch.long)
    return other

if __name__ == "__main__":
    main()
"""


def test_the_body_of_main_is_re_analysed_by_its_statements() -> None:
    checker = IncrementalChecker()
    assert [f.code for f in checker.check(MAIN, "main.py").findings] == ["TTL401"]
    # An edit in make_batch re-runs the body statement that calls it and the one it reads
    # `model` from, not the other two.
    fixed = MAIN.replace("np.random.rand(4, 3))", "np.random.rand(4, 3)).float()")
    assert checker.check(fixed, "main.py").findings == []
    assert checker.last_run.incremental and checker.last_run.entry_statements_run == 2
    # A comment after the call re-runs no statement of the body.
    assert checker.check(fixed + "# done\n", "main.py").findings == []
    assert checker.last_run.entry_statements_run == 0
    # An edit inside main re-runs main: the same findings as a full analysis.
    edited = MAIN.replace("torch.ones(2, 2) + 1", "torch.ones(2, 2) + 2")
    assert _key(checker.check(edited, "main.py").findings) == _key(check_source(edited, "main.py").findings)


@pytest.mark.parametrize("call", ["main(3)", "main()\nmain()"])
def test_a_main_with_known_arguments_or_called_twice_is_no_entry(call: str) -> None:
    text = MAIN.replace("def main():", "def main(n=None):" if call == "main(3)" else "def main():") \
        .replace('if __name__ == "__main__":\n    main()\n', call + "\n")
    checker = IncrementalChecker()
    checker.check(text, "main.py")
    edited = text.replace("np.random.rand(4, 3))", "np.random.rand(4, 3)).float()")
    assert _key(checker.check(edited, "main.py").findings) == _key(check_source(edited, "main.py").findings)
    assert checker.last_run.entry_statements_run is None


def test_an_edit_inside_main_re_runs_the_statements_it_can_change() -> None:
    checker = IncrementalChecker()
    checker.check(MAIN, "main.py")
    edited = MAIN.replace("torch.ones(2, 2) + 1", "torch.ones(2, 2) + 2")
    assert _key(checker.check(edited, "main.py").findings) == _key(check_source(edited, "main.py").findings)
    # The edited statement and `return other`, which reads it; not the model's two.
    assert checker.last_run.incremental and checker.last_run.entry_statements_run == 2
    # A new statement inside main that uses what it reads: the finding it makes appears.
    added = edited.replace("    return other\n", "    again = model(make_batch())\n    return other\n")
    assert _key(checker.check(added, "main.py").findings) == _key(check_source(added, "main.py").findings)


@pytest.mark.parametrize("path", [p for p in ALL_FILES if "def main" not in p.read_text()][::9],
                         ids=lambda p: f"{p.parent.name}/{p.name}")
def test_a_rebuilt_main_has_the_positions_of_the_whole_parse(path: Path) -> None:
    import libcst as cst
    from libcst.metadata import MetadataWrapper, PositionProvider

    from torchtype_lint.run.incremental.entry import find_entry
    from torchtype_lint.run.incremental.function_body import SplitFunction
    from torchtype_lint.run.incremental.session import _names

    text = _inside_main(path.read_text())
    split = split_module(text)
    entry = find_entry(split.pieces, _names(split))
    assert entry is not None and isinstance(entry.piece, SplitFunction)
    whole = cst.parse_module(entry.piece.text)
    expected = MetadataWrapper(whole, unsafe_skip_copy=True).resolve(PositionProvider)
    rebuilt, original = entry.function, whole.body[0]
    positions = entry.piece.positions()
    for mine, theirs in zip(rebuilt.body.body, original.body.body):
        assert positions[mine] == expected[theirs]
    assert positions[rebuilt] == expected[original]
