"""TTL524 batchnorm-input-rank: the rule, with the shared visit in layer_rule.py."""
from __future__ import annotations

from ..base import RuntimeClaim, register
from .layer_rule import _LayerRule


@register
class BatchNormInputRank(_LayerRule):
    """
    ## What it does
    Flags a call of `nn.BatchNorm1d/2d/3d` whose input has a known number of dimensions the
    layer does not accept: `BatchNorm1d` takes `(N, C)` or `(N, C, L)`, `BatchNorm2d` only
    `(N, C, H, W)`, `BatchNorm3d` only `(N, C, D, H, W)`. Layers chained in an `nn.Sequential`
    or called one after the other in `forward` are followed: the output shape of one layer is
    the input shape of the next.

    ## Why is this bad?
    The layer fails at its first call with `expected 4D input (got 2D input)`. The usual cause
    is a norm placed after a layer whose output has another rank: a `BatchNorm2d` after an
    `nn.Linear`, or after the features were flattened.

    ## Example
    ```python
    head = nn.Sequential(nn.Linear(64, 32), nn.BatchNorm2d(32), nn.ReLU())
    out = head(torch.randn(8, 64))
    ```

    ## Use instead
    ```python
    head = nn.Sequential(nn.Linear(64, 32), nn.BatchNorm1d(32), nn.ReLU())
    out = head(torch.randn(8, 64))
    ```

    ## Fix safety
    No fix: whether the norm or the layer before it is wrong is a modelling decision.
    """

    code = "TTL524"
    name = "batchnorm-input-rank"
    summary = "BatchNorm input has a number of dimensions the layer does not accept"
    runtime = RuntimeClaim("ValueError", r"expected \d+D (or \d+D )?input \(got \d+D input\)")
