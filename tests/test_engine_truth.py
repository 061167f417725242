"""Every good rule fixture is a small runnable program: run it under real torch and check that
each module-level value the engine claims at the end of the file is true (dtype and shape).

Unknown is never wrong; a known dtype or dim that differs from the real run is. A fixture that
cannot run here (it needs CUDA, or a package that is not installed) is skipped.
"""
from __future__ import annotations

import contextlib
import io
import warnings
from pathlib import Path

import pytest

pytest.importorskip("torch")

from knowledge_truth import contradiction, engine_globals  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent / "fixtures"
GOOD = sorted(ROOT.glob("*/good_*.py"))


@pytest.mark.parametrize("program", GOOD, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_engine_values_hold_in_a_real_run(program, monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("TTL_DEVICE", "cpu")
    source = program.read_text()
    namespace = {"__name__": "__main__", "__file__": str(program)}
    try:
        with warnings.catch_warnings(), contextlib.redirect_stdout(io.StringIO()):
            warnings.simplefilter("ignore")
            exec(compile(source, str(program), "exec"), namespace)  # noqa: S102
    except (ImportError, AssertionError, RuntimeError) as exc:
        pytest.skip(f"does not run here: {type(exc).__name__}: {exc}")
    engine = engine_globals(source)
    wrong = [f"{name}: {why}" for name, value in engine.items() if name in namespace
             for why in [contradiction(value, namespace[name])] if why]
    assert not wrong, "\n".join(wrong)


def test_there_are_fixtures_to_check():
    assert len(GOOD) >= 10
