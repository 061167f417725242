"""TTL513 flatten-drops-batch: the rule."""
from __future__ import annotations


import libcst as cst

from ...model.values import Origin, describe_shape, numel
from ..base import Rule, RuntimeClaim, register
from .call_matchers import _module_call
from .flattened_batch import _flattened_batch, _note_flatten
from .messages import layer_label
from ..context import RuleContext


@register
class FlattenDropsBatch(Rule):
    """
    ## What it does
    Flags a fully flattened batch fed to an `nn.Linear`: `x.view(-1)`, `x.reshape(-1)`,
    `x.flatten()` or `torch.flatten(x)` of a tensor with a known batch size N > 1, whose
    N * in_features elements then go into a `Linear(in_features, ...)`.

    ## Why is this bad?
    Flattening without `start_dim=1` merges the batch into one long vector, so the layer
    sees a single sample of N * in_features values and fails with `mat1 and mat2 shapes
    cannot be multiplied (1x1600 and 400x120)`; with a batch of 1 it silently returns an
    unbatched output instead.

    ## Example
    ```python
    x = features(images)        # (4, 16, 5, 5)
    out = fc(x.view(-1))        # fc = nn.Linear(400, 120)
    ```

    ## Use instead
    ```python
    out = fc(x.flatten(1))      # or x.view(x.size(0), -1)
    ```

    ## Fix safety
    No fix.
    """

    code = "TTL513"
    name = "flatten-drops-batch"
    summary = "flatten/view(-1) merges the batch dimension before a layer that needs it"
    listens = (cst.Call,)
    runtime = RuntimeClaim("RuntimeError", r"mat1 and mat2 shapes cannot be multiplied \(1x\d+ and \d+x\d+\)")

    def visit(self, node: cst.Call, ctx: RuleContext) -> None:
        _note_flatten(node, ctx)
        found = _module_call(node, ctx)
        if found is None:
            return
        module, x, x_node = found
        flattened = _flattened_batch(ctx, x, module)
        if flattened is None:
            return
        flat_node, shape = flattened
        origin = Origin(flat_node, "flattens the batch dimension too")
        self.report(node, f"{layer_label(module)} gets one vector of {numel(shape)} values: "
                          f"the batch of {shape[0]} (shape {describe_shape(shape)}) was flattened together "
                          f"with the features {{origin}}; keep the batch with `.flatten(1)` or "
                          f"`.view(x.size(0), -1)`", origin=origin)
