"""The engine's reading of jaxtyping annotations, checked against the installed jaxtyping."""
from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")
jaxtyping = pytest.importorskip("jaxtyping")

from torchtype_lint.knowledge.annotations import (  # noqa: E402
    JAXTYPING_DTYPES, ShapeSpecError, parse_shape_string,
)


def _torch_dtype_names():
    return {name for name in dir(torch) if isinstance(getattr(torch, name), torch.dtype)
            and str(getattr(torch, name)) == f"torch.{name}"}


def test_dtype_sets_are_jaxtypings_restricted_to_torch_dtypes():
    torch_names = _torch_dtype_names()
    for class_name, ours in JAXTYPING_DTYPES.items():
        cls = getattr(jaxtyping, class_name)
        theirs = cls.dtypes
        if not isinstance(theirs, tuple):  # Shaped: jaxtyping's "any dtype" marker
            assert ours is None, class_name
            continue
        assert ours == frozenset(theirs) & torch_names, class_name


def test_every_jaxtyping_dtype_class_usable_with_torch_is_known():
    torch_names = _torch_dtype_names()
    for name in dir(jaxtyping):
        dtypes = getattr(getattr(jaxtyping, name), "dtypes", None)
        if isinstance(dtypes, tuple) and set(dtypes) & torch_names:
            assert name in JAXTYPING_DTYPES, name


def test_dtype_sets_agree_with_isinstance_on_real_tensors():
    torch_names = sorted(_torch_dtype_names() - {"bits1x8", "bits2x4", "bits4x2", "bits8", "bits16"})
    for class_name, ours in JAXTYPING_DTYPES.items():
        annotation = getattr(jaxtyping, class_name)[torch.Tensor, "..."]
        for dtype_name in torch_names:
            try:
                t = torch.empty(0, dtype=getattr(torch, dtype_name))
            except (RuntimeError, TypeError):
                continue  # dtypes torch cannot allocate on CPU
            accepted = isinstance(t, annotation)
            assert accepted == (ours is None or dtype_name in ours), (class_name, dtype_name)


ACCEPTED = [
    "b c h w", "", "...", "*batch c", "... c", "batch 3", "#b 3", "_ c", "_x c",
    "n=3 m", "rows=4 cols=3", "b=batch c", "dim-1", "a*b", "?n c", "*#batch c", "#3",
    "1 1", "channels", "*_ c", "min(a,b)",
]
REJECTED = ["b,c", "*a *b", "... ...", "*a ...", "#_", "*4", "_4"]


@pytest.mark.parametrize("spec", ACCEPTED)
def test_shape_strings_jaxtyping_accepts_are_parsed(spec):
    jaxtyping.Float[torch.Tensor, spec]  # must not raise
    shape, variadics = parse_shape_string(spec)
    if shape is None:
        assert variadics
        return
    # A tensor built from the parsed shape (named dims -> 2, unknown -> 1) must satisfy the
    # annotation; one with an extra leading dim must not (the rank is known).
    concrete = tuple(d if isinstance(d, int) else (2 if isinstance(d, str) else 1) for d in shape)
    annotation = jaxtyping.Float[torch.Tensor, spec]
    if any(not (d.isidentifier() or d.isdigit()) for d in spec.split()):
        pass  # expressions need bound names: only the rank is checked below
    elif "=" not in spec:
        assert isinstance(torch.zeros(concrete), annotation), (spec, concrete)
    assert not isinstance(torch.zeros((1,) + concrete), jaxtyping.Float[torch.Tensor, spec]) or any(
        t.startswith(("*", "...")) for t in spec.split())


@pytest.mark.parametrize("spec", REJECTED)
def test_shape_strings_jaxtyping_rejects_are_rejected(spec):
    with pytest.raises(Exception):  # noqa: B017 - jaxtyping raises ValueError or its own type
        jaxtyping.Float[torch.Tensor, spec]
    with pytest.raises(ShapeSpecError):
        parse_shape_string(spec)


def test_named_and_fixed_dims():
    assert parse_shape_string("b c h w") == (("b", "c", "h", "w"), ())
    assert parse_shape_string("batch 3") == (("batch", 3), ())
    assert parse_shape_string("rows=4 cols=3") == ((4, 3), ())
    assert parse_shape_string("b=batch c") == (("batch", "c"), ())
    assert parse_shape_string("#b 3") == ((None, 3), ())
    assert parse_shape_string("_ c") == ((None, "c"), ())
    assert parse_shape_string("dim-1") == ((None,), ())
    assert parse_shape_string("") == ((), ())
    assert parse_shape_string("*batch c") == (None, ("*batch",))
