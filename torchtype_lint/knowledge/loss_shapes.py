"""The shape of a loss computed with ``reduction="none"``: one value per element for the
elementwise losses (input and target broadcast, as torch broadcasts them, warning only: a (N, 1)
prediction against a (N,) target gives (N, N)), the input's shape for the binary cross entropies
(whose target must match it), and one value per sample (and per position) for cross_entropy and
nll_loss. Measured in torch: rows in tests/test_knowledge_torch.py.
"""
from __future__ import annotations

from typing import Sequence

from ..model.values import Shape, TensorValue, Value
from . import shapes as S

#: Losses computed element by element over input and target broadcast together.
ELEMENTWISE = frozenset({"mse_loss", "l1_loss", "huber_loss", "smooth_l1_loss", "kl_div"})
#: Losses whose target must have the input's size: the result has it.
SAME_SIZE = frozenset({"binary_cross_entropy", "binary_cross_entropy_with_logits"})
#: Class losses: one value per sample, per position for (N, C, d1, ...) scores.
PER_SAMPLE = frozenset({"cross_entropy", "nll_loss"})


def unreduced_shape(name: str, x: TensorValue, target: Value, weights: Sequence[Value] = ()) -> Shape:
    """The shape of ``F.<name>(x, target, reduction="none")`` when it runs; None when unknown.
    ``weights``: the weight / pos_weight given, which must broadcast into the input's shape."""
    if x.shape is None:
        return None
    if name in ELEMENTWISE:
        if not isinstance(target, TensorValue) or target.shape is None:
            return None
        return S.broadcast_shapes(x.shape, target.shape)
    if name in SAME_SIZE:
        for weight in weights:
            if not isinstance(weight, TensorValue) or weight.shape is None or \
                    S.broadcast_shapes(x.shape, weight.shape) != tuple(x.shape):
                return None  # a weight of another shape may widen the result
        return tuple(x.shape)
    if name in PER_SAMPLE:
        return () if len(x.shape) == 1 else (x.shape[0],) + tuple(x.shape[2:])
    return None
