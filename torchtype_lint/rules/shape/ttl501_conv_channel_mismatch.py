"""TTL501 conv-channel-mismatch: the rule, with the shared visit in layer_rule.py."""
from __future__ import annotations

from ..base import RuntimeClaim, register
from .layer_rule import _LayerRule


@register
class ConvChannelMismatch(_LayerRule):
    """
    ## What it does
    Flags a call of `nn.Conv1d`, `nn.Conv2d` or `nn.Conv3d` (or a `ConvTranspose`) whose input has a known
    channel dimension different from the layer's `in_channels`. Batched `(N, C, ...)`
    and unbatched `(C, ...)` inputs are both understood, and so are layers chained in an
    `nn.Sequential` or called one after the other in `forward`: the output shape of one
    layer is the input shape of the next.

    ## Why is this bad?
    The convolution fails at its first call with `Given groups=1, weight of size
    [16, 3, 3, 3], expected input[1, 1, 28, 28] to have 3 channels, but got 1 channels
    instead`. Usual causes: grayscale images into a model built for RGB, channels-last
    `(N, H, W, C)` images, or a previous layer's `out_channels` that does not match.

    ## Example
    ```python
    conv = nn.Conv2d(3, 16, kernel_size=3)
    images = torch.randn(8, 1, 28, 28)  # grayscale
    features = conv(images)
    ```

    ## Use instead
    ```python
    conv = nn.Conv2d(1, 16, kernel_size=3)
    images = torch.randn(8, 1, 28, 28)
    features = conv(images)
    ```
    For channels-last data, move the channels first: `images.permute(0, 3, 1, 2)`.

    ## Fix safety
    No fix: whether the layer or the data is wrong is a modelling decision.
    """

    code = "TTL501"
    name = "conv-channel-mismatch"
    summary = "convolution input has a different number of channels than the layer's in_channels"
    runtime = RuntimeClaim("RuntimeError", r"expected input\[[0-9, ]+\] to have \d+ channels, but got \d+ channels instead")
