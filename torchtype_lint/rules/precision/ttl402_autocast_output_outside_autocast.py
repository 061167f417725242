"""TTL402 autocast-output-outside-autocast: float16/bfloat16 output of an autocast region meets float32 after it."""
from __future__ import annotations

from ..base import register
from .ttl401_precision_mismatch import PrecisionMismatch


@register
class AutocastOutputOutside(PrecisionMismatch):
    """
    ## What it does
    Flags a tensor computed inside a `torch.autocast` region by a matrix product or a
    linear/conv layer (so it is float16 or bfloat16) that is used after the region in a
    matrix product or layer with float32 operands or parameters.

    ## Why is this bad?
    Autocast only changes dtypes while the region is active. Its outputs keep the low
    precision dtype, and outside the region nothing casts the float32 side down:
    `RuntimeError: mat1 and mat2 must have the same dtype, but got BFloat16 and Float`.
    (Elementwise ops and losses promote and are fine.)

    ## Example
    ```python
    with torch.autocast("cuda"):
        features = backbone(x)
    logits = head(features)      # head is float32, features float16
    ```

    ## Use instead
    ```python
    with torch.autocast("cuda"):
        features = backbone(x)
        logits = head(features)
    # or: logits = head(features.float())
    ```

    ## Fix safety
    Unsafe: the fix converts the autocast output to the other side's dtype.
    """

    code = "TTL402"
    name = "autocast-output-outside-autocast"
    summary = "float16/bfloat16 output of an autocast region meets float32 in a matmul or layer after it"
    autocast_escape = True
