"""TTL505 layernorm-shape-mismatch: the rule, with the shared visit in layer_rule.py."""
from __future__ import annotations

from ..base import RuntimeClaim, register
from .layer_rule import _LayerRule


@register
class LayerNormShapeMismatch(_LayerRule):
    """
    ## What it does
    Flags a call of `nn.LayerNorm(normalized_shape)` whose input's trailing dimensions
    are known and differ from `normalized_shape`.

    ## Why is this bad?
    Layer norm normalizes over the last dimensions, which must be exactly
    `normalized_shape`; otherwise it fails with `Given normalized_shape=[10], expected
    input with shape [*, 10], but got input of size[4, 5]`.

    ## Example
    ```python
    norm = nn.LayerNorm(10)
    out = norm(torch.randn(4, 5))
    ```

    ## Use instead
    ```python
    norm = nn.LayerNorm(5)
    out = norm(torch.randn(4, 5))
    ```

    ## Fix safety
    No fix.
    """

    code = "TTL505"
    name = "layernorm-shape-mismatch"
    summary = "LayerNorm input's trailing dimensions differ from normalized_shape"
    runtime = RuntimeClaim("RuntimeError", r"Given normalized_shape=\[[0-9, ]+\], expected input with shape")
