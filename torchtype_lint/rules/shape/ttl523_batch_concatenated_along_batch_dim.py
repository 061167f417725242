"""TTL523 batch-concatenated-along-batch-dim: tensors of one batch joined with ``torch.cat``
along dim 0 (the default) reach a loss whose target holds one row per sample."""
from __future__ import annotations

from typing import Any, Callable, Optional, Set

import libcst as cst

from ...knowledge.data_pipeline import DataLoaderValue, batch
from ...model.values import SequenceValue, TensorValue
from ..base import Rule, RuntimeClaim, register
from ..context import RuleContext
from ..dtype.losses import loss_call
from ..source_edits import code
from .batch_rows import MANY, RowsScan, loop_seeds
from .loader_loops import (
    SyntaxCache, batch_names, derived_names, mentions, small_statements, using, walk, walk_children,
)
from .ttl522_last_batch_size_assumed import _called_function, _loader

#: Losses that pair input and target row by row.
_PAIRED_LOSSES = ("cross_entropy", "nll_loss", "mse_loss", "l1_loss", "smooth_l1_loss", "huber_loss",
                  "binary_cross_entropy", "binary_cross_entropy_with_logits")
#: Calls after which a tensor no longer has the concatenated rows (split, reduced, reshaped).
_ROW_CHANGING = ("chunk", "split", "view", "reshape", "mean", "sum", "max", "min", "unflatten", "index_select",
                 "narrow", "gather")
#: Names of torch's concatenation.
_CATS = ("cat", "concat", "concatenate")


@register
class BatchConcatenatedAlongBatchDim(Rule):
    """
    ## What it does
    Flags, in a loop over a `DataLoader` (or over a name that says it is one, `train_loader`),
    `torch.cat([a, b])` of two or more tensors of the
    same batch along dim 0 (the default), in the loop or in the `forward` it calls, or
    `torch.cat(crops)` of a list of two or more tensors that each hold the batch's rows (crops a
    helper of the file returns, `[images[..., :s, :s], ...]`), whose result reaches a loss whose
    target is the batch's own (one row per sample).

    ## Why is this bad?
    `torch.cat` joins along dim 0 unless told otherwise: two `(B, F)` inputs give `(2B, F)`,
    twice the batch, where `(B, 2F)` (`dim=1`) was meant. The model then returns 2B rows for
    B targets: `ValueError: Expected input batch_size (64) to match target batch_size (32)`.

    ## Example
    ```python
    def forward(self, image_feats, text_feats):
        return self.head(torch.cat([image_feats, text_feats]))
    ```

    ## Use instead
    ```python
    def forward(self, image_feats, text_feats):
        return self.head(torch.cat([image_feats, text_feats], dim=1))
    ```
    """

    code = "TTL523"
    name = "batch-concatenated-along-batch-dim"
    summary = "tensors of one batch concatenated along dim 0, then scored against one target per sample"
    severity = "error"
    listens = (cst.For,)
    runtime = RuntimeClaim("Exception", r"to match target batch_size|must match the size of tensor b|"
                                        r"Using a target size|must be the same as input size")

    def visit(self, node: cst.For, ctx: RuleContext) -> None:
        loader, enumerated = _loader(node.iter, ctx)
        if not isinstance(loader, DataLoaderValue):
            named = _named_loader(node.iter)
            if named is None:
                return
            enumerated = named
        with using(ctx.state(SyntaxCache)):  # shared with TTL522's scans
            self._judge(node, enumerated, ctx)

    def _judge(self, node: cst.For, enumerated: bool, ctx: RuleContext) -> None:
        seeds = batch_names(node.target, enumerated)
        names = derived_names(node.body, seeds) if seeds else set()
        if not names:
            return
        listed = _lists_of_rows(node, enumerated, ctx)
        joined = _joined_rows(node.body, names, ctx, listed)
        for small in small_statements(node.body):
            for call in (sub for sub in walk(small) if isinstance(sub, cst.Call)):
                found = loss_call(ctx, call, _PAIRED_LOSSES)
                if found is None:
                    continue
                input_node, target_node = found[2].arg_node("input"), found[2].arg_node("target")
                if input_node is None or target_node is None or not _per_sample(target_node, seeds, node.body):
                    continue  # the target is not the loader's own labels, one row per sample
                cat = _rows_joined(input_node, names, joined, ctx, listed=listed)
                if cat is not None:
                    along = "along dim 0" + (" (torch.cat's default)" if len(cat.args) == 1 else "")
                    fix = ("concatenate the features with `dim=1` (or `dim=-1`)"
                           if isinstance(cat.args[0].value, (cst.List, cst.Tuple)) else
                           "fold the rows back per sample first (`.view(n, batch, -1).mean(0)`)")
                    self.report(call, f"`{code(cat, 50)}` joins tensors of one batch {along}, so "
                                      f"`{code(input_node, 30)}` holds their rows one after the other "
                                      f"while the target `{code(target_node, 30)}` holds one row per sample; {fix}")
                    return


def _named_loader(iterable: Any) -> Optional[bool]:
    """Whether the loop is ``enumerate``d when it iterates a name that says it is a loader
    (``train_loader``, ``self.loader``: the batches do not depend on what the engine knows of
    it), else None."""
    enumerated = False
    if isinstance(iterable, cst.Call) and iterable.args and isinstance(iterable.func, cst.Name) and \
            iterable.func.value in ("enumerate", "tqdm", "iter"):
        enumerated = iterable.func.value == "enumerate"
        iterable = iterable.args[0].value
    name = iterable.attr.value if isinstance(iterable, cst.Attribute) else getattr(iterable, "value", None)
    return enumerated if isinstance(name, str) and "loader" in name.lower() else None


#: A body with no statements (a rebinding's value is judged on its own).
_EMPTY_BODY = cst.IndentedBlock(body=[])
#: Conversions that keep a tensor's rows (``y.to(device)``, ``y.long()``).
_ROW_KEEPING = ("to", "long", "float", "cuda", "cpu", "int", "double", "half")


def _per_sample(node: Any, seeds: Set[str], body: Any) -> bool:
    """Is ``node`` one of the loop's own batch names (``y``, ``y.to(device)``, ``labels.long()``),
    never rebound in the body to anything but such a conversion of itself?"""
    while isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and \
            node.func.attr.value in _ROW_KEEPING:
        node = node.func.value
    if not (isinstance(node, cst.Name) and node.value in seeds):
        return False
    for small in small_statements(body):
        if isinstance(small, (cst.Assign, cst.AugAssign, cst.AnnAssign)):
            targets = [t.target for t in small.targets] if isinstance(small, cst.Assign) else [small.target]
            if any(isinstance(t, cst.Name) and t.value == node.value for t in targets):
                value = getattr(small, "value", None)
                if not (isinstance(small, cst.Assign) and _per_sample(value, {node.value}, _EMPTY_BODY)):
                    return False  # y = y.repeat(2), y = torch.cat([y, y]): not one row per sample any more
    return True


def _concatenation(node: Any, names: Set[str], listed: Callable[[Any], bool] = lambda parts: False) -> Optional[cst.Call]:
    """A ``torch.cat([a, b, ...])`` along dim 0 in ``node`` whose two or more parts all belong
    to the batch (``names``), or ``torch.cat(parts)`` of a list ``listed`` says holds two or more
    tensors of the batch's rows (``crops = five_crop(images)``), else None."""
    for sub in walk(node):
        if not (isinstance(sub, cst.Call) and isinstance(sub.func, cst.Attribute) and sub.func.attr.value in _CATS
                and isinstance(sub.func.value, cst.Name) and sub.func.value.value == "torch" and sub.args):
            continue
        parts = sub.args[0].value
        dims = [a.value for a in sub.args[1:] if a.keyword is None or a.keyword.value in ("dim", "axis")]
        if dims and not (isinstance(dims[0], cst.Integer) and dims[0].value == "0"):
            continue  # joined along another dim: the batch keeps its size
        if sub.args[0].keyword is None and not sub.args[0].star and listed(parts):
            return sub
        if not isinstance(parts, (cst.List, cst.Tuple)) or len(parts.elements) < 2 or \
                any(isinstance(e, cst.StarredElement) for e in parts.elements):
            continue
        if all(mentions(e.value, names) for e in parts.elements):
            return sub
    return None


def _lists_of_rows(loop: cst.For, enumerated: bool, ctx: RuleContext) -> Callable[[Any], bool]:
    """Which names of the loop body hold a list of two or more tensors each with one row per
    sample of the batch (``crops = five_crop(images)``, ``views`` of a batch of views)."""
    loader, _ = _loader(loop.iter, ctx)
    if not isinstance(loader, DataLoaderValue) or loader.collated is not None:
        return lambda parts: False
    seeds = loop_seeds(loop.target, enumerated, batch(loader))
    if not seeds:
        return lambda parts: False
    scan = RowsScan(ctx.value, lambda call, kinds, depth: None)
    known: list = []  # what the body's names hold, scanned at the first concatenation asked about

    def listed(parts: Any) -> bool:
        if not known:
            known.append(scan.scan(loop.body, seeds))
        if scan.kind(parts, known[0]) != MANY:
            return False
        value = ctx.value(parts)
        return isinstance(value, SequenceValue) and value.container in ("list", "tuple") and \
            value.items is not None and len(value.items) >= 2 and all(isinstance(i, TensorValue) for i in value.items)
    return listed


def _row_changing(node: Any, inside: Optional[cst.Call] = None) -> bool:
    """Does the expression slice, split, reshape or reduce what it holds (not counting what
    happens inside the concatenation ``inside``: ``torch.cat([e[0], e[1]])`` joins rows)?"""
    stack = [node]
    while stack:
        sub = stack.pop()
        if sub is inside:
            continue
        if isinstance(sub, cst.Subscript):
            return True
        if isinstance(sub, cst.Call) and isinstance(sub.func, cst.Attribute) and sub.func.attr.value in _ROW_CHANGING:
            return True
        stack.extend(walk_children(sub))
    return False


def _joined_rows(body: Any, names: Set[str], ctx: RuleContext,
                 listed: Callable[[Any], bool] = lambda parts: False) -> dict:
    """Names the body binds to rows joined by a concatenation along dim 0 (name -> the cat)."""
    joined: dict = {}
    for small in small_statements(body):
        if not (isinstance(small, cst.Assign) and len(small.targets) == 1
                and isinstance(small.targets[0].target, cst.Name)):
            continue
        name = small.targets[0].target.value
        cat = _rows_joined(small.value, names, joined, ctx, listed=listed)
        if cat is not None:
            joined[name] = cat
        else:
            joined.pop(name, None)  # rebound to something else
    return joined


def _rows_joined(node: Any, names: Set[str], joined: dict, ctx: RuleContext, depth: int = 0,
                 listed: Callable[[Any], bool] = lambda parts: False) -> Optional[cst.Call]:
    """The concatenation whose joined rows ``node`` still holds, or None."""
    cat = _concatenation(node, names, listed)
    if cat is not None:
        return None if _row_changing(node, cat) else cat
    if _row_changing(node):
        return None
    for name, found in joined.items():
        if mentions(node, {name}):
            return found
    if depth > 0:
        return None
    for call in (sub for sub in walk(node) if isinstance(sub, cst.Call)):
        function, skip = _called_function(ctx.value(call.func))
        if function is None:
            continue
        params = [p.name.value for p in function.node.params.params][skip:]
        seeds = {param for param, arg in zip(params, call.args)
                 if arg.keyword is None and not arg.star and mentions(arg.value, names)}
        if not seeds:
            continue
        inner = derived_names(function.node.body, seeds)
        inner_joined = _joined_rows(function.node.body, inner, ctx)
        returns = [sub.value for sub in walk(function.node.body) if isinstance(sub, cst.Return) and sub.value]
        if len(returns) == 1:
            found = _rows_joined(returns[0], inner, inner_joined, ctx, depth + 1)
            if found is not None:
                return found  # the forward the loop calls joins the batch's tensors
    return None
