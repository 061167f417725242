"""TTL504 batchnorm-feature-mismatch: the rule, with the shared visit in layer_rule.py."""
from __future__ import annotations

from ..base import RuntimeClaim, register
from .layer_rule import _LayerRule


@register
class BatchNormFeatureMismatch(_LayerRule):
    """
    ## What it does
    Flags a call of `nn.BatchNorm1d/2d/3d(num_features)` whose input has a known size in
    dimension 1 (the channel dimension) different from `num_features`.

    ## Why is this bad?
    Batch norm keeps one running mean per channel; with the wrong channel count it fails
    with `running_mean should contain 5 elements not 10`. A common cause is
    `BatchNorm1d` on `(N, L, C)` sequence data, which needs `(N, C, L)`.

    ## Example
    ```python
    norm = nn.BatchNorm1d(10)
    out = norm(torch.randn(4, 5, 10))  # (N, L, C)
    ```

    ## Use instead
    ```python
    norm = nn.BatchNorm1d(10)
    out = norm(torch.randn(4, 5, 10).transpose(1, 2))  # (N, C, L)
    ```

    ## Fix safety
    No fix.
    """

    code = "TTL504"
    name = "batchnorm-feature-mismatch"
    summary = "BatchNorm input's channel dimension differs from num_features"
    runtime = RuntimeClaim("RuntimeError", r"running_mean should contain \d+ elements not \d+")
