"""Shape annotations in every dialect (issue 17): jaxtyping (bare and inside ``Annotated``),
TorchShapeFlow's ``Annotated[torch.Tensor, Shape(...)]`` (and its string shorthand) and
torchtyping's ``TensorType[...]``, on parameters, returns, attributes, class fields and
module variables.

Two kinds of checks, for each dialect and position:

* contracts (TTL601/602/604): a program whose value breaks the annotation is flagged once, on
  the line marked ``# <-``; its twin whose value keeps it is silent;
* facts: the annotation gives a value the code does not otherwise know, and the shape rules use
  it; where that finding says torch fails, the program runs under torch (with stand-ins for the
  two packages that are not installed: the linter never imports them) and must fail, and its
  good twin must run.
"""
from __future__ import annotations

import sys
import textwrap
import types
from typing import Callable, Dict, List, Sequence, Tuple, Union

import pytest

from torchtype_lint.checker.check import Settings, check_source
from torchtype_lint.cli.explain import explain_interpreter
from torchtype_lint.model.selection import Selection

torch = pytest.importorskip("torch")
pytest.importorskip("jaxtyping")

Dims = Sequence[Union[str, int]]


def _jaxtyping(dims: Dims) -> str:
    return f'Float[Tensor, "{" ".join(map(str, dims))}"]'


def _tsf(dims: Dims) -> str:
    return f"Annotated[torch.Tensor, Shape({', '.join(repr(d) for d in dims)})]"


#: dialect -> (imports, how an annotation with these dims is written). Every dialect writes
#: "float tensor of these dims" (TorchShapeFlow has no dtypes).
DIALECTS: Dict[str, Tuple[str, Callable[[Dims], str]]] = {
    "jaxtyping": ("from jaxtyping import Float\nfrom torch import Tensor", _jaxtyping),
    "jaxtyping-in-Annotated": (
        "from typing import Annotated\nfrom jaxtyping import Float\nfrom torch import Tensor",
        lambda dims: f'Annotated[{_jaxtyping(dims)}, "documented"]'),
    "TorchShapeFlow": ("from typing import Annotated\nfrom torchshapeflow import Shape", _tsf),
    "TorchShapeFlow-module-import": (
        "import typing\nimport torchshapeflow as tsf",
        lambda dims: f"typing.Annotated[torch.Tensor, tsf.Shape({', '.join(repr(d) for d in dims)})]"),
    "TorchShapeFlow-shorthand": (
        "from typing import Annotated\nimport torchshapeflow  # noqa: F401",
        lambda dims: f'Annotated[torch.Tensor, "{" ".join(map(str, dims))}"]'),
    "torchtyping": ("from torchtyping import TensorType",
                    lambda dims: f"TensorType[{', '.join(repr(d) for d in dims)}, torch.float32]"),
}

#: position -> (program, the code the bad twin gets). ANN is the annotation of an (n, 3)
#: tensor; COLS is 3 in the good twin and 4 in the bad one; `# <-` marks the finding's line.
CONTRACTS: Dict[str, Tuple[str, str]] = {
    "parameter": ("""
        def first_point(points: ANN) -> torch.Tensor:
            return points[0]

        first_point(torch.randn(5, COLS))  # <-
        """, "TTL601"),
    "return": ("""
        def make_points() -> ANN:
            return torch.randn(5, COLS)  # <-

        points = make_points()
        """, "TTL602"),
    "attribute": ("""
        class Cloud:
            def __init__(self) -> None:
                self.points: ANN = torch.randn(5, COLS)  # <-

        cloud = Cloud()
        """, "TTL604"),
    "class field": ("""
        class Cloud(torch.nn.Module):
            points: ANN

            def __init__(self) -> None:
                super().__init__()
                self.points = torch.randn(5, COLS)  # <-

        cloud = Cloud()
        """, "TTL604"),
    "module variable": ("""
        points: ANN = torch.randn(5, COLS)  # <-
        """, "TTL604"),
}


def _program(dialect: str, template: str, **values: object) -> str:
    imports, annotate = DIALECTS[dialect]
    body = textwrap.dedent(template).replace("ANN", annotate(["n", 3]))
    for name, value in values.items():
        body = body.replace(name, str(value))
    return f"import torch\n{imports}\n{body}"


def _findings(source: str, select: Sequence[str] = ("TTL",)):
    settings = Settings(selection=Selection(select=list(select)))
    return check_source(source, "program.py", settings).findings


def _marked_line(source: str) -> int:
    return next(i for i, line in enumerate(source.splitlines(), 1) if "# <-" in line)


@pytest.mark.parametrize("position", list(CONTRACTS))
@pytest.mark.parametrize("dialect", list(DIALECTS))
def test_a_broken_contract_is_flagged_in_every_dialect_and_position(dialect, position):
    template, code = CONTRACTS[position]
    bad = _program(dialect, template, COLS=4)
    found = _findings(bad)
    assert [(f.line, f.code) for f in found] == [(_marked_line(bad), code)], found
    message = found[0].message
    assert "has size 4 where the annotation fixes 3" in message
    # The annotation is shown as written (the part that holds the shape), and never as jaxtyping.
    shown = _jaxtyping(["n", 3]) if dialect == "jaxtyping-in-Annotated" else DIALECTS[dialect][1](["n", 3])
    assert f"annotated `{shown}`" in message or f"return `{shown}`" in message
    assert "jaxtyping" not in message


@pytest.mark.parametrize("position", list(CONTRACTS))
@pytest.mark.parametrize("dialect", list(DIALECTS))
def test_the_kept_contract_is_silent_in_every_dialect_and_position(dialect, position):
    template, _ = CONTRACTS[position]
    assert _findings(_program(dialect, template, COLS=3)) == []


# --------------------------------------------------------------------------- dtypes

@pytest.mark.parametrize("dialect,expected", [
    ("jaxtyping", "is int64, not a Float dtype"),
    ("torchtyping", "is int64, not `torch.float32`"),
])
def test_dtype_promises_break_in_the_dialects_that_make_them(dialect, expected):
    source = _program(dialect, """
        def first_point(points: ANN) -> torch.Tensor:
            return points[0]

        first_point(torch.arange(15).reshape(5, 3))  # <-
        """)
    found = _findings(source)
    assert [(f.line, f.code) for f in found] == [(_marked_line(source), "TTL601")]
    assert expected in found[0].message


def test_torchshapeflow_promises_no_dtype():
    assert _findings(_program("TorchShapeFlow", """
        def first_point(points: ANN) -> torch.Tensor:
            return points[0]

        first_point(torch.arange(15).reshape(5, 3))
        """)) == []


def test_torchtyping_python_types_are_its_dtypes():
    source = """
    import torch
    from torchtyping import TensorType

    def count(labels: TensorType["n", int], mask: TensorType["n", bool]) -> TensorType[float]:
        return labels.float().sum() * mask.sum()

    count(torch.zeros(4, dtype=torch.int64), torch.ones(4, dtype=torch.bool))
    count(torch.zeros(4), torch.ones(4, dtype=torch.bool))  # <- float32 labels
    """
    source = textwrap.dedent(source)
    found = _findings(source)
    assert [(f.line, f.code) for f in found] == [(_marked_line(source), "TTL601")]
    assert "is float32, not `int`" in found[0].message


# --------------------------------------------------------------------------- facts and crashes

#: position -> a program that reads an (b, 3) tensor the code cannot see (torch.load) through
#: the annotation at that position, then feeds it to Linear(FEATURES, 2).
FACTS: Dict[str, str] = {
    "parameter": """
        def head(x: ANN) -> torch.Tensor:
            return torch.nn.Linear(FEATURES, 2)(x)  # <-

        head(torch.load(PATH))
        """,
    "return": """
        def load(path: str) -> ANN:
            return torch.load(path)

        y = torch.nn.Linear(FEATURES, 2)(load(PATH))  # <-
        """,
    "attribute": """
        class Batch:
            def __init__(self, path: str) -> None:
                self.x: ANN = torch.load(path)

        batch = Batch(PATH)
        y = torch.nn.Linear(FEATURES, 2)(batch.x)  # <-
        """,
    "class field": """
        class Batch:
            x: ANN

            def __init__(self, path: str) -> None:
                self.x = torch.load(path)

        batch = Batch(PATH)
        y = torch.nn.Linear(FEATURES, 2)(batch.x)  # <-
        """,
    "module variable": """
        x: ANN = torch.load(PATH)
        y = torch.nn.Linear(FEATURES, 2)(x)  # <-
        """,
}


def _facts_program(dialect: str, position: str, features: int, path: str) -> str:
    imports, annotate = DIALECTS[dialect]
    body = textwrap.dedent(FACTS[position]).replace("ANN", annotate(["b", 3]))
    return f"import torch\n{imports}\n{body.replace('FEATURES', str(features)).replace('PATH', repr(path))}"


@pytest.fixture
def stand_ins(monkeypatch):
    """torchshapeflow and torchtyping are not installed: modules with the two names the
    programs use let them run (the annotations are evaluated, never checked)."""
    tsf = types.ModuleType("torchshapeflow")

    class Shape:
        def __init__(self, *dims: object) -> None:
            self.dims = dims

    tsf.Shape = Shape
    tt = types.ModuleType("torchtyping")

    class TensorType:
        def __class_getitem__(cls, item: object) -> type:
            return torch.Tensor

    tt.TensorType = TensorType
    monkeypatch.setitem(sys.modules, "torchshapeflow", tsf)
    monkeypatch.setitem(sys.modules, "torchtyping", tt)


@pytest.mark.parametrize("position", list(FACTS))
@pytest.mark.parametrize("dialect", list(DIALECTS))
def test_annotated_facts_feed_the_shape_rules_and_torch_agrees(dialect, position, tmp_path, stand_ins):
    path = str(tmp_path / "batch.pt")
    torch.save(torch.randn(2, 3), path)  # b = 2 at runtime: any size fits the annotation
    bad = _facts_program(dialect, position, 4, path)
    found = _findings(bad)
    assert [(f.line, f.code) for f in found] == [(_marked_line(bad), "TTL502")], found
    with pytest.raises(RuntimeError, match="cannot be multiplied"):
        exec(compile(bad, "program.py", "exec"), {"__name__": "program"})
    good = _facts_program(dialect, position, 3, path)
    assert _findings(good) == []
    exec(compile(good, "program.py", "exec"), {"__name__": "program"})


# --------------------------------------------------------------------------- precision

def test_names_that_only_look_like_a_dialect_are_not_read():
    """A class of the file named Shape, a TensorType from elsewhere and the string shorthand
    in a file that never imports torchshapeflow promise nothing."""
    source = """
    from typing import Annotated
    import torch
    from mylib import TensorType

    class Shape:
        def __init__(self, *dims):
            self.dims = dims

    def a(x: Annotated[torch.Tensor, Shape("n", 3)]) -> Annotated[torch.Tensor, Shape("n", 3)]:
        return torch.nn.Linear(4, 2)(x)

    def b(x: Annotated[torch.Tensor, "n 3"]) -> Annotated[torch.Tensor, "n 3"]:
        return torch.nn.Linear(4, 2)(x)

    def c(x: TensorType["n", 3]) -> TensorType["n", 3]:
        return torch.nn.Linear(4, 2)(x)

    a(torch.randn(5, 4))
    b(torch.randn(5, 4))
    c(torch.randn(5, 4))
    points: Annotated[torch.Tensor, Shape("n", 3)] = torch.randn(5, 4)
    """
    assert _findings(textwrap.dedent(source)) == []


def test_shapes_known_only_at_runtime_are_not_guessed():
    """Shape(*dims), Shape(n_features), shorthand tokens TorchShapeFlow does not document and
    torchtyping's dims left of `...` stay unknown or are only as wide as written."""
    source = """
    from typing import Annotated
    import torch
    import torchshapeflow
    from torchshapeflow import Shape
    from torchtyping import TensorType

    DIMS = ("n", 3)
    n_features = 3

    def a(x: Annotated[torch.Tensor, Shape(*DIMS)]):
        return torch.nn.Linear(4, 2)(x)

    def b(x: Annotated[torch.Tensor, Shape("n", n_features)]):
        return torch.nn.Linear(4, 2)(x)

    def c(x: Annotated[torch.Tensor, "... 3"]):
        return torch.nn.Linear(4, 2)(x)

    def d(x: TensorType["batch": ..., 3]) -> TensorType["batch": ..., 3]:
        return x

    d(torch.randn(2, 7, 3))
    d(torch.randn(3))
    """
    assert _findings(textwrap.dedent(source)) == []


def test_symbolic_torchshapeflow_dims_keep_the_rank():
    """``Shape("B", "2*D")``: the expression is a dim of unknown size, never compared."""
    source = _program("TorchShapeFlow", """
        def f(x: Annotated[torch.Tensor, Shape("B", "2*D")]) -> torch.Tensor:
            return x

        f(torch.randn(4, 6))
        f(torch.randn(4, 6, 1))  # <-
        """)
    found = _findings(source)
    assert [(f.line, f.code) for f in found] == [(_marked_line(source), "TTL601")]
    assert "has 3 dimensions, the annotation 2" in found[0].message


def test_explain_names_each_dialect_as_the_origin():
    lines: List[str] = []
    for dialect in ("TorchShapeFlow", "torchtyping", "jaxtyping-in-Annotated"):
        source = _program(dialect, """
            def f(x: ANN):
                return x
            """)
        result = check_source(source, "program.py", Settings(selection=Selection(select=["TTL0"])),
                              keep_analysis=True)
        text = explain_interpreter(result.interpreter, result.module)
        lines += [line for line in text.splitlines() if "x (parameter)" in line]
    assert "Tensor[?, (n, 3)]" in lines[0] and "annotated Shape(...)" in lines[0]
    assert "Tensor[float32, (n, 3)]" in lines[1] and "annotated TensorType[...]" in lines[1]
    assert "Tensor[any float, (n, 3)]" in lines[2] and "annotated Float[Tensor, ...]" in lines[2]


def test_an_alias_that_names_itself_is_no_annotation_and_no_crash():
    source = """
    from typing import Annotated
    import torch

    A = Annotated[A, "loops"]
    B = Annotated[C, "loops"]
    C = Annotated[B, "back"]

    def f(x: A, y: B) -> A:
        return x

    f(torch.randn(2), torch.randn(3))
    w: C = torch.randn(3)
    """
    assert _findings(textwrap.dedent(source)) == []
