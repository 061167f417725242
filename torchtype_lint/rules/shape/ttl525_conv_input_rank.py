"""TTL525 conv-input-rank: the rule, with the shared visit in layer_rule.py."""
from __future__ import annotations

from ..base import RuntimeClaim, register
from .layer_rule import _LayerRule


@register
class ConvInputRank(_LayerRule):
    """
    ## What it does
    Flags a call of `nn.Conv1d/2d/3d` (or a `ConvTranspose`) whose input has a known number of
    dimensions the layer does not accept: a `Conv2d` takes `(C, H, W)` or `(N, C, H, W)`,
    nothing else. Layers chained in an `nn.Sequential` or called one after the other in
    `forward` are followed: the output shape of one layer is the input shape of the next.

    ## Why is this bad?
    The convolution fails at its first call with `Expected 3D (unbatched) or 4D (batched)
    input to conv2d, but got input of size: [8, 256]`. Usual causes: features flattened (or
    passed through an `nn.Linear`) before another convolution, or a batch of images stacked
    with an extra dimension.

    ## Example
    ```python
    conv = nn.Conv2d(16, 32, 3)
    features = torch.randn(8, 16, 6, 6).flatten(1)
    out = conv(features)
    ```

    ## Use instead
    ```python
    conv = nn.Conv2d(16, 32, 3)
    features = torch.randn(8, 16, 6, 6)
    out = conv(features)
    ```

    ## Fix safety
    No fix.
    """

    code = "TTL525"
    name = "conv-input-rank"
    summary = "convolution input has a number of dimensions the layer does not accept"
    runtime = RuntimeClaim("RuntimeError", r"Expected \d+D \(unbatched\) or \d+D \(batched\) input to conv")
