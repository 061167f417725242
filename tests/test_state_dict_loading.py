"""TTL528 and its facts: what ``model.state_dict()`` holds and what ``load_state_dict`` refuses.

- the entries the engine says a module's state dict holds, with their shapes (``state_shapes``):
  each is in the real state dict with that shape, for the layers whose sizes their constructor
  arguments fix, in ``nn.Sequential``/``nn.ModuleList`` and in the file's own module classes;
- an entry of another shape is refused with ``strict=True`` and ``strict=False`` alike (and with
  ``assign=True``), in torch's words (``size_mismatch_message``), except a 1-dim entry for a 0-dim
  one, which torch loads as its first element (``loads_with_size_mismatch``);
- programs: the state dict of another module, kept in a checkpoint dict, read back by key, in a
  function, in a loop over ``ckpt.items()``, reaches ``load_state_dict`` (TTL528 on the ``# <-``
  line, the quote being what torch raised here) and twins and look-alikes that run stay silent:
  a filtered dict, a dict changed in place or handed to code not followed, a caught error, a
  submodule set only on a branch.
"""
from __future__ import annotations

import textwrap
from typing import List, Tuple

import pytest
from knowledge_truth import engine_globals
from torch_runs import quotes_what_torch_raised, raised_as_said, run_in_torch

from torchtype_lint.checker.check import Settings, check_source
from torchtype_lint.knowledge.module_state import (
    loads_with_size_mismatch, size_mismatch_message, state_entries,
)
from torchtype_lint.model.selection import Selection

HEADER = "import sys\nimport torch\nimport torch.nn as nn\n"
HEADER_LINES = HEADER.count("\n")

#: ``sd = <module>.state_dict()``: every entry the engine knows is in the real dict, same shape.
MODULES = {
    "linear": "nn.Linear(4, 3)",
    "linear_no_bias": "nn.Linear(4, 3, bias=False)",
    "linear_no_bias_positional": "nn.Linear(4, 3, False)",
    "conv2d": "nn.Conv2d(3, 8, 3)",
    "conv1d_groups_no_bias": "nn.Conv1d(4, 8, (5,), groups=2, bias=False)",
    "conv_bias_positional": "nn.Conv2d(3, 8, 3, 1, 0, 1, 1, False)",
    "conv_transpose": "nn.ConvTranspose2d(8, 4, 2, stride=2, groups=2)",
    "conv3d": "nn.Conv3d(2, 4, (1, 2, 3))",
    "batchnorm": "nn.BatchNorm2d(6)",
    "batchnorm_no_affine": "nn.BatchNorm1d(6, affine=False)",
    "batchnorm_no_stats": "nn.BatchNorm1d(6, track_running_stats=False)",
    "batchnorm_positional_flags": "nn.BatchNorm1d(6, 1e-5, 0.1, False, False)",
    "layernorm": "nn.LayerNorm(5)",
    "layernorm_tuple": "nn.LayerNorm((4, 5))",
    "layernorm_no_bias": "nn.LayerNorm(5, bias=False)",
    "layernorm_no_affine": "nn.LayerNorm(5, elementwise_affine=False)",
    "groupnorm": "nn.GroupNorm(2, 6)",
    "groupnorm_no_affine": "nn.GroupNorm(2, 6, affine=False)",
    "embedding": "nn.Embedding(10, 3)",
    "sequential": "nn.Sequential(nn.Conv2d(3, 4, 3), nn.BatchNorm2d(4), nn.ReLU(), nn.Flatten(), nn.Linear(4, 2))",
    "module_list": "nn.ModuleList([nn.Linear(2, 3), nn.Dropout(), nn.Linear(3, 4)])",
    "nested": "nn.Sequential(nn.Sequential(nn.Linear(2, 3)), nn.ModuleList([nn.LayerNorm(3)]))",
}
USER_CLASS = """
class Block(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.conv = nn.Conv2d(c, c, 3, padding=1)
        self.norm = nn.GroupNorm(1, c)

class Net(nn.Module):
    def __init__(self, n, extra=False):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 8, 3), nn.ReLU())
        self.blocks = nn.ModuleList([Block(8), Block(8)])
        if extra:
            self.extra = nn.Linear(8, 8)
        self.head = nn.Linear(8, n)
        self.scale = nn.Parameter(torch.ones(3))

class Wider(Net):
    def __init__(self):
        super().__init__(5)
        self.tail = nn.BatchNorm1d(5)
"""


def _claimed(source: str) -> List[Tuple[str, Tuple[int, ...]]]:
    origin = state_entries(engine_globals(source)["sd"])
    assert origin is not None and origin.shapes is not None
    return list(origin.shapes)


def _real(source: str) -> dict:
    import torch  # noqa: F401 - the programs use it

    namespace: dict = {}
    exec(compile(source, "<case>", "exec"), namespace)  # noqa: S102 - test tables only
    return {key: tuple(value.shape) for key, value in namespace["sd"].items()}


@pytest.mark.parametrize("name", sorted(MODULES))
def test_state_shapes_are_in_the_real_state_dict(name: str) -> None:
    pytest.importorskip("torch")
    source = HEADER + f"sd = {MODULES[name]}.state_dict()\n"
    claimed, real = _claimed(source), _real(source)
    for key, shape in claimed:
        assert real.get(key) == shape, (name, key, shape, real)


@pytest.mark.parametrize("built", ["Net(3)", "Net(3, extra=True)", "Wider()", "Block(4)"])
def test_state_shapes_of_the_files_own_modules(built: str) -> None:
    pytest.importorskip("torch")
    source = HEADER + USER_CLASS + f"sd = {built}.state_dict()\n"
    claimed, real = dict(_claimed(source)), _real(source)
    assert claimed
    for key, shape in claimed.items():
        assert real.get(key) == shape, (built, key, shape, real)
    assert not any(key.startswith("extra.") for key in claimed)  # set on a branch: may be missing


def test_the_layers_known_are_known_whole() -> None:
    """For a layer whose state the engine knows, it knows every entry (nothing forgotten that
    a load would compare)."""
    pytest.importorskip("torch")
    for name in sorted(MODULES):
        source = HEADER + f"sd = {MODULES[name]}.state_dict()\n"
        assert dict(_claimed(source)) == _real(source), name


LOADS = [  # (saved, current, keywords)
    ((3, 4), (5, 4), ""), ((3, 4), (5, 4), "strict=False"), ((3, 4), (5, 4), "assign=True"),
    ((3,), (3, 1), "strict=False"), ((), (1,), "strict=False"), ((1,), (), "strict=False"),
    ((2, 2), (2, 2), ""),
]


def test_load_refuses_other_shapes_as_said() -> None:
    programs = {}
    for i, (saved, current, keywords) in enumerate(LOADS):
        programs[str(i)] = textwrap.dedent(f"""
            import torch
            import torch.nn as nn
            m = nn.Module()
            m.register_buffer("entry", torch.zeros({current}))
            m.load_state_dict({{"entry": torch.zeros({saved})}}{", " + keywords if keywords else ""})
            """)
    results = run_in_torch(programs)
    for i, (saved, current, keywords) in enumerate(LOADS):
        outcome = results[str(i)]
        if loads_with_size_mismatch(saved, current):
            assert outcome.startswith("RuntimeError: Error(s) in loading state_dict"), (saved, current, outcome)
            assert size_mismatch_message("entry", saved, current) in outcome, (saved, current, outcome)
        else:
            assert outcome == "", (saved, current, keywords, outcome)


def findings(body: str) -> List[Tuple[int, str, str]]:
    settings = Settings(selection=Selection(select=["TTL"]))
    program = HEADER + textwrap.dedent(body).lstrip("\n")
    return [(f.line - HEADER_LINES, f.code, f.message) for f in check_source(program, "program.py", settings).findings]


def marked_line(body: str) -> int:
    lines = textwrap.dedent(body).lstrip("\n").splitlines()
    return next(i for i, line in enumerate(lines, 1) if "# <-" in line)


RESUME = """
class Segmenter(nn.Module):
    def __init__(self, num_classes, ch=8):
        super().__init__()
        self.encoder = nn.Sequential(nn.Conv2d(3, ch, 3, 2, 1), nn.ReLU())
        self.clf = nn.Conv2d(ch, num_classes, 3, padding=1)

def saved():
    return {"ckpt.pth": {"segmenter": Segmenter(num_classes=40).state_dict(), "epoch": 3}}

def load(path, parts, store):
    if path in store:
        ckpt = store[path]
        for name, part in parts.items():
            if name in ckpt:
                {load}

def main():
    net = Segmenter(num_classes={classes})
    load("ckpt.pth", {"segmenter": net}, saved())

main()
"""
STRICT_LOAD = "part.load_state_dict(ckpt[name])  # <-"
FILTERED_LOAD = ("own = part.state_dict()\n                "
                 "part.load_state_dict({n: t for n, t in ckpt[name].items() if t.shape == own[n].shape}, "
                 "strict=False)")
NON_STRICT_LOAD = "part.load_state_dict(ckpt[name], strict=False)  # <-"

def _resume(load: str, classes: int) -> str:
    return RESUME.replace("{load}", load).replace("{classes}", str(classes))


CASES = {  # name -> (bad, good)
    "checkpoint_in_a_function_loop": (_resume(STRICT_LOAD, 2),
                                      _resume(FILTERED_LOAD, 2)),
    "non_strict_load": (_resume(NON_STRICT_LOAD, 2),
                        _resume(NON_STRICT_LOAD, 40).replace("  # <-", "")),
    "sequential_head_resized": ("""
        teacher = nn.Sequential(nn.Linear(16, 64), nn.LayerNorm(64), nn.ReLU(), nn.Linear(64, 1))
        student = nn.Sequential(nn.Linear(16, 32), nn.LayerNorm(32), nn.ReLU(), nn.Linear(32, 1))
        student.load_state_dict(teacher.state_dict())  # <-
        """, """
        teacher = nn.Sequential(nn.Linear(16, 32), nn.LayerNorm(32), nn.ReLU(), nn.Linear(32, 1))
        student = nn.Sequential(nn.Linear(16, 32), nn.LayerNorm(32), nn.ReLU(), nn.Linear(32, 1))
        student.load_state_dict(teacher.state_dict())
        """),
}
SILENT = {
    "entries_deleted_in_place": """
        a, b = nn.Linear(4, 3), nn.Linear(4, 5)
        sd = a.state_dict()
        ckpt = {"model": sd}
        del sd["weight"], sd["bias"]
        b.load_state_dict(ckpt["model"], strict=False)
        """,
    "entries_replaced_through_the_checkpoint": """
        a, b = nn.Linear(4, 3), nn.Linear(4, 5)
        sd = a.state_dict()
        ckpt = {"model": sd}
        ckpt["model"]["weight"] = torch.zeros(5, 4)
        ckpt["model"]["bias"] = torch.zeros(5)
        b.load_state_dict(sd)
        """,
    "entries_popped": """
        a, b = nn.Linear(4, 3), nn.Linear(4, 5)
        sd = a.state_dict()
        sd.pop("weight")
        sd.pop("bias")
        b.load_state_dict(sd, strict=False)
        """,
    "handed_to_code_not_followed": """
        import types
        lib = types.SimpleNamespace(strip=lambda sd: [sd.pop(k) for k in list(sd)])
        a, b = nn.Linear(4, 3), nn.Linear(4, 5)
        sd = a.state_dict()
        lib.strip(sd)
        b.load_state_dict(sd, strict=False)
        """,
    "error_caught": """
        a, b = nn.Linear(4, 3), nn.Linear(4, 5)
        try:
            b.load_state_dict(a.state_dict())
        except RuntimeError:
            b.load_state_dict({k: v for k, v in a.state_dict().items() if v.shape == b.state_dict()[k].shape},
                              strict=False)
        """,
    "submodule_set_on_a_branch": USER_CLASS + """
a = Net(3, extra=len(sys.argv) > 5)
b = Net(3, extra=len(sys.argv) < 5)
b.extra = nn.Linear(8, 4) if len(sys.argv) < 5 else None
b.load_state_dict(a.state_dict(), strict=False)
""",
    "nothing_kept_for_the_wider_norm": """
        a = nn.Sequential(nn.Linear(8, 8), nn.BatchNorm1d(8, affine=False, track_running_stats=False))
        b = nn.Sequential(nn.Linear(8, 8), nn.BatchNorm1d(16, affine=False, track_running_stats=False))
        b.load_state_dict(a.state_dict())
        """,
    "module_replaced_after_the_state_was_taken": """
        a, b = nn.Sequential(nn.Linear(4, 3)), nn.Sequential(nn.Linear(4, 3))
        sd = a.state_dict()
        a[0] = nn.Linear(4, 7)
        b.load_state_dict(sd)
        """,
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_bad_program_reported_on_its_line(name: str) -> None:
    bad = CASES[name][0]
    assert (marked_line(bad), "TTL528") in [(line, code) for line, code, _ in findings(bad)]


@pytest.mark.parametrize("name", sorted(CASES))
def test_fixed_twin_is_silent(name: str) -> None:
    assert findings(CASES[name][1]) == []


@pytest.mark.parametrize("name", sorted(SILENT))
def test_look_alikes_are_silent(name: str) -> None:
    assert findings(SILENT[name]) == []


def test_every_case_is_true_in_torch() -> None:
    programs = {}
    for name, (bad, good) in CASES.items():
        programs[name + ":bad"] = HEADER + textwrap.dedent(bad).lstrip("\n")
        programs[name + ":good"] = HEADER + textwrap.dedent(good).lstrip("\n")
    for name, body in SILENT.items():
        programs[name + ":silent"] = HEADER + textwrap.dedent(body).lstrip("\n")
    results = run_in_torch(programs)
    for name in SILENT:
        assert results[name + ":silent"] == "", (name, results[name + ":silent"])
    for name, (bad, _) in CASES.items():
        outcome = results[name + ":bad"]
        assert raised_as_said("TTL528", "size mismatch for", outcome), (name, outcome)
        assert results[name + ":good"] == "", (name, results[name + ":good"])
        message = next(m for line, code, m in findings(bad) if code == "TTL528")
        assert quotes_what_torch_raised(message, outcome), (name, message, outcome)
