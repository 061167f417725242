"""CUDA facts observed on a GPU (issue 24): the observation file, its merge into the op-contract
table, the rules that read it (TTL250/TTL251), and the command that observes.

No GPU here: the shipped file is checked against the table, the rules are checked on small
programs, and ``observe`` is run with ``--device cpu`` on a few ops, where its verdicts must
reproduce the table's CPU column (same code path as on CUDA, with the device swapped).
"""
from __future__ import annotations

import copy
import json
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import List, Tuple

import pytest

from torchtype_lint.checker.check import Settings, check_source
from torchtype_lint.contracts import table
from torchtype_lint.contracts.convert_reference import from_reference
from torchtype_lint.contracts.merge import merge, pair_counts
from torchtype_lint.contracts.observations import (
    OBSERVATIONS_DIR, Observation, OpObservation, Provenance, dumps, loads, newest, read,
)
from torchtype_lint.model.selection import Selection

ROOT = Path(__file__).resolve().parent.parent
CODE_OF = {name: code for code, name in table.DTYPE_CODES.items()}
SHIPPED = newest()


def _committed() -> dict:
    return json.loads(table.DATA_FILE.read_text(encoding="utf-8"))


def _provenance(**changes) -> Provenance:
    base = dict(device="cuda", gpu="NVIDIA Test GPU", capability="9.0", torch="2.11.0+cu130",
                cuda="13.0", date="2026-11-26", command="test", scope="test", complete=True)
    base.update(changes)
    return Provenance(**base)


def findings(source: str) -> List[Tuple[int, str]]:
    settings = Settings(selection=Selection(select=["TTL"]))
    result = check_source(textwrap.dedent(source), "snippet.py", settings)
    return sorted((f.line, f.code) for f in result.findings)


def contract_findings(source: str) -> list:
    settings = Settings(selection=Selection(select=["TTL250", "TTL251"]))
    return check_source(textwrap.dedent(source), "snippet.py", settings).findings


# --------------------------------------------------------------------------- the shipped file


def test_the_shipped_file_is_the_h100_run_with_its_provenance():
    assert SHIPPED is not None, f"no observation file in {OBSERVATIONS_DIR}"
    p = SHIPPED.provenance
    assert (p.device, p.gpu, p.capability, p.torch, p.cuda, p.date) == (
        "cuda", "NVIDIA H100 80GB HBM3", "9.0", "2.11.0+cu130", "13.0", "2026-11-26")
    assert p.command and p.scope and p.complete
    # The run's own summary: 1,435 pairs ran, 1,919 failed, 72 could not be exercised.
    assert SHIPPED.counts() == {"ok": 1435, "fails": 1919, "unverified": 72}
    assert dumps(read(OBSERVATIONS_DIR / SHIPPED.file)) == (OBSERVATIONS_DIR / SHIPPED.file).read_text()


def test_the_table_carries_the_newest_observation_file_merged():
    committed = _committed()
    carried = table.cuda_provenance()
    assert carried["file"] == SHIPPED.file
    assert (carried["gpu"], carried["torch"], carried["date"]) == (
        SHIPPED.provenance.gpu, SHIPPED.provenance.torch, SHIPPED.provenance.date)
    # Re-merging changes nothing: the committed table is exactly the merge of the newest file.
    assert merge(committed, SHIPPED) == committed
    for row in committed["ops"]:
        seen = SHIPPED.ops.get(row["op"], OpObservation())
        assert row["cuda_observed_ok"] == "".join(CODE_OF[d] for d in table.DTYPE_CODES.values() if d in seen.ok)
        assert set(row["cuda_observed_fail"]) == {CODE_OF[d] for d in seen.fails}, row["op"]


def test_every_reported_cuda_pair_was_observed_to_fail():
    """TTL251 pairs failed on the GPU for every op of the name; TTL250's fails-everywhere pairs
    failed on CPU (the table's probe) and on the GPU (the file)."""
    rows = {row["op"]: row for row in _committed()["ops"]}
    ttl251 = ttl250 = 0
    for name in table.public_names():
        contract = table.contract(name)
        for dtype in table.TRACKED_DTYPES:
            on_gpu = all(dtype in SHIPPED.ops.get(op, OpObservation()).fails for op in contract.ops)
            if contract.cuda_only_gap(dtype):
                ttl251 += 1
                assert on_gpu and dtype in contract.cpu_declared, (name, dtype)
            if contract.fails_on_cpu(dtype) and contract.fails_on_cuda(dtype):
                ttl250 += 1
                assert on_gpu, (name, dtype)
                assert all(CODE_OF[dtype] in rows[op]["cpu_observed_fail"] for op in contract.ops), (name, dtype)
            if contract.cuda_status(dtype) == "declared-only":
                assert not contract.fails_on_cuda(dtype)
    # Measured when the file was merged: 222 -> 196 TTL251 pairs, 2,815 -> 2,694 TTL250.
    assert (ttl251, ttl250) == (196, 2694)


def test_pair_counts_per_cuda_status():
    assert pair_counts(_committed()) == {"observed-ok": 1435, "observed-fails": 1919, "declared-only": 3990}


# --------------------------------------------------------------------------- the rules


@pytest.mark.parametrize("op, dtype, call", [
    # The H100 ran these although OpInfo declares no CUDA kernel (README of the measurement).
    ("logcumsumexp", "int64", "torch.logcumsumexp(torch.tensor([3, 1, 2], device=device), 0)"),
    ("median", "bool", "torch.median(torch.tensor([True, False], device=device))"),
    ("nanmedian", "bool", "torch.tensor([True, False], device=device).nanmedian()"),
])
def test_pairs_that_ran_on_the_gpu_are_not_reported(op, dtype, call):
    assert SHIPPED.ops[op].status(dtype) == "ok"
    unknown = f"""
        import torch
        device = "cuda" if torch.cuda.is_available() else "cpu"
        result = {call}
    """
    assert findings(unknown) == []
    on_gpu = unknown.replace('device = "cuda" if torch.cuda.is_available() else "cpu"', 'device = "cuda"')
    assert findings(on_gpu) == []
    # On a tensor known to be on CPU it still fails, and is still reported.
    on_cpu = unknown.replace('device = "cuda" if torch.cuda.is_available() else "cpu"', 'device = "cpu"')
    assert [code for _, code in findings(on_cpu)] == ["TTL250"]


def test_a_pair_that_runs_on_cpu_and_failed_on_the_gpu_is_still_ttl251():
    assert SHIPPED.ops["matmul"].status("int64") == "fails"
    found = contract_findings("""
        import torch
        model = torch.nn.Linear(2, 2).cuda()
        counts = torch.tensor([[1, 2], [3, 4]], device=DEVICE)
        pairs = torch.matmul(counts, counts)
    """)
    assert [(f.line, f.code) for f in found] == [(5, "TTL251")]
    assert "NVIDIA H100 80GB HBM3 with torch 2.11.0+cu130" in found[0].message


def test_a_failure_observed_on_the_gpu_is_an_error_on_a_cuda_tensor():
    found = contract_findings("""
        import torch
        x = torch.ones(2, 2, dtype=torch.long, device="cuda")
        y = torch.mm(x, x)
    """)
    assert [(f.line, f.code) for f in found] == [(4, "TTL250")]
    assert "on CUDA" in found[0].message and "NVIDIA H100" in found[0].message


@pytest.mark.parametrize("name, dtype, source", [
    # declared without a CUDA kernel, but the GPU could not exercise it (no CUDA backend at all)
    ("torch.histogram", "float32", "torch.histogram(torch.rand(8, device=DEVICE), 4)"),
    # declared without a CUDA kernel, and a calling convention ran on the GPU
    ("torch.einsum", "int64", 'torch.einsum("i,i->", torch.tensor([1, 2], device=DEVICE), '
                              'torch.tensor([1, 2], device=DEVICE))'),
])
def test_a_pair_only_declared_missing_on_cuda_is_silent(name, dtype, source):
    contract = table.contract(name)
    assert dtype in contract.cpu_declared and dtype not in contract.cuda  # what TTL251 used to read
    assert not contract.fails_on_cuda(dtype)
    assert findings(f"import torch\nmodel = torch.nn.Linear(2, 2).cuda()\nresult = {source}\n") == []


@pytest.fixture
def table_merged_with(monkeypatch, tmp_path):
    """Point the table loader at ``merge(committed, observation)`` for one test."""
    caches = (table._data, table._decoded_sets, table._op_rows, table.contract)

    def use(observation):
        path = tmp_path / "op_contracts.json"
        path.write_text(json.dumps(merge(_committed(), observation)), encoding="utf-8")
        monkeypatch.setattr(table, "DATA_FILE", path)
        for cache in caches:
            cache.cache_clear()

    yield use
    for cache in caches:
        cache.cache_clear()  # the next test reads the committed file again


def test_without_any_gpu_observation_the_cuda_rules_are_silent(table_merged_with):
    """Unknown means silent: with every CUDA pair declared-only, neither rule speaks about CUDA."""
    table_merged_with(None)
    source = """
        import torch
        model = torch.nn.Linear(2, 2).cuda()
        counts = torch.tensor([[1, 2], [3, 4]], device=DEVICE)
        pairs = torch.matmul(counts, counts)
        inverse = torch.linalg.inv(counts)
        gpu = torch.ones(2, 2, dtype=torch.long, device="cuda")
        product = gpu @ gpu
    """
    assert contract_findings(source) == []
    # On a CPU tensor the CPU observation alone decides.
    assert [f.code for f in contract_findings("import torch\nx = torch.tensor([[2, 1], [1, 2]])\n"
                                              "y = torch.linalg.inv(x)\n")] == ["TTL250"]


def test_a_newer_run_that_saw_a_kernel_silences_the_finding(table_merged_with):
    ops = dict(SHIPPED.ops)
    ops["matmul"] = OpObservation(ok=ops["matmul"].ok | {"int64"})
    table_merged_with(Observation(_provenance(date="2027-01-01"), ops, "newer.json"))
    source = """
        import torch
        model = torch.nn.Linear(2, 2).cuda()
        counts = torch.tensor([[1, 2], [3, 4]], device=DEVICE)
        pairs = torch.matmul(counts, counts)
    """
    assert contract_findings(source) == []
    assert table.contract("torch.matmul").cuda_status("int64") == "observed-ok"
    assert table.cuda_provenance()["file"] == "newer.json"


# --------------------------------------------------------------------------- merge, file format


def _tiny_table() -> dict:
    """Two ops reached by one public name (an alias), in the previous table format."""
    def row(op):
        return {"op": op, "variants": [], "cpu_declared": 0, "cuda_declared": 1, "cpu_observed_ok": {},
                "cpu_observed_fail": {}, "cpu_unverified": {}, "out": False, "names": {}}
    return {"format": 1, "torch": "2.13.0", "cuda_model": "x", "dtype_codes": table.DTYPE_CODES,
            "sets": ["?BbhileEfdFD", "eEfd"], "names_columns": ["cpu", "cpu_declared", "cuda_declared", "ops..."],
            "names": {"torch.both": [0, 0, 1, 0, 1], "torch.first": [0, 0, 1, 0]},
            "ops": [row("first"), row("second")]}


def test_a_name_fails_on_cuda_only_where_every_op_behind_it_failed():
    observation = Observation(_provenance(), {
        "first": OpObservation(ok=frozenset({"float32"}), fails={"int64": "m", "bool": "m"}),
        "second": OpObservation(fails={"int64": "m"}, unverified={"bool": "why"}),
    }, "run.json")
    merged = merge(_tiny_table(), observation)
    decode = lambda i: {table.DTYPE_CODES[c] for c in merged["sets"][i]}  # noqa: E731
    assert merged["format"] == table.FORMAT_VERSION
    assert merged["names_columns"] == list(table.NAMES_COLUMNS)
    both, first = merged["names"]["torch.both"], merged["names"]["torch.first"]
    assert both[5:] == [0, 1] and first[5:] == [0]  # op indices kept after the new columns
    assert decode(both[3]) == {"float32"} and decode(both[4]) == {"int64"}  # bool: second unverified
    assert decode(first[4]) == {"int64", "bool"}
    assert merged["cuda_observations"]["file"] == "run.json"
    assert list(merged).index("cuda_observations") == list(merged).index("cuda_model") + 1
    assert merge(merged, observation) == merged  # idempotent
    assert merge(merged, None)["ops"][0]["cuda_observed_fail"] == ""


def test_observation_files_round_trip_and_the_newest_real_gpu_run_wins(tmp_path):
    ops = {"abs": OpObservation(ok=frozenset({"float32", "bool"}), fails={"int8": "msg"},
                                unverified={"complex64": "why"})}
    old = Observation(_provenance(date="2026-01-01"), ops)
    new = Observation(_provenance(date="2026-06-01"), ops)
    dry_run = Observation(_provenance(date="2027-01-01", device="cpu", gpu="-"), ops)
    for name, observation in (("a.json", new), ("b.json", old), ("c.json", dry_run)):
        (tmp_path / name).write_text(dumps(observation), encoding="utf-8")
    assert loads(dumps(old)).ops == old.ops and loads(dumps(old)).provenance == old.provenance
    assert newest(tmp_path).file == "a.json"
    assert newest(tmp_path / "missing") is None
    with pytest.raises(ValueError):
        loads(json.dumps({"format": 99}))


def test_convert_reads_the_stand_alone_scripts_format():
    data = {"meta": {"device": "cuda", "gpu": "NVIDIA Test GPU", "capability": "9.0", "torch": "2.11.0+cu130"},
            "results": [{"op": "mm", "dtype": "int64", "claim": "TTL251", "cuda": "fails", "message": "m"},
                        {"op": "mm", "dtype": "float32", "claim": "control", "cuda": "ok", "message": ""},
                        {"op": "mm", "dtype": "uint16", "claim": "x", "cuda": "ok", "message": ""},
                        {"op": "histc", "dtype": "int8", "claim": "x", "cuda": "unverified", "message": ""}]}
    converted = from_reference(data, _provenance())
    assert converted.ops["mm"] == OpObservation(ok=frozenset({"float32"}), fails={"int64": "m"})
    assert converted.ops["histc"].status("int8") == "unverified"
    wrong = copy.deepcopy(data)
    wrong["meta"]["gpu"] = "another GPU"
    with pytest.raises(ValueError):
        from_reference(wrong, _provenance())


def test_merge_command_needs_no_torch(tmp_path):
    script = textwrap.dedent("""
        import json, sys
        from torchtype_lint.contracts import table
        from torchtype_lint.contracts.merge import merge
        from torchtype_lint.contracts.observations import newest
        from torchtype_lint.contracts.generate import dumps
        dumps(merge(json.loads(table.DATA_FILE.read_text()), newest()))
        print("torch" in sys.modules)
    """)
    out = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert out.stdout.split() == ["False"], out.stderr


# --------------------------------------------------------------------------- the observer


def test_observe_refuses_a_dry_run_into_the_shipped_directory():
    from torchtype_lint.contracts.__main__ import main

    assert main(["observe", "--device", "cpu"]) == 2


def test_observe_runs_the_linter_relevant_pairs_first_and_stops_on_budget(monkeypatch):
    from torchtype_lint.contracts import generate as G
    from torchtype_lint.contracts import observe as observer

    class FakeOp:
        variant_test_name = ""

        def __init__(self, name, declared):
            self.name, self.declared = name, declared

        def supported_dtypes(self, device):
            return [f"torch.{d}" for d in self.declared]

    grouped = {"b": [FakeOp("b", ["float32"])], "a": [FakeOp("a", ["float32", "int64"])]}
    pairs = observer.pairs_in_order(grouped, "cuda")
    assert len(pairs) == 24 and len(set(pairs)) == 24
    # The three declared pairs (controls) come last; the 21 the rules may report come first.
    Pair = observer.Pair
    assert set(pairs[-3:]) == {Pair("a", "float32"), Pair("a", "int64"), Pair("b", "float32")}
    monkeypatch.setattr(G, "probe_variants", lambda variants, dtype, device: G.ProbeResult("ok", "ran"))
    outcomes, complete, why = observer.run_pairs(grouped, pairs, "cpu")
    assert complete and len(outcomes) == 24 and why == ""
    outcomes, complete, why = observer.run_pairs(grouped, pairs, "cpu", budget_s=-1)
    assert not complete and outcomes == [] and "budget" in why


#: Ops whose CPU column has every kind of verdict: declared, observed to fail, observed to run
#: although undeclared (cumsum on bool, allclose on integers, the l1_loss calling conventions).
CPU_SAMPLE = ("linalg.inv", "bitwise_and", "matmul", "argmax", "logcumsumexp", "median",
              "cumsum", "allclose", "nn.functional.l1_loss")


@pytest.fixture(scope="module")
def observed_on_cpu(tmp_path_factory) -> Observation:
    out = tmp_path_factory.mktemp("observe") / "cpu.json"
    proc = subprocess.run(
        [sys.executable, "-m", "torchtype_lint.contracts", "observe", "--device", "cpu",
         "--ops", ",".join(CPU_SAMPLE), "--out", str(out)],
        cwd=ROOT, capture_output=True, text=True, timeout=400)
    assert proc.returncode == 0 and out.exists(), proc.stdout + proc.stderr
    return read(out)


def test_observe_on_cpu_reproduces_the_tables_cpu_column(observed_on_cpu):
    rows = {row["op"]: row for row in _committed()["ops"]}
    checked = {"ok": 0, "fails": 0}
    for op in CPU_SAMPLE:
        row, seen = rows[op], observed_on_cpu.ops[op]
        declared = {table.DTYPE_CODES[c] for c in _committed()["sets"][row["cpu_declared"]]}
        for dtype in table.TRACKED_DTYPES:
            code = CODE_OF[dtype]
            expected = ("fails" if code in row["cpu_observed_fail"] else
                        "unverified" if code in row["cpu_unverified"] else "ok")
            got = seen.status(dtype)
            if dtype in declared:
                assert got != "fails", (op, dtype)  # torch's CI runs every declared dtype
            else:
                # The same probe on the same torch: the generator's verdict, pair for pair.
                assert got == expected, (op, dtype, seen.fails.get(dtype) or seen.unverified.get(dtype))
            checked[got] = checked.get(got, 0) + 1
            if expected == "fails":
                assert seen.fails[dtype].split(":")[0] == row["cpu_observed_fail"][code].split(":")[0]
    assert checked["ok"] >= 40 and checked["fails"] >= 25, checked


def test_observe_records_its_provenance(observed_on_cpu):
    p = observed_on_cpu.provenance
    assert (p.device, p.gpu, p.capability, p.cuda) == ("cpu", "-", "-", "-")
    assert p.torch.split("+")[0] == table.torch_version().split("+")[0]
    assert p.complete and p.notes == "" and p.date and p.python
    assert p.command.startswith("python -m torchtype_lint.contracts observe --device cpu --ops ")
    assert len(observed_on_cpu.ops) == len(CPU_SAMPLE)
    assert sum(observed_on_cpu.counts().values()) == 12 * len(CPU_SAMPLE)
