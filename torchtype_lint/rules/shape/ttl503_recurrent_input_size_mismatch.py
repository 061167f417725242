"""TTL503 recurrent-input-size-mismatch: the rule, with the shared visit in layer_rule.py."""
from __future__ import annotations

from ..base import RuntimeClaim, register
from .layer_rule import _LayerRule


@register
class RecurrentInputSizeMismatch(_LayerRule):
    """
    ## What it does
    Flags a call of `nn.LSTM`, `nn.GRU`, `nn.RNN` (or their `...Cell` versions) whose
    input's last dimension is known and differs from the layer's `input_size`.

    ## Why is this bad?
    The layer raises `input.size(-1) must be equal to input_size. Expected 10, got 12`
    (cells: `input has inconsistent input_size: got 12 expected 10`) at its first call.

    ## Example
    ```python
    lstm = nn.LSTM(input_size=10, hidden_size=20, batch_first=True)
    out, _ = lstm(torch.randn(4, 7, 12))
    ```

    ## Use instead
    ```python
    lstm = nn.LSTM(input_size=12, hidden_size=20, batch_first=True)
    out, _ = lstm(torch.randn(4, 7, 12))
    ```

    ## Fix safety
    No fix.
    """

    code = "TTL503"
    name = "recurrent-input-size-mismatch"
    summary = "LSTM/GRU/RNN input's last dimension differs from input_size"
    runtime = RuntimeClaim(
        "RuntimeError",
        r"input\.size\(-1\) must be equal to input_size\. Expected \d+, got \d+|input has inconsistent input_size")
