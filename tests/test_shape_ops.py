"""The shape ops of issue 17 (einsum, dim arguments, view/unflatten, expand, repeat): the
engine's shapes and each rule's "this fails" predicate, checked against real torch 2.13.

Every predicate is compared with torch over a grid: where the rule says torch fails, torch
must raise with the phrase the message quotes; where torch raises that way on known values,
the predicate must say so. Then what a user reads (messages, provenance) and what must stay
silent (unknown ranks, symbolic sizes, what torch accepts).
"""
from __future__ import annotations

import itertools
import textwrap
import warnings
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

from knowledge_truth import contradiction, engine_globals, real_globals  # noqa: E402
from torchtype_lint.checker.check import Settings, check_source  # noqa: E402
from torchtype_lint.knowledge import shapes as S  # noqa: E402
from torchtype_lint.knowledge.dim_args import DIM_OPS  # noqa: E402
from torchtype_lint.knowledge.einsum import einsum_problem, einsum_shape, parse_equation  # noqa: E402
from torchtype_lint.rules.base import get_rule  # noqa: E402
from torchtype_lint.rules.shape.ttl509_reshape_element_count import reshape_problem, unflatten_problem  # noqa: E402
from torchtype_lint.rules.shape.ttl517_dim_out_of_range import out_of_range_dim  # noqa: E402
from torchtype_lint.rules.shape.ttl518_dim_list_invalid import dim_list_problem  # noqa: E402
from torchtype_lint.rules.shape.ttl520_expand_size_mismatch import expand_problem  # noqa: E402
from torchtype_lint.model.selection import Selection  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
NEW_CODES = ("TTL517", "TTL518", "TTL519", "TTL520", "TTL521")


def _run(fn):
    """(exception class name, message) when ``fn`` raises, else (None, result)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return None, fn()
    except Exception as exc:  # noqa: BLE001 - the point is to observe torch
        return type(exc).__name__, str(exc)


# --------------------------------------------------------------------------- engine shapes

ENGINE_CASES = [
    "x = torch.randn(2, 3, 4)\ny = x.movedim(0, -1)",
    "x = torch.randn(2, 3, 4)\ny = torch.movedim(x, (0, 1), (2, 0))",
    "x = torch.randn(2, 3, 4)\ny = torch.moveaxis(x, -1, 0)",
    "x = torch.randn(2, 3, 4)\ny = x.swapdims(0, 2)",
    "x = torch.randn(2, 3, 4)\ny = torch.swapaxes(x, 0, 1)",
    "x = torch.randn(2, 3, 4)\ny = x.transpose(dim0=0, dim1=2)",
    "x = torch.randn(2, 3, 4)\ny = x.permute([2, 0, 1])",
    "x = torch.randn(2, 3, 12)\ny = x.unflatten(-1, (4, -1))",
    "x = torch.randn(2, 3, 12)\ny = torch.unflatten(x, 2, (2, 3, 2))",
    "x = torch.randn(2, 5)\ny = x.chunk(2, dim=1)",
    "x = torch.randn(2, 5)\ny = x.chunk(4, 1)",  # ceil(5/4) = 2: three pieces, not four
    "x = torch.randn(2, 6)\ny = x.chunk(4, -1)",
    "x = torch.randn(0, 3)\ny = x.chunk(3)",
    "x = torch.randn(2, 5)\ny = x.split(2, 1)",
    "x = torch.randn(2, 5)\ny = torch.split(x, [1, 4], dim=1)",
    "x = torch.randn(7, 2)\ny = torch.split(x, 3)",
    "x = torch.randn(2, 3)\ny = x.unbind(1)",
    "x = torch.randn(2, 3)\ny = torch.unbind(x)",
    "x = torch.randn(1, 3, 1)\ny = x.squeeze((0, 2))",
    "x = torch.randn(1, 3, 1)\ny = x.squeeze(dim=-1)",
    "x = torch.randn(2, 3)\ny = x.squeeze(0)",
    "x = torch.tensor(1.0)\ny = x.squeeze(0)",
    "x = torch.tensor(1.0)\ny = x.transpose(0, -1)",
    "x = torch.tensor(1.0)\ny = x.movedim(0, -1)",
    "x = torch.randn(2, 3)\ny = torch.einsum('ij,jk->ik', x, torch.randn(3, 5))",
    "x = torch.randn(2, 3)\ny = torch.einsum('ij,jk', x, torch.randn(3, 5))",
    "x = torch.randn(2, 3)\ny = torch.einsum('aB', x)",
    "x = torch.randn(2, 3)\ny = torch.einsum('Ba', x)",
    "x = torch.randn(7, 2, 3)\ny = torch.einsum('...ij,...jk->...ik', x, torch.randn(3, 1, 3, 5))",
    "x = torch.randn(7, 2, 3)\ny = torch.einsum('...ij,kj', x, torch.randn(5, 3))",
    "x = torch.randn(2, 1)\ny = torch.einsum('ij,jk->ik', x, torch.randn(3, 5))",
    "x = torch.randn(4, 4)\ny = torch.einsum('ii->i', x)",
    "x = torch.randn(4, 4)\ny = torch.einsum('ii', x)",
    "x = torch.randn(2, 3)\ny = torch.einsum('i j , j k -> i k', [x, torch.randn(3, 4)])",
    "x = torch.randn(2, 3)\ny = torch.einsum('ij->', x)",
    "x = torch.randn(7, 2, 3)\ny = torch.einsum('...ij->ij', x)",
    "x = torch.randn(2, 3)\ny = torch.einsum('ij->...ij', x)",
]


@pytest.mark.parametrize("source", ENGINE_CASES)
def test_engine_shapes_match_torch(source):
    source = "import torch\n" + source
    why = contradiction(engine_globals(source)["y"], real_globals(source)["y"], require_known=True)
    assert why is None, why


def test_an_unknown_dim_argument_is_not_taken_for_dim_0():
    assert engine_globals("import torch\nx = torch.randn(2, 6)\ny = x.chunk(2, n)\n")["y"].element.shape is None


def test_many_pieces_are_kept_as_one_shape():
    y = engine_globals("import torch\nx = torch.randn(1000, 2)\ny = x.unbind(0)\n")["y"]
    assert y.items is None and y.element.shape == (2,)


# --------------------------------------------------------------------------- einsum against torch

EQUATIONS = ["ij,jk->ik", "ij,jk", "ij,ij->ij", "ii->i", "ij->ji", "ij->il", "ij->ii", "ij,jk->",
             "i,i->", "...ij,...jk->...ik", "...i,...i", "...ij->ij", "bij,bjk->bik", "ijk->k",
             "i->i", "ij,jk,kl->il"]
DIM_SIZES = (1, 2, 3)


def _shapes_for(equation):
    """Operand shapes to try: each operand with as many dims as its letters, -1/+1 around it,
    and (with an ellipsis) one or two extra leading dims."""
    operands = equation.split("->")[0].split(",")
    per_operand = []
    for text in operands:
        letters = len(text.replace("...", ""))
        ranks = {letters, max(letters - 1, 0), letters + 1} | ({letters + 1, letters + 2} if "..." in text else set())
        options = []
        for rank in sorted(ranks):
            options.extend(itertools.product(DIM_SIZES, repeat=rank))
        per_operand.append(options[:40])
    return itertools.islice(itertools.product(*per_operand), 600)


@pytest.mark.parametrize("text", EQUATIONS)
def test_einsum_predicate_and_shape_agree_with_torch(text):
    equation = parse_equation(text)
    assert equation is not None
    checked = 0
    for shapes in _shapes_for(text):
        err, out = _run(lambda: torch.einsum(text, *[torch.zeros(s) for s in shapes]))
        problem = einsum_problem(equation, shapes)
        if problem is None:
            assert err is None, (text, shapes, out)
            assert einsum_shape(equation, shapes) == tuple(out.shape), (text, shapes)
        else:
            assert err == "RuntimeError" and problem.torch_says in out, (text, shapes, out)
        checked += 1
    assert checked >= 9


def test_einsum_operand_count_and_symbolic_sizes():
    eq = parse_equation("ij,jk->ik")
    assert "fewer operands" in einsum_problem(eq, [(2, 3)]).torch_says
    assert "more operands" in einsum_problem(eq, [(2, 3), (3, 4), (4,)]).torch_says
    _, message = _run(lambda: torch.einsum("ij,jk->ik", torch.zeros(2, 3)))
    assert "fewer operands were provided than specified in the equation" in message
    # symbolic and unknown sizes never clash; the letter keeps its name in the result
    assert einsum_problem(eq, [("b", "d"), ("e", 4)]) is None
    assert einsum_shape(eq, [("b", "d"), ("d", 4)]) == ("b", 4)
    assert einsum_shape(eq, [(2, None), (3, 4)]) == (2, 4)
    # equations this module does not read with certainty are unknown, never wrong
    assert [parse_equation(t) for t in ("i1,jk", "..ij", "ij->j->i", "......ij")] == [None] * 4


# --------------------------------------------------------------------------- dims against torch

RANKS = (0, 1, 2, 3)
DIMS = range(-5, 6)


def _dim_calls(op, rank, dim):
    """(the dims each parameter gets, a call of torch doing that) for one dim ``dim``."""
    x = torch.zeros((2,) * rank)
    if op == "torch.chunk":
        return [("dim", [dim])], lambda: torch.chunk(x, 2, dim=dim)
    if op == "torch.split":
        return [("dim", [dim])], lambda: torch.split(x, 1, dim)
    if op == "torch.unbind":
        return [("dim", [dim])], lambda: x.unbind(dim)
    if op in ("torch.movedim", "torch.moveaxis"):
        fn = getattr(torch, op[6:])
        return [("source", [dim]), ("destination", [0])], lambda: fn(x, dim, 0)
    if op in ("torch.transpose", "torch.swapdims", "torch.swapaxes"):
        fn = getattr(torch, op[6:])
        return [("dim0", [0]), ("dim1", [dim])], lambda: fn(x, 0, dim)
    if op == "torch.permute":
        order = list(range(rank - 1)) + [dim] if rank else [dim]
        return [("dims", order)], lambda: x.permute(*order)
    if op == "torch.squeeze":
        return [("dim", [dim])], lambda: torch.squeeze(x, dim)
    if op == "torch.unsqueeze":
        return [("dim", [dim])], lambda: x.unsqueeze(dim)
    if op == "torch.flatten":
        return [("start_dim", [dim]), ("end_dim", [-1])], lambda: torch.flatten(x, dim, -1)
    if op == "torch.unflatten":
        return [("dim", [dim])], lambda: x.unflatten(dim, (2,))
    raise AssertionError(op)


_TTL518_PHRASES = ("does not match the length of the desired ordering", "duplicate dims are not allowed",
                   "movedim: repeated dim", "movedim: Invalid source", "appears multiple times")


@pytest.mark.parametrize("op", sorted(DIM_OPS))
def test_dim_ranges_agree_with_torch(op):
    for rank, dim in itertools.product(RANKS, DIMS):
        dims, call = _dim_calls(op, rank, dim)
        err, message = _run(call)
        predicted = out_of_range_dim(op, rank, dims)
        listed = dim_list_problem(op, rank, [d for _, d in dims]) if op in (
            "torch.permute", "torch.movedim", "torch.moveaxis", "torch.squeeze") else None
        case = (op, rank, dim, err, message)
        if predicted is not None:
            assert err in ("IndexError", "RuntimeError") and predicted in message, case
        elif listed is not None:
            assert err == "RuntimeError" and listed[1] in message, case
        else:
            assert err is None or not (err == "IndexError" and "Dimension out of range" in str(message)), case
            assert err is None or not any(p in str(message) for p in _TTL518_PHRASES), case
        if err == "IndexError" and "Dimension out of range" in message:
            assert predicted is not None, case


def test_dim_lists_agree_with_torch():
    x3 = torch.zeros(1, 1, 2)
    cases = [("torch.permute", [[0, 2, 1]]), ("torch.permute", [[0, 1]]), ("torch.permute", [[0, 1, 2, 3]]),
             ("torch.permute", [[0, 0, 1]]), ("torch.permute", [[0, -3, 1]]), ("torch.permute", [[2, -1, 0]]),
             ("torch.movedim", [[0, 1], [1]]), ("torch.movedim", [[0, 1], [1, 1]]),
             ("torch.movedim", [[0, -3], [1, 2]]), ("torch.movedim", [[0, 1], [2, 0]]),
             ("torch.squeeze", [[0, 1]]), ("torch.squeeze", [[0, -3]]), ("torch.squeeze", [[1, 1]]),
             ("torch.squeeze", [[]])]
    for op, lists in cases:
        if op == "torch.permute":
            err, message = _run(lambda: x3.permute(*lists[0]))
        elif op == "torch.movedim":
            err, message = _run(lambda: torch.movedim(x3, tuple(lists[0]), tuple(lists[1])))
        else:
            err, message = _run(lambda: x3.squeeze(tuple(lists[0])))
        found = dim_list_problem(op, 3, lists)
        if found is None:
            assert err is None, (op, lists, message)
        else:
            assert err == "RuntimeError" and found[1] in message, (op, lists, message)


def test_squeeze_of_a_dim_that_is_not_1_is_a_no_op_and_0d_takes_0_and_minus_1():
    assert tuple(torch.zeros(2, 3).squeeze(0).shape) == (2, 3)
    assert out_of_range_dim("torch.squeeze", 2, [("dim", [0])]) is None
    for op in ("torch.transpose", "torch.squeeze", "torch.flatten", "torch.movedim", "torch.unsqueeze"):
        assert S.dim_in_range(0, 0) and S.dim_in_range(-1, 0), op
    assert S.dim_range(0) == (-1, 0) and S.dim_range(2, 1) == (-3, 2)


# --------------------------------------------------------------------------- sizes against torch

SIZE_VALUES = (-2, -1, 0, 1, 2, 3, 6)


def test_view_with_two_inferred_sizes_and_element_counts_agree_with_torch():
    for src in ((2, 3), (6,), (0, 3), (1, 2, 3)):
        x = torch.zeros(src)
        for length in (1, 2, 3):
            for target in itertools.product(SIZE_VALUES, repeat=length):
                err, message = _run(lambda: x.view(*target))
                problem = reshape_problem(src, target)
                case = (src, target, err, message)
                if problem is not None:
                    assert err == "RuntimeError", case
                    assert ("only one dimension can be inferred" in message) == ("only one" in problem), case
                if err == "RuntimeError" and "only one dimension can be inferred" in message:
                    assert problem is not None, case
    # two -1s fail whatever the tensor: no shape needed
    assert reshape_problem(None, (-1, 4, -1)) is not None and reshape_problem(None, (None, -1, -1)) is None


def test_unflatten_sizes_agree_with_torch():
    for src, dim in (((2, 6), 1), ((6,), 0), ((3, 4), -2), ((2, 0), 1)):
        x = torch.zeros(src)
        size = src[dim]
        for length in (1, 2, 3):
            for sizes in itertools.product((-2, -1, 0, 1, 2, 3, 4, 6), repeat=length):
                err, message = _run(lambda: x.unflatten(dim, sizes))
                problem = unflatten_problem(size, dim % len(src), sizes)
                case = (src, dim, sizes, err, message)
                if problem is None:
                    assert err is None or "don't multiply up" not in message, case
                else:
                    key = "only one dimension can be inferred" if "only one" in problem else "don't multiply up"
                    assert err == "RuntimeError" and key in message, case
                if err == "RuntimeError" and "don't multiply up" in message:
                    assert problem is not None, case


def test_expand_agrees_with_torch():
    for src in ((2, 3), (1, 3), (3,), (1,), ()):
        x = torch.zeros(src)
        for length in range(0, 4):
            for sizes in itertools.product((-1, 1, 2, 3, 4), repeat=length):
                err, message = _run(lambda: x.expand(*sizes) if sizes else x.expand(()))
                problem = expand_problem(src, list(sizes))
                case = (src, sizes, err, message)
                if problem is None:  # (a 0-d tensor given -1 fails otherwise: not claimed)
                    assert err is None or (src == () and "overflow" in message), case
                else:
                    assert err == "RuntimeError" and problem[1] in message, case
    # unknown sizes and symbolic dims are taken to fit
    assert expand_problem((2, 3), [None, 3]) is None and expand_problem(("b", 3), [4, 3]) is None


def test_repeat_count_agrees_with_torch():
    for rank, count in itertools.product(RANKS, (1, 2, 3, 4)):
        err, message = _run(lambda: torch.zeros((2,) * rank).repeat(*([2] * count)))
        assert (err is not None) == (count < rank), (rank, count, message)
        if err:
            assert "can not be smaller than number of dimensions of tensor" in message


# --------------------------------------------------------------------------- rules on code

HEADER = """\
import torch
import torch.nn as nn
from torch import Tensor
from jaxtyping import Float
"""


def findings(body, codes=("TTL5",)):
    source = HEADER + textwrap.dedent(body)
    return check_source(source, "t.py", Settings(selection=Selection(select=list(codes)))).findings


def test_out_of_range_message_names_op_dim_rank_range_and_origin():
    (f,) = findings("""
    tokens = torch.randn(10, 64)
    per_feature = tokens.transpose(1, 2)
    """)
    assert f.code == "TTL517"
    assert f.message.startswith("`.transpose()`: dim1=2 is out of range for `tokens`, a 2-dim tensor (shape (10, 64)")
    assert "since line 6: `torch.randn(10, 64)`" in f.message
    assert 'torch raises "Dimension out of range (expected to be in range of [-2, 1], but got 2)"' in f.message


def test_every_spelling_is_checked():
    found = findings("""
    x = torch.randn(4, 3)
    a = torch.transpose(x, 0, 2)
    b = x.clone().swapdims_(0, 2)
    c = x.clone().unsqueeze_(3)
    d = torch.chunk(x, 2, dim=-3)
    e = x.split(1, dim=2)
    f = torch.squeeze(x, dim=(0, 5))
    """)
    assert [(f.code, f.line - HEADER.count("\n")) for f in found] == [("TTL517", n) for n in range(3, 9)]


def test_unknown_ranks_dims_and_symbolic_sizes_stay_silent():
    assert findings("""
    def f(x, d):
        return x.transpose(1, 2), x.permute(0, 2, 1), x.expand(4, 3), x.repeat(2), x.chunk(2, d)

    def g(x: Float[Tensor, "b d"], dims, n):
        y = x.expand(n, 3)
        z = x.repeat(n, 1)
        w = torch.einsum("ij,jk->ik", x, x)
        return x.permute(*dims), x.transpose(0, -1), y, z, w

    def h(x: Float[Tensor, "... d"]):
        return x.transpose(2, 3), torch.einsum("ij,jk", x, x)

    n = 5
    t = torch.randn(2, 3)
    u = t.expand(n, -1, -1)

    def k(m):
        return t.view(m, -1), t.unflatten(1, (m, -1))
    """) == []


def test_annotation_ranks_are_facts():
    (f,) = findings("""
    def f(x: Float[Tensor, "b d"]):
        return x.transpose(1, 2)
    """)
    assert f.code == "TTL517" and "a 2-dim tensor" in f.message


def test_what_torch_accepts_is_silent():
    # unbatched recurrent and pooling input, squeeze of a dim that is not 1, 0-d dims 0/-1,
    # loops that grow a tensor's rank, an einsum whose size-1 dims broadcast
    assert findings("""
    lstm = nn.LSTM(16, 32)
    out, _ = lstm(torch.randn(7, 16))
    pooled = nn.MaxPool2d(2)(torch.randn(4, 8, 8)).flatten(1)
    kept = torch.randn(2, 3).squeeze(0)
    loss = torch.randn(3).sum()
    same = loss.transpose(0, -1).squeeze(-1).flatten(0, -1)
    x = torch.randn(3)
    for _ in range(3):
        x = x.unsqueeze(0)
        y = x.transpose(0, 1)
    z = torch.einsum("ij,jk->ik", torch.randn(2, 1), torch.randn(3, 5))
    """) == []


def test_each_problem_family_reports_once_under_its_own_code():
    found = findings("""
    x = torch.randn(2, 3, 4)
    a = x.permute(0, 5)
    b = x.permute(0, 0, 5)
    b2 = x.permute(0, 5, 0)
    c = x.permute(0, -3, 1)
    d = torch.movedim(x, (0, 5), (1,))
    e = x.view(-1, 2, -1)
    f = torch.einsum("bij,bjk->bik", x, torch.randn(2, 5, 6))
    g = x.expand(3, 4)
    h = x.repeat(2, 2)
    """)
    assert [f.code for f in found] == [
        "TTL518", "TTL518", "TTL517", "TTL518", "TTL518", "TTL509", "TTL519", "TTL520", "TTL521"]


@pytest.mark.parametrize("code", NEW_CODES)
def test_new_rules_have_docs_claims_and_fixtures(code):
    rule = get_rule(code)
    assert rule is not None and rule.runtime is not None
    page = rule.documentation()
    for section in ("## What it does", "## Why is this bad?", "## Example", "## Use instead", "## Fix safety"):
        assert section in page, (code, section)
    folder = ROOT / "fixtures" / code
    assert list(folder.glob("bad_*.py")) and list(folder.glob("good_*.py")), code


@pytest.mark.parametrize("code", NEW_CODES + ("TTL509",))
def test_docs_examples_are_reported_and_their_fixes_are_not(code):
    """A rule page's Example is a finding of that rule; with its last line replaced by Use
    instead, it is silent."""
    page = get_rule(code).documentation()
    example = page.split("## Example")[1].split("```python")[1].split("```")[0].strip("\n")
    fixed = page.split("## Use instead")[1].split("```python")[1].split("```")[0].strip("\n")
    assert [f.code for f in findings(example + "\n")] == [code]
    repaired = "\n".join(example.splitlines()[:-1] + fixed.splitlines()) + "\n"
    assert findings(repaired) == [], repaired
