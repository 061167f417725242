"""Ops that exist only for floating-point (and complex) tensors, and what torch says when one
gets an integer or bool tensor. TTL211 reports these with a tailored message and fix; the
contract rules (TTL250/251) leave the names it covers to it, so one mistake gives one finding.
``tests/test_float_only_ops.py`` checks every message against torch."""
from __future__ import annotations

from typing import FrozenSet, Mapping

#: op -> torch's message for an integer or bool input (``{d}``: torch's scalar type name).
FLOAT_ONLY: Mapping[str, str] = {
    "mean": "mean(): could not infer output dtype. Input dtype must be either a floating point or complex dtype. Got: {d}",
    "nanmean": "nanmean(): expected input to have floating point or complex dtype but got {d}",
    "std": "std and var only support floating point and complex dtypes",
    "var": "std and var only support floating point and complex dtypes",
    "std_mean": "std_mean only support floating point and complex dtypes",
    "var_mean": "var_mean only support floating point and complex dtypes",
    "norm": "linalg.vector_norm: Expected a floating point or complex tensor as input. Got {d}",
    "quantile": "quantile() input tensor must be either float or double dtype",
    "nanquantile": "quantile() input tensor must be either float or double dtype",
    "softmax": "\"softmax_lastdim_kernel_impl\" not implemented for '{d}'",
    "log_softmax": "\"log_softmax_lastdim_kernel_impl\" not implemented for '{d}'",
    "rand_like": "\"check_uniform_bounds\" not implemented for '{d}'",
    "randn_like": "\"normal_kernel_cpu\" not implemented for '{d}'",
    "gelu": "\"GeluKernelImpl\" not implemented for '{d}'",
}
#: Ops that take ``dtype=`` and then work on integers.
ACCEPTS_DTYPE: FrozenSet[str] = frozenset({"mean", "nanmean", "softmax", "log_softmax", "rand_like",
                                           "randn_like", "norm"})
#: ``torch.nn.functional`` spellings (``normalize`` computes a norm).
FUNCTIONAL: FrozenSet[str] = frozenset({"softmax", "log_softmax", "gelu", "normalize"})
#: ``torch.linalg`` spellings of ``norm``.
LINALG_NORMS: FrozenSet[str] = frozenset({"torch.linalg.vector_norm", "torch.linalg.norm"})


#: Every public op name (``knowledge/ops.py``) that is one of these ops -> the op. A tensor
#: method is its ``torch.X`` twin there, and an nn module its functional (``nn.Softmax`` is
#: ``F.softmax``, ``nn.CrossEntropyLoss`` is ``F.cross_entropy``, whose integer logits fail in
#: its log_softmax).
OP_NAMES: Mapping[str, str] = {
    **{f"torch.{op}": op for op in FLOAT_ONLY},
    **{f"torch.nn.functional.{op}": {"normalize": "norm"}.get(op, op) for op in FUNCTIONAL},
    "torch.nn.functional.cross_entropy": "log_softmax",
    **{name: "norm" for name in LINALG_NORMS},
}


def covered_names() -> FrozenSet[str]:
    """Every public name (as the op contract table spells it) TTL211 judges on integer and
    bool tensors; cross_entropy's integer logits fail in its log_softmax."""
    names = {f"torch.{op}" for op in FLOAT_ONLY} | {f"Tensor.{op}" for op in FLOAT_ONLY}
    names |= {f"torch.nn.functional.{op}" for op in FUNCTIONAL | {"cross_entropy"}}
    return frozenset(names | LINALG_NORMS)
