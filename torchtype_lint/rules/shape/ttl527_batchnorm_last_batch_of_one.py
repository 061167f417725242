"""TTL527 batchnorm-last-batch-of-one: a DataLoader whose last batch holds one sample feeds a
batch-norm layer in training mode, which needs more than one value per channel."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Dict, List, Optional, Tuple

import libcst as cst

from ...knowledge import nn_modules as NN
from ...knowledge.batch_statistics import BATCH_STATISTICS_LAYERS, ONE_VALUE_MESSAGE, values_per_channel
from ...knowledge.data_pipeline import DataLoaderValue, batch
from ...knowledge.training_mode import TRAINING
from ...model.values import CallArgs, InstanceValue, ModuleValue, ScalarValue, TensorValue, Value, describe_shape
from ..base import Rule, RuntimeClaim, register
from ..context import RuleContext
from ..source_edits import code
from .batch_rows import ROWS, Rows, RowsScan, called_function, keeps_rows, loop_seeds, returned_expressions
from .loader_draws import counted_draws
from .loader_loops import SyntaxCache, derived_names, size_guarded, using, walk
from .messages import layer_label
from .ttl522_last_batch_size_assumed import _loader


@dataclass(frozen=True)
class _OneRow:
    """``call`` runs the batch-norm ``layer`` (``path``: where in an ``nn.Sequential``) on an
    input whose every channel holds one value on a batch of one row (``shape`` then)."""

    call: Any
    layer: ModuleValue
    shape: tuple
    path: str
    #: The loop body's call the batch reached the layer through (``model(x)``).
    entry: Any


@register
class BatchNormLastBatchOfOne(Rule):
    """
    ## What it does
    Warns about a batch-norm layer (`nn.BatchNorm1d/2d/3d`) in training mode that a loop over
    a `DataLoader` reaches with the batch's rows (in the loop, or in the `forward` it calls)
    when the loader keeps its last batch (`drop_last=False`, the default) and that batch holds
    one sample: the dataset's known size leaves a remainder of 1 (`49 % 16 == 1`); or when
    every batch holds one (`batch_size=1`, DataLoader's default). The input must have one value
    per channel on that batch: `(1, C)`, or `(1, C, 1, 1)` after a global pool (in an
    `nn.Sequential`, nested ones too). A loop that draws the batches by hand,
    `x, y = next(it)` of `it = iter(loader)` once a step of `for i in range(n)`, reaches the
    last batch when `n` is at least `len(loader)` (two loaders walked side by side). A model put in eval mode (`model.eval()`) is not reported, nor one whose mode the
    code does not set (`model.train()`, or a model built in the same scope, which starts in
    training mode), nor a loop that tests the batch's size itself (`if x.size(0) < 2: continue`).

    ## Why is this bad?
    In training mode batch norm normalises each channel with the statistics of the batch; one
    value has no variance and torch raises `ValueError: Expected more than 1 value per channel
    when training`, under `torch.no_grad()` too. Every full batch works and the epoch fails at
    its last step. The warning names the path: the dataset size and the batch size.

    ## Example
    ```python
    loader = DataLoader(dataset, batch_size=16, shuffle=True)  # 49 samples: 16, 16, 16, 1
    model.train()
    for x, y in loader:
        out = model(x)  # forward: self.norm = nn.BatchNorm1d(3); self.norm(x)
    ```

    ## Use instead
    ```python
    loader = DataLoader(dataset, batch_size=16, shuffle=True, drop_last=True)
    ```
    (or a batch size that leaves more than one sample in the last batch).
    """

    code = "TTL527"
    name = "batchnorm-last-batch-of-one"
    summary = "batch norm in training mode on a batch of one sample (a DataLoader's last batch, or batch_size=1)"
    severity = "warning"
    listens = (cst.For,)
    runtime = RuntimeClaim("ValueError", r"Expected more than 1 value per channel when training")

    def visit(self, node: cst.For, ctx: RuleContext) -> None:
        with using(ctx.state(SyntaxCache)):
            loader, enumerated = _loader(node.iter, ctx)
            if loader is not None:
                if _steps_to_one(loader) is not None:
                    self._judge(node, loader, loop_seeds(node.target, enumerated, batch(loader)), node.body, ctx)
                return
            for draw in counted_draws(node, ctx):  # x, y = next(it) once a step of for i in range(n)
                steps = _steps_to_one(draw.loader)
                if steps is not None and draw.count >= steps:
                    self._judge(node, draw.loader, loop_seeds(draw.target, False, batch(draw.loader)), draw.rest, ctx)
                    return

    def _judge(self, node: cst.For, loader: DataLoaderValue, seeds: Dict[str, Rows], body: Any,
               ctx: RuleContext) -> None:
        """Report the first batch-norm layer in training mode the rows of ``seeds`` (bound at
        the start of ``body``, the loop's body or its statements after a draw) reach with one
        value per channel on a batch of one sample."""
        if not seeds:
            return
        every = loader.batch_size == 1
        if size_guarded(node.body, derived_names(node.body, set(seeds))):
            return  # the loop looks at the batch's size itself (`if x.size(0) < 2: continue`)
        found: List[_OneRow] = []
        entry: List[Any] = [None]
        body_nodes = {id(sub) for sub in walk(node.body)}

        def value_of(expr: Any) -> Value:
            # the loop body in this context (where the loader is known); functions it calls
            # joined over their analyses (a shape must hold in every one)
            return ctx.value(expr) if id(expr) in body_nodes else ctx.joined_value(expr)

        def on_call(call: cst.Call, kinds: Any, depth: int) -> None:
            if depth == 0:
                entry[0] = call
            if found or not call.args or call.args[0].keyword is not None or call.args[0].star:
                return
            layer = value_of(call.func)
            if not isinstance(layer, ModuleValue) or kinds(call.args[0].value) != ROWS:
                return
            x = value_of(call.args[0].value)
            if isinstance(x, TensorValue):
                one = _one_row_layer(layer, x, every, lambda child: _forward_output(child, scan, ctx))
                if one is not None:
                    found.append(_OneRow(call, one[0], one[1], one[2], entry[0]))

        scan = RowsScan(value_of, on_call, ctx.value)
        scan.scan(body, seeds)
        if not found:
            return
        hit = found[0]
        if not _in_training_mode(node, hit.entry, ctx, value_of):
            return
        last = loader.last_batch
        where = f" (layer {hit.path} of this nn.Sequential)" if hit.path else ""
        if every or last is None:
            path = "every batch holds 1 sample (the DataLoader's batch size is 1)"
            remedy = "use a batch size of at least 2 (or put the model in eval mode)"
        else:
            path = (f"on the last batch, which holds 1 sample when the dataset's {last.dataset_size} "
                    f"samples are split into batches of {last.batch_size}")
            remedy = ("drop that batch (`DataLoader(..., drop_last=True)`) or use a batch size that leaves more "
                      "than one sample")
        self.report(hit.call, f"{path}, `{code(hit.call, 40)}` runs nn.{layer_label(hit.layer)}{where} in training "
                              f"mode on an input of shape {describe_shape(hit.shape)}: one value per channel, and "
                              f"batch norm raises ValueError (\"{ONE_VALUE_MESSAGE}\"); {remedy}")


def _steps_to_one(loader: DataLoaderValue) -> Optional[int]:
    """How many batches a loader yields up to one of a single sample: 1 when every batch holds
    one (``batch_size=1``), ``len(loader)`` when only the last does; None when none does (or a
    ``collate_fn`` of the file makes the batch: dim 0 may not be the rows)."""
    if loader.collated is not None:
        return None
    if loader.batch_size == 1:
        return 1
    last = loader.last_batch
    return last.batches if last is not None and last.remainder == 1 else None


def _one_row_layer(layer: ModuleValue, x: TensorValue, every: bool,
                   through: Callable[[InstanceValue], Optional[TensorValue]]) -> Optional[tuple]:
    """(the batch-norm layer, its input's shape on a batch of one, its place in a Sequential,
    nested ones too: ``[1][1]``) when ``layer`` runs one on ``x``'s rows with one value per
    channel, else None. ``every``: every batch holds one sample (dim 0 may be a known 1).
    ``through``: what a module of the file among the layers gives for the rows (None: unknown)."""
    if layer.short_name in BATCH_STATISTICS_LAYERS:
        shape = _one_row_shape(x, every)
        return (layer, shape, "") if shape is not None else None
    return _through_sequential(layer, x, every, through)[0] if layer.short_name == "Sequential" else None


def _through_sequential(layer: ModuleValue, x: TensorValue, every: bool,
                        through: Callable[[InstanceValue], Optional[TensorValue]]) -> Tuple[Optional[tuple],
                                                                                             Optional[TensorValue]]:
    """Walk an ``nn.Sequential``'s layers on the rows ``x``: (the first batch-norm layer with one
    value per channel, as ``_one_row_layer`` gives it, or None; what the layers give for the
    rows, None when not followed to the end)."""
    value: Optional[Value] = x
    for index, child in enumerate(layer.children):
        if not isinstance(value, TensorValue):
            return None, None
        if isinstance(child, InstanceValue):
            value = through(child)  # AdaptiveConcatPool2d() in a fastai-style head
            continue
        if not isinstance(child, ModuleValue):
            return None, None
        if child.short_name == "Sequential":
            inner, value = _through_sequential(child, value, every, through)
            if inner is not None:
                return (inner[0], inner[1], f"[{index}]{inner[2]}"), None
            continue
        if child.short_name in BATCH_STATISTICS_LAYERS:
            shape = _one_row_shape(value, every)
            if shape is not None:
                return (child, shape, f"[{index}]"), None
        if not keeps_rows(child):
            return None, None  # not followed further
        value = NN.call_module(child, CallArgs([value], {}, [None], {}), None)
    return None, value if isinstance(value, TensorValue) else None


def _forward_output(instance: InstanceValue, scan: RowsScan, ctx: RuleContext) -> Optional[TensorValue]:
    """What a module of the file gives for the batch's rows, with dim 0 its rows: its
    ``forward`` must return the rows (``torch.cat([max_pool(x), avg_pool(x)], 1)``), and its
    return value's other dims must be known alike in every analysis of it (joined)."""
    if scan.forward_rows(instance) != ROWS:
        return None
    function, _ = called_function(instance)
    returns = returned_expressions(function) if function is not None else []
    if len(returns) != 1:
        return None
    out = ctx.joined_value(returns[0])
    if not isinstance(out, TensorValue) or out.shape is None or len(out.shape) < 2:
        return None
    return TensorValue(out.dtypes, (None,) + tuple(out.shape[1:]), out.origin, out.device)


def _one_row_shape(x: TensorValue, every: bool) -> Optional[tuple]:
    """``x``'s shape on a batch of one row when each channel then holds one value."""
    shape = x.shape
    if shape is None or len(shape) < 2 or isinstance(shape[0], int) and not (every and shape[0] == 1):
        return None  # a known first dim is not the loader's rows (unless every batch holds one)
    if values_per_channel(1, shape) != 1:
        return None
    return (1,) + tuple(shape[1:])


_TRAIN, _EVAL, _UNKNOWN = "train", "eval", "unknown"


def _in_training_mode(loop: cst.For, entry: Any, ctx: RuleContext, value_of: Any) -> bool:
    """Is the model the loop body's call ``entry`` runs in training mode on the last batch?
    The last ``model.train()`` / ``model.eval()`` before the call says so (in the loop body
    first, then before the loop); with none in the scope, a model built in the scope is (a
    module starts in training mode). Anything else is unknown: not in training mode."""
    if not isinstance(entry, cst.Call):
        return False
    model = ctx.value(entry.func)
    if isinstance(model, InstanceValue) and TRAINING in model.attrs:
        mode = model.attrs[TRAINING]  # the engine's own account of .train() / .eval() calls
        if not (isinstance(mode, ScalarValue) and mode.const is True):
            return False
    receiver = _text(entry.func)
    if receiver is None:
        return False
    function = ctx.function_node
    scope = function.body if function is not None else ctx.module
    in_loop = {id(sub) for sub in walk(loop)}
    order = {}
    modes = []  # (position, inside the loop, mode)
    for position, sub in enumerate(walk(scope)):
        order[id(sub)] = position
        if not (isinstance(sub, cst.Call) and isinstance(sub.func, cst.Attribute)
                and sub.func.attr.value in ("train", "eval")):
            continue
        target = _text(sub.func.value)
        inside = id(sub) in in_loop
        if target == receiver:
            modes.append((position, inside, _mode(sub)))
        elif sub.func.attr.value == "eval" or _mode(sub) != _TRAIN:
            if inside or (target is not None and target.startswith(receiver + ".")) or target is None:
                modes.append((position, inside, _EVAL))  # a part of the model, or any module in the loop
    at, start = order.get(id(entry)), order.get(id(loop))
    if at is None or start is None:
        return False
    before_call = [mode for position, inside, mode in modes if inside and position < at]
    if before_call:
        return before_call[-1] == _TRAIN
    after_call = [mode for position, inside, mode in modes if inside and position > at]
    if any(mode != _TRAIN for mode in after_call):
        return False  # the last batch runs after it
    before_loop = [mode for position, inside, mode in modes if not inside and position < start]
    if before_loop:
        return before_loop[-1] == _TRAIN
    if after_call:
        return True
    if modes:
        return False
    return _built_here(receiver, scope, start, ctx)


def _mode(call: cst.Call) -> str:
    if call.func.attr.value == "eval":
        return _EVAL if not call.args else _UNKNOWN
    if not call.args:
        return _TRAIN
    arg = call.args[0].value
    if isinstance(arg, cst.Name) and arg.value in ("True", "False"):
        return _TRAIN if arg.value == "True" else _EVAL
    return _UNKNOWN


def _built_here(receiver: str, scope: Any, loop_start: int, ctx: RuleContext) -> bool:
    """Is ``receiver`` a name bound once in the scope, before the loop, to a model it builds
    (``model = Net()``: a fresh module is in training mode)?"""
    bindings = []
    for position, sub in enumerate(walk(scope)):
        if isinstance(sub, cst.Assign) and any(isinstance(t.target, cst.Name) and t.target.value == receiver
                                               for t in sub.targets):
            bindings.append((position, sub))
        elif isinstance(sub, (cst.AugAssign, cst.AnnAssign, cst.For)) and any(
                isinstance(n, cst.Name) and n.value == receiver for n in walk(sub.target)):
            return False
    if len(bindings) != 1 or bindings[0][0] > loop_start:
        return False
    value = bindings[0][1].value
    if not isinstance(value, cst.Call):
        return False
    built = ctx.value(value)
    return isinstance(built, (InstanceValue, ModuleValue)) and _constructed(value, built)


def _constructed(call: cst.Call, built: Value) -> bool:
    """The call builds the model: a class of the file or an ``nn`` layer (``Net().to(device)``
    too), not a function that may hand back a model in any mode (``load_model()``)."""
    origin = getattr(built, "origin", None)
    return origin is not None and any(sub is origin.node for sub in walk(call))


def _text(node: Any) -> Optional[str]:
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        base = _text(node.value)
        return None if base is None else f"{base}.{node.attr.value}"
    return None
