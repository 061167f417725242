"""knowledge/jaxtyping_shapes.py: the one shape-string parser, and the engine's view of it.

The engine (``knowledge.annotations.parse_shape_string``) and the TTL6xx rules
(``parse_jaxtyping_shape``) used to parse shape strings separately; the engine's parser
disagreed with jaxtyping on the strings below. Each is checked against the installed jaxtyping.
"""
from __future__ import annotations

import itertools
import textwrap

import pytest

from torchtype_lint.checker.check import check_source
from torchtype_lint.knowledge.annotations import ShapeSpecError, parse_shape_string
from torchtype_lint.knowledge.jaxtyping_shapes import parse_jaxtyping_shape

#: Every prefix of modifiers and ``doc=`` before every kind of dim body.
PREFIXES = ["", "#", "*", "_", "?", "##", "**", "__", "??", "#*", "*#", "_*", "*_", "#_", "_#", "?*", "*?",
            "?_", "_?", "#?", "?#", "a=", "=", "a=*", "*a=", "#a=", "a=#", "a=_", "_a=", "?a="]
BODIES = ["", "a", "b1", "3", "0", "-1", "+1", "1_0", "\u00b2", "\u0663", "a+b", "dim-1", "3.5", "x[0]", "a.b",
          "min(a,b)", "a,b", "...", "a...", "a#", "1a", "a=b", "(a)", "a b"]
GRID = sorted({prefix + body for prefix, body in itertools.product(PREFIXES, BODIES)}
              | {"*a *b", "... ...", "*a ...", "... c", "*batch c", " ", "a  b"})


def _accepted_by_jaxtyping(spec: str) -> bool:
    jaxtyping = pytest.importorskip("jaxtyping")
    torch = pytest.importorskip("torch")
    try:
        jaxtyping.Float[torch.Tensor, spec]
    except ValueError:
        return False
    return True


def _accepted(parse, spec: str) -> bool:  # noqa: ANN001 - either parser
    try:
        parse(spec)
    except ShapeSpecError:
        return False
    return True


def test_both_views_accept_exactly_what_jaxtyping_accepts():
    wrong = [(spec, view.__name__) for spec in GRID for view in (parse_jaxtyping_shape, parse_shape_string)
             if _accepted(view, spec) != _accepted_by_jaxtyping(spec)]
    assert wrong == []


# The engine's parser used to read these differently from jaxtyping (and from the rules).

@pytest.mark.parametrize("spec, shape", [
    # `doc=` was dropped before the modifiers were read, so the modifiers in front were lost.
    ("#a=3 c", (None, "c")),       # broadcastable: was (3, "c")
    ("_a=b", (None,)),             # anonymous: was ("b",)
    ("?a=b", (None,)),             # tree-path dependent: was ("b",)
    # Sizes are read by int(), as jaxtyping does.
    ("1_000", (1000,)),            # was an unknown symbolic dim
    ("+2 n", (2, "n")),            # was rejected
    ("-1", (None,)),               # jaxtyping's fixed -1, which no tensor has: was rejected
    ("\u00b2", (None,)),           # superscript two is a digit int() refuses: was a crash
    # Any other text is an expression jaxtyping evaluates later: was rejected unless it used
    # a few characters.
    ("3.5", (None,)), ("x[0] c", (None, "c")), ("a.b", (None,)), ("a=b=c", (None,)),
    # An empty name after the modifiers is a dim jaxtyping accepts: was rejected.
    ("b= c", (None, "c")),
    # `_` is a modifier like the others and may come before `*` or `?`: was rejected.
    ("_?a c", (None, "c")),
])
def test_shapes_the_engine_used_to_misread(spec, shape):
    assert _accepted_by_jaxtyping(spec)
    assert parse_shape_string(spec) == (shape, ())


@pytest.mark.parametrize("spec, variadic", [
    ("*a=b c", "*a=b"),  # was read as two fixed-rank dims ("b", "c")
    ("_*a c", "_*a"),
    ("* c", "*"),
])
def test_variadics_the_engine_used_to_misread(spec, variadic):
    assert _accepted_by_jaxtyping(spec)
    assert parse_shape_string(spec) == (None, (variadic,))


@pytest.mark.parametrize("spec", [
    "__a",      # `_` twice
    "#_a",      # anonymous and broadcastable
    "*a=3",     # a variadic fixed size
    "_a=3",     # an anonymous fixed size
    "?a+b",     # a tree-path dependent expression
    "_1a",      # an anonymous expression
])
def test_strings_jaxtyping_rejects_that_the_engine_used_to_accept(spec):
    assert not _accepted_by_jaxtyping(spec)
    with pytest.raises(ShapeSpecError):
        parse_shape_string(spec)


def test_a_size_read_by_int_is_the_size_jaxtyping_checks():
    jaxtyping = pytest.importorskip("jaxtyping")
    torch = pytest.importorskip("torch")
    assert isinstance(torch.zeros(1000), jaxtyping.Float[torch.Tensor, "1_000"])
    assert parse_shape_string("1_000") == ((1000,), ())


def test_a_shape_string_int_refuses_does_not_stop_the_analysis():
    source = textwrap.dedent("""
        import torch
        from jaxtyping import Float
        from torch import Tensor

        def f(x: Float[Tensor, "\u00b2"]) -> Float[Tensor, "\u00b2"]:
            x.double()
            return x
    """)
    assert [f.code for f in check_source(source, "t.py").findings] == ["TTL101"]
