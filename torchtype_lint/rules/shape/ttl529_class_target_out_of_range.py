"""TTL529 class-target-out-of-range: a class index the loss's input has no class for, certainly
among the targets (the whole tensor, or every batch of one pass over a DataLoader)."""
from __future__ import annotations

from typing import Any, Dict, Iterator, List, Optional, Tuple

import libcst as cst

from ...knowledge.ops import FUNCTION
from ...knowledge.data_pipeline import DataLoaderValue, TensorDatasetValue
from ...model.values import ArrayValue, InstanceValue, ModuleValue, Origin, TensorValue, Value, describe_shape, is_integral
from ..base import Rule, RuntimeClaim, register
from ..context import RuleContext
from ..dtype.losses import loss_call
from ..source_edits import code
from .known import _known, _shape
from .label_values import LabelValues, ancestors, integer, label_values

_CLASS_LOSSES = ("cross_entropy", "nll_loss")
#: ``torch.nn.functional.cross_entropy``'s (and nll_loss's) default ignore_index.
_DEFAULT_IGNORE = -100
#: DataLoader options that leave every item in each pass, once.
_EVERY_ITEM_OPTIONS = frozenset({"dataset", "batch_size", "shuffle", "num_workers", "pin_memory", "timeout",
                                 "worker_init_fn", "generator", "prefetch_factor", "persistent_workers",
                                 "pin_memory_device", "multiprocessing_context", "drop_last", "in_order"})
#: Methods of a batch that keep its values (moving it, casting it to another integer type).
_MOVES = frozenset({"to", "cuda", "cpu", "long", "int", "contiguous", "clone", "detach", "view", "reshape",
                    "flatten", "squeeze"})


@register
class ClassTargetOutOfRange(Rule):
    """
    ## What it does
    Flags `F.cross_entropy` / `F.nll_loss` (and `nn.CrossEntropyLoss` / `nn.NLLLoss`) whose
    input has `C` classes (dim 1, known) while the class-index targets certainly hold a value
    `>= C` (or a negative one other than `ignore_index`). The targets' values must be spelled
    by the code, not drawn from data: labels built with `torch.arange(n) % k`,
    `torch.tensor([...])`, `list(range(k))`, `[i % k for i in range(n)]`, `np.arange`,
    `torch.full(..., k)`, reaching the loss whole, or batch by batch through a
    `TensorDataset` (or a dataset class whose `__getitem__(self, i)` returns
    `self.labels[i]` for every row of `self.labels`) and a `DataLoader` whose every batch
    the loop hands to the loss (no `break`, no sampler, `drop_last` off: every label meets
    the loss in each pass). Random
    labels (`torch.randint`) have bounds but no certain value: never flagged.

    ## Why is this bad?
    A class index selects a column of the scores; one the input does not have fails with
    `IndexError: Target 17 is out of bounds.` (on CUDA: a device-side assert). The cause is
    almost always a class count configured apart from the data: a classifier head built for
    12 classes trained on 18 labels, or the last layer removed (a feature extractor) before
    training.

    ## Example
    ```python
    labels = torch.arange(32) % 18                      # 18 classes in the data
    model = nn.Linear(16, 12)                           # 12-way head
    for x, y in DataLoader(TensorDataset(feats, labels), batch_size=8):
        loss = F.cross_entropy(model(x), y)
    ```

    ## Use instead
    ```python
    model = nn.Linear(16, 18)                           # one score per label
    ```

    ## Fix safety
    No fix.
    """

    code = "TTL529"
    name = "class-target-out-of-range"
    summary = "cross_entropy/nll_loss class indices certainly hold a class the input has no score for"
    listens = (cst.Call, cst.For)
    # On CUDA the loss fails as a device-side assert instead: a failure, with another message.
    runtime = RuntimeClaim("IndexError", r"Target -?\d+ is out of bounds", pattern_devices=("cpu",))

    def visit(self, node: Any, ctx: RuleContext) -> None:
        if isinstance(node, cst.For):
            self._loop(node, ctx)
            return
        found = loss_call(ctx, node, _CLASS_LOSSES)
        if found is None:
            return
        _, shown, call = found
        target_node = call.arg_node("target")
        if target_node is None or _in_try(ctx, node):
            return
        classes = _classes(call.arg("input"), call.arg("target"), whole=True)
        if classes is None:
            return
        labels = label_values(target_node, ctx)
        if labels is None:
            return
        self._judge(node, ctx, call, shown, classes, labels, f"the target `{code(target_node, 40)}`", None)

    def _loop(self, loop: cst.For, ctx: RuleContext) -> None:
        loader, enumerated = _loader(loop.iter, ctx)
        if loader is None or loader.collated is not None or not isinstance(loader.item, Value):
            return
        positions = _batch_positions(loop.target, enumerated)
        if not positions:
            return
        dataset = _every_item_dataset(loader, ctx)
        if dataset is None:
            return
        if _leaves_early(loop.body):
            return
        for call_node, after_skip in _loss_calls(loop.body):
            if after_skip:
                return
            found = loss_call(ctx, call_node, _CLASS_LOSSES)
            if found is None:
                continue
            _, shown, call = found
            target_node = call.arg_node("target")
            position = _batch_name(target_node, positions, loop.body, call_node)
            if position is None:
                continue
            column = _dataset_column(dataset, loader, position, ctx)
            if column is None:
                continue
            classes = _classes(call.arg("input"), call.arg("target"), whole=False)
            if classes is None:
                continue
            labels = label_values(column, ctx)
            if labels is None:
                continue
            self._judge(call_node, ctx, call, shown, classes, labels,
                        f"the batches `{code(target_node, 30)}` of `{code(loop.iter, 40)}`", loop.iter)

    def _judge(self, node: Any, ctx: RuleContext, call: Any, shown: str, classes: Tuple[int, Tuple[Any, ...]],
               labels: LabelValues, what: str, loader: Any) -> None:
        count, shape = classes
        ignore = _ignore_index(call, ctx)
        if ignore is None:
            return
        bad = sorted(v for v in labels.values if (v >= count or v < 0) and v != ignore)
        if not bad:
            return
        spread = " in each pass over them" if loader is not None else ""
        quote = f"Target {bad[0]} is out of bounds" if len(bad) == 1 else "is out of bounds"
        self.report(node, f"`{shown}` gets scores for {count} classes (input of shape {describe_shape(shape)}), "
                          f"but {what} hold class {_spans(bad)}{spread}: they take every value of "
                          f"{_spans(sorted(labels.values))} ({{origin}}): torch raises IndexError (\"{quote}\"); "
                          f"size the classifier for every label, or remap the labels",
                    origin=Origin(labels.node, "every label value certainly present"))


def _spans(values: List[int]) -> str:
    """``[3, 4, 5, 9]`` -> ``3..5, 9`` (at most a few spans shown)."""
    spans: List[Tuple[int, int]] = []
    for v in values:
        if spans and v == spans[-1][1] + 1:
            spans[-1] = (spans[-1][0], v)
        else:
            spans.append((v, v))
    parts = [str(a) if a == b else f"{a}..{b}" for a, b in spans[:4]]
    return ", ".join(parts) + (", ..." if len(spans) > 4 else "")


def _classes(x: Value, y: Value, whole: bool) -> Optional[Tuple[int, Tuple[Any, ...]]]:
    """(C, the input's shape) when the input's class count is known and the target holds
    integer class indices of a rank that fits (one dim fewer; for batches of a 1-D column:
    an input (N, C))."""
    a, b = _shape(x), _shape(y)
    if a is None or b is None or not isinstance(y, TensorValue) or not y.dtypes \
            or not all(is_integral(d, include_bool=False) for d in y.dtypes):
        return None
    if not isinstance(x, TensorValue) or not x.dtypes or any(is_integral(d) for d in x.dtypes):
        return None
    if len(a) == 1:
        if len(b) != 0 or not whole:
            return None
        count = a[0]
    else:
        if len(b) != len(a) - 1 or (not whole and len(a) != 2):
            return None
        count = a[1]
    if not _known(count) or isinstance(count, bool) or count <= 0:
        return None
    return count, tuple(a)


def _ignore_index(call: Any, ctx: RuleContext) -> Optional[int]:
    """The ignore_index in force (-100 unless given); None when given and not known."""
    if call.spelling == FUNCTION or not isinstance(call.receiver, ModuleValue):
        node = call.arg_node("ignore_index")
        if node is None:
            return None if call.has_arg("ignore_index") else _DEFAULT_IGNORE
        return integer(node, ctx)
    origin = call.receiver.origin
    made = origin.node if origin is not None else None
    if not isinstance(made, cst.Call) or any(a.star for a in made.args):
        return None
    if sum(1 for a in made.args if a.keyword is None) > 2:
        return None  # (weight, size_average, ignore_index, ...) spelled by position
    for arg in made.args:
        if arg.keyword is not None and arg.keyword.value == "ignore_index":
            return integer(arg.value, ctx)
    return _DEFAULT_IGNORE


def _in_try(ctx: RuleContext, node: Any) -> bool:
    """Inside a ``try`` body (a handler may catch the IndexError)."""
    previous = node
    for up in ancestors(ctx, node):
        if isinstance(up, cst.Try) and previous is up.body:
            return True
        if isinstance(up, (cst.FunctionDef, cst.Lambda)):
            return False
        previous = up
    return False


def _loader(iterable: Any, ctx: RuleContext) -> Tuple[Optional[DataLoaderValue], bool]:
    """The loader a ``for`` iterates (directly, through ``enumerate`` or a progress bar)."""
    value = ctx.value(iterable)
    if isinstance(value, DataLoaderValue):
        return value, False
    if isinstance(iterable, cst.Call) and len(iterable.args) == 1 and iterable.args[0].keyword is None:
        inner = ctx.value(iterable.args[0].value)
        func = iterable.func
        name = func.value if isinstance(func, cst.Name) else (
            func.attr.value if isinstance(func, cst.Attribute) else "")
        if isinstance(inner, DataLoaderValue) and name in ("enumerate", "tqdm"):
            return inner, name == "enumerate"
    return None, False


def _batch_positions(target: Any, enumerated: bool) -> Dict[str, int]:
    """name -> the position of the batch tuple the loop target binds it to."""
    if enumerated:
        if not isinstance(target, (cst.Tuple, cst.List)) or len(target.elements) != 2:
            return {}
        target = target.elements[1].value
    if not isinstance(target, (cst.Tuple, cst.List)):
        return {}
    out: Dict[str, int] = {}
    for index, element in enumerate(target.elements):
        if isinstance(element, cst.StarredElement):
            return {}
        if isinstance(element.value, cst.Name):
            out[element.value.value] = index
    return out


def _every_item_dataset(loader: DataLoaderValue, ctx: RuleContext) -> Optional[Value]:
    """The dataset of a loader that yields each of its items once per pass (no sampler, no
    collate_fn, no drop_last, not a subset): a ``TensorDataset`` or an instance of the file's
    own dataset class."""
    made = loader.origin.node if loader.origin is not None else None
    if not isinstance(made, cst.Call) or any(a.star for a in made.args):
        return None
    positional = [a for a in made.args if a.keyword is None]
    if not positional or len(positional) > 3:
        return None
    for arg in made.args:
        if arg.keyword is not None:
            key = arg.keyword.value
            if key not in _EVERY_ITEM_OPTIONS:
                return None
            if key == "drop_last" and not (isinstance(arg.value, cst.Name) and arg.value.value == "False"):
                return None
    dataset = ctx.joined_value(positional[0].value)
    if isinstance(dataset, TensorDatasetValue) and dataset.origin is not None:
        return dataset
    if isinstance(dataset, InstanceValue) and isinstance(getattr(dataset.cls, "node", None), cst.ClassDef) \
            and loader.last_batch is not None and loader.last_batch.dataset_size is not None:
        return dataset
    return None


def _dataset_column(dataset: Value, loader: DataLoaderValue, position: int, ctx: RuleContext) -> Optional[Any]:
    """The expression whose values are the labels at ``position`` of the dataset's items, each
    item once per pass; None when not known."""
    if isinstance(dataset, TensorDatasetValue):
        built = dataset.origin.node if dataset.origin is not None else None
        if not isinstance(built, cst.Call) or any(a.star or a.keyword is not None for a in built.args):
            return None
        if position >= len(built.args):
            return None
        node = built.args[position].value
        value = ctx.joined_value(node)
        if not isinstance(value, TensorValue) or value.shape is None or len(value.shape) != 1:
            return None
        return node
    if isinstance(dataset, InstanceValue) and loader.last_batch is not None:
        return _item_labels(dataset, loader.last_batch.dataset_size, position, ctx)
    return None


def _methods(cls: cst.ClassDef) -> Dict[str, cst.FunctionDef]:
    out: Dict[str, cst.FunctionDef] = {}
    for statement in cls.body.body if isinstance(cls.body, cst.IndentedBlock) else ():
        if isinstance(statement, cst.FunctionDef):
            if statement.name.value in out:
                return {}
            out[statement.name.value] = statement
    return out


def _plain_body(function: cst.FunctionDef) -> List[Any]:
    """The function's statements, a docstring left out."""
    body = list(function.body.body) if isinstance(function.body, cst.IndentedBlock) else []
    if body and isinstance(body[0], cst.SimpleStatementLine) and len(body[0].body) == 1 \
            and isinstance(body[0].body[0], cst.Expr) and isinstance(body[0].body[0].value, cst.SimpleString):
        body = body[1:]
    return body


def _params(function: cst.FunctionDef) -> List[str]:
    return [p.name.value for p in function.params.params]


def _item_labels(dataset: InstanceValue, size: Optional[int], position: int, ctx: RuleContext) -> Optional[Any]:
    """A dataset class whose ``__getitem__(self, i)`` is ``return (..., self.labels[i], ...)``
    (perhaps through ``torch.tensor``/``torch.as_tensor``/``.long()``), ``self.labels`` bound once,
    in ``__init__``, to a 1-D tensor or array of as many rows as the loader's dataset has items
    (every row is an item of each pass): the expression the labels come from."""
    cls = dataset.cls.node
    methods = _methods(cls)
    getitem, init = methods.get("__getitem__"), methods.get("__init__")
    if getitem is None or init is None or len(_params(getitem)) != 2 \
            or isinstance(getitem.params.star_arg, cst.Param) or getitem.params.star_kwarg is not None:
        return None
    body = _plain_body(getitem)
    if len(body) != 1 or not isinstance(body[0], cst.SimpleStatementLine) or len(body[0].body) != 1 \
            or not isinstance(body[0].body[0], cst.Return):
        return None
    returned = body[0].body[0].value
    if not isinstance(returned, cst.Tuple) or position >= len(returned.elements) \
            or any(isinstance(e, cst.StarredElement) for e in returned.elements):
        return None
    self_name, index_name = _params(getitem)
    element = returned.elements[position].value
    element = _unwrapped(element, ctx)
    if not (isinstance(element, cst.Subscript) and len(element.slice) == 1
            and isinstance(element.slice[0].slice, cst.Index)
            and isinstance(element.slice[0].slice.value, cst.Name) and element.slice[0].slice.value.value == index_name
            and isinstance(element.value, cst.Attribute) and isinstance(element.value.value, cst.Name)
            and element.value.value.value == self_name):
        return None
    attr = element.value.attr.value
    rows = dataset.attrs.get(attr)
    if not isinstance(rows, (TensorValue, ArrayValue)) or rows.shape is None or len(rows.shape) != 1 \
            or not _known(rows.shape[0]) or rows.shape[0] != size:
        return None
    bound = _attribute_binding(ctx, cls, init, attr)
    if bound is None:
        return None
    init_params = _params(init)
    if isinstance(bound, cst.Name) and bound.value in init_params[1:] \
            and label_values_binding_free(init, bound.value):
        made = dataset.origin.node if dataset.origin is not None else None
        return _argument(made, init_params[1:], bound.value)
    return bound


def label_values_binding_free(function: cst.FunctionDef, name: str) -> bool:
    """``name`` (a parameter) is never rebound in the function."""
    for node in _walk(function.body):
        if isinstance(node, (cst.AssignTarget, cst.AugAssign, cst.AnnAssign, cst.For, cst.NamedExpr)) \
                and _binds(node.target, name):
            return False
    return True


def _argument(call: Any, params: List[str], name: str) -> Optional[Any]:
    """The argument ``call`` passes for parameter ``name`` (none from a default)."""
    if not isinstance(call, cst.Call) or any(a.star for a in call.args):
        return None
    index = params.index(name)
    for i, arg in enumerate(a for a in call.args if a.keyword is None):
        if i == index:
            return arg.value
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value == name:
            return arg.value
    return None


def _unwrapped(node: Any, ctx: RuleContext) -> Any:
    """``torch.tensor(e)``, ``torch.as_tensor(e, dtype=...)``, ``e.long()``...: ``e``."""
    while isinstance(node, cst.Call):
        func = node.func
        if isinstance(func, cst.Attribute) and func.attr.value in _MOVES and not node.args:
            node = func.value
            continue
        callee = ctx.callee(node)
        positional = [a for a in node.args if a.keyword is None]
        if callee is not None and callee.kind == "symbol" and callee.name in (
                "torch.tensor", "torch.as_tensor", "torch.from_numpy", "torch.LongTensor") \
                and len(positional) == 1 and not any(a.star for a in node.args) \
                and all(a.keyword is None or a.keyword.value in ("dtype", "device") for a in node.args):
            node = positional[0].value
            continue
        return node
    return node


def _attribute_binding(ctx: RuleContext, cls: cst.ClassDef, init: cst.FunctionDef, attr: str) -> Optional[Any]:
    """The expression of the one ``self.<attr> = expr`` at the top level of ``__init__``, when
    nothing else in the file assigns ``.<attr>`` or changes it in place."""
    found = None
    for node in _walk(ctx.module):
        if isinstance(node, (cst.AssignTarget, cst.AugAssign, cst.AnnAssign)):
            target = node.target
            if isinstance(target, (cst.Tuple, cst.List)):
                if any(isinstance(e.value, cst.Attribute) and e.value.attr.value == attr for e in target.elements):
                    return None
            base = target
            while isinstance(base, cst.Subscript):
                base = base.value
            if isinstance(base, cst.Attribute) and base.attr.value == attr:
                if base is not target or not isinstance(node, cst.AssignTarget) or found is not None:
                    return None
                found = node
        elif isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) \
                and isinstance(node.func.value, cst.Attribute) and node.func.value.attr.value == attr \
                and node.func.attr.value.endswith("_") and not node.func.attr.value.endswith("__"):
            return None
    if found is None:
        return None
    self_name = _params(init)[0] if _params(init) else None
    for statement in _plain_body(init):
        if isinstance(statement, cst.SimpleStatementLine) and len(statement.body) == 1 \
                and isinstance(statement.body[0], cst.Assign) and len(statement.body[0].targets) == 1 \
                and statement.body[0].targets[0] is found:
            target = found.target
            if isinstance(target.value, cst.Name) and target.value.value == self_name:
                return statement.body[0].value
    return None


def _statements(body: Any) -> Iterator[Any]:
    """The statements that run on every pass of the loop, in order: its top-level statements
    and those of ``with`` blocks (a try, an if, a nested loop: not every pass)."""
    for statement in body.body:
        if isinstance(statement, cst.With):
            yield from _statements(statement.body)
        else:
            yield statement


def _jumps(node: Any, loop_level: bool = True) -> Iterator[Any]:
    """break/continue that leave this loop's pass, return/raise anywhere (not in nested functions)."""
    stack = [(node, loop_level)]
    while stack:
        current, level = stack.pop()
        if isinstance(current, (cst.FunctionDef, cst.ClassDef, cst.Lambda)):
            continue
        if isinstance(current, (cst.Return, cst.Raise)):
            yield current
        elif isinstance(current, (cst.Break, cst.Continue)) and level:
            yield current
        inner = level and not isinstance(current, (cst.For, cst.While))
        stack.extend((child, inner) for child in current.children)


def _leaves_early(body: Any) -> bool:
    """A ``break``, ``return`` or ``raise`` anywhere in the loop: some batches may never come."""
    return any(not isinstance(j, cst.Continue) for j in _jumps(body))


def _loss_calls(body: Any) -> Iterator[Tuple[cst.Call, bool]]:
    """(call, whether a ``continue`` may skip it) for each call of an every-pass statement."""
    skipped = False
    for statement in _statements(body):
        if isinstance(statement, cst.SimpleStatementLine):
            for small in statement.body:
                for sub in _calls_in(small):
                    yield sub, skipped
        if any(True for _ in _jumps(statement)):
            skipped = True


def _calls_in(node: Any) -> Iterator[cst.Call]:
    stack = [node]
    while stack:
        current = stack.pop()
        if isinstance(current, (cst.Lambda,)):
            continue
        if isinstance(current, cst.Call):
            yield current
        stack.extend(current.children)


def _batch_name(target: Any, positions: Dict[str, int], body: Any, call: cst.Call) -> Optional[int]:
    """The batch position the loss's target is, read straight from the loop target (perhaps
    moved to a device: ``y.to(device)``) and not bound again in the loop body."""
    while isinstance(target, cst.Call) and isinstance(target.func, cst.Attribute) \
            and target.func.attr.value in _MOVES:
        target = target.func.value
    if not isinstance(target, cst.Name) or target.value not in positions:
        return None
    name = target.value
    for node in _walk(body):
        if isinstance(node, cst.Assign) and any(_binds(t.target, name) for t in node.targets):
            if len(node.targets) == 1 and _assigns_a_move(node.targets[0].target, node.value, name):
                continue  # y = y.to(device); x, y = x.to(device), y.to(device)
            return None
        if isinstance(node, (cst.AugAssign, cst.AnnAssign, cst.For, cst.NamedExpr)) and _binds(node.target, name):
            return None
        if isinstance(node, cst.AsName) and _binds(node.name, name):
            return None
        if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) \
                and isinstance(node.func.value, cst.Name) and node.func.value.value == name \
                and node.func.attr.value.endswith("_") and not node.func.attr.value.endswith("__"):
            return None  # changed in place
        if isinstance(node, (cst.AssignTarget, cst.AugAssign)) and isinstance(node.target, cst.Subscript):
            return None
    return positions[name]


def _assigns_a_move(target: Any, value: Any, name: str) -> bool:
    if isinstance(target, cst.Name):
        return _is_move_of(value, name)
    if isinstance(target, (cst.Tuple, cst.List)) and isinstance(value, (cst.Tuple, cst.List)) \
            and len(target.elements) == len(value.elements):
        for t, v in zip(target.elements, value.elements):
            if isinstance(t, cst.StarredElement) or isinstance(v, cst.StarredElement):
                return False
            if _binds(t.value, name):
                return _assigns_a_move(t.value, v.value, name)
    return False


def _is_move_of(value: Any, name: str) -> bool:
    """``name.to(device)`` / ``name.long()``...: the same batch, moved or cast."""
    moved = False
    while isinstance(value, cst.Call) and isinstance(value.func, cst.Attribute) and value.func.attr.value in _MOVES:
        value, moved = value.func.value, True
    return moved and isinstance(value, cst.Name) and value.value == name


def _binds(target: Any, name: str) -> bool:
    if isinstance(target, cst.Name):
        return target.value == name
    if isinstance(target, (cst.Tuple, cst.List)):
        return any(_binds(e.value, name) for e in target.elements)
    if isinstance(target, cst.StarredElement):
        return _binds(target.value, name)
    return False


def _walk(node: Any) -> Iterator[Any]:
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        stack.extend(current.children)
