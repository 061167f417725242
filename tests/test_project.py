"""Project-wide analysis (issue 15): a value made in one module of the user's project is known
where another module uses it.

The fixture projects under ``fixtures/projects/<name>/{bug,fixed}`` (absolute imports, relative
imports, a package's ``__init__`` re-export and ``import pkg.mod as m``, a src layout, an import
cycle, a name shadowed by a local binding, a function of another module that fails only with the
importer's arguments, reported at the importer's call) are checked through the console script and flake8
(the language server: tests/test_lsp.py); each bug variant is also run with torch, which must
fail the way the finding says, and each fixed twin must run clean. The project whose importer is
a notebook (flake8 reads no notebooks) has its own tests: tests/test_project_notebooks.py.
"""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import List, Set, Tuple

import pytest

from torchtype_lint.checker.check import Settings, check_source
from torchtype_lint.source.project.imports import ProjectImports

REPO = Path(__file__).resolve().parent.parent
PROJECTS = REPO / "fixtures" / "projects"
#: Projects whose importer is a notebook (tests/test_project_notebooks.py).
NOTEBOOK_PROJECTS = ("notebook",)
NAMES = sorted(p.name for p in PROJECTS.iterdir() if p.is_dir() and p.name not in NOTEBOOK_PROJECTS)
CLI = [sys.executable, "-m", "torchtype_lint"]
#: How each bug project is run as a program (the entry point and the extra sys.path entries).
ENTRY = {"absolute": ("train.py", ""), "relative": ("-m pkg.train", ""), "reexport": ("train.py", ""),
         "src_layout": ("scripts/train.py", "src"), "cycle": ("model.py", ""), "shadowed": ("train.py", ""),
         "call_site": ("train.py", "")}

Expected = Set[Tuple[str, int, str]]


def _expected(root: Path) -> Expected:
    found = set()
    for path in sorted(root.rglob("*.py")):
        for number, line in enumerate(path.read_text().splitlines(), start=1):
            match = re.search(r"# expect: (TTL\d{3})", line)
            if match:
                found.add((path.relative_to(root).as_posix(), number, match.group(1)))
    return found


def _cli_findings(root: Path, *extra: str) -> Expected:
    run = subprocess.run(CLI + ["check", "--no-cache", "--output-format", "json", *extra, str(root)],
                         capture_output=True, text=True, cwd=REPO, timeout=120)
    assert run.returncode in (0, 1), run.stderr
    return {(Path(f["filename"]).resolve().relative_to(root).as_posix(), f["location"]["row"], f["code"])
            for f in json.loads(run.stdout) if "cell" not in f}  # notebooks: test_project_notebooks.py


def test_every_project_has_a_bug_and_a_fixed_twin():
    assert set(NAMES) == set(ENTRY)
    for name in NAMES:
        assert _expected(PROJECTS / name / "bug"), name
        assert not _expected(PROJECTS / name / "fixed"), name


def _all_expected() -> Expected:
    return {(f"{name}/{variant}/{path}", row, code) for name in NAMES for variant in ("bug", "fixed")
            for path, row, code in _expected(PROJECTS / name / variant)}


def test_cli_catches_each_bug_across_files_and_each_fixed_twin_is_silent():
    # One run over every project: each file finds its own project root.
    assert _cli_findings(PROJECTS) == _all_expected()


def test_flake8_reads_the_imported_modules_from_disk():
    pytest.importorskip("flake8")
    run = subprocess.run([sys.executable, "-m", "flake8", "--select=TTL", "."],
                         capture_output=True, text=True, cwd=PROJECTS, timeout=300)
    found = set()
    for line in run.stdout.splitlines():
        path, row, _, rest = line.split(":", 3)
        found.add((Path(path).as_posix().removeprefix("./"), int(row), rest.split()[0]))
    assert found == _all_expected(), run.stdout + run.stderr


#: Runs each (key, directory, entry, extra path) case as ``python ENTRY`` would in that directory,
#: in a child forked from one process that imported torch once (a fresh interpreter per case
#: costs seconds of torch import); prints {key: [exit code, traceback]} as JSON.
_RUN_CASES = r"""
import json, os, runpy, sys, traceback
import torch  # noqa: F401 - loaded once, inherited by every case
results = {}
for key, directory, entry, extra in json.loads(sys.argv[1]):
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read_end)
        code, error = 0, ""
        try:
            os.chdir(directory)
            args = entry.split()
            module = args[1] if args[0] == "-m" else None
            # What `python ENTRY` puts first on sys.path: the cwd for -m, else the script's folder.
            sys.path[:0] = [directory if module else os.path.dirname(os.path.abspath(args[0]))] + \
                ([os.path.join(directory, extra)] if extra else [])
            sys.argv = [module or args[0]]
            if module:
                runpy.run_module(module, run_name="__main__", alter_sys=True)
            else:
                runpy.run_path(args[0], run_name="__main__")
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
        except BaseException:
            code, error = 1, traceback.format_exc()
        os.write(write_end, json.dumps([code, error]).encode())
        os._exit(0)
    os.close(write_end)
    data = b""
    while True:
        chunk = os.read(read_end, 1 << 16)
        if not chunk:
            break
        data += chunk
    os.close(read_end)
    os.waitpid(pid, 0)
    results[key] = json.loads(data)
print(json.dumps(results))
"""


@pytest.fixture(scope="module")
def torch_runs(tmp_path_factory) -> dict:
    """(project, variant) -> [exit code, traceback] of running it with torch."""
    pytest.importorskip("torch")
    if not hasattr(os, "fork"):
        pytest.skip("the cases run in forked children")
    base = tmp_path_factory.mktemp("torch-runs")
    cases = []
    for name in NAMES:
        entry, extra = ENTRY[name]
        for variant in ("bug", "fixed"):
            copy = base / name / variant
            shutil.copytree(PROJECTS / name / variant, copy)
            cases.append((f"{name}/{variant}", str(copy), entry, extra))
    run = subprocess.run([sys.executable, "-c", _RUN_CASES, json.dumps(cases)], capture_output=True, text=True,
                         timeout=600, env=dict(os.environ, PYTHONPATH=""))
    assert run.returncode == 0, run.stderr
    return json.loads(run.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("name", NAMES)
def test_torch_fails_on_each_bug_project_and_runs_each_fixed_twin(name, torch_runs):
    code, error = torch_runs[f"{name}/bug"]
    assert code != 0 and "RuntimeError" in error and "dtype" in error, error
    code, error = torch_runs[f"{name}/fixed"]
    assert code == 0, error


def test_the_message_and_the_reports_name_the_file_of_the_root_cause(tmp_path):
    root = PROJECTS / "reexport" / "bug"
    concise = subprocess.run(CLI + ["check", "--no-cache", str(root / "train.py")], capture_output=True,
                             text=True, cwd=REPO, timeout=120).stdout
    assert "(since pkg/batches.py:6)" in concise
    report = json.loads(subprocess.run(CLI + ["check", "--no-cache", "--output-format", "json",
                                              str(root / "train.py")],
                                       capture_output=True, text=True, cwd=REPO, timeout=120).stdout)
    assert "since pkg/batches.py:6: `torch.randint(0, 10, (n, 8))`" in report[0]["message"]
    [step] = report[0]["provenance"]
    assert Path(step["filename"]).resolve() == root / "pkg" / "batches.py" and step["row"] == 6
    sarif = json.loads(subprocess.run(CLI + ["check", "--no-cache", "--output-format", "sarif",
                                             str(root / "train.py")],
                                      capture_output=True, text=True, cwd=REPO, timeout=120).stdout)
    related = sarif["runs"][0]["results"][0]["relatedLocations"][0]["physicalLocation"]
    assert related["artifactLocation"]["uri"].endswith("reexport/bug/pkg/batches.py")
    assert related["region"]["startLine"] == 6


def test_an_edit_to_an_imported_module_changes_the_importers_cached_result(tmp_path):
    project = tmp_path / "proj"
    shutil.copytree(PROJECTS / "absolute" / "fixed", project)
    cache = tmp_path / "cache"

    def codes() -> List[str]:
        run = subprocess.run(CLI + ["check", "--cache-dir", str(cache), "--output-format", "json", "train.py"],
                             capture_output=True, text=True, cwd=project, timeout=120)
        return [f["code"] for f in json.loads(run.stdout)]

    assert codes() == []
    assert codes() == []  # answered from the cache
    data = project / "data.py"
    data.write_text(data.read_text().replace(".float()", ""))
    assert codes() == ["TTL202"]
    assert codes() == ["TTL202"]
    data.write_text(data.read_text().replace("(n, 8))", "(n, 8)).float()"))
    assert codes() == []
    # A module created where an import looked for it counts too: the cache knows the importer
    # looked for it.
    train = project / "train.py"
    train.write_text(train.read_text() + "from helpers import make\nmore = model(make(2))\n")
    assert codes() == []
    assert codes() == []
    (project / "helpers.py").write_text("import torch\ndef make(n):\n    return torch.randint(0, 3, (n, 8))\n")
    assert codes() == ["TTL202"]


def _write(root: Path, files: dict) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


BATCH = "import torch\ndef make_batch(n):\n    return torch.randint(0, 10, (n, 8))\n"
USE = "import torch.nn as nn\nfrom {module} import make_batch\nlogits = nn.Linear(8, 2)(make_batch(4))\n"


def _codes(path: Path, settings: Settings = None, overlay: dict = None) -> List[str]:
    result = check_source(path.read_text(), str(path), settings, overlay=overlay)
    return [f.code for f in result.findings]


def test_configured_src_directories_are_searched(tmp_path):
    _write(tmp_path, {"pyproject.toml": "[project]\nname = 'x'\n", "lib/batches.py": BATCH,
                      "app/train.py": USE.format(module="batches")})
    assert _codes(tmp_path / "app" / "train.py") == []  # lib/ is not a root by default
    settings = Settings(source_roots=(str(tmp_path / "lib"),))
    assert _codes(tmp_path / "app" / "train.py", settings) == ["TTL202"]
    (tmp_path / "pyproject.toml").write_text("[tool.torchtype-lint]\nsrc = ['lib']\n")
    assert _cli_findings(tmp_path / "app") == {("train.py", 3, "TTL202")}


def test_a_symlinked_module_is_never_followed(tmp_path):
    outside = tmp_path / "outside"
    project = tmp_path / "project"
    _write(outside, {"batches.py": BATCH})
    _write(project, {"pyproject.toml": "", "train.py": USE.format(module="batches"),
                     "real.py": BATCH, "alias_user.py": USE.format(module="alias")})
    (project / "batches.py").symlink_to(outside / "batches.py")
    (project / "alias.py").symlink_to(project / "real.py")  # even to a file inside the project
    assert _codes(project / "train.py") == []
    assert _codes(project / "alias_user.py") == []


def test_a_relative_import_climbing_out_of_the_project_is_not_followed(tmp_path):
    _write(tmp_path, {"batches.py": BATCH, "project/pyproject.toml": "", "project/pkg/__init__.py": "",
                      "project/pkg/train.py": USE.format(module="...batches")})
    imports = ProjectImports(str(tmp_path / "project" / "pkg" / "train.py"))
    assert imports.relative(imports.path, 3, "batches") is None
    assert _codes(tmp_path / "project" / "pkg" / "train.py") == []


def test_nothing_is_executed_and_bad_modules_are_unknown(tmp_path):
    marker = tmp_path / "executed"
    _write(tmp_path, {
        "pyproject.toml": "",
        "side.py": f"import torch\nopen({str(marker)!r}, 'w').write('x')\n" + BATCH,
        "broken.py": "import torch\ndef make_batch(n:\n",
        "huge.py": BATCH + "x = 1\n" * 600_000,
        "use_side.py": USE.format(module="side"),
        "use_broken.py": USE.format(module="broken"),
        "use_huge.py": USE.format(module="huge"),
    })
    assert _codes(tmp_path / "use_side.py") == ["TTL202"]
    assert not marker.exists()
    assert _codes(tmp_path / "use_broken.py") == []
    assert _codes(tmp_path / "use_huge.py") == []


def test_a_longer_import_cycle_ends_and_stays_unknown(tmp_path):
    _write(tmp_path, {
        "pyproject.toml": "",
        "a.py": "from b import make_batch\nfrom c import other\n",
        "b.py": "from c import other\n" + BATCH,
        "c.py": "from a import make_batch as other\n",
        "main.py": "import torch.nn as nn\nfrom a import make_batch, other\n"
                   "x = nn.Linear(8, 2)(make_batch(4))\ny = nn.Linear(8, 2)(other(4))\n",
    })
    result = check_source((tmp_path / "main.py").read_text(), str(tmp_path / "main.py"))
    # make_batch is known through a -> b; ``other`` comes back around the cycle: unknown.
    assert [(f.code, f.line) for f in result.findings] == [("TTL202", 3)]


def test_the_editors_unsaved_text_wins_over_the_file_on_disk(tmp_path):
    _write(tmp_path, {"pyproject.toml": "", "batches.py": BATCH.replace("))", ")).float()"),
                      "train.py": USE.format(module="batches")})
    assert _codes(tmp_path / "train.py") == []
    unsaved = {str(tmp_path.resolve() / "batches.py"): BATCH}
    assert _codes(tmp_path / "train.py", overlay=unsaved) == ["TTL202"]


def test_dependencies_name_every_file_read_or_looked_for(tmp_path):
    _write(tmp_path, {"pyproject.toml": "", "batches.py": BATCH, "train.py": USE.format(module="batches")
                      + "import not_here\nimport os\n"})
    result = check_source((tmp_path / "train.py").read_text(), str(tmp_path / "train.py"))
    root = tmp_path.resolve()
    assert result.dependencies[str(root / "batches.py")] is not None
    assert result.dependencies[str(root / "not_here.py")] is None
    assert not any("os" in Path(p).parts[-1] for p in result.dependencies)  # the stdlib is not looked up


def test_assigning_a_project_modules_global_is_seen_by_its_functions(tmp_path):
    config = "import torch\nDTYPE = torch.float32\ndef make(n):\n    return torch.ones(n, 8, dtype=DTYPE)\n"
    head = "import torch\nimport torch.nn as nn\nimport config\n"
    _write(tmp_path, {
        "pyproject.toml": "", "config.py": config,
        "plain.py": head + "out = nn.Linear(8, 2)(config.make(2))\n",
        "changed.py": head + "config.DTYPE = torch.int64\nout = nn.Linear(8, 2)(config.make(2))\n",
        "maybe.py": head + "if torch.cuda.is_available():\n    config.DTYPE = torch.int64\n"
                           "out = nn.Linear(8, 2)(config.make(2))\n",
    })
    assert _codes(tmp_path / "plain.py") == []
    assert _codes(tmp_path / "changed.py") == ["TTL202"]
    assert _codes(tmp_path / "maybe.py") == []  # float32 or int64: not known to fail


def test_without_a_project_marker_the_outermost_package_bounds_the_project(tmp_path):
    tree = tmp_path / "no_marker"  # tmp_path has no pyproject.toml, setup.cfg, setup.py or .git above
    _write(tree, {"pkg/__init__.py": "", "pkg/batches.py": BATCH, "pkg/sub/__init__.py": "",
                  "pkg/sub/train.py": USE.format(module="..batches")})
    imports = ProjectImports(str(tree / "pkg" / "sub" / "train.py"))
    assert imports.roots.project == str(tree.resolve())
    assert _codes(tree / "pkg" / "sub" / "train.py") == ["TTL202"]


def test_a_module_is_run_in_the_defaults_its_import_saw(tmp_path):
    # data.X is made when data.py is imported: float32 before the default changes (torch then
    # fails on the float64 layer), float64 after (runs). Loading data.py late must not change that.
    head = "import torch\nimport torch.nn as nn\n"
    _write(tmp_path, {
        "pyproject.toml": "", "data.py": "import torch\nX = torch.ones(2, 8)\n",
        "before.py": head + "from data import X\ntorch.set_default_dtype(torch.float64)\nout = nn.Linear(8, 2)(X)\n",
        "after.py": head + "torch.set_default_dtype(torch.float64)\nfrom data import X\nout = nn.Linear(8, 2)(X)\n",
    })
    assert _codes(tmp_path / "before.py") == ["TTL401"]
    assert _codes(tmp_path / "after.py") == []
    torch = pytest.importorskip("torch")
    for name, fails in (("before.py", True), ("after.py", False)):
        run = subprocess.run([sys.executable, name], capture_output=True, text=True, cwd=tmp_path, timeout=120)
        assert (run.returncode != 0 and "dtype" in run.stderr) == fails, run.stderr
    assert torch.get_default_dtype() == torch.float32


def test_functions_nobody_calls_do_not_load_modules(tmp_path):
    # Library code: imported names used only in functions analysed on their own are not loaded
    # (the module is neither parsed nor run); a call from module level loads it.
    _write(tmp_path, {"pyproject.toml": "", "batches.py": BATCH,
                      "lib.py": "import torch.nn as nn\nfrom batches import make_batch\n"
                                "def use():\n    return nn.Linear(8, 2)(make_batch(4))\n",
                      "script.py": "import torch.nn as nn\nfrom batches import make_batch\n"
                                   "def use():\n    return nn.Linear(8, 2)(make_batch(4))\nuse()\n"})
    lib = check_source((tmp_path / "lib.py").read_text(), str(tmp_path / "lib.py"), keep_analysis=True)
    assert lib.findings == [] and lib.interpreter.loaded == {}
    assert _codes(tmp_path / "script.py") == ["TTL202"]


PROJECTION = "import torch\n\nW = torch.randn(4, 4, dtype=torch.float64)\n\n\ndef project(x):\n    return x @ W\n"


def _findings(path: Path) -> List[Tuple[int, str, str]]:
    result = check_source(path.read_text(), str(path))
    return [(f.line, f.code, f.message) for f in result.findings]


def test_a_failure_inside_an_imported_function_is_reported_once_at_the_call(tmp_path):
    # project(x) fails in data.py:7 only for what train.py passes; data.py alone is silent.
    _write(tmp_path, {"pyproject.toml": "", "data.py": PROJECTION,
                      "train.py": "import torch\nfrom data import project\n\nx = torch.ones(2, 4)\n"
                                  "y = project(x)\nz = project(x)\n"})
    [(line, code, message)] = _findings(tmp_path / "train.py")  # once: torch stops at the first
    assert (line, code) == (5, "TTL401")
    assert message.startswith("`project(x)` fails in data.py:7: ") and "since data.py:3" in message
    assert _findings(tmp_path / "data.py") == []


def test_only_the_calls_whose_arguments_fail_are_reported(tmp_path):
    _write(tmp_path, {"pyproject.toml": "", "data.py": PROJECTION,
                      "train.py": "import torch\nfrom data import project\n\n"
                                  "a = project(torch.ones(2, 4, dtype=torch.float64))\n"
                                  "b = project(torch.ones(2, 4))\n"
                                  "def later(t):\n    return project(t)\n"})
    assert [(line, code) for line, code, _ in _findings(tmp_path / "train.py")] == [(5, "TTL401")]


def test_a_failure_the_module_reports_itself_is_not_repeated_at_the_call(tmp_path):
    # broken() fails whatever its caller passes: data.py's own finding, not train.py's.
    _write(tmp_path, {"pyproject.toml": "",
                      "data.py": "import torch\n\n\ndef broken(n):\n"
                                 "    return torch.ones(2, 3) @ torch.ones(3, 2, dtype=torch.float64)\n",
                      "train.py": "from data import broken\n\ny = broken(4)\n"})
    assert [code for _, code, _ in _findings(tmp_path / "data.py")] == ["TTL401"]
    assert _findings(tmp_path / "train.py") == []


def test_a_failure_in_an_imported_modules_body_stays_with_that_module(tmp_path):
    _write(tmp_path, {"pyproject.toml": "",
                      "data.py": PROJECTION + "\nBAD = project(torch.ones(2, 4))\n",
                      "train.py": "import torch\nfrom data import W\n\ny = torch.ones(2, 4, dtype=torch.float64) @ W\n"})
    assert [(line, code) for line, code, _ in _findings(tmp_path / "data.py")] == [(7, "TTL401")]  # in project, as in-file code is
    assert _findings(tmp_path / "train.py") == []


def test_a_noqa_on_the_call_suppresses_the_failure_reported_there(tmp_path):
    _write(tmp_path, {"pyproject.toml": "", "data.py": PROJECTION,
                      "train.py": "import torch\nfrom data import project\n\n"
                                  "y = project(torch.ones(2, 4))  # noqa: TTL401\n"})
    assert _findings(tmp_path / "train.py") == []
