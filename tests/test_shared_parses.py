"""The flake8 plugin's children inherit the project modules their parent parsed once
(``project/shared_parses.py``): a module imported by many files is parsed in the first child
that needs it and once in the parent, never again in the children forked after."""
from __future__ import annotations

import os

import pytest

from torchtype_lint import bounded
from torchtype_lint.project import shared_parses, sources
from torchtype_lint.runner import check_bytes_bounded
from torchtype_lint.settings import Settings

pytestmark = pytest.mark.skipif(not bounded.can_fork(), reason="children are forked only where fork exists")

DATA = "import torch\n\ndef make_batch(n):\n    return torch.randint(0, 10, (n, 4))\n"
TRAIN = ("import torch.nn as nn\nfrom data import make_batch\n\n"
         "model = nn.Linear(4, 2)\nout = model(make_batch({n}))\n")


@pytest.fixture
def project(tmp_path, monkeypatch):
    (tmp_path / "pyproject.toml").write_text("")
    (tmp_path / "data.py").write_text(DATA)
    for n in (1, 2):
        (tmp_path / f"train{n}.py").write_text(TRAIN.format(n=n))
    # A clean slate in this process; what the test adds is dropped afterwards.
    monkeypatch.setattr(sources, "_parsed", type(sources._parsed)())
    monkeypatch.setattr(shared_parses, "_adopted", type(shared_parses._adopted)())
    return tmp_path


def _key(path) -> tuple:
    real = os.path.realpath(str(path))
    return real, sources.content_hash(open(real, "rb").read())


def _check(path, share: bool):
    return check_bytes_bounded(path.read_text(), str(path), Settings(), share_parses=share)


def _count_parses(monkeypatch, log):
    """Every parse of a project module, in this process or a child, appends its pid to ``log``
    (children inherit the patched function)."""
    parse = sources._parse

    def counted(data):
        with open(log, "a") as handle:
            handle.write(f"{os.getpid()}\n")
        return parse(data)

    monkeypatch.setattr(sources, "_parse", counted)


def test_the_parent_parses_a_module_once_and_later_children_inherit_it(project, monkeypatch, tmp_path_factory):
    log = tmp_path_factory.mktemp("log") / "parses"
    _count_parses(monkeypatch, log)
    first = _check(project / "train1.py", share=True)
    assert [f.code for f in first.findings] == ["TTL202"]  # an int64 batch into a float32 Linear
    assert _key(project / "data.py") in sources._parsed  # parsed here, for the next children
    pids = log.read_text().split()
    assert len(pids) == 2 and pids[1] == str(os.getpid())  # once in the child, once here
    second = _check(project / "train2.py", share=True)
    assert [f.code for f in second.findings] == ["TTL202"]
    assert len(log.read_text().split()) == 2  # the second child parsed nothing


def test_without_sharing_nothing_is_parsed_in_the_parent(project):
    _check(project / "train1.py", share=False)  # stdin and the language server
    assert not sources._parsed


def test_a_module_changed_since_the_child_read_it_is_not_parsed_here(project):
    stale = _key(project / "data.py")
    (project / "data.py").write_text(DATA + "\nEXTRA = 1\n")
    shared_parses.adopt([stale])
    assert not sources._parsed and not shared_parses._adopted


def test_the_parent_keeps_a_bounded_number_of_characters(project, monkeypatch):
    (project / "other.py").write_text("import torch\nW = torch.ones(2)\n")
    monkeypatch.setattr(shared_parses, "SHARED_PARSE_CHARS", len(DATA) + 5)
    shared_parses.adopt([_key(project / "data.py")])
    shared_parses.adopt([_key(project / "other.py")])
    assert list(shared_parses._adopted) == [_key(project / "other.py")]
    assert _key(project / "data.py") not in sources._parsed  # the oldest went first
