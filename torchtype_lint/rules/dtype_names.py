"""How dtypes read in messages: our names, and the names torch itself prints."""
from __future__ import annotations

from typing import Optional

from ..model.values import Value, describe_dtypes, short_dtype
from .dtype_predicates import dtypes_of


def torch_name(dtype: str) -> str:
    """``torch.float32``."""
    return f"torch.{dtype}"


def scalar_type_name(dtype: str) -> str:
    """The capitalised scalar type of ``expected scalar type Float but found Double``."""
    return short_dtype(dtype)


_C10_NAMES = {
    "float32": "float", "float64": "double", "float16": "c10::Half", "bfloat16": "c10::BFloat16",
    "int64": "long int", "int32": "int", "int16": "short int", "int8": "signed char",
    "uint8": "unsigned char", "bool": "bool", "complex64": "c10::complex<float>",
    "complex128": "c10::complex<double>",
}


def c10_name(dtype: str) -> str:
    """The C++ type name of ``expected m1 and m2 to have the same dtype, but got: float != double``."""
    return _C10_NAMES.get(dtype, dtype)


def show(value: Value) -> str:
    """The dtype(s) of a tensor value for a message: ``float64`` or ``{int32, int64}``."""
    return describe_dtypes(dtypes_of(value))


def one(value: Value) -> Optional[str]:
    dtypes = dtypes_of(value)
    return next(iter(dtypes)) if dtypes is not None and len(dtypes) == 1 else None


def said(message: str) -> str:
    """A torch message quoted for ours: double quotes unless it contains some."""
    return f"'{message}'" if '"' in message else f'"{message}"'


def origin_note(value: Value) -> str:
    """`` ({origin})`` when the value has a provenance to show, else nothing."""
    return " ({origin})" if getattr(value, "origin", None) is not None else ""
