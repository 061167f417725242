"""TTL5xx: shapes that fail (or silently broadcast) once the engine knows them.

Every check compares known integers only: a dimension that is unknown (None) or symbolic
(a str from an annotation) never fires. Shapes flow through layer chains: ``nn.Sequential``
children and the layers a ``forward`` calls one after the other, using the output-shape
arithmetic in ``knowledge/nn_modules.output_shape`` (checked against torch in
``tests/test_shapes_torch.py``).
"""
from __future__ import annotations

import weakref
from typing import Any, Dict, List, Optional, Sequence, Tuple

import libcst as cst

from ..knowledge import nn_modules as NN
from ..knowledge import shapes as S
from ..knowledge.torch_api import int_const, shape_from_size_args
from ..values import (
    TOP, CallArgs, ModuleValue, Origin, ScalarValue, SequenceValue, TensorValue, Value, describe_shape,
    is_integral, numel,
)
from .base import Rule, RuntimeClaim, expr_text, register

# --------------------------------------------------------------------------- shared helpers


def _known(dim: Any) -> bool:
    return isinstance(dim, int) and not isinstance(dim, bool)


def _shape(value: Value) -> Optional[Tuple[Any, ...]]:
    """The shape of a tensor value when at least its rank is known."""
    if isinstance(value, TensorValue) and value.shape is not None:
        return tuple(value.shape)
    return None


def _subject(node: Any, limit: int = 40) -> str:
    """How a message names an argument: its source text, shortened."""
    if node is None:
        return "the input"
    text = " ".join(expr_text(node).split())
    if len(text) > limit:
        text = text[: limit - 3] + "..."
    return f"`{text}`"


def shape_origin(value: Value, ev: Any) -> Optional[Origin]:
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
    made_by = ev.joined_value(root.node)
    note = "the layer whose output it is" if isinstance(made_by, ModuleValue) else ""
    return Origin(root.node, note)


def _with_origin(text: str, origin: Optional[Origin]) -> str:
    return f"{text} {{origin}}" if origin is not None else text


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


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


#: The check a layer applies to its input: (rule code, what the layer expects, what it got).
Mismatch = Tuple[str, str, str]


def layer_mismatch(module: ModuleValue, shape: Tuple[Any, ...]) -> Optional[Mismatch]:
    """The first shape contract of ``module`` that an input of ``shape`` breaks, if known."""
    name, cfg = module.short_name, module.config
    rank = len(shape)
    if name in ("Conv1d", "Conv2d", "Conv3d", "ConvTranspose1d", "ConvTranspose2d", "ConvTranspose3d"):
        r = NN.spatial_rank(module)
        expected = cfg.get("in_channels")
        if rank in (r + 1, r + 2) and _known(expected) and _known(shape[-r - 1]) and shape[-r - 1] != expected:
            got = shape[-r - 1]
            return ("TTL501", f"expects {_plural(expected, 'input channel')}",
                    f"has {_plural(got, 'channel')} in dimension {rank - r - 1}")
        if rank in (r + 1, r + 2) and not name.startswith("ConvTranspose"):
            return window_too_large(module, shape)
        return None
    if name in ("MaxPool1d", "MaxPool2d", "MaxPool3d", "AvgPool1d", "AvgPool2d", "AvgPool3d"):
        r = NN.spatial_rank(module)
        if rank in (r + 1, r + 2):
            return window_too_large(module, shape)
        return None
    if name == "Linear":
        expected = cfg.get("in_features")
        if rank >= 1 and _known(expected) and _known(shape[-1]) and shape[-1] != expected:
            return ("TTL502", f"expects {_plural(expected, 'input feature')} in the last dimension",
                    f"has {shape[-1]}")
        return None
    if name in ("LSTM", "GRU", "RNN", "LSTMCell", "GRUCell", "RNNCell"):
        expected = cfg.get("input_size")
        ranks = (2, 3) if not name.endswith("Cell") else (1, 2)
        if rank in ranks and _known(expected) and _known(shape[-1]) and shape[-1] != expected:
            return ("TTL503", f"expects input_size {expected} in the last dimension", f"has {shape[-1]}")
        return None
    if name in ("BatchNorm1d", "BatchNorm2d", "BatchNorm3d"):
        ranks = {"BatchNorm1d": (2, 3), "BatchNorm2d": (4,), "BatchNorm3d": (5,)}[name]
        expected = cfg.get("num_features")
        if rank in ranks and _known(expected) and _known(shape[1]) and shape[1] != expected:
            return ("TTL504", f"expects {_plural(expected, 'feature')} (channels) in dimension 1",
                    f"has {shape[1]}")
        return None
    if name == "LayerNorm":
        normalized = cfg.get("normalized_shape")
        if _known(normalized):
            normalized = (normalized,)
        if not isinstance(normalized, tuple) or not normalized or not all(_known(d) for d in normalized):
            return None
        if rank < len(normalized):
            return None
        tail = shape[rank - len(normalized):]
        if any(_known(t) and t != n for t, n in zip(tail, normalized)):
            return ("TTL505", f"normalizes the trailing shape {describe_shape(normalized)}",
                    f"ends in {describe_shape(tail)}")
        return None
    return None


def window_too_large(module: ModuleValue, shape: Tuple[Any, ...]) -> Optional[Mismatch]:
    """TTL514: a conv/pool window that does not fit in a known spatial size (output size 0)."""
    geometry = NN.window_geometry(module)
    if geometry is None:
        return None
    kernel, stride, padding, dilation, ceil_mode = geometry
    if padding is None:
        return None  # "same" keeps the size
    r = len(kernel)
    pooling = not module.short_name.startswith("Conv")
    for i in range(r):
        size = shape[len(shape) - r + i]
        if not _known(size):
            continue
        effective = dilation[i] * (kernel[i] - 1) + 1
        if pooling and 2 * padding[i] > kernel[i]:
            return None  # torch rejects that padding with another message first
        if S.conv_out(size, kernel[i], stride[i], padding[i], dilation[i], ceil_mode) is None:
            window = f"kernel {kernel[i]}" + (f" with dilation {dilation[i]}" if dilation[i] != 1 else "")
            pad = f" plus padding {padding[i]} on each side" if padding[i] else ""
            return ("TTL514", f"needs at least {effective - 2 * padding[i]} positions in every spatial "
                              f"dimension ({window}{pad})",
                    f"has {size} in dimension {len(shape) - r + i}")
    return None


def chain_failure(module: ModuleValue, x: TensorValue) -> Optional[Tuple[List[str], ModuleValue, Mismatch, Tuple]]:
    """Walk an ``nn.Sequential`` as torch runs it; the first layer whose input breaks its
    contract: (labels of the layers before it, the layer, the mismatch, its input shape)."""
    path: List[str] = []

    def walk(seq: ModuleValue, value: Value) -> Tuple[Any, Value]:
        for child in seq.children:
            if not isinstance(child, ModuleValue) or not isinstance(value, TensorValue):
                return None, TOP
            if child.short_name == "Sequential":
                found, value = walk(child, value)
                if found is not None:
                    return found, value
                continue
            shape = _shape(value)
            if shape is not None:
                problem = layer_mismatch(child, shape)
                if problem is not None:
                    return (list(path), child, problem, shape), value
            path.append(layer_label(child) if child.short_name in _LABELLED else child.short_name)
            value = NN.call_module(child, CallArgs([value], {}, [None], {}), None)
        return None, value

    return walk(module, x)[0]


_LABELLED = {"Linear", "Conv1d", "Conv2d", "Conv3d", "ConvTranspose1d", "ConvTranspose2d",
             "ConvTranspose3d", "LSTM", "GRU", "RNN", "BatchNorm1d",
             "BatchNorm2d", "BatchNorm3d", "LayerNorm", "Embedding"}


def _module_call(node: cst.Call, ev: Any) -> Optional[Tuple[ModuleValue, Value, Any]]:
    """(layer, input value, input node) when ``node`` calls a known nn layer."""
    callee = ev.callee(node)
    if callee is None:
        return None
    if callee.kind == "module" and isinstance(callee.receiver, ModuleValue):
        module = callee.receiver
    elif callee.kind == "method" and callee.name == "forward" and isinstance(callee.receiver, ModuleValue):
        module = callee.receiver
    else:
        return None
    if callee.args.has_star:
        return None
    return module, callee.args.get(0, "input"), callee.args.node(0, "input")


#: Per analysis: id(tensor value) -> (the value, the tensor that entered the first layer
#: of the chain it came out of). Values are kept alive in the table, so ids stay unique.
_CHAIN_SOURCE: "weakref.WeakKeyDictionary[Any, Dict[int, Tuple[Value, TensorValue]]]" = weakref.WeakKeyDictionary()


def track_layer_chain(node: cst.Call, ev: Any) -> None:
    """Remember where a layer chain started, for messages about its output.

    A layer call starts a chain at its input; any call (``F.relu``, ``torch.flatten``,
    another layer) on a tensor of a chain continues it. Listeners see calls in evaluation
    order, so ``fc1(flatten(pool(relu(conv(x)))))`` traces back to ``x``.
    """
    callee = ev.callee(node)
    if callee is None:
        return
    result = callee.result
    if isinstance(result, SequenceValue) and result.items:
        result = result.items[0]  # LSTM/GRU: (output, state)
    if not isinstance(result, TensorValue):
        return
    try:
        table = _CHAIN_SOURCE.setdefault(ev, {})
    except TypeError:
        return
    if id(result) in table:
        return
    inputs = [callee.receiver] + list(callee.args.pos) + list(callee.args.kw.values())
    for value in list(inputs):
        if isinstance(value, SequenceValue) and value.items:
            inputs.extend(value.items)  # torch.cat([a, b]) continues the chains of a and b
    for value in inputs:
        entry = table.get(id(value))
        if entry is not None and entry[0] is value:
            table[id(result)] = (result, entry[1])
            return
    if callee.kind == "module":
        first = callee.args.get(0, "input")
        if isinstance(first, TensorValue) and first is not result:
            table[id(result)] = (result, first)


def chain_source(value: Value, ev: Any) -> Optional[TensorValue]:
    """The tensor whose trip through layers produced ``value``, if it did."""
    try:
        table = _CHAIN_SOURCE.get(ev)
    except TypeError:
        return None
    entry = table.get(id(value)) if table else None
    if entry is None or entry[0] is not value or entry[1] is value:
        return None
    return entry[1]


def describe_input(value: TensorValue, ev: Any) -> Tuple[str, Optional[Origin]]:
    """"shape (4, 256)" plus where it came from, and the origin to render for ``{origin}``.

    For a layer chain's output the story starts at the chain's input: "computed by the
    layers before it from an input of shape (4, 1, 28, 28) since line 30: ...".
    """
    shape = describe_shape(value.shape)
    source = chain_source(value, ev)
    if source is not None and source.shape is not None:
        origin = shape_origin(source, ev)
        return (_with_origin(f"shape {shape}, computed by the layers before it from an input of "
                             f"shape {describe_shape(source.shape)}", origin), origin)
    origin = shape_origin(value, ev)
    return _with_origin(f"shape {shape}", origin), origin


class _LayerRule(Rule):
    """Shared visit for the layer-contract rules (TTL501-TTL505): one layer call, or the
    first failing layer of an ``nn.Sequential`` call."""

    listens = (cst.Call,)

    def visit(self, node: cst.Call, ev: Any) -> None:
        track_layer_chain(node, ev)
        found = _module_call(node, ev)
        if found is None:
            return
        module, x, x_node = found
        if not isinstance(x, TensorValue) or x.shape is None:
            return
        if module.short_name == "Sequential":
            failure = chain_failure(module, x)
            if failure is None or failure[2][0] != self.code:
                return
            path, layer, (code, expects, got), shape = failure
            described, origin = describe_input(x, ev)
            if path:
                subject = f"its input (the output of {' -> '.join(path)} on {_subject(x_node)}, {described})"
                self.report(node, f"{layer_label(layer)} inside this nn.Sequential {expects}; "
                                  f"{subject} {got} (shape {describe_shape(shape)})", origin=origin)
            else:
                self.report(node, f"{layer_label(layer)}, the first layer of this nn.Sequential, "
                                  f"{expects}; {_subject(x_node)} {got} ({described})", origin=origin)
            return
        if _flattened_batch(ev, x, module) is not None:
            return  # TTL513 explains this one better
        problem = layer_mismatch(module, tuple(x.shape))
        if problem is None or problem[0] != self.code:
            return
        _, expects, got = problem
        described, origin = describe_input(x, ev)
        self.report(node, f"{layer_label(module)} {expects}; {_subject(x_node)} {got} ({described})"
                          f"{_flatten_hint(module, tuple(x.shape), x_node)}", origin=origin)


def _flatten_hint(module: ModuleValue, shape: Tuple[Any, ...], x_node: Any) -> str:
    """A Linear given an unflattened (N, C, H, W) batch whose per-sample size is right."""
    if module.short_name != "Linear" or len(shape) < 3:
        return ""
    per_sample = numel(shape[1:])
    if per_sample is None or per_sample != module.config.get("in_features"):
        return ""
    name = expr_text(x_node) if isinstance(x_node, (cst.Name, cst.Attribute)) else "x"
    return f"; flatten each sample first: `{name}.flatten(1)` has shape ({shape[0]}, {per_sample})"


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


@register
class BatchNormFeatureMismatch(_LayerRule):
    """
    ## What it does
    Flags a call of `nn.BatchNorm1d/2d/3d(num_features)` whose input has a known size in
    dimension 1 (the channel dimension) different from `num_features`.

    ## Why is this bad?
    Batch norm keeps one running mean per channel; with the wrong channel count it fails
    with `running_mean should contain 5 elements not 10`. A common cause is
    `BatchNorm1d` on `(N, L, C)` sequence data, which needs `(N, C, L)`.

    ## Example
    ```python
    norm = nn.BatchNorm1d(10)
    out = norm(torch.randn(4, 5, 10))  # (N, L, C)
    ```

    ## Use instead
    ```python
    norm = nn.BatchNorm1d(10)
    out = norm(torch.randn(4, 5, 10).transpose(1, 2))  # (N, C, L)
    ```

    ## Fix safety
    No fix.
    """

    code = "TTL504"
    name = "batchnorm-feature-mismatch"
    summary = "BatchNorm input's channel dimension differs from num_features"
    runtime = RuntimeClaim("RuntimeError", r"running_mean should contain \d+ elements not \d+")


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


# --------------------------------------------------------------------------- TTL506 embedding


_INDEX_CONSTRUCTORS = {"torch.tensor", "torch.as_tensor", "torch.LongTensor", "torch.IntTensor"}


def _literal_ints(node: Any) -> Optional[List[int]]:
    """The ints of a literal ``5``, ``-1`` or nested list/tuple of them; None otherwise."""
    if isinstance(node, cst.Integer):
        try:
            return [int(node.value.replace("_", ""), 0)]
        except ValueError:
            return None
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus) \
            and isinstance(node.expression, cst.Integer):
        inner = _literal_ints(node.expression)
        return None if inner is None else [-inner[0]]
    if isinstance(node, (cst.List, cst.Tuple)):
        out: List[int] = []
        for element in node.elements:
            if isinstance(element, cst.StarredElement):
                return None
            inner = _literal_ints(element.value)
            if inner is None:
                return None
            out.extend(inner)
        return out
    return None


def literal_indices(x: Value, x_node: Any, ev: Any) -> Optional[Tuple[List[int], Any]]:
    """The index values of a tensor built from a literal (``torch.tensor([1, 10])``), directly
    or through a name still bound to exactly that tensor; with the constructor node."""
    call = x_node
    if not isinstance(call, cst.Call):
        if not isinstance(x, TensorValue) or x.origin is None:
            return None
        call = x.origin.root().node
        # The name must hold the constructor's very value: any operation in between
        # (arithmetic, clamp, indexing) makes a new value, and then the ints are unknown.
        if not isinstance(call, cst.Call) or ev.value(call) is not x:
            return None
    callee = ev.callee(call)
    if callee is None or callee.kind != "symbol" or callee.name not in _INDEX_CONSTRUCTORS:
        return None
    data_node = callee.args.node(0, "data")
    if data_node is None:
        return None
    ints = _literal_ints(data_node)
    if not ints:
        return None
    return ints, call


@register
class EmbeddingIndexOutOfRange(Rule):
    """
    ## What it does
    Flags an `nn.Embedding(num_embeddings, dim)` called with literal indices (built with
    `torch.tensor([...])`) of which one is negative or not smaller than `num_embeddings`.

    ## Why is this bad?
    An embedding is a table lookup; a row that does not exist fails with `IndexError:
    index out of range in self` (on CUDA: a device-side assert that kills the process).
    The usual cause is an off-by-one vocabulary size: token ids 1..10 need
    `num_embeddings=11`, or reserving an id for padding without counting it.

    ## Example
    ```python
    embed = nn.Embedding(10, 4)
    vectors = embed(torch.tensor([1, 5, 10]))
    ```

    ## Use instead
    ```python
    embed = nn.Embedding(11, 4)
    vectors = embed(torch.tensor([1, 5, 10]))
    ```

    ## Fix safety
    No fix.
    """

    code = "TTL506"
    name = "embedding-index-out-of-range"
    summary = "literal index passed to nn.Embedding is outside [0, num_embeddings)"
    listens = (cst.Call,)
    # On CUDA the lookup fails as a device-side assert instead: a failure, with another message.
    runtime = RuntimeClaim("IndexError", r"index out of range in self", pattern_devices=("cpu",))

    def visit(self, node: cst.Call, ev: Any) -> None:
        found = _module_call(node, ev)
        if found is None or found[0].short_name != "Embedding":
            return
        module, x, x_node = found
        size = module.config.get("num_embeddings")
        if not _known(size):
            return
        literal = literal_indices(x, x_node, ev)
        if literal is None:
            return
        ints, ctor = literal
        bad = [i for i in ints if i < 0 or i >= size]
        if not bad:
            return
        worst = max(bad, key=lambda i: i if i >= 0 else size - i)
        why = "is negative" if worst < 0 else f"is not smaller than num_embeddings={size}"
        origin = Origin(ctor, "")
        self.report(node, f"{layer_label(module)} has rows 0..{size - 1}, but index {worst} "
                          f"{why} ({_subject(x_node)} {{origin}})", origin=origin)


# --------------------------------------------------------------------------- TTL507 matmul


def _matmul_operands(node: Any, ev: Any) -> Optional[Tuple[str, Value, Value, str]]:
    """(op name, left, right, how the call reads) for ``@``, matmul, mm and bmm."""
    if isinstance(node, cst.BinaryOperation):
        if not isinstance(node.operator, cst.MatrixMultiply):
            return None
        return "@", ev.value(node.left), ev.value(node.right), "@"
    callee = ev.callee(node)
    if callee is None or callee.args.has_star:
        return None
    if callee.kind == "symbol" and callee.name in ("torch.matmul", "torch.mm", "torch.bmm"):
        op = callee.name[6:]
        other = "other" if op == "matmul" else "mat2"
        return op, callee.args.get(0, "input"), callee.args.get(1, other), f"torch.{op}"
    if callee.kind == "method" and callee.name in ("matmul", "mm", "bmm") and isinstance(callee.receiver, TensorValue):
        other = "other" if callee.name == "matmul" else "mat2"
        return callee.name, callee.receiver, callee.args.get(0, other), f".{callee.name}()"
    return None


def matmul_problem(op: str, a: Tuple[Any, ...], b: Tuple[Any, ...]) -> Optional[str]:
    """Why ``a op b`` fails, when the known dims prove it."""
    if op in ("@", "matmul"):
        if not a or not b:
            return None
        inner = S.matmul_inner(a, b)
        if inner is None:
            return None
        x, y = inner
        if _known(x) and _known(y) and x != y:
            which = "its only dimension" if len(b) == 1 else "its second-to-last dimension"
            return f"the left operand's last dimension is {x}, the right operand's {which} is {y}"
        return None
    if op == "mm":
        if len(a) == 2 and len(b) == 2 and _known(a[1]) and _known(b[0]) and a[1] != b[0]:
            return f"the left matrix has {a[1]} columns, the right one {b[0]} rows"
        return None
    if op == "bmm":
        if len(a) != 3 or len(b) != 3:
            return None
        if _known(a[0]) and _known(b[0]) and a[0] != b[0]:
            return f"the batch sizes differ ({a[0]} and {b[0]})"
        if _known(a[2]) and _known(b[1]) and a[2] != b[1]:
            return f"the left matrices have {a[2]} columns, the right ones {b[1]} rows"
    return None


@register
class MatmulInnerDimMismatch(Rule):
    """
    ## What it does
    Flags `a @ b`, `torch.matmul`, `torch.mm`, `torch.bmm` (and the tensor methods) when
    the known contracted dimensions differ: the last dimension of `a` and the
    second-to-last (or only) dimension of `b`; for `bmm` also the batch sizes.

    ## Why is this bad?
    The product is undefined and fails with `mat1 and mat2 shapes cannot be multiplied
    (3x4 and 5x6)` (or `size mismatch`, `inconsistent tensor size`, `Expected size for
    first two dimensions of batch2 tensor`, depending on the ranks). Often one operand
    needs a transpose (`b.T`, `b.transpose(-2, -1)`).

    ## Example
    ```python
    queries = torch.randn(8, 64)
    keys = torch.randn(10, 64)
    scores = queries @ keys
    ```

    ## Use instead
    ```python
    scores = queries @ keys.T
    ```

    ## Fix safety
    No fix.
    """

    code = "TTL507"
    name = "matmul-shape-mismatch"
    summary = "matrix product whose contracted dimensions differ"
    listens = (cst.Call, cst.BinaryOperation)
    runtime = RuntimeClaim(
        "RuntimeError",
        r"shapes cannot be multiplied|size mismatch, got|inconsistent tensor size|"
        r"Expected size for first two dimensions of batch2 tensor")

    def visit(self, node: Any, ev: Any) -> None:
        found = _matmul_operands(node, ev)
        if found is None:
            return
        op, left, right, how = found
        a, b = _shape(left), _shape(right)
        if a is None or b is None:
            return
        problem = matmul_problem(op, a, b)
        if problem is None:
            return
        origin = shape_origin(left, ev) or shape_origin(right, ev)
        self.report(node, f"`{how}` cannot multiply shapes {describe_shape(a)} and {describe_shape(b)}: "
                          f"{problem}", origin=origin)


# --------------------------------------------------------------------------- TTL508 cat/stack


@register
class ConcatShapeMismatch(Rule):
    """
    ## What it does
    Flags `torch.cat` / `torch.concat` / `torch.concatenate` of a literal list of
    tensors whose ranks differ or whose known sizes differ in a dimension other than the
    concatenated one, and `torch.stack` of tensors whose known shapes differ.

    ## Why is this bad?
    torch raises `Sizes of tensors must match except in dimension 0. Expected size 3 but
    got size 4 for tensor number 1 in the list.`, `Tensors must have same number of
    dimensions`, or `stack expects each tensor to be equal size`. Concatenating along the
    wrong dimension (`dim=0` instead of `dim=1`) is the usual cause.

    ## Example
    ```python
    features = torch.cat([torch.randn(4, 3), torch.randn(4, 5)])
    ```

    ## Use instead
    ```python
    features = torch.cat([torch.randn(4, 3), torch.randn(4, 5)], dim=1)
    ```

    ## Fix safety
    No fix.
    """

    code = "TTL508"
    name = "concat-shape-mismatch"
    summary = "torch.cat/stack of tensors whose shapes cannot be joined"
    listens = (cst.Call,)
    runtime = RuntimeClaim(
        "RuntimeError",
        r"Sizes of tensors must match except in dimension|Tensors must have same number of dimensions|"
        r"stack expects each tensor to be equal size")

    _FUNCTIONS = {"torch.cat": "cat", "torch.concat": "cat", "torch.concatenate": "cat", "torch.stack": "stack"}

    def visit(self, node: cst.Call, ev: Any) -> None:
        callee = ev.callee(node)
        if callee is None or callee.kind != "symbol" or callee.name not in self._FUNCTIONS or callee.args.has_star:
            return
        op = self._FUNCTIONS[callee.name]
        seq = callee.args.get(0, "tensors")
        if not isinstance(seq, SequenceValue) or seq.items is None or len(seq.items) < 2:
            return
        shapes = [_shape(v) for v in seq.items]
        if any(s is None for s in shapes):
            return
        dim_value = callee.args.get(1, "dim") if callee.args.has(1, "dim") else callee.args.kw.get("axis")
        dim = 0 if dim_value is None else int_const(dim_value)
        problem = concat_problem(op, shapes, dim)  # type: ignore[arg-type]
        if problem is None:
            return
        listed = ", ".join(describe_shape(s) for s in shapes)
        first = seq.items[0]
        origin = shape_origin(first, ev)
        self.report(node, f"`{callee.name}` of shapes {listed}: {problem}", origin=origin)


def concat_problem(op: str, shapes: Sequence[Tuple[Any, ...]], dim: Optional[int]) -> Optional[str]:
    """Why torch.cat (op "cat") or torch.stack ("stack") of these shapes fails, if provable."""
    first = shapes[0]
    for index, shape in enumerate(shapes[1:], start=1):
        if len(shape) != len(first):
            if op == "cat" and (shape == (0,) or first == (0,)):
                return None  # legacy: 1-D empty tensors are skipped by cat
            return (f"tensor {index} has {len(shape)} dimensions, tensor 0 has {len(first)}"
                    if op == "cat" else f"tensor {index} has shape {describe_shape(shape)}, "
                                        f"tensor 0 has {describe_shape(first)}; stack needs equal shapes")
    rank = len(first)
    if op == "cat":
        if dim is None or rank == 0:
            return None
        d = dim + rank if dim < 0 else dim
        if not 0 <= d < rank:
            return None
        for index, shape in enumerate(shapes[1:], start=1):
            for axis in range(rank):
                if axis == d:
                    continue
                if _known(first[axis]) and _known(shape[axis]) and first[axis] != shape[axis]:
                    return (f"dimension {axis} is {first[axis]} in tensor 0 and {shape[axis]} in tensor "
                            f"{index}; only the concatenated dimension {d} may differ")
        return None
    for index, shape in enumerate(shapes[1:], start=1):
        for axis in range(rank):
            if _known(first[axis]) and _known(shape[axis]) and first[axis] != shape[axis]:
                return (f"dimension {axis} is {first[axis]} in tensor 0 and {shape[axis]} in tensor "
                        f"{index}; stack needs equal shapes")
    return None


# --------------------------------------------------------------------------- TTL509 view/reshape


def reshape_problem(src: Tuple[Any, ...], target: Tuple[Any, ...]) -> Optional[str]:
    """Why viewing ``src`` as ``target`` fails, when both element counts are known."""
    total = numel(src)
    if total is None or any(not _known(d) for d in target):
        return None
    if any(d < -1 for d in target) or list(target).count(-1) > 1:
        return None
    rest = 1
    for d in target:
        if d != -1:
            rest *= d
    if -1 in target:
        if rest == 0 or total % rest == 0:
            return None
        return f"{total} elements cannot be split into rows of {rest} (the -1 has no integer solution)"
    if rest != total:
        return f"the new shape holds {rest} elements, the tensor has {total}"
    return None


@register
class ReshapeElementCount(Rule):
    """
    ## What it does
    Flags `x.view(...)`, `x.reshape(...)` and `torch.reshape(x, ...)` to a shape of known
    constants whose element count cannot match the tensor's known element count
    (with one `-1`: when the other sizes do not divide it).

    ## Why is this bad?
    The call fails with `shape '[3, 5]' is invalid for input of size 12`. In models this
    is typically a hard-coded `x.view(-1, 16 * 5 * 5)` after conv layers whose output
    size changed with the input resolution.

    ## Example
    ```python
    x = torch.randn(4, 16, 4, 4)
    flat = x.view(-1, 16 * 5 * 5)
    ```

    ## Use instead
    ```python
    flat = x.flatten(1)  # (4, 256), whatever the spatial size
    ```

    ## Fix safety
    No fix.
    """

    code = "TTL509"
    name = "reshape-element-count"
    summary = "view/reshape to a shape whose element count cannot match the tensor's"
    listens = (cst.Call,)
    runtime = RuntimeClaim("RuntimeError", r"shape '\[[-0-9, ]+\]' is invalid for input of size \d+")

    def visit(self, node: cst.Call, ev: Any) -> None:
        track_layer_chain(node, ev)
        callee = ev.callee(node)
        if callee is None or callee.args.has_star:
            return
        if callee.kind == "method" and callee.name in ("view", "reshape") and isinstance(callee.receiver, TensorValue):
            x = callee.receiver
            x_node = node.func.value if isinstance(node.func, cst.Attribute) else None
            if callee.args.pos and not isinstance(callee.args.pos[0], (ScalarValue, SequenceValue)):
                return  # x.view(dtype) and friends
            target = shape_from_size_args(callee.args, 0, "shape") if callee.args.pos or "shape" in callee.args.kw else None
        elif callee.kind == "symbol" and callee.name == "torch.reshape":
            x = callee.args.get(0, "input")
            x_node = callee.args.node(0, "input")
            target = _shape_arg(callee.args.get(1, "shape"))
        else:
            return
        src = _shape(x)
        if src is None or target is None:
            return
        problem = reshape_problem(src, tuple(target))
        if problem is None:
            return
        described, origin = describe_input(x, ev)  # type: ignore[arg-type]
        self.report(node, f"cannot view {_subject(x_node)} ({described}) as "
                          f"[{', '.join(str(d) for d in target)}]: {problem}", origin=origin)


def _shape_arg(value: Value) -> Optional[Tuple[Any, ...]]:
    if isinstance(value, SequenceValue) and value.items is not None:
        return tuple(int_const(v) for v in value.items)
    return None


# --------------------------------------------------------------------------- losses


_LOSS_FUNCTIONS = {
    "torch.nn.functional.cross_entropy": "cross_entropy", "torch.nn.functional.nll_loss": "nll_loss",
    "torch.nn.functional.binary_cross_entropy": "binary_cross_entropy",
    "torch.nn.functional.binary_cross_entropy_with_logits": "binary_cross_entropy_with_logits",
    "torch.nn.functional.mse_loss": "mse_loss", "torch.nn.functional.l1_loss": "l1_loss",
}
_LOSS_MODULES = {
    "CrossEntropyLoss": "cross_entropy", "NLLLoss": "nll_loss", "BCELoss": "binary_cross_entropy",
    "BCEWithLogitsLoss": "binary_cross_entropy_with_logits", "MSELoss": "mse_loss", "L1Loss": "l1_loss",
}


def _loss_call(node: cst.Call, ev: Any) -> Optional[Tuple[str, str, Value, Value, Any, Any]]:
    """(functional name, how it reads, input, target, input node, target node) of a loss call."""
    callee = ev.callee(node)
    if callee is None or callee.args.has_star:
        return None
    if callee.kind == "symbol" and callee.name in _LOSS_FUNCTIONS:
        name = _LOSS_FUNCTIONS[callee.name]
        how = f"F.{name}"
    elif callee.kind == "module" and isinstance(callee.receiver, ModuleValue) \
            and callee.receiver.short_name in _LOSS_MODULES:
        name = _LOSS_MODULES[callee.receiver.short_name]
        how = f"nn.{callee.receiver.short_name}"
    else:
        return None
    args = callee.args
    return (name, how, args.get(0, "input"), args.get(1, "target"),
            args.node(0, "input"), args.node(1, "target"))


def _all_integral(value: TensorValue) -> bool:
    return value.dtypes is not None and bool(value.dtypes) and all(
        is_integral(d, include_bool=False) for d in value.dtypes)


@register
class LossBatchMismatch(Rule):
    """
    ## What it does
    Flags classification losses whose input and target cannot belong together:
    `cross_entropy` / `nll_loss` (functional or `nn.CrossEntropyLoss` / `nn.NLLLoss`)
    with class-index targets whose batch size differs from the input's, and
    `binary_cross_entropy[_with_logits]` (`nn.BCELoss`, `nn.BCEWithLogitsLoss`) whose
    input and target shapes differ, `(N, 1)` against `(N,)` included.

    ## Why is this bad?
    torch raises `ValueError: Expected input batch_size (4) to match target batch_size
    (3).`, `Target size (torch.Size([4])) must be the same as input size
    (torch.Size([4, 1]))` or `Using a target size ... is deprecated`. A batch mismatch
    usually comes from a `view(-1, ...)` that folded another dimension into the batch,
    or from concatenating along the wrong dimension.

    ## Example
    ```python
    logits = model(x)                  # (4, 1)
    loss = F.binary_cross_entropy_with_logits(logits, labels)  # labels: (4,)
    ```

    ## Use instead
    ```python
    loss = F.binary_cross_entropy_with_logits(logits.squeeze(1), labels)
    ```

    ## Fix safety
    No fix.
    """

    code = "TTL510"
    name = "loss-shape-mismatch"
    summary = "classification loss with input and target of incompatible shapes"
    listens = (cst.Call,)
    runtime = RuntimeClaim(
        "ValueError",
        r"Expected input batch_size \(\d+\) to match target batch_size \(\d+\)|"
        r"Target size \(torch\.Size\(\[[0-9, ]*\]\)\) must be the same as input size|"
        r"Using a target size \(torch\.Size\(\[[0-9, ]*\]\)\) that is different to the input size")

    def visit(self, node: cst.Call, ev: Any) -> None:
        found = _loss_call(node, ev)
        if found is None:
            return
        name, how, x, y, x_node, y_node = found
        a, b = _shape(x), _shape(y)
        if a is None or b is None:
            return
        origin = shape_origin(y, ev)
        if name in ("cross_entropy", "nll_loss"):
            # Class indices have one dimension less than the scores; probabilities
            # (same shape as the input) go through another check in torch.
            if len(a) < 2 or len(b) != len(a) - 1 or len(b) == 0:
                return
            if _known(a[0]) and _known(b[0]) and a[0] != b[0]:
                self.report(node, f"`{how}` gets {a[0]} predictions but {b[0]} targets: input "
                                  f"{_subject(x_node)} has shape {describe_shape(a)}, target {_subject(y_node)} "
                                  f"{_with_origin('has shape ' + describe_shape(b), origin)}", origin=origin)
            return
        if name in ("binary_cross_entropy", "binary_cross_entropy_with_logits"):
            if len(a) != len(b):
                differs = True
            else:
                differs = any(_known(p) and _known(q) and p != q for p, q in zip(a, b))
            if differs:
                hint = ""
                if len(a) == len(b) + 1 and a[-1] == 1:
                    hint = f"; squeeze the input: `{expr_text(x_node) if x_node is not None else 'input'}.squeeze(-1)`"
                elif len(b) == len(a) + 1 and b[-1] == 1:
                    hint = "; squeeze the target's last dimension"
                self.report(node, f"`{how}` needs input and target of the same shape: input "
                                  f"{_subject(x_node)} has shape {describe_shape(a)}, target {_subject(y_node)} "
                                  f"{_with_origin('has shape ' + describe_shape(b), origin)}{hint}", origin=origin)


@register
class LossTargetBroadcast(Rule):
    """
    ## What it does
    Flags `mse_loss` / `l1_loss` (and `nn.MSELoss` / `nn.L1Loss`) whose input and target
    have different known shapes that broadcast to a larger shape than either, the classic
    case being predictions of shape `(N, 1)` against targets of shape `(N,)`.

    ## Why is this bad?
    The loss does not fail: torch broadcasts `(N, 1) - (N,)` to `(N, N)`, compares every
    prediction with every target and returns the mean of that matrix. Training runs and
    converges to the wrong thing (predicting the mean of the targets). torch only prints
    a `UserWarning: Using a target size ... that is different to the input size`.

    ## Example
    ```python
    pred = model(x)          # (32, 1)
    loss = F.mse_loss(pred, y)  # y: (32,)
    ```

    ## Use instead
    ```python
    loss = F.mse_loss(pred.squeeze(-1), y)
    ```

    ## Fix safety
    No fix: which side to reshape depends on the model.
    """

    code = "TTL511"
    name = "loss-target-broadcast"
    summary = "regression loss whose input and target broadcast to a bigger shape (wrong loss)"
    severity = "warning"
    listens = (cst.Call,)
    runtime = RuntimeClaim("AssertionError")

    def visit(self, node: cst.Call, ev: Any) -> None:
        found = _loss_call(node, ev)
        if found is None or found[0] not in ("mse_loss", "l1_loss"):
            return
        name, how, x, y, x_node, y_node = found
        a, b = _shape(x), _shape(y)
        if a is None or b is None or a == b:
            return
        if S.broadcast_conflict(a, b) is not None:
            return  # that one raises instead
        both = S.broadcast_shapes(a, b)
        size_a, size_b, size_both = numel(a), numel(b), numel(both)
        if size_a is None or size_b is None or size_both is None:
            return
        if size_both <= max(size_a, size_b):
            return
        origin = shape_origin(y, ev)
        self.report(node, f"`{how}` broadcasts input {_subject(x_node)} of shape {describe_shape(a)} and "
                          f"target {_subject(y_node)} "
                          f"{_with_origin('of shape ' + describe_shape(b), origin)} "
                          f"to {describe_shape(both)}: the loss averages {size_both} pairs instead of "
                          f"{max(size_a, size_b)} (make the shapes equal, e.g. with `.squeeze(-1)`)",
                    origin=origin)


@register
class CrossEntropyTargetColumn(Rule):
    """
    ## What it does
    Flags `cross_entropy` / `nll_loss` (functional or module) whose input is `(N, C)` and
    whose class-index target has shape `(N, 1)`.

    ## Why is this bad?
    Class-index targets must be `(N,)`; torch fails with `0D or 1D target tensor
    expected, multi-target not supported`. The extra dimension usually comes from a
    dataset that returns `[label]` or from `labels.unsqueeze(1)` / `view(-1, 1)`.

    ## Example
    ```python
    labels = torch.tensor([[0], [2], [1], [1]])
    loss = F.cross_entropy(logits, labels)  # logits: (4, 3)
    ```

    ## Use instead
    ```python
    loss = F.cross_entropy(logits, labels.squeeze(1))
    ```

    ## Fix safety
    No fix.
    """

    code = "TTL512"
    name = "cross-entropy-target-column"
    summary = "cross_entropy/nll_loss class-index target of shape (N, 1) instead of (N,)"
    listens = (cst.Call,)
    runtime = RuntimeClaim("RuntimeError", r"0D or 1D target tensor expected, multi-target not supported")

    def visit(self, node: cst.Call, ev: Any) -> None:
        found = _loss_call(node, ev)
        if found is None or found[0] not in ("cross_entropy", "nll_loss"):
            return
        name, how, x, y, x_node, y_node = found
        a, b = _shape(x), _shape(y)
        if a is None or b is None or len(a) != 2 or len(b) != 2 or b[1] != 1:
            return
        if not _known(a[1]) or a[1] == 1:
            return  # (N, 1) logits with an (N, 1) target: torch reads it as probabilities (TTL207)
        if not isinstance(y, TensorValue) or not _all_integral(y):
            return
        origin = shape_origin(y, ev)
        target = expr_text(y_node) if y_node is not None else "target"
        self.report(node, f"`{how}` needs class indices of shape (N,), but target {_subject(y_node)} "
                          f"{_with_origin('has shape ' + describe_shape(b), origin)}; "
                          f"use `{target}.squeeze(1)`", origin=origin)


# --------------------------------------------------------------------------- TTL513 flatten

#: Per analysis: id(flattened value) -> (the value, the flatten call node, the shape before).
_FLATTENED: "weakref.WeakKeyDictionary[Any, Dict[int, Tuple[TensorValue, Any, Tuple]]]" = weakref.WeakKeyDictionary()


def _note_flatten(node: cst.Call, ev: Any) -> None:
    """Remember tensors made by flattening *every* dimension of a batched tensor."""
    callee = ev.callee(node)
    if callee is None or callee.args.has_star or not isinstance(callee.result, TensorValue):
        return
    args = callee.args
    if callee.kind == "method" and isinstance(callee.receiver, TensorValue):
        src = callee.receiver
        if callee.name == "flatten":
            start = int_const(args.get(0, "start_dim")) if args.has(0, "start_dim") else 0
            if start != 0:
                return
        elif callee.name in ("view", "reshape"):
            target = shape_from_size_args(args, 0, "shape")
            if target != (-1,):
                return
        else:
            return
    elif callee.kind == "symbol" and callee.name == "torch.flatten":
        src = args.get(0, "input")
        start = int_const(args.get(1, "start_dim")) if args.has(1, "start_dim") else 0
        if not isinstance(src, TensorValue) or start != 0:
            return
    else:
        return
    shape = _shape(src)
    if shape is None or len(shape) < 2 or not _known(shape[0]) or shape[0] < 2:
        return
    result = callee.result
    try:
        table = _FLATTENED.setdefault(ev, {})
    except TypeError:
        return
    table[id(result)] = (result, node, shape)


def _flattened_batch(ev: Any, x: Value, module: ModuleValue) -> Optional[Tuple[Any, Tuple]]:
    """(flatten node, shape before) when ``x`` is a fully flattened batch whose per-sample
    size is exactly what ``module`` (an nn.Linear) expects."""
    if module.short_name != "Linear":
        return None
    try:
        table = _FLATTENED.get(ev)
    except TypeError:
        return None
    entry = table.get(id(x)) if table else None
    if entry is None or entry[0] is not x:
        return None
    _, flat_node, shape = entry
    total, features = numel(shape), module.config.get("in_features")
    if total is None or not _known(features) or features <= 0 or total != shape[0] * features:
        return None
    return flat_node, shape


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

    def visit(self, node: cst.Call, ev: Any) -> None:
        _note_flatten(node, ev)
        found = _module_call(node, ev)
        if found is None:
            return
        module, x, x_node = found
        flattened = _flattened_batch(ev, x, module)
        if flattened is None:
            return
        flat_node, shape = flattened
        origin = Origin(flat_node, "flattens the batch dimension too")
        self.report(node, f"{layer_label(module)} gets one vector of {numel(shape)} values: "
                          f"the batch of {shape[0]} (shape {describe_shape(shape)}) was flattened together "
                          f"with the features {{origin}}; keep the batch with `.flatten(1)` or "
                          f"`.view(x.size(0), -1)`", origin=origin)


# --------------------------------------------------------------------------- TTL515 broadcasting

_BROADCAST_FUNCTIONS = {"add", "sub", "subtract", "mul", "multiply", "div", "divide", "true_divide",
                        "maximum", "minimum", "eq", "ne", "lt", "le", "gt", "ge", "pow", "atan2",
                        "hypot", "fmod", "remainder"}
_ARITHMETIC = (cst.Add, cst.Subtract, cst.Multiply, cst.Divide, cst.FloorDivide, cst.Modulo, cst.Power,
               cst.BitAnd, cst.BitOr, cst.BitXor)
_COMPARISONS = (cst.Equal, cst.NotEqual, cst.LessThan, cst.LessThanEqual, cst.GreaterThan,
                cst.GreaterThanEqual)


def _elementwise_operands(node: Any, ev: Any) -> Optional[Tuple[Value, Value, Any]]:
    """(left, right, how the operation reads: text, or the node to print) for tensor arithmetic
    and comparisons."""
    if isinstance(node, cst.BinaryOperation):
        if not isinstance(node.operator, _ARITHMETIC):
            return None
        return ev.value(node.left), ev.value(node.right), node  # text made only when reporting
    if isinstance(node, cst.Comparison):
        if len(node.comparisons) != 1 or not isinstance(node.comparisons[0].operator, _COMPARISONS):
            return None
        return ev.value(node.left), ev.value(node.comparisons[0].comparator), node
    callee = ev.callee(node)
    if callee is None or callee.args.has_star:
        return None
    if callee.kind == "symbol" and callee.name.startswith("torch.") and callee.name[6:] in _BROADCAST_FUNCTIONS:
        return callee.args.get(0, "input"), callee.args.get(1, "other"), f"torch.{callee.name[6:]}(...)"
    if callee.kind == "method" and callee.name in _BROADCAST_FUNCTIONS and isinstance(callee.receiver, TensorValue):
        return callee.receiver, callee.args.get(0, "other"), f".{callee.name}(...)"
    return None


@register
class BroadcastMismatch(Rule):
    """
    ## What it does
    Flags elementwise arithmetic and comparisons between two tensors (`a + b`, `a * b`,
    `a == b`, `torch.add(a, b)`, `a.mul(b)`, ...) whose known shapes cannot broadcast:
    aligned from the right, some pair of dimensions differs and neither is 1.

    ## Why is this bad?
    torch raises `The size of tensor a (3) must match the size of tensor b (4) at
    non-singleton dimension 1`. A frequent cause is a reduction without `keepdim=True`:
    `x - x.mean(dim=1)` on a `(4, 3)` tensor subtracts a `(4,)` vector from the rows.

    ## Example
    ```python
    x = torch.randn(4, 3)
    centered = x - x.mean(dim=1)
    ```

    ## Use instead
    ```python
    centered = x - x.mean(dim=1, keepdim=True)
    ```

    ## Fix safety
    No fix.
    """

    code = "TTL515"
    name = "broadcast-mismatch"
    summary = "elementwise operation on tensors whose shapes cannot broadcast"
    listens = (cst.BinaryOperation, cst.Comparison, cst.Call)
    runtime = RuntimeClaim("RuntimeError",
                           r"The size of tensor a \(\d+\) must match the size of tensor b \(\d+\) at non-singleton dimension \d+")

    def visit(self, node: Any, ev: Any) -> None:
        found = _elementwise_operands(node, ev)
        if found is None:
            return
        left, right, how = found
        a, b = _shape(left), _shape(right)
        if a is None or b is None:
            return
        conflict = S.broadcast_conflict(a, b)
        if conflict is None:
            return
        from_right, size_a, size_b = conflict
        axis = max(len(a), len(b)) - from_right
        origin = shape_origin(right, ev) or shape_origin(left, ev)
        text = " ".join((how if isinstance(how, str) else expr_text(how)).split())
        text = text if len(text) <= 50 else text[:47] + "..."
        self.report(node, f"`{text}`: shapes {describe_shape(a)} and {describe_shape(b)} cannot broadcast, "
                          f"dimension {axis} is {size_a} against {size_b} (aligned from the right; only "
                          f"equal sizes or 1 combine)", origin=origin)
