"""Type promotion checked against real torch 2.13, over every combination.

Operands: a dimensioned tensor, a 0-dim tensor (of each of the 12 common dtypes) and a Python
scalar (bool, int, float, complex). Every pair of operands, for + - * / and comparisons, is
evaluated by real torch and by the engine (one generated source file, one interpreter run); the
engine's dtype and shape must agree with torch's result. A pair torch rejects (bool subtraction,
ordering complex numbers...) is not compared: rules, not promotion, handle those.
"""
from __future__ import annotations

import builtins
import itertools

import pytest

torch = pytest.importorskip("torch")

from knowledge_truth import contradiction, engine_globals  # noqa: E402

from torchtype_lint.knowledge import dtypes as D  # noqa: E402
from torchtype_lint.model.values import COMMON_DTYPES, TensorValue  # noqa: E402

OPS = ("+", "-", "*", "/", "==", "!=", "<", ">=")
PY_SCALARS = {"bool": "True", "int": "3", "float": "2.5", "complex": "2j"}


def _operands():
    """name -> (setup line or None, expression)."""
    out = {}
    for d in COMMON_DTYPES:
        out[f"t_{d}"] = (f"t_{d} = torch.ones(2, 3, dtype=torch.{d})", f"t_{d}")
        out[f"v_{d}"] = (f"v_{d} = torch.ones(3, dtype=torch.{d})", f"v_{d}")
        out[f"z_{d}"] = (f"z_{d} = torch.tensor(1, dtype=torch.{d})", f"z_{d}")
    for pytype, literal in PY_SCALARS.items():
        out[f"py_{pytype}"] = (None, literal)
    return out


OPERANDS = _operands()


def _cases():
    """(result name, expression, left operand name, right operand name)."""
    names = [n for n in OPERANDS if not n.startswith("v_")]
    cases = []
    i = 0
    for left, right in itertools.product(names, names):
        if left.startswith("py_") and right.startswith("py_"):
            continue
        for op in OPS:
            cases.append((f"r{i}", f"{OPERANDS[left][1]} {op} {OPERANDS[right][1]}", left, right))
            i += 1
    # Broadcasting between a (2, 3) and a (3,) tensor, both ways, for every dtype pair.
    for a, b in itertools.product(COMMON_DTYPES, COMMON_DTYPES):
        for op in ("+", "*", "<"):
            cases.append((f"r{i}", f"t_{a} {op} v_{b}", f"t_{a}", f"v_{b}"))
            i += 1
            cases.append((f"r{i}", f"v_{a} {op} t_{b}", f"v_{a}", f"t_{b}"))
            i += 1
    return cases


CASES = _cases()


def _source(default: str, cases) -> str:
    lines = ["import torch"]
    if default == "float64":
        lines.append("torch.set_default_dtype(torch.float64)")
    lines += [setup for setup, _ in OPERANDS.values() if setup]
    lines += [f"{name} = {expr}" for name, expr, _, _ in cases]
    return "\n".join(lines) + "\n"


def _run_real(default: str, cases):
    """name -> real result (or the exception raised)."""
    previous = torch.get_default_dtype()
    torch.set_default_dtype(getattr(torch, default))
    try:
        namespace = {"torch": torch}
        for setup, _ in OPERANDS.values():
            if setup:
                exec(setup, namespace)  # noqa: S102
        results = {}
        for name, expr, _, _ in cases:
            try:
                results[name] = eval(expr, namespace)  # noqa: S307
            except (RuntimeError, TypeError, NotImplementedError) as exc:
                results[name] = exc
        return results
    finally:
        torch.set_default_dtype(previous)


@pytest.mark.parametrize("default", ["float32", "float64"])
def test_promotion_of_every_operand_pair_matches_torch(default):
    real = _run_real(default, CASES)
    engine = engine_globals(_source(default, CASES))
    wrong, compared = [], 0
    for name, expr, _, _ in CASES:
        result = real[name]
        if isinstance(result, Exception):
            continue
        compared += 1
        # Every operand here has one known dtype and shape, so the result must be known too.
        why = contradiction(engine.get(name), result, require_known=True)
        if why:
            wrong.append(f"{expr}: {why}")
    assert compared > 4000, compared
    assert not wrong, f"{len(wrong)} of {compared} disagree with torch:\n" + "\n".join(wrong[:40])


def _group_values(kind, dtype):
    if kind == "dim":
        return torch.ones(2, dtype=getattr(torch, dtype))
    if kind == "zero":
        return torch.tensor(1, dtype=getattr(torch, dtype))
    return {"bool": True, "int": 3, "float": 2.5, "complex": 2j}[dtype]


def test_result_type_matches_torch_for_all_groupings():
    """knowledge.dtypes.result_type against torch.result_type, for every operand pair."""
    operands = [("dim", d) for d in COMMON_DTYPES] + [("zero", d) for d in COMMON_DTYPES] + [
        ("scalar", s) for s in PY_SCALARS]
    wrong, compared = [], 0
    for (ka, da), (kb, db) in itertools.product(operands, operands):
        if ka == kb == "scalar":
            continue
        groups = {"dim": [], "zero": [], "scalar": []}
        groups[ka].append(da)
        groups[kb].append(db)
        expected = str(torch.result_type(_group_values(ka, da), _group_values(kb, db)))[6:]
        got = D.result_type(groups["dim"], groups["zero"], groups["scalar"])
        compared += 1
        if got != expected:
            wrong.append(f"{ka} {da} with {kb} {db}: engine {got}, torch {expected}")
    assert compared == 28 * 28 - 16
    assert not wrong, "\n".join(wrong[:40])


def test_promote_types_matches_torch():
    wrong = []
    for a, b in itertools.product(COMMON_DTYPES, COMMON_DTYPES):
        expected = str(torch.promote_types(getattr(torch, a), getattr(torch, b)))[6:]
        if D.promote_types(a, b) != expected:
            wrong.append(f"{a}, {b}: engine {D.promote_types(a, b)}, torch {expected}")
    assert not wrong, "\n".join(wrong)


def test_can_cast_matches_torch():
    wrong = []
    for a, b in itertools.product(COMMON_DTYPES, COMMON_DTYPES):
        expected = torch.can_cast(getattr(torch, a), getattr(torch, b))
        if D.can_cast(a, b) != expected:
            wrong.append(f"{a} -> {b}: engine {D.can_cast(a, b)}, torch {expected}")
    assert not wrong, "\n".join(wrong)


def test_dtype_aliases_match_torch():
    for attr, name in D.TORCH_DTYPE_ATTRS.items():
        assert str(getattr(torch, attr)) == f"torch.{name}", attr
    for cls, name in D.LEGACY_TENSOR_TYPES.items():
        assert str(getattr(torch, cls)().dtype) == f"torch.{name}", cls
    for method, name in D.CAST_METHODS.items():
        assert str(getattr(torch.ones(1), method)().dtype) == f"torch.{name}", method


def test_python_types_as_dtypes_match_torch():
    for pytype, name in D.PYTHON_TYPE_DTYPES.items():
        made = torch.zeros(1, dtype=getattr(builtins, pytype))
        assert str(made.dtype) == f"torch.{name}", pytype


def test_numpy_dtype_names_match_numpy():
    np = pytest.importorskip("numpy")
    numpy1_only = {"float_"}  # removed in NumPy 2; still found in older code
    for text, name in D.NUMPY_DTYPE_NAMES.items():
        if hasattr(np, text):
            assert np.dtype(getattr(np, text)).name == name, text
        elif text in numpy1_only:
            continue
        else:
            assert np.dtype(text).name == name, text


def test_true_division_dtype_matches_torch():
    for d in COMMON_DTYPES:
        t = torch.ones(2, dtype=getattr(torch, d))
        real = str((t / t).dtype)[6:]
        assert D.true_divide_dtype(d) == real, d


def test_engine_value_of_a_tensor_operand_is_what_the_case_set_up():
    # Guards the generated source: the operands the property test relies on are modelled.
    engine = engine_globals(_source("float32", []))
    for d in COMMON_DTYPES:
        for prefix, shape in (("t", (2, 3)), ("v", (3,)), ("z", ())):
            value = engine[f"{prefix}_{d}"]
            assert isinstance(value, TensorValue)
            assert value.dtypes == frozenset({d}) and value.shape == shape


def test_the_comparison_itself_reports_a_wrong_dtype_and_shape():
    # The tables above are only as strict as this check.
    real = torch.ones(2, 3)
    assert contradiction(TensorValue(frozenset({"float64"}), (2, 3)), real)
    assert contradiction(TensorValue(frozenset({"float32"}), (3, 2)), real)
    assert contradiction(TensorValue(frozenset({"float32"}), (2,)), real)
    assert contradiction(TensorValue(None, None), real, require_known=True)
    assert contradiction(TensorValue(None, None), real) is None
    assert contradiction(TensorValue(frozenset({"float32"}), (2, None)), real) is None


NUMPY_DTYPES = tuple(d for d in COMMON_DTYPES if d != "bfloat16")  # numpy has no bfloat16


def test_numpy_promote_types_matches_numpy():
    np = pytest.importorskip("numpy")
    from torchtype_lint.knowledge import numpy_api as NP

    wrong = []
    for a, b in itertools.product(NUMPY_DTYPES, NUMPY_DTYPES):
        expected = np.promote_types(a, b).name
        if NP.promote_types(a, b) != expected:
            wrong.append(f"{a}, {b}: engine {NP.promote_types(a, b)}, numpy {expected}")
    assert not wrong, "\n".join(wrong)


def test_numpy_arithmetic_of_every_operand_pair_matches_numpy():
    """NumPy 2 promotion through the engine: array with array (NEP 50: arrays are strong)
    and array with Python scalar (weak), for + - * / and comparisons."""
    np = pytest.importorskip("numpy")
    setup = ["import numpy as np"] + [
        f"a_{d} = np.ones((2, 3), dtype=np.{d})" for d in NUMPY_DTYPES] + [
        f"v_{d} = np.ones(3, dtype=np.{d})" for d in NUMPY_DTYPES]
    operands = [f"a_{d}" for d in NUMPY_DTYPES] + [f"v_{d}" for d in NUMPY_DTYPES[:6]] + list(
        PY_SCALARS.values())
    cases = []
    for left, right in itertools.product(operands, operands):
        if left in PY_SCALARS.values() and right in PY_SCALARS.values():
            continue
        for op in ("+", "-", "*", "/", "<", "=="):
            cases.append(f"{left} {op} {right}")
    source = "\n".join(setup + [f"r{k} = {expr}" for k, expr in enumerate(cases)]) + "\n"
    namespace = {"np": np}
    for line in setup[1:]:
        exec(line, namespace)  # noqa: S102
    engine = engine_globals(source)
    wrong, compared = [], 0
    for k, expr in enumerate(cases):
        try:
            with np.errstate(all="ignore"):
                real = eval(expr, namespace)  # noqa: S307
        except TypeError:
            continue  # e.g. bool - bool, ordering complex numbers
        compared += 1
        why = contradiction(engine.get(f"r{k}"), real, require_known=True)
        if why:
            wrong.append(f"{expr}: {why}")
    assert compared > 2000, compared
    assert not wrong, f"{len(wrong)} of {compared} disagree with numpy:\n" + "\n".join(wrong[:40])


def test_python_scalar_arithmetic_matches_python():
    """Python scalars among themselves: type and (when the engine computes it) value."""
    literals = ["True", "False", "0", "3", "-2", "2.5", "0.0", "1j"]
    ops = ["+", "-", "*", "/", "//", "%", "**", "&", "|", "^", "<<", ">>", "<", "=="]
    cases = [f"({a}) {op} ({b})" for a in literals for b in literals for op in ops]
    cases += [f"{op}({a})" for a in literals for op in ("-", "+", "~", "not ")]
    cases += [f"{fn}({a})" for a in literals for fn in ("float", "int", "bool", "complex", "abs", "round")]
    cases += [f"round({a}, 1)" for a in literals]
    source = "\n".join(f"r{k} = {expr}" for k, expr in enumerate(cases)) + "\n"
    engine = engine_globals(source)
    wrong, compared = [], 0
    for k, expr in enumerate(cases):
        try:
            real = eval(expr)  # noqa: S307 - literals only
        except (ZeroDivisionError, TypeError, ValueError, OverflowError):
            continue
        compared += 1
        why = contradiction(engine.get(f"r{k}"), real)
        if why:
            wrong.append(f"{expr}: {why}")
    assert compared > 500, compared
    assert not wrong, f"{len(wrong)} of {compared} disagree with Python:\n" + "\n".join(wrong[:40])
