"""nn layers as the dtype rules see them: which take part in a matmul, which pass a
tensor through unchanged, and the first layer a model applies to its input."""
from __future__ import annotations

from typing import Optional, Tuple

from ..model.values import ModuleValue, Value


#: Layers whose forward multiplies the input with float parameters (input dtype must match).
MATMUL_LAYERS = {
    "Linear", "Bilinear", "Conv1d", "Conv2d", "Conv3d", "ConvTranspose1d", "ConvTranspose2d",
    "ConvTranspose3d", "LSTMCell", "GRUCell", "RNNCell", "MultiheadAttention",
    "TransformerEncoderLayer", "TransformerDecoderLayer", "Transformer", "TransformerEncoder",
    "TransformerDecoder",
}


RNN_LAYERS = {"LSTM", "GRU", "RNN"}


#: Norm layers: float16/bfloat16 input with float32 params is accepted (mixed-dtype kernels).
NORM_LAYERS = {"BatchNorm1d", "BatchNorm2d", "BatchNorm3d", "LayerNorm", "GroupNorm",
               "InstanceNorm1d", "InstanceNorm2d", "InstanceNorm3d"}


#: Layers that pass the input dtype through, so a Sequential's first real layer sees it.
#: Only layers verified to keep every dtype, integers included (Sigmoid/Tanh turn ints into
#: float32, Dropout and LeakyReLU reject ints with errors of their own).
PASS_THROUGH = {"ReLU", "ReLU6", "Identity", "Flatten", "Unflatten", "MaxPool1d", "MaxPool2d",
                "MaxPool3d"}


def first_layer(module: Value, x: Value) -> Optional[Tuple[ModuleValue, Value, str]]:
    """The layer of ``module`` that first consumes ``x``, with the input it sees there.

    For an ``nn.Sequential`` this walks past dtype-preserving layers (ReLU, Dropout,
    Flatten, pools); returns (layer, input, path) or None when the walk meets something it
    does not know.
    """
    path = ""
    while isinstance(module, ModuleValue) and module.short_name == "Sequential":
        nxt = None
        for i, child in enumerate(module.children):
            if not isinstance(child, ModuleValue):
                return None
            if child.short_name in PASS_THROUGH:
                continue
            nxt = child
            path += f"[{i}]"
            break
        if nxt is None:
            return None
        module = nxt
    if not isinstance(module, ModuleValue):
        return None
    return module, x, path


def module_dtype_changed(module: ModuleValue) -> bool:
    """True when a cast such as ``model.double()`` set the parameter dtype (not the default)."""
    return module.dtype_origin is not None and module.dtype_origin is not module.origin
