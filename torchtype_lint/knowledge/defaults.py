"""torch's global defaults: ``torch.set_default_dtype`` and ``torch.set_default_device``.

The engine holds the file's current default float dtype and decides whether a call certainly
runs (module level, in program order, not on a branch); what the call then does to the
default, and which values it makes unknown, is decided here.
"""
from __future__ import annotations

from typing import Optional, Tuple

from ..model.values import CallArgs, FLOAT32, FLOAT64, FLOAT_DTYPES, TensorValue, Value
from . import dtypes as D
from .torch_api import dtype_of_arg

SET_DEFAULT_DTYPE = "torch.set_default_dtype"
#: After one of these, factories may create tensors on any device, not only "cpu".
DEFAULT_DEVICE_SETTERS = ("torch.set_default_device", "torch.set_default_tensor_type")
#: Tensor creators whose device never follows the default device (from_numpy shares memory).
_DEVICE_FROM_DATA = ("torch.from_numpy",)


def set_default_dtype(arg: Value, certain: bool, default_float: str,
                      uncertain: Optional[frozenset]) -> Tuple[str, Optional[frozenset]]:
    """``torch.set_default_dtype(arg)``: the (default float dtype, uncertain dtypes) after it.

    A call that ``certain``-ly runs with a floating dtype sets the default. One that may or may
    not run, or sets something unknowable, leaves the default and adds every dtype a default
    could now have produced to the uncertain ones (which values then forget, see
    ``forget_uncertain_default``). None: nothing is uncertain."""
    dtype = dtype_of_arg(arg)
    # torch accepts any floating dtype here (float16/bfloat16 too); complex defaults
    # follow (complex32 / complex64 / complex128).
    if dtype in (FLOAT32, FLOAT64, "float16", "bfloat16") and certain:
        return dtype, None
    if dtype != default_float:
        possible = {default_float, dtype} if dtype is not None else set(FLOAT_DTYPES)
        possible |= {D.scalar_dtype("complex", d) for d in list(possible) if d in FLOAT_DTYPES}
        return default_float, frozenset(possible) | (uncertain or frozenset())
    return default_float, uncertain


def forget_uncertain_default(value: Value, uncertain: frozenset) -> Value:
    """A tensor whose dtype may come from an uncertain default has an unknown dtype."""
    if isinstance(value, TensorValue) and value.dtypes and value.dtypes & uncertain:
        return TensorValue(None, value.shape, None, value.device, value.requires_grad)
    return value


def forget_default_device(qualname: str, args: CallArgs, result: Value) -> Value:
    """The result of calling ``qualname`` once the default device may have been changed: a
    tensor created on "cpu" only because that was the default is on an unknown device."""
    if isinstance(result, TensorValue) and result.device == "cpu" and "device" not in args.kw \
            and qualname not in _DEVICE_FROM_DATA:
        return TensorValue(result.dtypes, result.shape, result.origin, None, result.requires_grad)
    return result
