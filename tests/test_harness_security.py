"""``check --confirm`` on hostile code: nothing the user wrote may run (issue 12, items 1-3).

CI runs the linter on untrusted pull requests, so every attack here is a file the linter is
asked to check. The end-to-end tests run the real console script with ``cwd=tmp_path`` and
assert that no marker file appears; the unit tests pin down the snippet guard, the literal
renderer and the saved-script format without torch.
"""
from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
import textwrap
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, List

import libcst as cst
import pytest

from torchtype_lint.checker.check import Settings
from torchtype_lint.harness import allowlist, literals, pool, reproduce
from torchtype_lint.harness.facts import collect
from torchtype_lint.harness.snippet_guard import UnsafeSnippet, verify, verify_script
from torchtype_lint.model.selection import Selection

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures"
CONSOLE_SCRIPT = Path(sys.executable).parent / "torchtype-lint"
needs_torch = pytest.mark.skipif(importlib.util.find_spec("torch") is None,
                                 reason="torch is not installed: --confirm cannot run")

# --------------------------------------------------------------------------- the attacks

#: A shape error the engine reports (TTL507), with the attack inside the reported operation:
#: the right operand's dtype is unknown, so the old synthesizer rebuilt it from its own text.
PROGRAM = "import torch\nx = torch.ones(3, dtype=torch.int64)\na = torch.ones(3, 4)\n{line}\n"
ATTACKS: Dict[str, str] = {
    "torch_os_system": 'c = a @ torch.zeros(5, 2, dtype=torch.os.system("touch {m}"))',
    "torch_builtins_exec": 'c = a @ torch.zeros(5, 2, dtype=torch.builtins.exec("open(\'{m}\', \'w\')"))',
    "torch_builtins_eval": 'c = a @ torch.zeros(5, 2, dtype=torch.builtins.eval("open(\'{m}\', \'w\')"))',
    "getattr_os": 'c = a @ torch.zeros(5, 2, dtype=getattr(torch, "os").system("touch {m}"))',
    "dunder_import": 'c = a @ torch.zeros(5, 2, dtype=__import__("os").system("touch {m}"))',
    "fstring": 'c = a @ torch.zeros(5, 2, dtype=torch.os.system(f"touch {m}"))',
    "nn_module_sys": 'c = a @ torch.zeros(5, 2, dtype=torch.nn.modules.module.sys.modules["os"].system("touch {m}"))',
    "nn_functional_torch_os": 'c = a @ torch.zeros(5, 2, dtype=torch.nn.functional.torch.os.system("touch {m}"))',
    "lambda_default": 'c = a @ torch.zeros(5, 2, dtype=(lambda f=torch.os.system("touch {m}"): f)())',
    "lambda_operand": 'c = x + (lambda f=torch.os.system("touch {m}"): f)()',
    "dtype_comparison": 'ok = x.type(torch.os.system("touch {m}")) == torch.float32',
}
#: Modules a hostile project puts next to the code; each leaves a marker when imported.
SHADOWING_MODULES = ("numpy", "torch", "tempfile", "sitecustomize")
#: Saved reproductions used to put the user's text in a docstring: a triple quote in the
#: reported expression, or in the file name, closed it.
BREAKOUT_EXPRESSION = ("c = a @ torch.zeros(5, 2, device='cpu\"\"\";__import__(\"os\").system("
                       "\"touch M_summary\");\"\"\"')")
BREAKOUT_FILENAME = 'name"""+__import__("os").system("touch M_path")+"""\u2028\x85\nend.py'


def _marker(root: Path, name: str) -> Path:
    return root / f"M_{name}"


@dataclass
class CheckRun:
    root: Path
    findings: List[dict]
    stderr: str


def _check_confirm(root: Path, *extra: str) -> CheckRun:
    """The real console script, run from ``root`` over every ``.py`` file the test wrote
    there (the shadowing modules excepted)."""
    if importlib.util.find_spec("torch") is None:
        pytest.skip("torch is not installed: --confirm cannot run")
    if not CONSOLE_SCRIPT.exists():
        pytest.skip(f"no console script next to {sys.executable}")
    files = sorted(p.name for p in root.glob("*.py") if p.stem not in SHADOWING_MODULES)
    proc = subprocess.run([str(CONSOLE_SCRIPT), "check", "--confirm", "--isolated", "--no-cache",
                           "--output-format", "json", *extra] + files,
                          cwd=root, capture_output=True, text=True, timeout=600)
    return CheckRun(root, json.loads(proc.stdout), proc.stderr)


@dataclass
class AttackRun:
    check: CheckRun
    scripts: List[Path]
    script_runs: List[subprocess.CompletedProcess]
    run_dir: Path


@pytest.fixture(scope="module")
def attacked(tmp_path_factory: pytest.TempPathFactory) -> AttackRun:
    """One ``check --confirm --save-reproductions`` over every attack in the reported operation
    and the files whose text breaks out of a docstring; then the saved breakout scripts run."""
    root = tmp_path_factory.mktemp("attacks")
    for name, line in ATTACKS.items():
        (root / f"{name}.py").write_text(PROGRAM.format(line=line.format(m=_marker(root, name))))
    (root / "breakout.py").write_text(PROGRAM.format(line=BREAKOUT_EXPRESSION))
    (root / BREAKOUT_FILENAME).write_text(PROGRAM.format(line="c = a @ torch.zeros(5, 2)"))
    check = _check_confirm(root, "--save-reproductions", "repros")
    scripts = [Path(root, c.split(": ", 1)[1]) for f in check.findings for c in f["confirmations"]
               if c.startswith("reproduction: ") and f["filename"] in ("breakout.py", BREAKOUT_FILENAME)]
    run_dir = root / "run"
    run_dir.mkdir()
    env = dict(os.environ, TTL_DEVICE="cpu")
    runs = [subprocess.run([sys.executable, str(s)], cwd=run_dir, env=env, capture_output=True,
                           text=True, timeout=300) for s in scripts]
    return AttackRun(check, scripts, runs, run_dir)


@pytest.fixture(scope="module")
def shadowed(tmp_path_factory: pytest.TempPathFactory) -> CheckRun:
    """``check --confirm`` from a project directory holding modules that shadow torch's."""
    root = tmp_path_factory.mktemp("shadowed")
    for module in SHADOWING_MODULES:
        (root / f"{module}.py").write_text(
            f"import pathlib\npathlib.Path({str(_marker(root, module))!r}).write_text('imported')\n")
    (root / "prog.py").write_text(PROGRAM.format(line="c = a @ torch.zeros(5, 2)"))
    return _check_confirm(root)


@needs_torch
@pytest.mark.parametrize("name", sorted(ATTACKS))
def test_attack_in_the_reported_operation_never_runs(attacked: AttackRun, name: str) -> None:
    assert not _marker(attacked.check.root, name).exists(), f"--confirm ran the user's {name} code"
    mine = [f for f in attacked.check.findings if f["filename"].endswith(f"{name}.py")]
    for finding in mine:
        # A finding is still reported; its reproduction is refused or built without the call.
        assert all("os.system" not in c and "exec" not in c for c in finding["confirmations"]), finding


@needs_torch
def test_attacks_reach_the_synthesizer(attacked: AttackRun) -> None:
    # Not vacuous: the engine reports the operations that carry the attacks, and the worker ran.
    flagged = {Path(f["filename"]).stem for f in attacked.check.findings}
    assert {"torch_os_system", "torch_builtins_exec", "torch_builtins_eval",
            "nn_functional_torch_os", "getattr_os", "dunder_import"} <= flagged, flagged
    assert "Confirmed with torch on cpu" in attacked.check.stderr, attacked.check.stderr


@needs_torch
@pytest.mark.parametrize("module", SHADOWING_MODULES)
def test_modules_in_the_project_directory_are_never_imported(shadowed: CheckRun, module: str) -> None:
    assert not _marker(shadowed.root, module).exists(), f"the torch worker imported ./{module}.py"


@needs_torch
def test_confirm_still_confirms_next_to_shadowing_modules(shadowed: CheckRun) -> None:
    assert shadowed.findings, shadowed.stderr
    assert shadowed.findings[0]["confirmations"][0].startswith("confirmed on cpu: RuntimeError"), \
        (shadowed.findings, shadowed.stderr)


@needs_torch
def test_saved_reproductions_cannot_break_out_of_their_header(attacked: AttackRun) -> None:
    assert len(attacked.scripts) == 2, attacked.check.findings
    assert not (attacked.run_dir / "M_summary").exists(), "a triple quote in the expression escaped"
    assert not (attacked.run_dir / "M_path").exists(), "a triple quote in the file name escaped"
    for script, run in zip(attacked.scripts, attacked.script_runs):
        verify_script(script.read_text(encoding="utf-8"), reproduce.SCRIPT_PREFIX)
        # The saved script still reproduces torch's error on its own.
        assert "mat1 and mat2 shapes cannot be multiplied" in run.stderr, (script, run.stderr)


# --------------------------------------------------------------------------- without torch


def _facts(source: str) -> list:
    return list(collect(source, Settings(selection=Selection(select=["TTL"]))).values())


@pytest.mark.parametrize("name", sorted(ATTACKS))
def test_synthesizer_never_copies_an_attack(name: str, tmp_path: Path) -> None:
    source = PROGRAM.format(line=ATTACKS[name].format(m=tmp_path / "M"))
    for facts in _facts(source):
        try:
            repro = reproduce.build(facts)
        except UnsafeSnippet:
            continue
        if repro is not None:
            for word in ("system", "exec", "eval", "builtins", "getattr", "__import__", "lambda",
                         "touch", "open("):
                assert word not in repro.source, repro.source


def _fixture_reproductions() -> List[str]:
    """What ``check --confirm --extend-select TTL9`` builds for every bad fixture."""
    from torchtype_lint.rules.base import get_rule

    settings = Settings(selection=Selection(select=["TTL"], extend_select=["TTL9"]))
    snippets = []
    for path in sorted(FIXTURES.glob("TTL*/bad_*.py")):
        for (code, _, _), facts in collect(path.read_text(), settings).items():
            if get_rule(code).runtime is None:
                continue
            repro = reproduce.build(facts)  # raises UnsafeSnippet if the guard refuses one
            if repro is not None:
                snippets.append(repro.source)
    return snippets


def test_guard_accepts_every_reproduction_of_the_fixtures() -> None:
    snippets = _fixture_reproductions()
    # 96 reproductions were built before the guard existed; none may be lost to it.
    assert len(snippets) >= 96, len(snippets)
    for snippet in snippets:
        verify(snippet)


REJECTED = {
    "torch.os": 'torch.os.system("touch M")',
    "torch.builtins.exec": 'torch.builtins.exec("print(1)")',
    "torch.builtins.eval": 'x = torch.builtins.eval("1")',
    "getattr": 'getattr(torch, "os").system("touch M")',
    "__import__": '__import__("os").system("touch M")',
    "fstring": 'x = f"{torch.os.system(1)}"',
    "nn attribute": "torch.nn.modules.module.sys.exit(1)",
    "functional torch os": 'torch.nn.functional.torch.os.system("touch M")',
    "lambda default": '(lambda f=torch.os.system("touch M"): f)()',
    "lambda": "f = (lambda: 1)",
    "import": "import os",
    "from import": "from os import system",
    "comprehension": "x = [t for t in (1, 2)]",
    "generator": "x = any(t for t in (1, 2))",
    "dunder attribute": "t1 = _tensor(torch.float32, (2,))\nt1.__class__",
    "private attribute": "torch._C",
    "forbidden method": "t1 = _tensor(torch.float32, (2,))\nt1.register_hook(print)",
    "unknown method": "t1 = _tensor(torch.float32, (2,))\nt1.storage()",
    "builtins rebound": "__builtins__ = {}",
    "module rebound": "torch = numpy",
    "helper rebound": "_tensor = print",
    "unknown builtin": 'open("M", "w")',
    "exec": 'exec("1")',
    "for over a call": "for i in range(3):\n    pass",
    "with": 'with open("M"):\n    pass',
    "try": "try:\n    pass\nexcept Exception:\n    pass",
    "def": "def f():\n    pass",
    "class": "class A:\n    pass",
    "del": "x = 1\ndel x",
    "global": "global x",
    "while": "while True:\n    pass",
    "walrus": "y = (x := 1)",
    "starred": "t = (1, 2)\ntorch.zeros(*t)",
    "double star": "k = {}\ntorch.zeros(2, **k)",
    "dict": "k = {1: 2}",
    "long string": "x = '" + "a" * 2000 + "'",
    "str method": '"{0.__class__}".format(1)',
    "attribute of a helper": "_describe.x",
    "torch load": 'torch.load("weights.pt")',
    "numpy load": 'numpy.load("data.npy", allow_pickle=True)',
    "torch.hub": 'torch.hub.load("x", "y")',
    "module as value": "x = torch",
    "unknown torch function": "torch.set_default_tensor_type('os.system')",
    "raise a non-builtin": "raise torch.os.error('x')",
    "unknown module class": "m = torch.nn.modules.module.Module()",
    "assign attribute": "t1 = _tensor(torch.float32, (2,))\nt1.dtype = 1",
    "does not parse": "x = (",
}


@pytest.mark.parametrize("snippet", list(REJECTED.values()), ids=list(REJECTED))
def test_guard_rejects(snippet: str) -> None:
    with pytest.raises(UnsafeSnippet):
        verify(snippet)


def test_guard_accepts_the_reproduction_language() -> None:
    verify(textwrap.dedent("""\
        t1 = _tensor(torch.float32, (8, 128), DEVICE)
        a2 = _array(numpy.float64, (2, 3))
        m3 = torch.nn.Linear(in_features=64, out_features=10).to(torch.float64).to(DEVICE)
        __result__ = m3(t1) @ torch.from_numpy(a2).float()
        t1 += 1
        t1[0] = -float("inf")
        __outcomes__ = []
        for __dtype__ in (torch.float32, torch.int64,):
            __t__ = _tensor(__dtype__, (3,))
            __outcomes__.append(bool(__t__.dtype == 'float32'))
        assert any(__outcomes__), 'message'
        __observed__ = _describe(__result__)
        if isinstance(__result__, torch.Tensor) and __result__.requires_grad and __result__.numel() == 1:
            __result__.backward()
        raise RuntimeError('planted')
        """))


def test_a_rule_hook_that_returns_code_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    from torchtype_lint.rules import base
    from torchtype_lint.rules.base import Rule, RuntimeClaim

    class Hostile(Rule):
        code = "TTL995"
        listens = (cst.Call,)
        runtime = RuntimeClaim("RuntimeError")

        def visit(self, node, ev):  # noqa: ANN001
            self.report(node, "planted")

        @classmethod
        def reproduce(cls, facts):  # noqa: ANN001
            return "torch.os.system('touch M')\n"

    monkeypatch.setitem(base._REGISTRY, "TTL995", Hostile)
    found = collect("import torch\nx = torch.zeros(2)\n", Settings(selection=Selection(select=["TTL995"])))
    with pytest.raises(UnsafeSnippet):
        reproduce.build(next(iter(found.values())))


# --------------------------------------------------------------------------- pieces


def test_literals_are_rendered_from_their_values() -> None:
    module = cst.parse_module("")
    expression = cst.parse_expression("[1, # a comment\n -2.5, 'a\"\"\"b', (True, None), 1j]")
    value = literals.literal_value(expression, module)
    assert literals.render(value) == "[1, -2.5, 'a\"\"\"b', (True, None), complex(0.0, 1.0)]"
    assert literals.render(float("inf")) == 'float("inf")' and literals.render(float("nan")) == 'float("nan")'
    for code in ('torch.os.system("x")', "(lambda: 1)()", 'f"{x}"', "x", "[x]", "-x"):
        with pytest.raises(literals.Unrenderable):
            literals.literal_value(cst.parse_expression(code), module)
    for value in (object(), "a" * 500, 10 ** 50, list(range(100)), print):
        with pytest.raises(literals.Unrenderable):
            literals.render(value)


def test_operators_come_from_a_table_not_the_source() -> None:
    # The operator node of `a @ # c <newline> b` carries the comment in its whitespace.
    node = cst.parse_expression("(a @ # c\n b)")
    assert "# c" in cst.Module(body=[]).code_for_node(node.operator)
    assert literals.operator(node.operator) == "@"
    assert literals.operator(cst.parse_expression("a is not b").comparisons[0].operator) == "is not"


def test_allowlist_holds_only_known_names() -> None:
    functions = allowlist.functions()
    assert "torch.matmul" in functions and "torch.nn.Linear" in functions
    assert "torch.nn.functional.cross_entropy" in functions and "numpy.arange" in functions
    for name in ("torch.os.system", "torch.builtins.exec", "torch.load", "numpy.load",
                 "torch.hub.load", "torch.set_default_tensor_type", "torch.nn.modules.module.sys"):
        assert name not in functions and name not in allowlist.constants(), name
    assert all(not part.startswith("_") for name in functions for part in name.split("."))
    assert not allowlist.methods() & allowlist.FORBIDDEN_METHODS


def test_saved_scripts_keep_user_text_in_comments() -> None:
    hostile = 'x"""\n__import__("os").system("touch M")\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029#'
    line = reproduce.comment_line(hostile)
    assert line.startswith("# ") and len(line.splitlines()) == 1 and line.isprintable()
    script = line + "\n" + reproduce.SCRIPT_PREFIX + "__result__ = 1\n"
    verify_script(script, reproduce.SCRIPT_PREFIX)
    for bad in ("x = 1\n" + reproduce.SCRIPT_PREFIX,                      # code before the prelude
                "# a\u2028x = 1\n" + reproduce.SCRIPT_PREFIX,              # a raw line separator
                "# ok\n" + reproduce.SCRIPT_PREFIX + "import os\n"):       # code after it
        with pytest.raises(UnsafeSnippet):
            verify_script(bad, reproduce.SCRIPT_PREFIX)


def test_worker_starts_isolated() -> None:
    command = pool.worker_command("cpu", 1, 60.0)
    assert command[:3] == [sys.executable, "-I", "-B"] and "-m" not in command
    # The package's directory goes last on sys.path, never before the standard library.
    assert "sys.path.append(" in pool.BOOTSTRAP and "insert" not in pool.BOOTSTRAP
