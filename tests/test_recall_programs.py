"""The recall benchmark's corpus (benchmarks/programs/, issue 14) is well-formed.

Running all ~80 programs under torch takes minutes (``python benchmarks/recall.py`` does it);
here every pair is checked statically, and the torch verification runs on three pairs only,
chosen deterministically (the first, the middle and the last).
"""
from __future__ import annotations

import difflib
import importlib.util
import io
import sys
import tokenize
from collections import Counter
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
PROGRAMS = REPO / "benchmarks" / "programs"


def _load_recall():
    spec = importlib.util.spec_from_file_location("recall_benchmark", REPO / "benchmarks" / "recall.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


recall = _load_recall()
PAIRS = recall.load_corpus(str(PROGRAMS))


def _code_lines(path: Path) -> list:
    """The program without its docstring and comments: the lines a fix may change."""
    source = path.read_text(encoding="utf-8")
    lines = source.splitlines()
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type == tokenize.COMMENT:
            row, col = token.start
            lines[row - 1] = lines[row - 1][:col]
    body_start = source[3:].index('"""') + 6  # the header docstring opens the file
    header_lines = source[:body_start].count("\n")
    return [line.rstrip() for line in lines[header_lines:]]


def test_corpus_has_every_family():
    assert len(PAIRS) >= 40
    per_family = Counter(pair.family for pair in PAIRS)
    assert set(per_family) == set(recall.FAMILIES)
    assert min(per_family.values()) >= 3, per_family
    numbers = [pair.number for pair in PAIRS]
    assert numbers == sorted(numbers) and len(set(numbers)) == len(numbers)


def test_every_file_belongs_to_a_pair():
    names = {p.name for p in PROGRAMS.iterdir() if p.suffix == ".py"}
    paired = {Path(prog.path).name for pair in PAIRS for prog in (pair.bug, pair.fixed)}
    assert names == paired


@pytest.mark.parametrize("pair", PAIRS, ids=[f"{p.number}_{p.slug}" for p in PAIRS])
def test_pair_is_well_formed(pair):
    bug, fixed = pair.bug, pair.fixed
    assert bug.title.startswith("Bug: ") and len(bug.title) > len("Bug: ") + 10
    assert bug.expected.endswith("Error") and bug.message
    assert fixed.expected == "success"
    assert len(bug.bug_lines) == 1 and len(bug.cause_lines) == 1
    lines = Path(bug.path).read_text(encoding="utf-8").splitlines()
    for line in bug.target_lines:
        code = lines[line - 1].split("#")[0].strip()
        assert code, f"{bug.name}:{line}: a marker on a line without code"
    # The twin is the same program with the fix applied: few lines differ (comments and the
    # header docstring aside), and the code lines around them are identical.
    before, after = _code_lines(Path(bug.path)), _code_lines(Path(fixed.path))
    changed = [op for op in difflib.SequenceMatcher(a=before, b=after, autojunk=False).get_opcodes()
               if op[0] != "equal"]
    assert changed, f"{fixed.name} is identical to its bug program"
    assert sum(max(i2 - i1, j2 - j1) for _, i1, i2, j1, j2 in changed) <= 4, changed


def test_marker_and_traceback_parsing():
    bug, cause = recall.marker_lines("a = 1  # cause: here\nb = f(a)  # shape: ok  # bug: raises\n"
                                     "c = g(b)  # bug: x  # cause: y\n")
    assert bug == {2, 3} and cause == {1, 3}
    stderr = ('Traceback (most recent call last):\n'
              '  File "/x/prog.py", line 10, in <module>\n    main()\n'
              '  File "/x/prog.py", line 7, in main\n    model(x)\n'
              '  File "/venv/torch/nn/modules/linear.py", line 125, in forward\n    return F.linear(x)\n'
              '           ^^^^^^^^^^^\n'
              'RuntimeError: mat1 and mat2 must have the same dtype\nsecond line of the message\n')
    assert recall.exception_of(stderr) == ("RuntimeError", "mat1 and mat2 must have the same dtype\n"
                                                           "second line of the message")
    assert recall.crash_line(stderr, "/x/prog.py") == 7
    assert recall.exception_of("no traceback") == ("", "")


def test_malformed_corpus_is_rejected(tmp_path):
    source = (PROGRAMS / f"{PAIRS[0].number}_{PAIRS[0].slug}_bug.py").read_text(encoding="utf-8")
    (tmp_path / "01_unmarked_bug.py").write_text(source.replace("# bug:", "# note:"), encoding="utf-8")
    (tmp_path / "02_alone_bug.py").write_text(source, encoding="utf-8")
    with pytest.raises(recall.CorpusError) as info:
        recall.load_corpus(str(tmp_path))
    text = str(info.value)
    assert "01_unmarked_bug.py: no '# bug:' marker" in text and "02_alone: no _fixed.py" in text


def test_scoring_counts_targets_off_target_and_false_alarms():
    pair = PAIRS[0]
    bug_line, cause_line = min(pair.bug.bug_lines), min(pair.bug.cause_lines)

    def finding(row, code="TTL401"):
        return {"code": code, "location": {"row": row}, "message": "m"}

    other = next(row for row in range(1, 200) if row not in pair.bug.target_lines)
    findings = {str(Path(pair.bug.path).resolve()): [finding(cause_line), finding(other)],
                str(Path(pair.fixed.path).resolve()): [finding(bug_line, "TTL301")]}
    [score] = recall.score([pair], {recall.os.path.abspath(k): v for k, v in findings.items()})
    assert score.caught and len(score.on_target) == 1 and len(score.off_target) == 1
    assert len(score.false_alarms) == 1
    [missed] = recall.score([pair], {})
    assert not missed.caught and not missed.off_target and not missed.false_alarms


def test_torch_verification_on_three_pairs():
    pytest.importorskip("torch")
    pytest.importorskip("numpy")
    chosen = [PAIRS[0], PAIRS[len(PAIRS) // 2], PAIRS[-1]]
    verdicts, reused = recall.verify(chosen, jobs=2, timeout=120, reuse=False)
    assert reused == 0 and len(verdicts) == 6
    failed = [f"{v.program.name}: {v.detail}" for v in verdicts if not v.ok]
    assert not failed, failed
