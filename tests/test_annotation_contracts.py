"""Shape annotations as promises about every size (issue 17): the TTL65x contract rules, the
return checks of TTL602 (swapped names, tuples, variadic dims) and symbolic sizes.

A function annotated ``x: Float[Tensor, "b d"]`` promises to work for every ``b`` and ``d``.
For each kind of broken promise there is a bad program (flagged once, on the line marked
``# <-``) and a good twin (silent). Where the finding says torch fails for some sizes, the bad
function runs under torch at sizes that break it (it must fail the way the rule says) and at
sizes that keep it (it must run: a contract, not a crash for every size).
"""
from __future__ import annotations

import re
import textwrap
from typing import Any, Dict, Sequence, Tuple

import pytest

from torchtype_lint.checker.check import Settings, check_source
from torchtype_lint.cli.explain import explain_interpreter
from torchtype_lint.knowledge import shapes as S
from torchtype_lint.knowledge.symbolic_dims import (
    SymbolicSize, as_dim, differ_for_every, equality_condition, product, quotient, same_for_every,
)
from torchtype_lint.rules.base import get_rule as rule_by_code
import torchtype_lint.rules.catalogue  # noqa: F401 - registers every rule
from torchtype_lint.model.selection import Selection

torch = pytest.importorskip("torch")
pytest.importorskip("jaxtyping")

HEADER = "from typing import Tuple\nimport torch\nfrom jaxtyping import Float\nfrom torch import Tensor\n"


def _findings(source: str, select: Sequence[str] = ("TTL",)):
    settings = Settings(selection=Selection(select=list(select)))
    return check_source(HEADER + textwrap.dedent(source), "program.py", settings).findings


def _marked_line(source: str) -> int:
    lines = (HEADER + textwrap.dedent(source)).splitlines()
    return next(i for i, line in enumerate(lines, 1) if "# <-" in line)


def _function(source: str) -> Any:
    """The program's function ``f``, defined with real torch and jaxtyping."""
    scope: Dict[str, Any] = {}
    exec(compile(HEADER + textwrap.dedent(source), "program.py", "exec"), scope)  # noqa: S102 - test programs
    return scope["f"]


def _tensors(*shapes: Tuple[int, ...]) -> Tuple[Any, ...]:
    return tuple(torch.randn(*shape) for shape in shapes)


#: kind -> (code, bad program, good twin, shapes that break the bad one, shapes that keep it,
#: shapes the good twin runs on).
Shapes = Sequence[Tuple[int, ...]]
CONTRACTS: Dict[str, Tuple[str, str, str, Shapes, Shapes, Shapes]] = {
    "matmul of a tensor with itself": ("TTL651", """
        def f(x: Float[Tensor, "b d"]) -> Tensor:
            return x @ x  # <-
        """, """
        def f(x: Float[Tensor, "b d"]) -> Tensor:
            return x @ x.T
        """, [(4, 3)], [(3, 3)], [(4, 3)]),
    "flattened tensor against a named dim": ("TTL651", """
        def f(x: Float[Tensor, "b d"], w: Float[Tensor, "d k"]) -> Tensor:
            flat = x.view(-1)
            return flat @ w  # <-
        """, """
        def f(x: Float[Tensor, "b d"], w: Float[Tensor, "d k"]) -> Tensor:
            flat = x.view(x.shape[0], -1)
            return flat @ w
        """, [(2, 3), (3, 5)], [(1, 3), (3, 5)], [(2, 3), (3, 5)]),
    "torch.mm of different inner names": ("TTL651", """
        def f(x: Float[Tensor, "b d"], w: Float[Tensor, "k e"]) -> Tensor:
            return torch.mm(x, w)  # <-
        """, """
        def f(x: Float[Tensor, "b d"], w: Float[Tensor, "d e"]) -> Tensor:
            return torch.mm(x, w)
        """, [(2, 3), (4, 5)], [(2, 3), (3, 5)], [(2, 3), (3, 5)]),
    "broadcast of two batch names": ("TTL652", """
        def f(x: Float[Tensor, "b d"], y: Float[Tensor, "n d"]) -> Tensor:
            return x + y  # <-
        """, """
        def f(x: Float[Tensor, "b d"], y: Float[Tensor, "d"]) -> Tensor:
            return x + y
        """, [(4, 3), (2, 3)], [(4, 3), (1, 3)], [(4, 3), (3,)]),
    "comparison of two widths": ("TTL652", """
        def f(x: Float[Tensor, "b d"], y: Float[Tensor, "b k"]) -> Tensor:
            return torch.maximum(x, y)  # <-
        """, """
        def f(x: Float[Tensor, "b d"], y: Float[Tensor, "b d"]) -> Tensor:
            return torch.maximum(x, y)
        """, [(2, 3), (2, 4)], [(2, 3), (2, 3)], [(2, 3), (2, 3)]),
    "cat with another batch name": ("TTL653", """
        def f(x: Float[Tensor, "b d"], y: Float[Tensor, "n k"]) -> Tensor:
            return torch.cat([x, y], dim=-1)  # <-
        """, """
        def f(x: Float[Tensor, "b d"], y: Float[Tensor, "b k"]) -> Tensor:
            return torch.cat([x, y], dim=-1)
        """, [(4, 3), (2, 5)], [(4, 3), (4, 5)], [(4, 3), (4, 5)]),
    "stack of two widths": ("TTL653", """
        def f(x: Float[Tensor, "b d"], y: Float[Tensor, "b k"]) -> Tensor:
            return torch.stack([x, y])  # <-
        """, """
        def f(x: Float[Tensor, "b d"], y: Float[Tensor, "b d"]) -> Tensor:
            return torch.stack([x, y])
        """, [(2, 3), (2, 4)], [(2, 4), (2, 4)], [(2, 3), (2, 3)]),
    "view_as a tensor of another width": ("TTL654", """
        def f(x: Float[Tensor, "b d"], like: Float[Tensor, "b k"]) -> Tensor:
            return x.view_as(like)  # <-
        """, """
        def f(x: Float[Tensor, "b n d"], like: Float[Tensor, "n b d"]) -> Tensor:
            return x.reshape_as(like)
        """, [(4, 3), (4, 5)], [(4, 3), (4, 3)], [(2, 3, 4), (3, 2, 4)]),
}

#: The message torch gives for each contract rule's failure (its RuntimeClaim).
PATTERNS = {code: rule_by_code(code).runtime.pattern for code in ("TTL651", "TTL652", "TTL653", "TTL654", "TTL655")}


@pytest.mark.parametrize("kind", list(CONTRACTS))
def test_a_size_contract_broken_by_the_code_is_flagged_once(kind):
    code, bad, _, _, _, _ = CONTRACTS[kind]
    found = [(f.location.line, f.code) for f in _findings(bad)]
    assert found == [(_marked_line(bad), code)], found


@pytest.mark.parametrize("kind", list(CONTRACTS))
def test_the_good_twin_keeps_the_contract_and_is_silent(kind):
    _, _, good, _, _, _ = CONTRACTS[kind]
    assert [f.code for f in _findings(good)] == []


@pytest.mark.parametrize("kind", list(CONTRACTS))
def test_torch_fails_at_breaking_sizes_and_runs_at_special_ones(kind):
    code, bad, good, breaking, keeping, fitting = CONTRACTS[kind]
    with pytest.raises(RuntimeError, match=PATTERNS[code]):
        _function(bad)(*_tensors(*breaking))
    _function(bad)(*_tensors(*keeping))  # the special sizes the message names: it runs
    _function(good)(*_tensors(*fitting))  # the good twin runs at sizes its annotations allow


def test_the_message_says_which_sizes_must_be_equal():
    messages = {kind: _findings(CONTRACTS[kind][1])[0].message for kind in CONTRACTS}
    assert "runs only when d == b" in messages["matmul of a tensor with itself"]
    assert "runs only when b == 1" in messages["flattened tensor against a named dim"]
    assert "b == n (or one of them is 1)" in messages["broadcast of two batch names"]
    assert "runs only when b == n" in messages["cat with another batch name"]
    assert "runs only when d == k" in messages["view_as a tensor of another width"]


def test_a_count_that_differs_for_every_size_is_a_crash_at_every_size():
    bad = """
        def f(w: Float[Tensor, "o i"], like: Float[Tensor, "i o 2"]) -> Tensor:
            return w.view_as(like)  # <-
        """
    found = _findings(bad)
    assert [(f.location.line, f.code) for f in found] == [(_marked_line(bad), "TTL655")]
    assert "2 times the elements" in found[0].message
    for o, i in ((1, 1), (4, 3), (2, 5)):  # no choice of sizes makes it run
        with pytest.raises(RuntimeError, match=PATTERNS["TTL655"]):
            _function(bad)(*_tensors((o, i), (i, o, 2)))


def test_equal_element_counts_for_every_size_are_silent():
    good = """
        def f(x: Float[Tensor, "b n d"], like: Float[Tensor, "d n b"], w: Float[Tensor, "n d k"]) -> Tensor:
            y = x.view_as(like)
            z = x.flatten(1) @ w.flatten(0, 1)
            return x.view(x.shape[0], -1) @ w.view(-1, w.shape[-1])
        """
    assert _findings(good) == []
    _function(good)(*_tensors((2, 3, 4), (4, 3, 2), (3, 4, 5)))


# ------------------------------------------------------------------ precision: only declared names


@pytest.mark.parametrize("source", [
    # unknown dims: no annotation, or a shape known only at runtime
    """
    def f(x: Tensor) -> Tensor:
        return x @ x
    """,
    """
    def f(x: Float[Tensor, "..."], y: Float[Tensor, "*batch"]) -> Tensor:
        return (x @ x) + y
    """,
    # a fixed size against a name: the rules about known sizes decide, not the contract ones
    """
    def f(x: Float[Tensor, "b d"]) -> Tensor:
        return x @ torch.randn(4, 5)
    """,
    # names from another function's return annotation are not this function's promise
    """
    def make() -> Float[Tensor, "n m"]:
        return torch.randn(2, 3)

    def f(x: Float[Tensor, "b d"]) -> Tensor:
        return x + make()
    """,
    # broadcastable dims (#b) may be 1: jaxtyping's own way to say "b or 1"
    """
    def f(x: Float[Tensor, "b d"], y: Float[Tensor, "#n d"]) -> Tensor:
        return x + y
    """,
])
def test_unknown_or_undeclared_sizes_are_silent(source):
    assert [f.code for f in _findings(source) if f.code.startswith("TTL65")] == []


def test_the_contract_rules_read_every_dialect():
    source = """
    from typing import Annotated
    from torchshapeflow import Shape
    from torchtyping import TensorType

    def f(x: Annotated[torch.Tensor, Shape("b", "d")], y: TensorType["n", "d"]) -> Tensor:
        return x + y  # <-
    """
    found = _findings(source)
    assert [(f.location.line, f.code) for f in found] == [(_marked_line(source), "TTL652")]


def test_contract_rules_are_selected_and_ignored_as_one_family():
    bad = CONTRACTS["matmul of a tensor with itself"][1]
    assert [f.code for f in _findings(bad, select=("TTL65",))] == ["TTL651"]
    settings = Settings(selection=Selection(select=["TTL"], ignore=["TTL65"]))
    assert check_source(HEADER + textwrap.dedent(bad), "program.py", settings).findings == []


# ------------------------------------------------------------------ TTL602: returns


def test_a_transpose_returned_for_the_same_names_is_flagged_where_it_is_made():
    bad = """
    def f(x: Float[Tensor, "b d"]) -> Float[Tensor, "b d"]:
        y = x.T  # <-
        return y
    """
    found = _findings(bad)
    assert [(f.location.line, f.code) for f in found] == [(_marked_line(bad), "TTL602")]
    assert "has `d` in dimension 0 where the annotation says `b`" in found[0].message
    assert "equal only when b == d" in found[0].message
    good = """
    def f(x: Float[Tensor, "b d"]) -> Float[Tensor, "d b"]:
        y = x.T
        return y
    """
    assert _findings(good) == []


def test_a_name_assigned_twice_is_flagged_at_the_return():
    bad = """
    def f(x: Float[Tensor, "b d"]) -> Float[Tensor, "b d"]:
        y = x.T
        y = y * 2
        return y  # <-
    """
    assert [(f.location.line, f.code) for f in _findings(bad)] == [(_marked_line(bad), "TTL602")]


def test_tuple_returns_are_checked_by_length_and_per_element():
    wrong_length = """
    def f(x: Float[Tensor, "b d"]) -> Tuple[Float[Tensor, "b d"], Float[Tensor, "b"]]:
        return x, x.sum(1), x  # <-
    """
    found = _findings(wrong_length)
    assert [(f.location.line, f.code) for f in found] == [(_marked_line(wrong_length), "TTL602")]
    assert "a tuple of 2" in found[0].message and "a tuple of 3" in found[0].message
    wrong_element = """
    def f(x: Float[Tensor, "b d"]) -> tuple[Float[Tensor, "b d"], Float[Tensor, "b"]]:
        return (x,
                x.sum(0))  # <-
    """
    found = _findings(wrong_element)
    assert [(f.location.line, f.code) for f in found] == [(_marked_line(wrong_element), "TTL602")]
    assert "element 1" in found[0].message
    good = """
    def f(x: Float[Tensor, "b d"]) -> Tuple[Float[Tensor, "b d"], Float[Tensor, "b"]]:
        return x, x.sum(1)

    def g(x: Float[Tensor, "b d"]) -> Tuple[Float[Tensor, "b d"], ...]:
        return x, x, x
    """
    assert _findings(good) == []


def test_tuple_elements_bind_the_arguments_sizes_at_a_call():
    bad = """
    def f(x: Float[Tensor, "b d"]) -> Tuple[Float[Tensor, "b d"], Float[Tensor, "b"]]:
        return x, x.sum(0)  # <-

    f(torch.randn(4, 3))
    """
    assert {(f.location.line, f.code) for f in _findings(bad)} == {(_marked_line(bad), "TTL602")}
    values = _function(bad)(torch.randn(4, 3))
    assert tuple(values[1].shape) == (3,)  # the element has d, not b, sizes


def test_variadic_dims_of_another_rank_between_arguments_are_flagged():
    bad = """
    def f(x: Float[Tensor, "*batch d"], y: Float[Tensor, "*batch d"]) -> Float[Tensor, "*batch d"]:
        return x + y

    f(torch.randn(2, 3, 4), torch.randn(torch.randint(1, 5, ()).item(), 4))  # <-
    """
    found = _findings(bad)
    assert [(f.location.line, f.code) for f in found] == [(_marked_line(bad), "TTL601")]
    assert "binds `*batch` to 1 dimension" in found[0].message
    good = """
    def f(x: Float[Tensor, "*batch d"], y: Float[Tensor, "*batch d"]) -> Float[Tensor, "*batch d"]:
        return x + y

    f(torch.randn(2, 3, 4), torch.randn(2, torch.randint(1, 5, ()).item(), 4))
    """
    assert _findings(good) == []


# ------------------------------------------------------------------ symbolic sizes


def test_products_of_names_compare_for_every_size():
    assert product(["b", "d", 2]) == SymbolicSize(2, ("b", "d"))
    assert same_for_every(product(["b", "d"]), product(["d", "b"]))
    assert differ_for_every(product(["d_in", "d_out", 2]), product(["d_out", "d_in"]))
    assert not differ_for_every(product(["b", "d"]), "d")  # equal when b == 1
    assert equality_condition(product(["b", "d"]), "d") == "b == 1"
    assert equality_condition("b", "d") == "b == d"
    assert equality_condition(product(["n", "h", 2]), product(["n", "d"])) == "d == 2*h"
    assert equality_condition(3, 4) is None and equality_condition(None, "d") is None
    assert quotient(product(["b", "n", "d"]), product(["b"])) == SymbolicSize(1, ("d", "n"))
    assert quotient(product(["b", "d"]), product(["n"])) is None  # depends on the sizes
    assert as_dim(SymbolicSize(6, ())) == 6 and as_dim(SymbolicSize(1, ("d",))) == "d"


@pytest.mark.parametrize("sizes", [(2, 3, 4), (1, 5, 7)])
def test_flatten_and_inferred_view_give_the_product_torch_gives(sizes):
    b, n, d = sizes
    named = ("b", "n", "d")
    values = dict(zip(named, sizes))

    def concrete(shape):
        out = []
        for dim in shape:
            size = dim if isinstance(dim, SymbolicSize) else SymbolicSize(1, (dim,))
            total = size.coefficient
            for name in size.symbols:
                total *= values[name]
            out.append(total)
        return tuple(out)

    x = torch.randn(b, n, d)
    assert concrete(S.flatten_shape(named, 1, 2)) == tuple(x.flatten(1, 2).shape)
    assert concrete(S.flatten_shape(named)) == tuple(x.flatten().shape)
    assert concrete(S.reshape_shape(named, ("b", -1))) == tuple(x.view(b, -1).shape)
    assert S.reshape_shape(named, ("n", -1)) == ("n", SymbolicSize(1, ("b", "d")))
    assert S.reshape_shape(named, ("k", -1)) == ("k", None)  # b*n*d / k: not a product


def test_explain_shows_a_flattened_annotation_as_a_product():
    source = HEADER + textwrap.dedent("""
    def f(x: Float[Tensor, "b n d"]) -> Tensor:
        flat = x.flatten(1)
        return flat
    """)
    result = check_source(source, "program.py", Settings(selection=Selection(select=["TTL0"])), keep_analysis=True)
    text = explain_interpreter(result.interpreter, result.module)
    assert any("flat:" in line and "(b, d*n)" in line for line in text.splitlines()), text


def test_contract_rules_claim_what_torch_says():
    for code, pattern in PATTERNS.items():
        assert rule_by_code(code).runtime.exception == "RuntimeError"
        assert re.compile(pattern)
