"""Symbolic sizes from int parameters (issue 17): ``d_in``, ``d_out``, ``n_heads * head_dim``.

A module built as ``__init__(self, d_in: int, d_out: int)`` and analysed with no caller has
sizes the analysis knows only by name. A reshape whose element count differs from the
tensor's for *every* choice of those ints is a crash on every call (TTL655): each bad program
here is run under torch at several sizes and fails at each. Equalities that hold for every
choice, and sizes the arithmetic cannot pin down (``d // n_heads``, ``d + 1``), stay silent;
each good twin runs. Symbols of two functions never mix, never make a contract (TTL651-654:
an int parameter promises nothing) and never make a shape rule (TTL5xx) claim a conflict.
"""
from __future__ import annotations

import copy
import re
import textwrap
from typing import Any, Dict, Sequence

import pytest

from torchtype_lint.checker.check import Settings, check_source
from torchtype_lint.engine.builtins import scalar_binary
from torchtype_lint.cli.explain import explain_interpreter
from torchtype_lint.knowledge.symbolic_dims import SizeSymbol, SymbolicSize, differ_for_every, product
from torchtype_lint.rules.base import get_rule
import torchtype_lint.rules.catalogue  # noqa: F401 - registers every rule
from torchtype_lint.model.selection import Selection
from torchtype_lint.model.values import ScalarValue, join

torch = pytest.importorskip("torch")

HEADER = "import torch\nimport torch.nn as nn\n"


def _source(body: str) -> str:
    return HEADER + textwrap.dedent(body)


def _findings(body: str, select: Sequence[str] = ("TTL",)):
    settings = Settings(selection=Selection(select=list(select)))
    return check_source(_source(body), "program.py", settings).findings


def _marked_line(body: str) -> int:
    return next(i for i, line in enumerate(_source(body).splitlines(), 1) if "# <-" in line)


def _namespace(body: str) -> Dict[str, Any]:
    scope: Dict[str, Any] = {}
    exec(compile(_source(body), "program.py", "exec"), scope)  # noqa: S102 - test programs
    return scope


PROJECTION = """
    class Projection(nn.Module):
        def __init__(self, d_in: int, d_out: int):
            super().__init__()
            self.d_in = d_in
            self.d_out = d_out
            self.weight = nn.Parameter(torch.randn(d_out, d_in))

        def forward(self, x):
            {forward}
    """

#: The issue's example and its relatives: each differs from the tensor's count by a factor.
BAD = {
    "issue example": PROJECTION.format(
        forward="return x @ self.weight.view(self.d_in, self.d_out, 2)  # <-"),
    "reshape by a product": PROJECTION.format(
        forward="return self.weight.reshape(self.d_in * self.d_out * 3)  # <-"),
    "heads times head_dim, doubled": """
        class Heads(nn.Module):
            def __init__(self, n_heads: int, head_dim: int):
                super().__init__()
                self.n_heads = n_heads
                self.head_dim = head_dim
                self.qkv = nn.Parameter(torch.randn(n_heads * head_dim, 3))

            def forward(self, x):
                return self.qkv.view(self.n_heads, self.head_dim, 6)  # <-
        """,
    "sizes unpacked from the shape": """
        class Rows(nn.Module):
            def __init__(self, n: int, d: int):
                super().__init__()
                self.table = nn.Parameter(torch.zeros(n, d))

            def forward(self, x):
                b, k = self.table.shape
                return self.table.reshape(b * 2, k)  # <-
        """,
}


def _instance(body: str, *sizes: int) -> Any:
    namespace = _namespace(body)
    cls = next(v for k, v in namespace.items() if isinstance(v, type) and issubclass(v, torch.nn.Module)
               and v is not torch.nn.Module and k not in ("nn",))
    return cls(*sizes)


@pytest.mark.parametrize("kind", list(BAD))
def test_a_count_off_by_a_factor_for_every_int_is_flagged_once(kind):
    findings = _findings(BAD[kind])
    assert [(f.code, f.line) for f in findings] == [("TTL655", _marked_line(BAD[kind]))]
    assert "for every size" in findings[0].message


@pytest.mark.parametrize("kind", list(BAD))
@pytest.mark.parametrize("sizes", [(1, 1), (2, 3), (4, 2), (5, 5)])
def test_torch_fails_at_every_size_the_way_ttl655_says(kind, sizes):
    module = _instance(BAD[kind], *sizes)
    claim = get_rule("TTL655").runtime
    with pytest.raises(RuntimeError) as raised:
        module(torch.randn(3, sizes[1]))
    assert re.search(claim.pattern, str(raised.value)), str(raised.value)


def test_the_message_shows_the_parameters_names_and_the_factor():
    finding = _findings(BAD["issue example"])[0]
    assert "views (d_out, d_in) (d_in*d_out elements) as (d_in, d_out, 2) (2*d_in*d_out elements)" \
        in finding.message
    assert "2 times" in finding.message


#: Correct twins: equal counts for every choice of ints, or counts the arithmetic leaves unknown.
#: Each runs under torch at every size in ``sizes``.
GOOD = {
    "the weight's own sizes": (PROJECTION.format(
        forward="return x @ self.weight.view(self.d_out, self.d_in).T"), [(1, 1), (2, 3), (4, 2)]),
    "an inferred size": (PROJECTION.format(
        forward="return self.weight.reshape(-1)"), [(1, 1), (2, 3)]),
    "the transpose viewed as it is": (PROJECTION.format(
        forward="return self.weight.T.reshape(self.d_in, self.d_out)"), [(2, 3), (4, 2)]),
    "a product written the other way round": (PROJECTION.format(
        forward="return self.weight.view(self.d_in * self.d_out)"), [(2, 3)]),
    "heads times head_dim": ("""
        class Heads(nn.Module):
            def __init__(self, n_heads: int, head_dim: int):
                super().__init__()
                self.n_heads = n_heads
                self.head_dim = head_dim
                self.qkv = nn.Parameter(torch.randn(n_heads * head_dim, 3))

            def forward(self, x):
                return self.qkv.view(self.n_heads, self.head_dim, 3)
        """, [(1, 1), (2, 3), (4, 8)]),
    # d_out // n_heads is exact only when n_heads divides d_out: no fact for every size. Taken
    # as exact, the counts below (3*d_out and 2*d_out) would differ for every size; with
    # d_out = 3, n_heads = 2 they are both 6.
    "a floor division": ("""
        class Split(nn.Module):
            def __init__(self, d_out: int, n_heads: int):
                super().__init__()
                self.n_heads = n_heads
                self.head_dim = d_out // n_heads
                self.weight = nn.Parameter(torch.randn(d_out, 2))

            def forward(self, x):
                return self.weight.view(self.n_heads, self.head_dim, 3)
        """, [(3, 2)]),
    "a sum": ("""
        class Padded(nn.Module):
            def __init__(self, n: int, d: int):
                super().__init__()
                self.n = n
                self.table = nn.Parameter(torch.zeros(n + 1, d))

            def forward(self, x):
                return self.table.view(self.n + 1, -1)
        """, [(1, 1), (3, 2)]),
}


@pytest.mark.parametrize("kind", list(GOOD))
def test_the_good_twin_is_silent_and_runs(kind):
    body, sizes_list = GOOD[kind]
    assert _findings(body) == []
    for sizes in sizes_list:
        _instance(body, *sizes)(torch.randn(3, sizes[0]))


def test_a_floor_division_is_not_exact_for_every_size():
    """Why ``d // n_heads`` must stay unknown: the twin above runs at some sizes and fails at
    others, so no claim holds for every size."""
    body, _ = GOOD["a floor division"]
    for d_out, n_heads in ((4, 2), (6, 3), (3, 1)):
        with pytest.raises(RuntimeError):
            _instance(body, d_out, n_heads)(None)


def test_two_functions_parameters_of_one_name_do_not_mix():
    """``make``'s ``n`` (its standalone result) and ``use``'s ``n`` are different sizes:
    ``(n, 2)`` viewed as ``(n, 4)`` would be a factor 2 if they were one."""
    body = """
        def make(n: int):
            return torch.zeros(n, 2)

        def use(n: int, m):
            a = make(m)
            return a.view(n, 4)

        class Scaled(nn.Module):
            def __init__(self, n: int):
                super().__init__()
                self.w = nn.Parameter(torch.randn(n))

            def forward(self, x, n: int):
                return self.w.view(n, 2)
        """
    assert _findings(body) == []
    namespace = _namespace(body)
    assert namespace["use"](2, 4).shape == (2, 4)  # make's n = 4 is twice use's n = 2
    assert namespace["Scaled"](6).forward(None, 3).shape == (3, 2)


def test_a_symbol_equals_only_itself():
    f, g = object(), object()
    assert SizeSymbol("n", f) == SizeSymbol("n", f)
    assert hash(SizeSymbol("n", f)) == hash(SizeSymbol("n", f))
    assert SizeSymbol("n", f) != SizeSymbol("n", g)
    assert SizeSymbol("n", f) != "n" and "n" != SizeSymbol("n", f)
    assert SizeSymbol("n", f) not in {"n"}
    assert copy.deepcopy(SizeSymbol("n", f)) == SizeSymbol("n", f)
    assert f"{SizeSymbol('d_in', f)}" == "d_in"
    # one product whatever order its factors came in
    a, b = SizeSymbol("n", f), SizeSymbol("n", g)
    assert product([a, b]) == product([b, a])
    assert not differ_for_every(product([a, 2]), b)


def test_scalar_arithmetic_keeps_products_and_exact_quotients_only():
    d = ScalarValue("int", None, None, SizeSymbol("d", object()))
    n = ScalarValue("int", None, None, SizeSymbol("n", object()))
    two = ScalarValue("int", 2)
    assert scalar_binary(d, n, "*").size == SymbolicSize(1, tuple(sorted((d.size, n.size))))
    doubled = scalar_binary(two, d, "*")
    assert doubled.size == SymbolicSize(2, (d.size,))
    assert scalar_binary(doubled, two, "//").size == d.size
    assert scalar_binary(d, n, "//").size is None
    assert scalar_binary(d, two, "//").size is None
    assert scalar_binary(d, two, "+").size is None
    assert scalar_binary(d, two, "-").size is None
    assert scalar_binary(d, two, "/").size is None  # a float
    assert scalar_binary(two, ScalarValue("int", 3), "*") == ScalarValue("int", 6)


def test_joining_two_sizes_forgets_the_size():
    d = ScalarValue("int", None, None, SizeSymbol("d", object()))
    doubled = ScalarValue("int", None, None, SymbolicSize(2, (d.size,)))
    assert join(d, d) is d
    assert join(d, doubled) == ScalarValue("int")


def test_a_loop_doubling_a_size_reaches_a_fixpoint_and_stays_silent():
    body = """
        def grow(x, n: int):
            t = torch.zeros(n)
            while t.shape[0] < 100:
                n = n * 2
                t = torch.zeros(n)
            return t.view(n, 2)
        """
    assert _findings(body) == []


def test_int_parameters_promise_no_size_contract():
    """``n`` and ``d`` are ints a caller chooses, not annotated sizes: code that needs them
    equal is a bug only for some calls (the contract rules stay silent)."""
    body = """
        def f(n: int, d: int):
            x = torch.randn(n, d)
            y = x @ x
            z = x + torch.randn(d, n)
            w = torch.cat([x, torch.randn(d, d)], dim=0)
            return x.view(d, d), y, z, w
        """
    assert _findings(body) == []


def test_symbols_never_make_a_shape_rule_claim_a_conflict():
    """Two different symbols may be equal: no TTL5xx finding may come from them."""
    body = """
        def shapes(n: int, d: int, k: int, d_in: int, d_out: int):
            u = torch.randn(d_in) + torch.randn(d_out)
            v = torch.randn(n, d) @ torch.randn(k, d).T
            w = torch.randn(n, d) @ torch.randn(k, n)
            lin = nn.Linear(d_in, d_out)
            y = lin(torch.randn(n, d_out))
            z = torch.cat([torch.randn(n, d), torch.randn(k, n)], 0)
            s = torch.stack([torch.randn(n), torch.randn(k)])
            e = torch.randn(1, d).expand(n, k)
            r = torch.randn(n, d).view(k, -1)
            q = torch.randn(n, 3).view(n, 3).reshape(3, n).unflatten(1, (n, 1))
            c = nn.Conv1d(d, k, 3)(torch.randn(n, d_out, 8))
            return u, v, w, y, z, s, e, r, q, c
        """
    assert _findings(body) == []


def test_an_int_default_is_a_size_whatever_a_caller_passes():
    body = """
        WIDTH = 64

        def f(x, n=WIDTH):
            t = torch.zeros(n, 3)
            return t.view(n, 6)  # <-
        """
    findings = _findings(body)
    assert [(f.code, f.line) for f in findings] == [("TTL655", _marked_line(body))]
    for n in (1, 4, 64):
        with pytest.raises(RuntimeError):
            _namespace(body)["f"](None, n)


def test_explain_shows_the_symbolic_shape():
    settings = Settings(selection=Selection(select=["TTL0"]))
    result = check_source(_source(BAD["issue example"]), "program.py", settings, keep_analysis=True)
    text = explain_interpreter(result.interpreter, result.module)
    assert any("self.weight:" in line and "(d_out, d_in)" in line for line in text.splitlines()), text


def test_sizes_read_back_with_size_are_the_parameters():
    body = """
        def f(n: int, d: int):
            t = torch.zeros(n, d)
            return t.view(t.size(0), t.size(1), 2)  # <-
        """
    findings = _findings(body)
    assert [(f.code, f.line) for f in findings] == [("TTL655", _marked_line(body))]
    for n, d in ((1, 1), (2, 5)):
        with pytest.raises(RuntimeError):
            _namespace(body)["f"](n, d)
