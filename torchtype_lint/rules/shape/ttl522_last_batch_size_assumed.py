"""TTL522 last-batch-size-assumed: a loop over a DataLoader that keeps its smaller last batch
spells the configured batch size where the batch's own size belongs."""
from __future__ import annotations

from typing import Any, Callable, Iterator, List, Optional, Set

import libcst as cst

from ...knowledge.data_pipeline import DataLoaderValue, LastBatch, batch
from ...knowledge.dim_args import ONE_DIM_OPS, SEQUENCE_DIM_OPS
from ...knowledge.shapes import dim_in_range
from ...model.values import FunctionValue, InstanceValue, ModuleValue, ScalarValue, SymbolValue, TensorValue, Value
from ..base import Rule, RuntimeClaim, register
from ..context import RuleContext
from ..dtype.losses import loss_call
from ..source_edits import code
from .messages import layer_label
from .batch_rows import RowsScan, loop_seeds
from .layer_contracts import chain_failure, layer_mismatch
from .loader_loops import (
    FullBatchUse, SyntaxCache, batch_names, derived_names, factory_use, full_batch_uses, mentions, scope_statements,
    size_guarded, small_statements, state_use, using, walk,
)


@register
class LastBatchSizeAssumed(Rule):
    """
    ## What it does
    Warns, in a loop over a `DataLoader` that keeps its last batch (`drop_last=False`, the
    default), about the configured batch size written where the batch's own size belongs:
    `x.view(batch_size, -1)`, a target or hidden state built with `torch.zeros(batch_size, ...)`
    / `torch.zeros(num_layers, batch_size, hidden)` / `model.init_hidden(batch_size)` that meets
    the batch, in the loop or in the `forward` it calls (`x.view(self.batch_size, -1)`), a loss
    target built elsewhere for the configured batch (`criterion(D(x), real_labels)`), labels
    built with `torch.arange(args.batch_size)` (the option the loader takes its batch size from)
    and carried through the names computed from them (`torch.cat([...] * n_views)`, a mask
    `torch.eye(labels.shape[0])`) to where they meet the batch; and, when the last batch holds
    exactly one sample, a bare `.squeeze()` of the batch's rows (in the loop or in `forward`)
    that drops the batch dimension of that batch too, before a binary cross-entropy, an op
    that names a dim the smaller tensor lacks (`torch.cat(pooled, dim=1)`, `F.softmax(x, dim=1)`)
    or a layer that checks its input's rank (`nn.BatchNorm1d` of pooled features squeezed with
    `torch.squeeze(x)`: 1-D on that batch).

    ## Why is this bad?
    When the dataset size is not a multiple of the batch size, the last batch is smaller: with
    100 samples and `batch_size=32` it holds 4. Every full batch works, and the epoch fails at
    its end: `RuntimeError: shape '[32, -1]' is invalid for input of size ...`, `ValueError:
    Expected input batch_size (32) to match target batch_size (4)`, `RuntimeError: Expected
    hidden size (1, 4, 64), got [1, 32, 64]`; on a last batch of one, `ValueError: Target size
    (torch.Size([1])) must be the same as input size (torch.Size([]))` or `IndexError: Dimension
    out of range`. The warning names the path: the dataset size (a `TensorDataset`'s rows, or
    what the dataset class's `__len__` returns) and
    the last batch's size when they are known, else the condition. A dataset whose size is a
    known multiple of the batch size is not reported.

    ## Example
    ```python
    loader = DataLoader(dataset, batch_size=32, shuffle=True)
    for x, y in loader:
        out = model(x.view(32, -1))
    ```

    ## Use instead
    ```python
    for x, y in loader:
        out = model(x.view(x.size(0), -1))
    ```
    (or `DataLoader(..., drop_last=True)` when every batch must be full).
    """

    code = "TTL522"
    name = "last-batch-size-assumed"
    summary = "configured batch size assumed for a DataLoader's smaller last batch"
    severity = "warning"
    listens = (cst.For,)
    runtime = RuntimeClaim("Exception", r"is invalid for input of size|to match target batch_size|"
                                        r"Expected hidden(\[0\])? size|must match|Sizes of tensors must match|"
                                        r"shapes cannot be multiplied|Using a target size|"
                                        r"must be the same as input size|Dimension out of range|"
                                        r"The shape of the mask|out of bounds|expected \dD or \dD input|"
                                        r"Expected \dD \(unbatched\) or \dD \(batched\) input")

    def visit(self, node: cst.For, ctx: RuleContext) -> None:
        loader, enumerated = _loader(node.iter, ctx)
        if loader is None or loader.last_batch is None or loader.last_batch.remainder == 0:
            return  # no smaller last batch (or a dataset size that is a multiple of it)
        with using(ctx.state(SyntaxCache)):  # the scans below share one syntax cache per analysis
            self._judge(node, loader, enumerated, ctx)

    def _judge(self, node: cst.For, loader: DataLoaderValue, enumerated: bool, ctx: RuleContext) -> None:
        last = loader.last_batch
        if last is None:
            return  # visit checked it; kept for the type checker
        seeds = batch_names(node.target, enumerated)
        if not seeds:
            return
        names = derived_names(node.body, seeds)
        if size_guarded(node.body, names):
            return  # the loop looks at the batch's size itself
        full = _holds(last.batch_size, ctx.value)
        spelled = _spelled_as_loader(loader)
        for use in full_batch_uses(node.body, names, full, _carries(last.batch_size, ctx.value), spelled):
            self._warn(use, last)
            return
        for use in _uses_in_forward(node.body, names, last, ctx, spelled):
            self._warn(use, last)
            return
        use = _folded_batch_view(node, loader, enumerated, ctx)
        if use is not None:
            self._warn(use, last)
            return
        for use in _full_loss_targets(node.body, names, last, ctx):
            self._warn(use, last)
            return
        for use in _states_built_before(node, names, last, ctx):
            self._warn(use, last)
            return
        if last.remainder == 1:
            for use in _squeezed_batch_of_one(node.body, names, ctx):
                self._warn(use, last)
                return
            use = _squeezed_dim_out_of_range(node, loader, enumerated, ctx)
            if use is not None:
                self._warn(use, last)

    def _warn(self, use: FullBatchUse, last: LastBatch) -> None:
        size = code(use.size_node, 30)
        if last.dataset_size is not None:
            samples = "1 sample" if last.remainder == 1 else f"{last.remainder} samples"
            path = (f"on the last batch, which holds {samples} because the dataset size "
                    f"({last.dataset_size}) is not a multiple of the batch size ({last.batch_size})")
        else:
            path = (f"on the last batch when the dataset size is not a multiple of the batch size "
                    f"({last.batch_size}): that batch is smaller")
        if use.what == "target":
            what = f"the target `{size}` of `{code(use.node, 50)}` holds {last.batch_size} samples"
        elif use.what == "squeeze":
            what = (f"`{size}` drops its batch dimension too, so `{code(use.node, 50)}` gets a 0-dim input "
                    "for a target of one sample")
        elif use.what.startswith("squeeze-layer"):
            rank, label, expects = use.what.split(":", 3)[1:]
            size = code(use.size_node, 60)
            what = (f"`{size}` drops its batch dimension too, so `{code(use.node, 50)}` gives {label} a {rank}-D "
                    f"input, but it {expects} (torch raises)")
        elif use.what.startswith("squeeze-dim"):
            rank, dim, named = use.what.split(":")[1:]
            size = code(use.size_node, 60)
            what = (f"`{size}` drops its batch dimension too, so `{code(use.node, 50)}` gets {rank}-D "
                    f"{'tensors' if use.many else 'a tensor'} and dim {dim} is out of range (IndexError: "
                    "Dimension out of range)")
        elif use.what.startswith("fold"):
            width, per_row, full_rows = use.what.split(":")[1:]
            size = code(use.node, 50)
            what = (f"`{size}` makes rows of {width} values out of whole batches ({last.batch_size} samples of "
                    f"{per_row} values: {full_rows} row{'s' if full_rows != '1' else ''}); the last batch's "
                    f"{last.remainder * int(per_row) if last.remainder else 'fewer'} values do not fill whole rows "
                    "(torch raises \"is invalid for input of size\")")
        else:
            how = "reshapes the batch to" if use.what == "reshape" else "builds a tensor for"
            what = f"`{code(use.node, 50)}` {how} `{size}` = {last.batch_size} samples"
        fix = ("keep the batch dim (`x.view(x.size(0), -1)`)" if use.what.startswith("fold")
               else "squeeze a named dim (`.squeeze(1)`)" if use.what == "squeeze" or use.what.startswith("squeeze-layer")
               else f"squeeze the named dim (`.squeeze({use.what.split(':')[3]})`)" if use.what.startswith("squeeze")
               else "use the batch's own size (`x.size(0)`)")
        self.report(use.node, f"{path}, and {what}; {fix} or `DataLoader(..., drop_last=True)`")


def _loader(iterable: Any, ctx: RuleContext) -> "tuple[Optional[DataLoaderValue], bool]":
    """The loader a ``for`` iterates (directly, through ``enumerate`` or a progress bar)."""
    value = ctx.value(iterable)
    if isinstance(value, DataLoaderValue):
        return value, False
    if isinstance(iterable, cst.Call) and iterable.args and iterable.args[0].keyword is None:
        inner = ctx.value(iterable.args[0].value)
        func = iterable.func
        name = func.value if isinstance(func, cst.Name) else (
            func.attr.value if isinstance(func, cst.Attribute) else "")
        if isinstance(inner, DataLoaderValue) and name in ("enumerate", "tqdm", "iter"):
            return inner, name == "enumerate"
    return None, False


def _holds(batch_size: int, value_of: Callable[[Any], Value]) -> Callable[[Any], bool]:
    def full(node: Any) -> bool:
        value = value_of(node)
        return isinstance(value, ScalarValue) and value.pytype == "int" and value.const == batch_size
    return full


def _carries(batch_size: int, value_of: Callable[[Any], Value]) -> Callable[[Any], bool]:
    """Does a name hold a tensor with a dim that is a multiple of the configured batch size
    (``torch.cat([torch.arange(B)] * 2)``: 2B labels; ``torch.eye(2B)``)?"""
    def carries(node: Any) -> bool:
        value = value_of(node)
        return isinstance(value, TensorValue) and value.shape is not None and any(
            isinstance(d, int) and not isinstance(d, bool) and d > 0 and d % batch_size == 0 for d in value.shape)
    return carries


def _spelled_as_loader(loader: DataLoaderValue) -> Callable[[Any], bool]:
    """Is a size written as the option the loader takes its batch size from (``args.batch_size``
    for ``DataLoader(ds, batch_size=args.batch_size)``: the same last name)?"""
    call = loader.origin.node if loader.origin is not None else None
    given = None
    if isinstance(call, cst.Call):
        for index, arg in enumerate(call.args):
            if (arg.keyword is not None and arg.keyword.value == "batch_size") or (arg.keyword is None and index == 1):
                given = arg.value
    name = _last_name(given)

    def spelled(size: Any) -> bool:
        return name is not None and _last_name(size) == name
    return spelled


def _last_name(node: Any) -> Optional[str]:
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        return node.attr.value
    return None


def _uses_in_forward(body: Any, names: Set[str], last: LastBatch, ctx: RuleContext,
                     spelled: Optional[Callable[[Any], bool]] = None) -> Iterator[FullBatchUse]:
    """Full-batch uses in the ``forward`` of a model of the file the loop calls with the batch
    (``out = model(x)``): the parameters given a batch tensor are its batch names."""
    for forward_body, inner in _forwards_called(body, names, ctx):
        # values in forward joined over its calls: a size that is B in every one of them
        yield from full_batch_uses(forward_body, inner, _holds(last.batch_size, ctx.joined_value),
                                   _carries(last.batch_size, ctx.joined_value), spelled)


def _forwards_called(body: Any, names: Set[str], ctx: RuleContext) -> Iterator["tuple[Any, Set[str]]"]:
    """(body, batch names) of each ``forward`` (or helper) of the file the loop calls with the
    batch: the parameters given a batch tensor, and the names computed from them."""
    for call in (sub for sub in walk(body) if isinstance(sub, cst.Call)):
        callee = ctx.value(call.func)
        forward, skip = _called_function(callee)
        if forward is None:
            continue
        params = [p.name.value for p in forward.node.params.params][skip:]  # after self, for methods
        seeds = {param for param, arg in zip(params, call.args)
                 if arg.keyword is None and not arg.star and mentions(arg.value, names)}
        if not seeds:
            continue
        inner = derived_names(forward.node.body, seeds)
        if size_guarded(forward.node.body, inner):
            continue
        yield forward.node.body, inner


def _folded_batch_view(loop: cst.For, loader: DataLoaderValue, enumerated: bool,
                       ctx: RuleContext) -> Optional[FullBatchUse]:
    """``x.view(-1, W)`` of the batch's rows (in the loop or in a ``forward`` it calls), ``(rows,
    *known)`` with ``R`` values a sample, where ``W`` divides a full batch's ``B * R`` values but
    not the last batch's ``r * R``: the width folds the batch (``x.view(-1, batch_size * 16 * 6 *
    6)``), and the last batch cannot fill its rows. Without a known last size, only where no
    smaller batch can fill them."""
    last = loader.last_batch
    if last is None:
        return None

    def judge(call: cst.Call, kinds: Any, value_of: Callable[[Any], Value]) -> Optional[FullBatchUse]:
        func = call.func
        if not (isinstance(func, cst.Attribute) and func.attr.value in ("view", "reshape") and call.args):
            return None
        kind = kinds(func.value)
        if kind is None or kind.many or kind.squeezed:
            return None  # not a tensor whose dim 0 is the batch's samples
        return _fold(call, value_of(func.value), last, value_of)  # type: ignore[arg-type]

    return _first_use_of_rows(loop, loader, enumerated, ctx, judge)


def _first_use_of_rows(loop: cst.For, loader: DataLoaderValue, enumerated: bool, ctx: RuleContext,
                       judge: Callable[[cst.Call, Any, Callable[[Any], Value]], Optional[FullBatchUse]]
                       ) -> Optional[FullBatchUse]:
    """The first call the batch's rows reach (in the loop or in the functions it calls with them,
    ``RowsScan``) that ``judge(call, kinds, value_of)`` makes a use of; None when none does, or
    when a ``collate_fn`` of the file makes the batch (dim 0 may not be the rows)."""
    if loader.collated is not None:
        return None
    seeds = loop_seeds(loop.target, enumerated, batch(loader))
    if not seeds:
        return None
    body_nodes = {id(sub) for sub in walk(loop.body)}
    found: List[FullBatchUse] = []

    def value_of(expr: Any) -> Value:
        return ctx.value(expr) if id(expr) in body_nodes else ctx.joined_value(expr)

    def on_call(call: cst.Call, kinds: Any, depth: int) -> None:
        if not found:
            use = judge(call, kinds, value_of)
            if use is not None:
                found.append(use)

    RowsScan(value_of, on_call, ctx.value).scan(loop.body, seeds)
    return found[0] if found else None


def _fold(call: cst.Call, tensor: Value, last: LastBatch, value_of: Callable[[Any], Value]) -> Optional[FullBatchUse]:
    """The fold use of ``tensor.view(*sizes)`` (one of them -1) of the batch's rows, or None."""
    sizes = [arg.value for arg in call.args]
    if len(sizes) == 1 and isinstance(sizes[0], (cst.Tuple, cst.List)):
        sizes = [element.value for element in sizes[0].elements]
    if any(arg.keyword is not None or arg.star for arg in call.args) or \
            sum(_is_minus_one(size) for size in sizes) != 1:
        return None
    width = 1
    for size in sizes:
        if _is_minus_one(size):
            continue
        value = value_of(size)
        if not (isinstance(value, ScalarValue) and value.pytype == "int" and isinstance(value.const, int)
                and not isinstance(value.const, bool) and value.const > 0):
            return None
        width *= value.const
    if not isinstance(tensor, TensorValue) or not tensor.shape or tensor.shape[0] not in (None, last.batch_size):
        return None  # dim 0 holds the samples: unknown over every batch, or the full batch
    per_row = 1
    for dim in tensor.shape[1:]:
        if not isinstance(dim, int) or isinstance(dim, bool):
            return None
        per_row *= dim
    full = last.batch_size * per_row
    smaller = [last.remainder] if last.remainder else range(1, last.batch_size)
    if per_row and full % width == 0 and all((r * per_row) % width for r in smaller):
        return FullBatchUse(call, call, f"fold:{width}:{per_row}:{full // width}")
    return None


def _is_minus_one(node: Any) -> bool:
    return isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus) and \
        isinstance(node.expression, cst.Integer) and node.expression.value == "1"


def _called_function(callee: Value) -> "tuple[Optional[FunctionValue], int]":
    """The function of the file a call runs (a model's ``forward``, a helper, a bound method)
    and how many leading parameters the call does not give (``self``)."""
    if isinstance(callee, InstanceValue):
        forward = callee.cls.methods.get("forward")
        skip = 1
    elif isinstance(callee, FunctionValue):
        forward, skip = callee, 0
    else:
        # a bound method (self.to_latent): its function, self given by the binding
        forward, skip = getattr(callee, "function", None), 1
    if not isinstance(forward, FunctionValue) or not isinstance(forward.node, cst.FunctionDef):
        return None, 0
    return forward, skip


def _states_built_before(loop: cst.For, names: Set[str], last: LastBatch,
                         ctx: RuleContext) -> Iterator[FullBatchUse]:
    """``h = net.init_hidden(batch_size)`` before the loop, then ``out, h = net(x, h)`` in it:
    a state built for B samples that the loop's first statement using it feeds the batch."""
    function = ctx.function_node
    scope = function.body if function is not None else ctx.module
    full = _holds(last.batch_size, ctx.value)
    built = {}
    inside = small_statements(loop.body)
    own = {id(small) for small in inside}
    for small in scope_statements(scope):
        if isinstance(small, cst.Assign) and len(small.targets) == 1 and isinstance(small.targets[0].target, cst.Name) \
                and isinstance(small.value, cst.Call) and id(small) not in own:  # not a statement of the loop
            use = factory_use(small.value, full) or state_use(small.value, full)
            if use is not None:
                built[small.targets[0].target.value] = use
    for name, use in built.items():
        for small in inside:
            if not mentions(small, {name}):
                continue
            value = getattr(small, "value", None)
            if isinstance(small, cst.Assign) and value is not None and not mentions(value, {name}):
                break  # rebound in the loop before it is used: the state is built there
            if mentions(_reads(small), names - {name}):
                yield use
                break
            # h = tuple(each.data for each in h): passed along, not yet meeting the batch


def _reads(small: Any) -> Any:
    return getattr(small, "value", None) or small


#: Losses that refuse an input and a target of different sizes (no broadcasting).
_STRICT_SIZE_LOSSES = ("binary_cross_entropy", "binary_cross_entropy_with_logits")


def _squeezed_batch_of_one(body: Any, names: Set[str], ctx: RuleContext) -> Iterator[FullBatchUse]:
    """``criterion(model(x).squeeze(), y)`` with a binary cross-entropy: on a batch of one,
    ``squeeze()`` leaves a 0-dim output for the (1,) target."""
    squeezed = {}  # name -> the squeeze() call it was assigned from
    for small in small_statements(body):
        if isinstance(small, cst.Assign) and len(small.targets) == 1 and isinstance(small.targets[0].target, cst.Name):
            call = _bare_squeeze(small.value, names, ctx)
            if call is not None:
                squeezed[small.targets[0].target.value] = call
        for call in (sub for sub in walk(small) if isinstance(sub, cst.Call)):
            found = loss_call(ctx, call, _STRICT_SIZE_LOSSES)
            if found is None:
                continue
            input_node = found[2].arg_node("input")
            source = _bare_squeeze(input_node, names, ctx) if input_node is not None else None
            if source is None and isinstance(input_node, cst.Name):
                source = squeezed.get(input_node.value)
            if source is not None:
                yield FullBatchUse(call, source, "squeeze")


def _bare_squeeze(node: Any, names: Set[str], ctx: RuleContext) -> Optional[Any]:
    """``node`` when it is ``<batch tensor>.squeeze()`` with no dim (or a model call whose
    ``forward`` returns one), else None."""
    if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and node.func.attr.value == "squeeze" \
            and not node.args and mentions(node.func.value, names):
        return node
    if isinstance(node, cst.Call) and any(mentions(a.value, names) for a in node.args):
        forward, _ = _called_function(ctx.value(node.func))
        if forward is not None:
            returns = [sub.value for sub in walk(forward.node.body) if isinstance(sub, cst.Return)]
            if len(returns) == 1 and isinstance(returns[0], cst.Call) and isinstance(returns[0].func, cst.Attribute) \
                    and returns[0].func.attr.value == "squeeze" and not returns[0].args:
                return returns[0]  # forward ends with `return self.fc(x).squeeze()`
    return None


#: Losses whose input and target must hold the same number of samples.
_PAIRED_LOSSES = ("mse_loss", "l1_loss", "smooth_l1_loss", "huber_loss", "binary_cross_entropy",
                  "binary_cross_entropy_with_logits", "cross_entropy", "nll_loss")


def _full_loss_targets(body: Any, names: Set[str], last: LastBatch, ctx: RuleContext) -> Iterator[FullBatchUse]:
    """``criterion(D(x), self.real_labels)``: a target built elsewhere for B samples (its first
    dim is the configured size) scored against an output of the batch."""
    for call in (sub for sub in walk(body) if isinstance(sub, cst.Call)):
        found = loss_call(ctx, call, _PAIRED_LOSSES)
        if found is None:
            continue
        input_node, target_node = found[2].arg_node("input"), found[2].arg_node("target")
        if input_node is None or target_node is None or not mentions(input_node, names) or \
                mentions(target_node, names) or not isinstance(target_node, (cst.Name, cst.Attribute)):
            continue
        target = ctx.value(target_node)
        if isinstance(target, TensorValue) and target.shape and target.shape[0] == last.batch_size:
            yield FullBatchUse(call, target_node, "target")


def _squeezed_dim_out_of_range(loop: cst.For, loader: DataLoaderValue, enumerated: bool,
                               ctx: RuleContext) -> Optional[FullBatchUse]:
    """On a last batch of one sample, a bare ``.squeeze()`` of the batch's rows (in the loop or
    in the ``forward`` it calls: ``F.max_pool1d(c, c.shape[2]).squeeze()`` of an ``(N, F, 1)``
    map) drops dim 0 too; the first op after it that names a dim the smaller rank lacks
    (``torch.cat(pooled, dim=1)`` of what are then 1-D tensors) raises."""
    return _first_use_of_rows(loop, loader, enumerated, ctx, lambda call, kinds, value_of: (
        _dim_beyond_squeezed(call, kinds, value_of) or _layer_rank_after_squeeze(call, kinds, value_of)))


def _dim_beyond_squeezed(call: cst.Call, kinds: Any, value_of: Callable[[Any], Value]) -> Optional[FullBatchUse]:
    """``call`` names a dim that a squeezed tensor of the batch has on every batch but the one of
    a single sample: (the use, its rank then, the dim), else None."""
    func = call.func
    positional = [a.value for a in call.args if a.keyword is None and not a.star]
    keyword = {a.keyword.value: a.value for a in call.args if a.keyword is not None}
    name, subject, dim_node = "", None, None
    if isinstance(func, cst.Attribute) and isinstance(value_of(func.value), TensorValue):
        name, subject = func.attr.value, func.value
        dim_node = keyword.get("dim", positional[0] if positional else None)
    else:
        callee = value_of(func)
        qualname = callee.qualname if isinstance(callee, SymbolValue) else ""
        for prefix in ("torch.nn.functional.", "torch."):
            if qualname.startswith(prefix) and "." not in qualname[len(prefix):]:
                name = qualname[len(prefix):]
                break
        if positional:
            subject = positional[0]
            dim_node = keyword.get("dim", positional[1] if len(positional) > 1 else None)
    if name not in ONE_DIM_OPS or subject is None or dim_node is None:
        return None
    kind = kinds(subject)
    if kind is None or not kind.squeezed or kind.rank_last is None or \
            kind.many != (name in SEQUENCE_DIM_OPS):
        return None
    dim = _literal_int(dim_node)
    extra = ONE_DIM_OPS[name]
    if dim is None or not dim_in_range(dim, kind.rank_last + 1, extra) or dim_in_range(dim, kind.rank_last, extra):
        return None  # wrong on every batch (another rule's), or right on the batch of one too
    named = ", ".join(str(d) for d in kind.ones) or "1"
    return FullBatchUse(call, kind.squeeze, f"squeeze-dim:{kind.rank_last}:{dim}:{named}", kind.many)


#: Layer contracts on the input's rank (``layer_contracts``): a squeezed batch of one breaks them.
_RANK_CONTRACTS = ("TTL524", "TTL525")


def _layer_rank_after_squeeze(call: cst.Call, kinds: Any, value_of: Callable[[Any], Value]) -> Optional[FullBatchUse]:
    """``layer(x)`` (an nn layer or an ``nn.Sequential``) of a squeezed tensor of the batch that
    every batch but the one of a single sample gives it with the rank it accepts: on that batch
    ``x`` lost dim 0 and a layer checking its input's rank (batch norm, convolutions) raises."""
    if not call.args or call.args[0].keyword is not None or call.args[0].star:
        return None
    layer = value_of(call.func)
    kind = kinds(call.args[0].value)
    if not isinstance(layer, ModuleValue) or kind is None or not kind.squeezed or kind.many or kind.rank_last is None:
        return None
    squeeze = kind.squeeze  # x.squeeze() / torch.squeeze(x): what reaches the layer has its shape
    source = value_of(squeeze.func.value) if isinstance(squeeze.func, cst.Attribute) else None
    if not isinstance(source, TensorValue) and squeeze.args:
        source = value_of(squeeze.args[0].value)  # torch.squeeze(x)
    if not isinstance(source, TensorValue) or source.shape is None or \
            not all(isinstance(d, int) for d in source.shape[1:]):
        return None
    kept = tuple(d for d in source.shape[1:] if d != 1)
    if len(kept) != kind.rank_last:
        return None
    one = TensorValue(source.dtypes, kept, source.origin, source.device)  # the batch of one
    full = TensorValue(source.dtypes, (None,) + kept, source.origin, source.device)
    if _rank_failure(layer, full) is not None:
        return None  # wrong on every batch: another rule's
    failure = _rank_failure(layer, one)
    if failure is None or failure[0] not in _RANK_CONTRACTS:
        return None
    _, target, (_, expects, _) = failure
    label = layer_label(target)
    return FullBatchUse(call, kind.squeeze, f"squeeze-layer:{kind.rank_last}:nn.{label}:{expects}")


def _rank_failure(layer: ModuleValue, x: TensorValue) -> Optional[Any]:
    """(code, the layer, the mismatch) of the first contract ``x`` breaks along ``layer``."""
    if layer.short_name == "Sequential":
        found = chain_failure(layer, x)
        return None if found is None else (found[2][0], found[1], found[2])
    problem = layer_mismatch(layer, x.shape) if x.shape is not None else None
    return None if problem is None else (problem[0], layer, problem)


def _literal_int(node: Any) -> Optional[int]:
    if isinstance(node, cst.Integer):
        return int(node.value)
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus) and \
            isinstance(node.expression, cst.Integer):
        return -int(node.expression.value)
    return None
