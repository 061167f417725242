"""The op dtype-contract table (torchtype_lint/contracts) and its rules TTL250/TTL251.

One subprocess does all the torch work: it regenerates OpInfo's declarations from the
installed torch and compares them with the committed table (stale check), then runs a
deterministic sample of the table's CPU claims in torch through the public names.
"""
from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import List, Set, Tuple

import pytest

from torchtype_lint.checker.check import Settings, check_source
from torchtype_lint.contracts import table
from torchtype_lint.rules.contract.judged_calls import COVERED_BY_TTL211
from torchtype_lint.model.selection import Selection

ROOT = Path(__file__).resolve().parent.parent
#: Pairs per claim ("fails on CPU" / "works on CPU") run in torch: 2 x 130 = 260 pairs.
PER_CLAIM = 130


@pytest.fixture(scope="module")
def torch_run(tmp_path_factory) -> dict:
    out = tmp_path_factory.mktemp("contracts") / "check.json"
    proc = subprocess.run(
        [sys.executable, "-m", "torchtype_lint.contracts", "check", "--verify", str(PER_CLAIM),
         "--json", str(out)],
        cwd=ROOT, capture_output=True, text=True, timeout=400)
    assert out.exists(), proc.stdout + proc.stderr
    result = json.loads(out.read_text())
    result["returncode"] = proc.returncode
    result["stdout"] = proc.stdout
    return result


def test_committed_table_matches_installed_torch(torch_run):
    assert torch_run["stale"] == [], "\n".join(torch_run["stale"])
    assert torch_run["returncode"] == 0, torch_run["stdout"]


def test_sample_covers_both_claims_across_the_table(torch_run):
    checks = torch_run["checks"]
    exercised = [c for c in checks if c["outcome"] != "unverified"]
    assert len(exercised) >= 200, f"only {len(exercised)} of {len(checks)} pairs could be run"
    for claim in ("unsupported", "supported"):
        assert sum(c["claim"] == claim for c in exercised) >= 100, claim
    assert len({c["name"] for c in checks}) >= 150, "the sample should spread over many ops"


def test_sampled_cpu_claims_agree_with_torch(torch_run):
    contradictions = [
        f"{c['name']} on {c['dtype']}: table says {c['claim']}, torch {c['outcome']} {c['message']}"
        for c in torch_run["checks"]
        if (c["claim"] == "unsupported" and c["outcome"] == "ok")
        or (c["claim"] == "supported" and c["outcome"] == "fails")]
    assert contradictions == []


# --------------------------------------------------------------------------- the loader


def test_lookup_by_public_name_and_device():
    matmul = table.contract("torch.matmul")
    assert matmul is not None and "matmul" in matmul.ops
    assert "int64" in table.supported("torch.matmul", "cpu")
    # Read as for an A100-class GPU: bfloat16 is declared, integer matmul is not.
    assert "bfloat16" in table.supported("torch.matmul", "cuda")
    assert "int64" not in table.supported("torch.matmul", "cuda")
    assert matmul.cuda_only_gap("int64") and not matmul.fails_on_cpu("int64")
    assert table.contract("Tensor.bitwise_and_").fails_on_cpu("float32")
    assert table.supported("torch.nn.functional.relu", "cpu") is not None
    assert table.supported("torch.no_such_op", "cpu") is None
    assert table.supported("torch.matmul", "mps") is None
    assert table.torch_version().startswith("2.13")


def test_every_name_has_all_three_sets_and_known_ops():
    names = table.public_names()
    assert len(names) > 1000
    for name in names:
        found = table.contract(name)
        assert found.cpu_declared <= table.TRACKED_DTYPES
        assert found.ops, name


def test_linter_never_imports_torch_and_loads_the_table_lazily():
    script = textwrap.dedent("""
        import sys
        from torchtype_lint.checker.check import check_source
        from torchtype_lint.contracts import table
        check_source("x = 1\\nprint(x)\\n")
        loaded_for_plain_code = table._data.cache_info().currsize
        check_source("import torch\\nx = torch.tensor([[1, 2]])\\ny = torch.linalg.inv(x)\\n")
        print(loaded_for_plain_code, table._data.cache_info().currsize, "torch" in sys.modules)
    """)
    out = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True,
                         text=True, timeout=60).stdout.split()
    assert out == ["0", "1", "False"]


# --------------------------------------------------------------------------- the rules


def findings(source: str) -> List[Tuple[int, str]]:
    settings = Settings(selection=Selection(select=["TTL"]))
    result = check_source(textwrap.dedent(source), "snippet.py", settings)
    return sorted((f.line, f.code) for f in result.findings)


def codes(source: str) -> Set[str]:
    return {code for _, code in findings(source)}


def test_known_cuda_tensor_is_an_error_with_the_device():
    settings = Settings(selection=Selection(select=["TTL250"]))
    result = check_source(textwrap.dedent("""
        import torch
        x = torch.ones(2, 2, dtype=torch.long, device="cuda")
        y = torch.matmul(x, x)
    """), "snippet.py", settings)
    assert [(f.line, f.code) for f in result.findings] == [(4, "TTL250")]
    assert "on CUDA" in result.findings[0].message
    assert "OpInfo" in result.findings[0].message


def test_cuda_only_gap_is_silent_without_cuda_and_a_warning_with_it():
    plain = """
        import torch
        x = torch.tensor([[1, 2], [3, 4]])
        y = torch.matmul(x, x)
    """
    assert findings(plain) == []
    moved = """
        import torch
        model = torch.nn.Linear(2, 2).cuda()
        counts = torch.tensor([[1, 2], [3, 4]], device=DEVICE)
        y = counts.mm(counts)
    """
    assert findings(moved) == [(5, "TTL251")]


@pytest.mark.parametrize("source", [
    # mixed dtypes: promotion, and the hand-written rules, decide
    "a = torch.rand(3)\nb = torch.tensor([1, 2, 3])\nc = torch.bitwise_and(a, b)\n",
    # dtype= changes the computation dtype
    "a = torch.tensor([[2, 1], [1, 2]])\nb = torch.linalg.inv(a.to(dtype=torch.float32))\n",
    "a = torch.tensor([1, 2, 3])\nb = torch.cumsum(a, 0, dtype=torch.float32)\n",
    # a float scalar next to an integer tensor promotes
    "a = torch.tensor([1, 2, 3])\nb = torch.true_divide(a, 2.0)\n",
    # unknown argument that could be a tensor of another dtype
    "def f(other):\n    a = torch.rand(3)\n    return torch.bitwise_and(a, other)\n",
    # unknown dtype
    "def f(a):\n    return torch.linalg.inv(a)\n",
])
def test_calls_the_table_does_not_judge_stay_silent(source):
    assert "TTL250" not in codes("import torch\n" + source)
    assert "TTL251" not in codes("import torch\n" + source)


@pytest.mark.parametrize("name", sorted(COVERED_BY_TTL211))
def test_no_double_report_with_the_handwritten_rules(name):
    """Where TTL211 speaks (int/bool input of a float-only op), TTL250 stays silent."""
    if name.startswith("Tensor."):
        call = f"x.{name[len('Tensor.'):]}()"
    elif name == "torch.nn.functional.cross_entropy":
        call = f"{name}(x, x)"
    else:
        call = f"{name}(x)"
    source = f"import torch\nimport torch.nn.functional\nx = torch.tensor([[1, 2], [3, 4]])\ny = {call}\n"
    found = codes(source)
    assert "TTL250" not in found
    contract = table.contract(name)
    if contract is not None and contract.fails_on_cpu("int64"):
        assert "TTL211" in found, "the hand-written rule is expected to report this call"


def test_complex_input_of_a_handwritten_op_is_still_reported():
    source = """
        import torch
        z = torch.randn(4, dtype=torch.complex64)
        m = z.argmax()
    """
    assert findings(source) == [(4, "TTL250")]


# --------------------------------------------------------------------------- staleness logic


def test_compare_reports_every_kind_of_staleness():
    import copy

    from torchtype_lint.contracts.generate import compare

    committed = json.loads(table.DATA_FILE.read_text(encoding="utf-8"))
    assert compare(committed, committed) == []
    fresh = copy.deepcopy(committed)
    fresh["torch"] = "9.9.9"
    rows = {row["op"]: row for row in fresh["ops"]}
    rows["matmul"]["cuda_declared"] = rows["abs"]["cuda_declared"]
    rows["abs"]["names"]["torch.abs_renamed"] = ["function", True]
    fresh["ops"] = [row for row in fresh["ops"] if row["op"] != "cholesky"]
    unobserved = copy.deepcopy(committed)
    for row in unobserved["ops"]:
        if row["op"] == "bitwise_and":
            row["cpu_observed_fail"].pop("f")
    problems = compare(committed, fresh) + compare(unobserved, committed)
    assert f"table is for torch {committed['torch']}, installed torch is 9.9.9" in problems
    assert "matmul: cuda_declared changed" in problems
    assert "abs: names changed" in problems
    assert "cholesky: in the table but no longer in op_db" in problems
    assert "bitwise_and: probed changed" in problems
