"""TTL502 linear-feature-mismatch: the rule, with the shared visit in layer_rule.py."""
from __future__ import annotations

from ..base import RuntimeClaim, register
from .layer_rule import _LayerRule


@register
class LinearFeatureMismatch(_LayerRule):
    """
    ## What it does
    Flags a call of `nn.Linear(in_features, out_features)` whose input's last dimension
    is known and differs from `in_features`, including inputs that come out of earlier
    layers: a `Linear(16 * 5 * 5, 120)` after the conv/pool layers of a LeNet built for
    32x32 images, run on 28x28 images, sees 16 * 4 * 4 = 256 features.

    ## Why is this bad?
    The matrix product inside the layer fails with `mat1 and mat2 shapes cannot be
    multiplied (1x256 and 400x120)`. The numbers in torch's message are the flattened
    input and the transposed weight, which makes the cause hard to see; the finding names
    the layer, the expected size and where the input's shape came from.

    ## Example
    ```python
    fc = nn.Linear(16 * 5 * 5, 120)
    x = torch.randn(1, 16, 4, 4)
    out = fc(torch.flatten(x, 1))
    ```

    ## Use instead
    ```python
    fc = nn.Linear(16 * 4 * 4, 120)  # or nn.LazyLinear(120)
    x = torch.randn(1, 16, 4, 4)
    out = fc(torch.flatten(x, 1))
    ```

    ## Fix safety
    No fix.
    """

    code = "TTL502"
    name = "linear-feature-mismatch"
    summary = "nn.Linear input's last dimension differs from in_features"
    runtime = RuntimeClaim("RuntimeError", r"mat1 and mat2 shapes cannot be multiplied \(\d+x\d+ and \d+x\d+\)")
