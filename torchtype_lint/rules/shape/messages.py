"""How shape findings name an argument, a layer, and where a shape came from."""
from __future__ import annotations

from typing import Any, Optional, Tuple

from ...model.values import ModuleValue, Origin, TensorValue, Value, describe_shape
from ..base import expr_text
from .layer_chain import chain_source
from ..context import RuleContext


def _subject(node: Any, limit: int = 40) -> str:
    """How a message names an argument: its source text, shortened."""
    if node is None:
        return "the input"
    text = " ".join(expr_text(node).split())
    if len(text) > limit:
        text = text[: limit - 3] + "..."
    return f"`{text}`"


def shape_origin(value: Value, ctx: RuleContext) -> Optional[Origin]:
    """Where a tensor's shape comes from, for ``{origin}``.

    The engine's origin chain is about dtypes; its root is still the expression that made
    the tensor: a constructor (``torch.randn(1, 1, 28, 28)``) or, for a layer's output,
    that layer's constructor. The dtype note is dropped; layer outputs are labelled.
    """
    if not isinstance(value, TensorValue) or value.origin is None:
        return None
    root = value.origin.root()
    if root.node is None:
        return None
    made_by = ctx.joined_value(root.node)
    note = "the layer whose output it is" if isinstance(made_by, ModuleValue) else ""
    return Origin(root.node, note)


def _with_origin(text: str, origin: Optional[Origin]) -> str:
    return f"{text} {{origin}}" if origin is not None else text


def layer_label(module: ModuleValue) -> str:
    """``Conv2d(3, 16)``, ``Linear(400, 120)``: the layer as its constructor reads."""
    keys = {
        "Linear": ("in_features", "out_features"), "Embedding": ("num_embeddings", "embedding_dim"),
        "LSTM": ("input_size", "hidden_size"), "GRU": ("input_size", "hidden_size"),
        "RNN": ("input_size", "hidden_size"), "LSTMCell": ("input_size", "hidden_size"),
        "GRUCell": ("input_size", "hidden_size"), "RNNCell": ("input_size", "hidden_size"),
        "LayerNorm": ("normalized_shape",),
    }.get(module.short_name)
    if keys is None:
        if module.short_name.startswith("Conv"):
            keys = ("in_channels", "out_channels")
        elif module.short_name.startswith(("MaxPool", "AvgPool")):
            keys = ("kernel_size",)
        elif module.short_name.startswith("BatchNorm"):
            keys = ("num_features",)
        else:
            keys = ()
    args = []
    for key in keys:
        v = module.config.get(key)
        args.append("?" if v is None else (str(list(v)) if isinstance(v, tuple) else str(v)))
    return f"{module.short_name}({', '.join(args)})"


def describe_input(value: TensorValue, ctx: RuleContext) -> Tuple[str, Optional[Origin]]:
    """"shape (4, 256)" plus where it came from, and the origin to render for ``{origin}``.

    For a layer chain's output the story starts at the chain's input: "computed by the
    layers before it from an input of shape (4, 1, 28, 28) since line 30: ...".
    """
    shape = describe_shape(value.shape)
    source = chain_source(value, ctx)
    if source is not None and source.shape is not None:
        origin = shape_origin(source, ctx)
        return (_with_origin(f"shape {shape}, computed by the layers before it from an input of "
                             f"shape {describe_shape(source.shape)}", origin), origin)
    origin = shape_origin(value, ctx)
    return _with_origin(f"shape {shape}", origin), origin
