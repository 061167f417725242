"""Packaging: what the tests import is installed by the `test` extra; the linter stays torch-free."""
from __future__ import annotations

import ast
import re
import subprocess
import sys
from importlib import metadata
from pathlib import Path

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

REPO = Path(__file__).resolve().parent.parent
PYPROJECT = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))


def _name(requirement: str) -> str:
    return re.split(r"[\s<>=!~;\[(]", requirement.strip(), maxsplit=1)[0].lower().replace("_", "-")


def _closure(names):
    """The distributions the given ones install, transitively (as installed here)."""
    seen, todo = set(), list(names)
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        try:
            requires = metadata.requires(name) or []
        except metadata.PackageNotFoundError:
            continue
        todo.extend(_name(r) for r in requires if "extra ==" not in r)
    return seen


def _imported_modules(paths):
    modules = set()
    for path in paths:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                modules.update(alias.name.split(".")[0] for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                modules.add(node.module.split(".")[0])
    return modules


def test_test_extra_installs_everything_the_tests_import():
    extra = [_name(r) for r in PYPROJECT["project"]["optional-dependencies"]["test"]]
    runtime = [_name(r) for r in PYPROJECT["project"]["dependencies"]]
    installed = _closure(extra + runtime + ["pytest"])
    local = {p.stem for p in (REPO / "tests").glob("*.py")} | {"torchtype_lint", "tomli"}
    providers = metadata.packages_distributions()
    missing = {}
    for module in sorted(_imported_modules((REPO / "tests").glob("*.py"))):
        if module in sys.stdlib_module_names or module in local:
            continue
        dists = {d.lower().replace("_", "-") for d in providers.get(module, [])}
        if not dists & installed:
            missing[module] = sorted(dists) or ["not installed"]
    assert missing == {}, f"imported by tests but not installed by the test extra: {missing}"


def test_required_test_dependencies_are_declared():
    extra = {_name(r) for r in PYPROJECT["project"]["optional-dependencies"]["test"]}
    for name in ("pytest", "torch", "numpy", "jaxtyping", "flake8", "hypothesis", "jsonschema", "expecttest",
                 "pygls", "pytest-lsp", "pre-commit", "pytest-asyncio"):
        assert name in extra
    assert "torch==2.13.0" in PYPROJECT["project"]["optional-dependencies"]["test"]
    assert {_name(r) for r in PYPROJECT["project"]["optional-dependencies"]["lsp"]} == {"pygls"}
    runtime = {_name(r) for r in PYPROJECT["project"]["dependencies"]}
    assert "torch" not in runtime and "numpy" not in runtime


def test_the_linter_never_imports_torch_or_numpy(tmp_path):
    # Lint a torch-heavy file and explain it in a fresh interpreter, then look at sys.modules.
    (tmp_path / "t.py").write_text("import numpy as np\nimport torch\nx = torch.from_numpy(np.ones(3))\nx.float()\n")
    code = (
        "import sys\n"
        "from torchtype_lint.cli.main import main\n"
        f"main(['check', '--isolated', '--no-cache', '-j', '1', {str(tmp_path / 't.py')!r}])\n"
        f"main(['explain', {str(tmp_path / 't.py')!r}])\n"
        "main(['check', '--isolated', '--no-cache', '--output-format', 'sarif', '-j', '1', "
        f"{str(tmp_path / 't.py')!r}])\n"
        "import torchtype_lint.frontends.flake8_plugin, torchtype_lint.edit.fix, torchtype_lint.report.rule_docs\n"
        "bad = sorted(m for m in sys.modules if m.split('.')[0] in ('torch', 'numpy'))\n"
        "print('IMPORTED', bad)\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert "IMPORTED []" in proc.stdout, proc.stdout + proc.stderr


def test_wheel_ships_one_package_and_no_top_level_rules():
    wheel = PYPROJECT["tool"]["hatch"]["build"]["targets"]["wheel"]
    assert wheel["packages"] == ["torchtype_lint"]
    assert PYPROJECT["project"]["entry-points"]["flake8.extension"] == {
        "TTL": "torchtype_lint.frontends.flake8_plugin:TorchTypeChecker"}
    assert PYPROJECT["project"]["scripts"] == {"torchtype-lint": "torchtype_lint.cli.main:main"}


def test_confirm_runs_from_a_non_editable_install(tmp_path):
    # `pip install .` then `torchtype-lint confirm` found no fixtures: they lay only beside the
    # package in a checkout. The wheel carries them; the working directory is never searched.
    wheels = tmp_path / "wheels"
    subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation",
                    "-w", str(wheels), str(REPO)], check=True, capture_output=True, timeout=300)
    site = tmp_path / "site"
    import zipfile

    with zipfile.ZipFile(next(wheels.glob("*.whl"))) as wheel:
        wheel.extractall(site)
    shipped = sorted(p.relative_to(site / "torchtype_lint" / "fixtures").as_posix()
                     for p in (site / "torchtype_lint" / "fixtures").rglob("*.py"))
    assert shipped == sorted(p.relative_to(REPO / "fixtures").as_posix() for p in (REPO / "fixtures").rglob("*.py"))
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "fixtures" / "TTL101").mkdir(parents=True)  # a cwd's fixtures are never run
    (elsewhere / "fixtures" / "TTL101" / "bad_planted.py").write_text("raise SystemExit('ran the cwd')\n")
    code = ("import sys; sys.path.insert(0, sys.argv[1]); import torchtype_lint; "
            "assert torchtype_lint.__file__.startswith(sys.argv[1]), torchtype_lint.__file__; "
            "from torchtype_lint.cli.main import main; "
            "sys.exit(main(['confirm', '--rule', 'TTL101', '--device', 'cpu', '--no-lint']))")
    proc = subprocess.run([sys.executable, "-c", code, str(site)], cwd=elsewhere,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "no fixtures/ directory" not in proc.stderr
    ours = len(list((REPO / "fixtures" / "TTL101").glob("*.py")))  # the planted one makes it one more
    assert f"{ours} fixtures per device" in proc.stdout and "TTL101  confirmed" in proc.stdout
