"""Code that runs on CPU and raises on CUDA (issue 24, deliverables 3 and 4): the observed cases
(``data/gpu_only_failures.json``), the devices the engine tracks for them (``knowledge/devices.py``),
and the TTL26x rules (``rules/gpu/``).

No GPU here: the CUDA half of every case is the H100 measurement's; the CPU half is run against
the torch installed here (each case must run), and the fixtures run on CPU as their claims say.
"""
from __future__ import annotations

import json
import runpy
import textwrap
import warnings
from pathlib import Path
from typing import Any, Callable, Dict, List, Tuple

import pytest

from torchtype_lint.checker.check import Settings, check_source
from torchtype_lint.harness import fixtures as fx
from torchtype_lint.harness.confirm import CONFIRMED, CONTRADICTED, judge
from torchtype_lint.knowledge import gpu_only
from torchtype_lint.knowledge.devices import CUDA_IF_AVAILABLE, Device, device_origin
from torchtype_lint.rules.base import get_rule
from torchtype_lint.model.selection import Selection
from torchtype_lint.model.values import DeviceValue, ModuleValue, TensorValue

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures"
MEASUREMENT = ROOT.parent / "shared" / "gpu" / "mixed-dtype-cpu-vs-cuda-h100-torch2.11.json"
CODES = ("TTL260", "TTL261", "TTL262")
IDIOM = 'device = torch.device("cuda" if torch.cuda.is_available() else "cpu")'


def findings(source: str, select: Tuple[str, ...] = ("TTL",)) -> List[Tuple[int, str]]:
    settings = Settings(selection=Selection(select=list(select)))
    result = check_source(textwrap.dedent(source), "snippet.py", settings)
    return sorted((f.line, f.code) for f in result.findings)


def messages(source: str, code: str) -> List[str]:
    settings = Settings(selection=Selection(select=[code]))
    return [f.message for f in check_source(textwrap.dedent(source), "snippet.py", settings).findings]


# --------------------------------------------------------------------------- the observed cases


def test_the_shipped_cases_say_where_they_were_observed():
    found = gpu_only.provenance()
    assert found is not None
    assert (found.gpu, found.capability, found.torch, found.date) == (
        "NVIDIA H100 80GB HBM3", "9.0", "2.11.0+cu130", "2026-11-26")
    assert (found.cases_run, found.divergent) == (2800, 57)
    assert gpu_only.seen_on() == "NVIDIA H100 80GB HBM3, torch 2.11.0+cu130"


def test_the_shipped_cases_are_the_53_that_ran_on_cpu_and_raised_on_cuda():
    cases = gpu_only.cases()
    by_name: Dict[str, int] = {}
    for case in cases:
        by_name[case.name] = by_name.get(case.name, 0) + 1
    assert len(cases) == 53
    assert by_name == {"LayerNorm": 2, "GroupNorm": 2, "MaxPool2d": 3, "AvgPool2d": 1, "interpolate.bilinear": 1,
                       "histc": 2, "x[mask]=v0d": 21, "matmul": 3, "mm": 3, "bmm": 3, "addmm": 3,
                       "baddbmm": 3, "einsum.ij,jk": 3, "einsum.ij,ij": 3}
    layer_norm = gpu_only.cuda_failure("LayerNorm", params="float32", input="float16")
    assert layer_norm.exception == "RuntimeError" and layer_norm.message == "expected scalar type Half but found Float"
    assert gpu_only.cuda_failure("LayerNorm", params="float32", input="float32") is None  # runs on both
    assert gpu_only.cuda_failure("x[mask]=v0d", dest="float32", src="float64").dtype("index") == "int64"


@pytest.mark.parametrize("rule_code, names", [
    ("TTL260", {"x[mask]=v0d"}),
    ("TTL261", {"LayerNorm", "GroupNorm"}),
    ("TTL262", {"MaxPool2d", "AvgPool2d", "interpolate.bilinear", "histc", "matmul", "mm", "bmm", "addmm",
                "baddbmm", "einsum.ij,jk", "einsum.ij,ij"}),
])
def test_every_case_is_read_by_a_rule_whose_claim_matches_its_cuda_wording(rule_code, names):
    import re

    claim = get_rule(rule_code).runtime
    assert claim.devices == ("cuda",)  # the bad fixtures run cleanly on CPU
    cases = [case for case in gpu_only.cases() if case.name in names]
    assert cases
    for case in cases:
        assert re.search(claim.pattern, case.message), (rule_code, case.case)
        # NotImplementedError is a RuntimeError: the claim's class accepts both
        assert case.exception in ("RuntimeError", "NotImplementedError")
    covered = {"x[mask]=v0d", "LayerNorm", "GroupNorm", "MaxPool2d", "AvgPool2d", "interpolate.bilinear",
               "histc", "matmul", "mm", "bmm", "addmm", "baddbmm", "einsum.ij,jk", "einsum.ij,ij"}
    assert {case.name for case in gpu_only.cases()} == covered  # no case no rule reads


# The measurement's programs (shared/gpu/mixed_dtype_divergence.py), for the names the cases use.
def _tensor(torch: Any, shape: Tuple[int, ...], dtype: str, low: int = 0, high: int = 4) -> Any:
    d = getattr(torch, dtype)
    if d.is_floating_point:
        return torch.rand(shape).to(d)
    if d == torch.bool:
        return torch.rand(shape) > 0.5
    return torch.randint(low, high, shape).to(d)


def _program(torch: Any, case: gpu_only.GpuOnlyCase) -> Callable[[], Any]:
    nn, F = torch.nn, torch.nn.functional
    t = lambda shape, role, *bounds: _tensor(torch, shape, case.dtype(role), *bounds)  # noqa: E731
    modules = {"LayerNorm": (lambda: nn.LayerNorm(4), (2, 4)), "GroupNorm": (lambda: nn.GroupNorm(1, 3), (2, 3, 4, 4))}
    if case.name in modules:
        make, shape = modules[case.name]
        return lambda: make().to(getattr(torch, case.dtype("params")))(t(shape, "input"))
    one_input = {"MaxPool2d": lambda x: nn.MaxPool2d(2)(x), "AvgPool2d": lambda x: nn.AvgPool2d(2)(x),
                 "interpolate.bilinear": lambda x: F.interpolate(x, scale_factor=2, mode="bilinear"),
                 "histc": lambda x: torch.histc(x)}
    if case.name in one_input:
        return lambda: one_input[case.name](t((2, 3, 4, 4), "input"))
    if case.name == "x[mask]=v0d":
        def write() -> None:
            x, v = t((6,), "dest", 0, 2), t((6,), "src", 0, 2)
            x[x > 0.5] = v.reshape(-1)[0]
        return write
    binary = {"matmul": lambda a, b: a @ b, "mm": torch.mm, "bmm": lambda a, b: torch.bmm(a[None], b[None]),
              "addmm": lambda a, b: torch.addmm(a, a, b),
              "baddbmm": lambda a, b: torch.baddbmm(a[None], a[None], b[None]),
              "einsum.ij,jk": lambda a, b: torch.einsum("ij,jk->ik", a, b),
              "einsum.ij,ij": lambda a, b: torch.einsum("ij,ij->i", a, b)}
    return lambda: binary[case.name](t((3, 3), "a"), t((3, 3), "b"))


@pytest.mark.parametrize("case", gpu_only.cases(), ids=[c.case for c in gpu_only.cases()])
def test_the_cpu_half_of_every_case_holds_for_the_torch_installed_here(case):
    """The rules say "works on CPU": every case must run on this torch's CPU."""
    torch = pytest.importorskip("torch")
    torch.manual_seed(0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _program(torch, case)()


def _measurement(rows: List[Dict[str, str]]) -> Dict[str, Any]:
    return {"meta": {"torch": "2.11.0+cu130", "devices": ["cpu", "cuda"], "cases": len(rows), "seconds": 1.0,
                     "gpu": "NVIDIA Test GPU", "divergent": 2}, "rows": rows}


def test_derive_keeps_the_cases_that_ran_on_cpu_and_raised_on_cuda(tmp_path):
    rows = [{"family": "op(input)", "case": "histc input=float16", "cpu": "ok", "cuda": "RuntimeError: HalfTensor is not supported"},
            {"family": "op(input)", "case": "histc input=uint8", "cpu": "NotImplementedError: x", "cuda": "ok"},
            {"family": "op(input)", "case": "histc input=float32", "cpu": "ok", "cuda": "ok"},
            {"family": "op(input)", "case": "histc input=bool", "cpu": "NotImplementedError: a", "cuda": "RuntimeError: b"}]
    data = gpu_only.derive(_measurement(rows), "9.0", "2026-01-02", "m.json")
    assert [row["case"] for row in data["cases"]] == ["histc input=float16"]
    assert data["provenance"]["gpu"] == "NVIDIA Test GPU" and data["provenance"]["date"] == "2026-01-02"
    assert json.loads(gpu_only.dumps(data)) == data
    source = tmp_path / "m.json"
    source.write_text(json.dumps(_measurement(rows)))
    out = tmp_path / "out.json"
    assert gpu_only.main(["derive", str(source), "--capability", "9.0", "--date", "2026-01-02", "--out", str(out)]) == 0
    assert json.loads(out.read_text()) == data
    with pytest.raises(ValueError):
        gpu_only.derive({"meta": {"devices": ["cpu"]}, "rows": []}, "9.0", "2026-01-02", "m.json")


@pytest.mark.skipif(not MEASUREMENT.is_file(), reason="the H100 measurement is not next to this checkout")
def test_the_shipped_file_is_derived_from_the_h100_measurement_byte_for_byte():
    measurement = json.loads(MEASUREMENT.read_text(encoding="utf-8"))
    derived = gpu_only.dumps(gpu_only.derive(measurement, "9.0", "2026-11-26", MEASUREMENT.name))
    assert derived == gpu_only.DATA_FILE.read_text(encoding="utf-8")


# --------------------------------------------------------------------------- devices in the engine


def _explain(source: str) -> Dict[str, Any]:
    """name -> the value the engine gave its last assignment (what `explain` prints)."""
    result = check_source(textwrap.dedent(source), "m.py", Settings(selection=Selection(select=[])),
                          keep_analysis=True)
    return {assignment.name: assignment.value for assignment in result.interpreter.assignments}


@pytest.mark.parametrize("spelling", [
    'torch.device("cuda" if torch.cuda.is_available() else "cpu")',
    '"cuda" if torch.cuda.is_available() else "cpu"',
    '"cuda:0" if torch.cuda.is_available() else "cpu"',
    '"cpu" if not torch.cuda.is_available() else "cuda"',
    'torch.device("cuda" if use_cuda else "cpu")',
])
def test_a_device_picked_at_run_time_is_cuda_if_available(spelling):
    found = _explain(f"""
        import torch
        use_cuda = DEVICE == "cuda" and torch.cuda.is_available()
        device = {spelling}
        x = torch.zeros(3, device=device)
        y = torch.zeros(3).to(device)
        norm = torch.nn.LayerNorm(3).to(device)
    """)
    assert isinstance(found["device"], DeviceValue) and found["device"].device == CUDA_IF_AVAILABLE
    for name in ("x", "y"):
        assert found[name].device == CUDA_IF_AVAILABLE
        # where it came from: the move, then the expression that picked the device
        notes = [link.note for link in device_origin(found[name].device).chain()]
        assert notes[-1].startswith("CUDA when `") and notes[-1].endswith("` holds, else the CPU")
    assert found["norm"].device == CUDA_IF_AVAILABLE


def test_other_conditional_values_and_devices_stay_as_they_were():
    found = _explain("""
        import torch
        mode = "train" if flag else "eval"
        both = "cuda" if flag else "cuda"
        other = "cuda" if flag else "mps"
        x = torch.zeros(3).cuda()
        y = torch.zeros(3).to("cpu")
        if flag:
            z = torch.zeros(3).cuda()
        else:
            z = torch.zeros(3)
        joined = z
        layer = torch.nn.Linear(2, 2)
        if flag:
            layer.cuda()
        after = layer
    """)
    assert getattr(found["mode"], "const", None) is None and not isinstance(found["mode"], DeviceValue)  # one of two
    assert not isinstance(found["both"], DeviceValue) and not isinstance(found["other"], DeviceValue)
    assert found["x"].device == "cuda" and isinstance(found["x"].device, Device)
    assert found["y"].device == "cpu"
    assert found["joined"].device is None  # a tensor moved on one branch only: not known (TTL251's case)
    assert found["after"].device is None  # a layer moved on one branch only


def test_a_device_with_its_origin_is_the_plain_name_to_every_other_reader():
    import pickle

    device = Device("cuda", None)
    assert device == "cuda" and hash(device) == hash("cuda") and f"{device}" == "cuda"
    assert TensorValue(None, (2,), None, device) == TensorValue(None, (2,), None, "cuda")
    assert pickle.loads(pickle.dumps(device)) == "cuda"
    assert isinstance(ModuleValue("torch.nn.Linear").device, type(None))


# --------------------------------------------------------------------------- the rules


MASKED_WRITE = """
    import torch
    {device}
    scores = torch.randn(6, device=device)
    floor = scores.double().mean()
    scores[scores < 0] = floor
"""
NORM = """
    import torch
    import torch.nn as nn
    {device}
    norm = nn.LayerNorm(4).to(device)
    out = norm(torch.randn(2, 4, device=device).half())
"""
POOL = """
    import torch
    import torch.nn as nn
    {device}
    image = torch.randint(0, 256, (1, 3, 8, 8), dtype=torch.uint8, device=device)
    pooled = nn.MaxPool2d(2)(image)
"""
EINSUM = """
    import torch
    {device}
    votes = torch.tensor([[1, 0, 1], [1, 1, 0]], device=device)
    agreement = torch.einsum("ij,ij->i", votes, votes)
"""
HISTC = """
    import torch
    {device}
    hist = torch.histc(torch.randn(100, device=device).half())
"""
PROGRAMS = [(MASKED_WRITE, 6, "TTL260"), (NORM, 6, "TTL261"), (POOL, 6, "TTL262"), (EINSUM, 5, "TTL262"),
            (HISTC, 4, "TTL262")]


@pytest.mark.parametrize("program, line, code", PROGRAMS)
@pytest.mark.parametrize("device", [IDIOM, 'device = "cuda"', 'device = torch.device("cuda")'])
def test_reported_where_the_code_runs_on_cuda_or_may(program, line, code, device):
    if program is HISTC and device != IDIOM:
        code = "TTL250"  # the op contract table knows histc(float16) fails on CUDA: its report
    assert findings(program.format(device=device)) == [(line, code)]


@pytest.mark.parametrize("program, line, code", PROGRAMS)
@pytest.mark.parametrize("device", ['device = "cpu"', 'device = os.environ.get("TTL_DEVICE", "cpu")',
                                    "device = args.device"])
def test_silent_on_cpu_and_where_the_device_is_unknown(program, line, code, device):
    assert findings("import os\n" + textwrap.dedent(program).format(device=device)) == []


def test_the_message_says_cpu_works_the_gpu_fails_what_cuda_said_where_and_since_where():
    [message] = messages(MASKED_WRITE.format(device=IDIOM), "TTL260")
    assert "works on CPU but fails on the GPU" in message
    assert ("CUDA raises RuntimeError `Index put requires the source and destination dtypes match, got Float "
            "for the destination and Double for the source.`") in message
    assert "(observed on NVIDIA H100 80GB HBM3, torch 2.11.0+cu130)" in message
    assert "`scores` runs on CUDA wherever a GPU is available (since line 3: " in message
    assert "CUDA when `torch.cuda.is_available()` holds, else the CPU" in message
    [message] = messages(POOL.format(device="device = 'cpu'").replace("device=device)", "device=device).cuda()"),
                         "TTL262")
    assert "`image` runs on CUDA (since line 5: " in message and "moved by .cuda()" in message
    assert "'max_pool2d_with_indices_out_cuda_frame' not" not in message  # quoted as torch printed it
    assert '`"max_pool2d_with_indices_out_cuda_frame" not implemented for \'Byte\'`' in message


def test_the_masked_write_fix_makes_the_cpu_conversion_explicit():
    from torchtype_lint.edit.fix import fix_source

    settings = Settings(selection=Selection(select=["TTL260"]))
    fixed, count, left = fix_source(textwrap.dedent(MASKED_WRITE.format(device=IDIOM)), "m.py", settings)
    assert "scores[scores < 0] = floor.to(scores.dtype)" in fixed and (count, left) == (1, [])
    assert findings(fixed) == []


@pytest.mark.parametrize("source", [
    # a Python number, masked_fill_, matching dtypes: observed to run on CUDA
    "scores[scores < 0] = 0.5",
    "scores.masked_fill_(scores < 0, floor)",
    "scores[scores < 0] = floor.float()",
    # a value on the CPU is filled like a number on CUDA too (not observed: not reported)
    "scores[scores < 0] = torch.tensor(0.5, dtype=torch.float64)",
    # a mask together with another index, a value that is not 0-dim: not the observed write
    "scores[scores < 0, None] = floor",
])
def test_masked_writes_not_observed_to_fail_only_on_cuda_are_not_ttl260(source):
    program = MASKED_WRITE.format(device=IDIOM).replace("scores[scores < 0] = floor", source)
    assert [code for _, code in findings(program) if code == "TTL260"] == []


def test_a_one_element_source_through_a_mask_is_ttl205_everywhere_not_ttl260():
    program = MASKED_WRITE.format(device=IDIOM).replace("= floor", "= floor.reshape(1).expand(6)")
    assert [code for _, code in findings(program)] == ["TTL205"]


@pytest.mark.parametrize("change", [
    ("nn.LayerNorm(4)", "nn.LayerNorm(4, elementwise_affine=False)"),  # no parameters
    ("nn.LayerNorm(4).to(device)", "nn.LayerNorm(4).to(device).half()"),  # same precision
    (".half())", ".float())"),
    ("nn.LayerNorm(4)", "nn.BatchNorm1d(4)"),  # observed to run on CUDA with float16 input
    ("out = norm(", "with torch.autocast('cuda'):\n    out = norm("),  # autocast runs it in float32
])
def test_norms_that_run_on_cuda_are_not_ttl261(change):
    program = textwrap.dedent(NORM.format(device=IDIOM)).replace(*change)
    assert [code for _, code in findings(program) if code in ("TTL261", "TTL401")] == []


def test_a_float64_input_into_a_float32_layernorm_is_ttl401_everywhere_not_ttl261():
    program = NORM.format(device=IDIOM).replace(".half())", ".double())")
    assert [code for _, code in findings(program)] == ["TTL401"]


def test_a_layer_on_the_gpu_takes_an_input_of_unknown_device_with_it():
    assert findings("""
        import torch
        norm = torch.nn.GroupNorm(1, 3).cuda()
        def step(x):
            return norm(x.bfloat16())
        step(torch.randn(2, 3, 4, 4).to(args.device))
    """) == [(5, "TTL261")]


@pytest.mark.parametrize("source", [
    "counts @ counts", "torch.matmul(counts, counts)", "counts.mm(counts)", "torch.bmm(counts[None], counts[None])",
    "torch.addmm(counts, counts, counts)", "torch.baddbmm(counts[None], counts[None], counts[None])",
    'torch.einsum("ij,jk->ik", counts, counts)', 'torch.einsum("ij,ij->i", [counts, counts])',
    'torch.nn.functional.interpolate(counts[None, None].byte(), scale_factor=2, mode="bilinear")',
    "torch.nn.functional.avg_pool2d(counts[None], 2)", "counts.half().histc()",
])
def test_every_spelling_of_a_missing_kernel_is_ttl262_on_a_device_picked_at_run_time(source):
    program = f"import torch\n{IDIOM}\ncounts = torch.ones(4, 4, dtype=torch.long, device=device)\nr = {source}\n"
    assert findings(program) == [(4, "TTL262")]


@pytest.mark.parametrize("source", [
    'torch.einsum("ij,ij->ij", counts, counts)',  # elementwise: a multiplication, runs on CUDA
    'torch.einsum("ij,kl->ijkl", counts, counts)',  # an outer product: nothing summed
    'torch.nn.functional.interpolate(counts[None, None].byte(), scale_factor=2, mode="nearest")',
    'torch.nn.functional.interpolate(counts[None, None].byte(), scale_factor=2, mode="bilinear", antialias=True)',
    'torch.nn.functional.interpolate(counts[None, None].byte(), None, 2.0, "bilinear", None, None, True)',
    "counts.int().short() @ counts.short()",  # int16 was not measured
    "counts.float() @ counts.float()",
    "torch.nn.MaxPool2d(2)(counts[None].float())",
    "counts.cpu() @ counts.cpu()",
])
def test_kernels_that_exist_on_cuda_or_were_not_measured_are_not_ttl262(source):
    program = f"import torch\n{IDIOM}\ncounts = torch.ones(4, 4, dtype=torch.long, device=device)\nr = {source}\n"
    assert [code for _, code in findings(program) if code == "TTL262"] == []


@pytest.mark.parametrize("source, code", [
    # the op contract table's observed CUDA failures on a tensor known to be on CUDA: TTL250's
    ("counts @ counts", "TTL250"), ("torch.nn.functional.max_pool2d(counts[None].byte(), 2)", "TTL250"),
    ("torch.histc(counts.half())", "TTL250"),
    # the table has no answer for these (einsum's other conventions ran, nn modules are not in it)
    ('torch.einsum("ij,jk->ik", counts, counts)', "TTL262"), ("torch.nn.MaxPool2d(2)(counts[None].byte())", "TTL262"),
])
def test_one_report_per_call_where_ttl250_knows_the_failure_on_cuda(source, code):
    program = f"import torch\ncounts = torch.ones(4, 4, dtype=torch.long).cuda()\nr = {source}\n"
    assert [found for _, found in findings(program)] == [code]


def test_ttl251_keeps_the_unknown_device_in_a_file_that_uses_cuda():
    program = """
        import torch
        model = torch.nn.Linear(2, 2).cuda()
        counts = torch.tensor([[1, 2], [3, 4]], device=args.device)
        pairs = torch.matmul(counts, counts)
    """
    assert findings(program) == [(5, "TTL251")]


# --------------------------------------------------------------------------- fixtures and claims


def _own_fixtures() -> List[Path]:
    return sorted(p for code in CODES for p in (FIXTURES / code).glob("*.py"))


@pytest.mark.parametrize("path", _own_fixtures(), ids=lambda p: f"{p.parent.name}/{p.name}")
def test_each_fixture_runs_on_cpu_and_reads_its_device_from_ttl_device(path, monkeypatch, capsys):
    """Bad ones fail only on CUDA (their claims list only "cuda"), good ones run everywhere:
    on CPU every one of them runs to the end."""
    pytest.importorskip("torch")
    assert 'os.environ.get("TTL_DEVICE", "cpu")' in path.read_text(encoding="utf-8")
    monkeypatch.setenv("TTL_DEVICE", "cpu")
    runpy.run_path(str(path), run_name="__main__")


def test_the_harness_judges_a_cuda_only_claim_per_device():
    [fixture] = [f for f in fx.discover(FIXTURES, {"TTL262"})["TTL262"] if f.path.name == "bad_integer_matmul.py"]
    claim = get_rule("TTL262").runtime
    ran = {"outcome": "ok"}
    raised = {"outcome": "raised", "exception": "NotImplementedError",
              "mro": ["NotImplementedError", "RuntimeError", "Exception"],
              "message": "\"addmm_cuda\" not implemented for 'Long'", "line": 11}
    assert judge(claim, fixture, "cpu", ran).verdict == CONFIRMED
    assert judge(claim, fixture, "cpu", raised).verdict == CONTRADICTED
    assert judge(claim, fixture, "cuda", raised).verdict == CONFIRMED
    assert judge(claim, fixture, "cuda", ran).verdict == CONTRADICTED


def test_no_fixture_asserts_a_type_string_of_one_device():
    """`x.type()` is "torch.cuda.FloatTensor" on CUDA: a fixture comparing it with the CPU
    string alone fails there (issue 24, deliverable 4)."""
    offenders = []
    for path in sorted(FIXTURES.glob("TTL*/*.py")):
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            if '"torch.' in line and 'Tensor"' in line and "torch.cuda." not in line:
                offenders.append(f"{path.parent.name}/{path.name}:{number}")
    assert offenders == []
    assert all('os.environ.get("TTL_DEVICE", "cpu")' in p.read_text(encoding="utf-8")
               for p in FIXTURES.glob("TTL*/*.py") if "device" in p.read_text(encoding="utf-8").lower())


_IDIOM = f"import torch\n{IDIOM}\n"


def test_table_gaps_on_the_is_available_idiom_are_ttl251s_and_measured_cases_ttl262s():
    # The idiom counts as moving to CUDA for TTL251 (it needs no .cuda() elsewhere in the
    # file); where TTL262 has the measurement (integer matmul), it alone reports the call.
    source = _IDIOM + textwrap.dedent("""\
        counts = torch.tensor([1, 2, 3], device=device)
        total = torch.dot(counts, counts)
        pairs = torch.tensor([[1, 2], [3, 4]], device=device)
        product = torch.matmul(pairs, pairs)
    """)
    assert findings(source) == [(4, "TTL251"), (6, "TTL262")]
    assert "`counts` runs on CUDA wherever a GPU is available" in messages(source, "TTL251")[0]


def test_table_gaps_stay_silent_on_the_cpu_and_on_float_twins():
    cpu = "import torch\ncounts = torch.tensor([1, 2, 3], device='cpu')\ntotal = torch.dot(counts, counts)\n"
    fixed = _IDIOM + "counts = torch.tensor([1., 2.], device=device)\ntotal = torch.dot(counts, counts)\n"
    assert findings(cpu) == [] and findings(fixed) == []
