"""TTL514 window-larger-than-input: the rule, with the shared visit in layer_rule.py."""
from __future__ import annotations

from ..base import RuntimeClaim, register
from .layer_rule import _LayerRule


@register
class WindowLargerThanInput(_LayerRule):
    """
    ## What it does
    Flags a convolution or pooling layer (`nn.Conv1d/2d/3d`, `nn.MaxPool*`,
    `nn.AvgPool*`) whose window does not fit in a known spatial size of its input, so the
    output would have size 0. Typical in layer chains: too many pooling steps for small
    images (a network designed for 224x224 run on 32x32 CIFAR images).

    ## Why is this bad?
    torch raises `Calculated padded input size per channel: (2 x 2). Kernel size:
    (3 x 3). Kernel size can't be greater than actual input size` for convolutions and
    `Given input size: (3x1x1). Calculated output size: (3x0x0). Output size is too small`
    for pooling.

    ## Example
    ```python
    features = nn.Sequential(
        nn.Conv2d(3, 8, 3), nn.MaxPool2d(2),   # 8 -> 6 -> 3
        nn.Conv2d(8, 8, 3), nn.MaxPool2d(2),   # 3 -> 1 -> 0
    )
    out = features(torch.randn(1, 3, 8, 8))
    ```

    ## Use instead
    ```python
    features = nn.Sequential(
        nn.Conv2d(3, 8, 3, padding=1), nn.MaxPool2d(2),   # 8 -> 8 -> 4
        nn.Conv2d(8, 8, 3, padding=1), nn.MaxPool2d(2),   # 4 -> 4 -> 2
    )
    ```

    ## Fix safety
    No fix.
    """

    code = "TTL514"
    name = "window-larger-than-input"
    summary = "conv/pool window larger than the (padded) input: output size 0"
    runtime = RuntimeClaim("RuntimeError", r"Kernel size can't be greater than actual input size|Output size is too small")
