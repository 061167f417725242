"""values.DTYPE_FAMILIES: the dtype sets an annotation promises as a whole, named in messages."""
from __future__ import annotations

from torchtype_lint.knowledge.annotations import JAXTYPING_DTYPES
from torchtype_lint.model.values import DTYPE_FAMILIES, FLOAT32, FLOAT64, describe_dtypes


def test_a_family_is_named_in_messages():
    for name, dtypes in DTYPE_FAMILIES.items():
        if len(dtypes) > 4:  # small sets are listed, not named
            assert describe_dtypes(dtypes) == f"any {name}"
    assert describe_dtypes(frozenset({FLOAT32, FLOAT64})) == "{float32, float64}"


def test_every_big_jaxtyping_class_is_a_family():
    # Otherwise a message would list a dozen dtypes where it could say "any float".
    families = set(DTYPE_FAMILIES.values())
    for class_name, dtypes in JAXTYPING_DTYPES.items():
        if dtypes is not None and len(dtypes) > 4:
            assert dtypes in families, class_name
    assert describe_dtypes(JAXTYPING_DTYPES["Float"]) == "any float"
    assert describe_dtypes(JAXTYPING_DTYPES["Integer"]) == "any int"
