"""Which expressions hold one row per sample of a DataLoader's batch.

A tensor of a loader's batch holds the batch's samples along dim 0. Most of what a model does
keeps that: layers, activations, elementwise arithmetic, ``x[:, i]``, ``x.permute(0, 2, 1)``,
``torch.cat([a, b], dim=1)``, a helper or a ``forward`` of the file returning such a tensor.
Some of it does not: ``x.view(-1, d)``, ``x.T``, ``x.sum(0)``, ``x[0]``, ``torch.cat([a, b])``.
On the loader's last batch, which holds ``N % B`` samples, the rows follow, so code that is
right for ``B`` rows may be wrong for that batch: a batch-norm layer given one row, a bare
``.squeeze()`` that drops the batch dimension of a batch of one.

This module decides, syntactically with the engine's values, which names of a loop body and of
the functions it calls with the batch hold such rows (``Rows``), and visits every call they
reach (``RowsScan``). Unknown means no: an expression it cannot follow holds no rows.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Callable, Dict, Iterator, List, Optional, Set, Tuple

import libcst as cst

from ...model.values import (
    TOP, FunctionValue, InstanceValue, ModuleValue, ScalarValue, SequenceValue, SymbolValue, TensorValue, Value,
)
from .loader_loops import small_statements, walk, walk_children


@dataclass(frozen=True)
class Rows:
    """What an expression holds of the batch: a tensor whose dim 0 is the batch's samples, or
    (``many``) a list or tuple of such tensors (a batch's fields, crops, per-filter maps).
    ``squeeze``: the bare ``.squeeze()`` whose result it is, which on a batch of one drops
    dim 0 too (``rank_last`` dims then, ``rank_last + 1`` on every larger batch)."""

    many: bool = False
    squeeze: Any = None
    rank_last: Optional[int] = None
    #: The dims of size 1 the squeeze was meant for (the batch's own dim 0 aside).
    ones: Tuple[int, ...] = ()

    @property
    def squeezed(self) -> bool:
        return self.squeeze is not None


ROWS = Rows()
MANY = Rows(many=True)

#: Tensor methods that keep every dim (dtype and device conversions, elementwise maths).
_KEEP_METHODS = frozenset({
    "to", "float", "double", "half", "bfloat16", "long", "int", "short", "bool", "byte", "cuda", "cpu",
    "contiguous", "clone", "detach", "requires_grad_", "type", "type_as", "relu", "sigmoid", "tanh", "exp",
    "log", "abs", "sqrt", "rsqrt", "neg", "pow", "clamp", "clamp_min", "clamp_max", "clip", "add", "sub",
    "mul", "div", "masked_fill", "softmax", "log_softmax", "sign", "round", "floor", "ceil", "square",
    "expand_as", "add_", "sub_", "mul_", "div_", "relu_", "sigmoid_", "tanh_", "clamp_", "float_power",
    "nan_to_num", "pin_memory",
})
#: Of those, the ones that carry a squeezed tensor's shape unchanged (no dim argument, no
#: second tensor to broadcast with).
_SQUEEZE_KEEP_METHODS = frozenset({
    "to", "float", "double", "half", "bfloat16", "long", "int", "short", "bool", "byte", "cuda", "cpu",
    "contiguous", "clone", "detach", "requires_grad_", "type", "type_as", "relu", "sigmoid", "tanh", "exp",
    "log", "abs", "sqrt", "rsqrt", "neg", "sign", "round", "floor", "ceil", "square", "relu_", "sigmoid_",
    "tanh_", "nan_to_num", "pin_memory",
})
#: ``torch.<name>`` / ``torch.nn.functional.<name>`` functions that keep dim 0 of their first
#: argument (elementwise maths, activations, pools, convolutions, dropout, normalisation).
_KEEP_FUNCTIONS = frozenset({
    "relu", "relu6", "sigmoid", "tanh", "gelu", "silu", "elu", "selu", "celu", "leaky_relu", "softplus",
    "mish", "hardswish", "hardtanh", "logsigmoid", "softmax", "log_softmax", "dropout", "dropout1d",
    "dropout2d", "dropout3d", "alpha_dropout", "normalize", "layer_norm", "group_norm", "instance_norm",
    "max_pool1d", "max_pool2d", "max_pool3d", "avg_pool1d", "avg_pool2d", "avg_pool3d",
    "adaptive_avg_pool1d", "adaptive_avg_pool2d", "adaptive_avg_pool3d", "adaptive_max_pool1d",
    "adaptive_max_pool2d", "adaptive_max_pool3d", "conv1d", "conv2d", "conv3d", "linear", "exp", "log",
    "abs", "sqrt", "clamp", "clip", "pow", "square", "neg", "sign",
})
#: Of those, the ones that keep a squeezed tensor's shape (no dim argument, no window).
_SQUEEZE_KEEP_FUNCTIONS = frozenset({
    "relu", "relu6", "sigmoid", "tanh", "gelu", "silu", "elu", "selu", "celu", "leaky_relu", "softplus",
    "mish", "hardswish", "hardtanh", "logsigmoid", "dropout", "alpha_dropout", "exp", "log", "abs", "sqrt",
    "clamp", "clip", "pow", "square", "neg", "sign",
})
_TORCH_PREFIXES = ("torch.nn.functional.", "torch.")
#: Library layers whose output's dim 0 is not their input's.
_ROW_CHANGING_LAYERS = frozenset({"EmbeddingBag", "Unflatten", "Fold", "MultiheadAttention"})
#: Layers that keep a squeezed input's shape (elementwise).
_ELEMENTWISE_LAYERS = frozenset({
    "ReLU", "ReLU6", "LeakyReLU", "GELU", "SiLU", "ELU", "Tanh", "Sigmoid", "Dropout", "Identity", "Hardswish",
    "Mish", "Softplus", "PReLU", "SELU", "CELU", "Softsign", "Hardtanh", "Hardsigmoid", "LogSigmoid",
})
#: How many functions deep a scan follows the batch (loop body -> forward -> helper -> ...).
MAX_DEPTH = 3

ValueOf = Callable[[Any], Value]
#: ``on_call(call, kinds, depth)``: a call the batch's rows reach; ``kinds(expr)`` says what an
#: expression there holds.
OnCall = Callable[[cst.Call, Callable[[Any], Optional[Rows]], int], None]


def loop_seeds(target: Any, enumerated: bool, batch: Value) -> Dict[str, Rows]:
    """What the names a loader loop's target binds hold (``for x, y in loader``: two tensors of
    rows; ``for batch in loader``: a list of fields, each of rows; ``enumerate``'s counter none)."""
    if enumerated:
        if not isinstance(target, (cst.Tuple, cst.List)) or len(target.elements) != 2:
            return {}
        target = target.elements[1].value
    seeds: Dict[str, Rows] = {}
    _bind(target, batch, seeds)
    return seeds


def _bind(target: Any, value: Value, seeds: Dict[str, Rows]) -> None:
    if isinstance(target, cst.Name):
        kind = _kind_of_value(value)
        if kind is not None:
            seeds[target.value] = kind
        return
    if isinstance(target, (cst.Tuple, cst.List)) and isinstance(value, SequenceValue) and \
            value.items is not None and len(value.items) == len(target.elements) and \
            not any(isinstance(e, cst.StarredElement) for e in target.elements):
        for element, item in zip(target.elements, value.items):
            _bind(element.value, item, seeds)


def _kind_of_value(value: Value) -> Optional[Rows]:
    if isinstance(value, TensorValue) and (value.shape is None or len(value.shape) >= 1):
        return ROWS
    if isinstance(value, SequenceValue) and value.container in ("list", "tuple", "dict"):
        return MANY
    return None


class RowsScan:
    """Follows the batch's rows from a loop body into the functions it calls with them and
    calls ``on_call`` for every call they reach. ``value_of`` gives a node's value (joined over
    the contexts a function was analysed in: a size must hold in every one)."""

    def __init__(self, value_of: ValueOf, on_call: OnCall, callee_of: Optional[ValueOf] = None):
        self.value_of = value_of
        self.on_call = on_call
        #: What a call's callee is (a layer, a function of the file): its value where known in
        #: every context, else in the latest one (``for conv in self.convs``: a different
        #: ``nn.Conv1d`` each time, whose values do not join).
        self.callee_of = callee_of or value_of
        self._scanned: Set[Tuple[int, Tuple[Tuple[str, Rows], ...]]] = set()
        self._returns: Dict[Tuple[int, Tuple[Tuple[str, Rows], ...]], Optional[Rows]] = {}

    # ------------------------------------------------------------------ scanning bodies

    def scan(self, body: Any, seeds: Dict[str, Rows], depth: int = 0) -> Dict[str, Rows]:
        """Visit the calls of ``body`` (statements in order) with what each name holds there;
        return what the names hold at its end."""
        known = dict(seeds)
        for small in small_statements(body):
            self._visit_calls(small, known, depth)
            self._assign(small, known, depth)
        return known

    def _assign(self, small: Any, known: Dict[str, Rows], depth: int) -> None:
        if isinstance(small, cst.Assign):
            kind = self.kind(small.value, known, depth)
            for target in small.targets:
                self._bind_target(target.target, small.value, kind, known)
        elif isinstance(small, cst.AnnAssign) and small.value is not None:
            self._bind_target(small.target, small.value, self.kind(small.value, known, depth), known)
        elif isinstance(small, cst.AugAssign) and isinstance(small.target, cst.Name):
            known.pop(small.target.value, None)

    def _bind_target(self, target: Any, value: Any, kind: Optional[Rows], known: Dict[str, Rows]) -> None:
        if isinstance(target, cst.Name):
            if kind is not None:
                known[target.value] = kind
            else:
                known.pop(target.value, None)
            return
        names = [sub.value for sub in walk(target) if isinstance(sub, cst.Name)]
        if isinstance(target, (cst.Tuple, cst.List)) and kind is not None and kind.many and not kind.squeezed \
                and all(isinstance(e.value, cst.Name) for e in target.elements):
            for name in names:  # x, y = batch: each field holds the rows
                known[name] = ROWS
            return
        if isinstance(target, (cst.Tuple, cst.List)):
            for name in names:
                known.pop(name, None)

    def _visit_calls(self, node: Any, known: Dict[str, Rows], depth: int) -> None:
        """Every call in ``node`` (a statement), inner ones first, comprehension variables bound."""
        if isinstance(node, (cst.FunctionDef, cst.ClassDef, cst.Lambda)):
            return
        if isinstance(node, (cst.ListComp, cst.GeneratorExp, cst.SetComp)):
            inner = self._comprehension_scope(node, known, depth)
            for for_in in _for_ins(node):
                self._visit_calls(for_in.iter, known if for_in is node.for_in else inner, depth)
            self._visit_calls(node.elt, inner, depth)
            return
        for child in walk_children(node):
            self._visit_calls(child, known, depth)
        if isinstance(node, cst.Call):
            self.on_call(node, lambda expr, k=known: self.kind(expr, k, depth), depth)
            self._enter(node, known, depth)

    def _enter(self, call: cst.Call, known: Dict[str, Rows], depth: int) -> None:
        """Scan the function of the file ``call`` runs when it is given the batch's rows."""
        if depth + 1 > MAX_DEPTH:
            return
        found = self._function_seeds(call, known, depth)
        if found is None:
            return
        function, seeds = found
        key = (id(function.node), tuple(sorted(seeds.items(), key=lambda kv: kv[0])))
        if key in self._scanned:
            return
        self._scanned.add(key)
        self.scan(function.node.body, seeds, depth + 1)

    def _function_seeds(self, call: cst.Call, known: Dict[str, Rows],
                        depth: int) -> Optional[Tuple[FunctionValue, Dict[str, Rows]]]:
        function, skip = called_function(self.callee(call.func))
        if function is None:
            return None
        params = [p.name.value for p in function.node.params.params][skip:]
        seeds: Dict[str, Rows] = {}
        for param, arg in zip(params, call.args):
            if arg.keyword is not None or arg.star:
                break
            kind = self.kind(arg.value, known, depth)
            if kind is not None:
                seeds[param] = kind
        for arg in call.args:
            if arg.keyword is not None and not arg.star:
                kind = self.kind(arg.value, known, depth)
                if kind is not None and arg.keyword.value in params:
                    seeds[arg.keyword.value] = kind
        return (function, seeds) if seeds else None

    def callee(self, func: Any) -> Value:
        value = self.value_of(func)
        return value if value is not TOP else self.callee_of(func)

    # ------------------------------------------------------------------ what an expression holds

    def kind(self, node: Any, known: Dict[str, Rows], depth: int = 0) -> Optional[Rows]:
        """What ``node`` holds of the batch (None: no rows, or not known to)."""
        if isinstance(node, cst.Name):
            return known.get(node.value)
        if isinstance(node, cst.Subscript):
            return self._subscript(node, known, depth)
        if isinstance(node, cst.Attribute):
            base = self.kind(node.value, known, depth)
            return base if base is not None and not base.many and node.attr.value == "data" else None
        if isinstance(node, cst.Call):
            return self._call(node, known, depth)
        if isinstance(node, cst.BinaryOperation):
            return self._binary(node, known, depth)
        if isinstance(node, cst.UnaryOperation):
            return self.kind(node.expression, known, depth)
        if isinstance(node, (cst.List, cst.Tuple)):
            kinds = [self.kind(e.value, known, depth) if not isinstance(e, cst.StarredElement) else None
                     for e in node.elements]
            if kinds and all(k is not None and not k.many for k in kinds):
                squeezed = [k for k in kinds if k is not None and k.squeezed]
                if squeezed and len(squeezed) == len(kinds) and len({k.rank_last for k in squeezed}) == 1:
                    return replace(squeezed[0], many=True)
                return MANY if not squeezed else None
            return None
        if isinstance(node, (cst.ListComp, cst.GeneratorExp)):
            inner = self._comprehension_scope(node, known, depth)
            element = self.kind(node.elt, inner, depth)
            return replace(element, many=True) if element is not None and not element.many else None
        if isinstance(node, cst.IfExp):
            body, orelse = self.kind(node.body, known, depth), self.kind(node.orelse, known, depth)
            return body if body == orelse else None
        return None

    def _comprehension_scope(self, node: Any, known: Dict[str, Rows], depth: int) -> Dict[str, Rows]:
        """``known`` with the comprehension's variables bound (``for conv in conved``: each
        element of a list of rows; ``for i, emb in enumerate(self.embeds)``: none)."""
        inner = dict(known)
        for for_in in _for_ins(node):
            iterable = self.kind(for_in.iter, inner, depth) if for_in is not node.for_in else \
                self.kind(for_in.iter, known, depth)
            element = replace(iterable, many=False) if iterable is not None and iterable.many else None
            target = for_in.target
            if isinstance(for_in.iter, cst.Call) and isinstance(for_in.iter.func, cst.Name) and \
                    for_in.iter.func.value == "enumerate" and len(for_in.iter.args) == 1 and \
                    isinstance(target, cst.Tuple) and len(target.elements) == 2:
                listed = self.kind(for_in.iter.args[0].value, inner, depth)
                element = replace(listed, many=False) if listed is not None and listed.many else None
                for sub in walk(target.elements[0].value):
                    if isinstance(sub, cst.Name):
                        inner.pop(sub.value, None)
                target = target.elements[1].value
            if isinstance(target, cst.Name) and element is not None:
                inner[target.value] = element
            else:
                for sub in walk(target):
                    if isinstance(sub, cst.Name):
                        inner.pop(sub.value, None)
        return inner

    def _subscript(self, node: cst.Subscript, known: Dict[str, Rows], depth: int) -> Optional[Rows]:
        base = self.kind(node.value, known, depth)
        if base is None:
            return None
        if base.many:
            if len(node.slice) == 1 and isinstance(node.slice[0].slice, cst.Index):
                index = node.slice[0].slice.value
                if isinstance(index, (cst.Integer, cst.SimpleString)) or (
                        isinstance(index, cst.UnaryOperation) and isinstance(index.expression, cst.Integer)):
                    return replace(base, many=False)  # batch[0], batch["x"], crops[-1]
            if len(node.slice) == 1 and isinstance(node.slice[0].slice, cst.Slice):
                return base  # views[1:]: still a list of them
            return None
        if base.squeezed:
            return None
        first = node.slice[0].slice
        if isinstance(first, cst.Slice) and first.lower is None and first.upper is None and first.step is None:
            return ROWS  # x[:, i], x[:, :k]
        if isinstance(first, cst.Index) and isinstance(first.value, cst.Ellipsis) and len(node.slice) > 1:
            value = self.value_of(node.value)
            rest = node.slice[1:]
            if isinstance(value, TensorValue) and value.shape is not None and all(
                    not (isinstance(e.slice, cst.Index) and isinstance(e.slice.value, (cst.Ellipsis, cst.Name))
                         and (isinstance(e.slice.value, cst.Ellipsis) or e.slice.value.value == "None"))
                    for e in rest) and len(value.shape) > len(rest):
                return ROWS  # images[..., :s, :s] of a 4-D batch: the ellipsis covers dim 0
        return None

    def _binary(self, node: cst.BinaryOperation, known: Dict[str, Rows], depth: int) -> Optional[Rows]:
        if isinstance(node.operator, cst.MatrixMultiply):
            left = self.kind(node.left, known, depth)
            return ROWS if left is not None and not left.many and not left.squeezed and \
                self._rank(node.left) not in (None, 1) else None  # (B, F) @ W keeps B rows
        left, right = self.kind(node.left, known, depth), self.kind(node.right, known, depth)
        kinds = [k for k in (left, right) if k is not None]
        if not kinds or any(k.many for k in kinds):
            return None
        if len(kinds) == 2 and (left.squeezed or right.squeezed):  # type: ignore[union-attr]
            return None
        rows_side = node.left if left is not None else node.right
        other = node.right if left is not None else node.left
        other_value = self.value_of(other)
        if isinstance(other_value, ScalarValue) or (len(kinds) == 2 and not kinds[0].squeezed):
            return kinds[0]
        if kinds[0].squeezed:
            # on the batch of one the squeezed side has rank_last dims: a tensor with more
            # would broadcast it back up
            other_rank = self._rank(other)
            return kinds[0] if other_rank is not None and kinds[0].rank_last is not None and \
                other_rank <= kinds[0].rank_last else None
        rank, result = self._rank(rows_side), self._rank(node)
        if isinstance(other_value, TensorValue) and rank is not None and rank == result:
            return kinds[0]  # broadcasting a (F,) or (1, F) tensor keeps the rows
        return None

    def _rank(self, node: Any) -> Optional[int]:
        value = self.value_of(node)
        if isinstance(value, TensorValue) and value.shape is not None:
            return len(value.shape)
        return None

    def _call(self, node: cst.Call, known: Dict[str, Rows], depth: int) -> Optional[Rows]:
        func = node.func
        if isinstance(func, cst.Attribute):
            receiver = self.kind(func.value, known, depth)
            if receiver is not None:
                return self._method(node, func.attr.value, receiver, depth)
        callee = self.callee(func)
        first = node.args[0].value if node.args and node.args[0].keyword is None and not node.args[0].star else None
        if isinstance(callee, SymbolValue):
            return self._function(node, _short(callee.qualname), first, known, depth)
        if isinstance(callee, ModuleValue):
            return self._layer(node, callee, first, known, depth)
        return self._returned(node, known, depth)

    def _method(self, node: cst.Call, name: str, receiver: Rows, depth: int) -> Optional[Rows]:
        if receiver.many:
            return None
        args = [a.value for a in node.args if a.keyword is None and not a.star]
        if receiver.squeezed:
            return receiver if name in _SQUEEZE_KEEP_METHODS else None
        if name in _KEEP_METHODS:
            return ROWS
        if name == "squeeze":
            if not node.args:
                return self._squeezed(node, node.func.value)
            dim = _int(args[0]) if len(args) == 1 and len(node.args) == 1 else None
            return ROWS if dim is not None and dim != 0 and self._positive(node.func.value, dim) else None
        if name == "unsqueeze" and len(args) == 1:
            dim = _int(args[0])
            return ROWS if dim is not None and dim != 0 and self._positive(node.func.value, dim, extra=1) else None
        if name == "permute" and args:
            dims = args[0].elements if len(args) == 1 and isinstance(args[0], (cst.Tuple, cst.List)) else None
            first = dims[0].value if dims else args[0]
            return ROWS if _int(first) == 0 else None
        if name in ("transpose", "swapaxes", "swapdims") and len(args) == 2:
            dims = [_int(a) for a in args]
            return ROWS if all(d is not None and d != 0 and self._positive(node.func.value, d) for d in dims) \
                else None
        if name == "flatten":
            start = _int(args[0]) if args else _keyword_int(node, "start_dim", 0)
            return ROWS if start is not None and start >= 1 else None
        if name in ("view", "reshape") and args:
            sizes = [e.value for e in args[0].elements] if len(args) == 1 and \
                isinstance(args[0], (cst.Tuple, cst.List)) else args
            if not sizes:
                return None
            return ROWS if _size_of_rows(sizes[0], node.func.value) or self._rows_inferred(node.func.value, sizes) \
                else None
        if name in ("sum", "mean", "amax", "amin", "prod", "norm", "std", "var", "logsumexp", "argmax", "argmin"):
            dim = _int(args[0]) if args else _keyword_int(node, "dim", None)
            return ROWS if dim is not None and dim != 0 and self._positive(node.func.value, dim) else None
        return None

    def _squeezed(self, node: cst.Call, tensor: Any) -> Optional[Rows]:
        """``x.squeeze()`` / ``torch.squeeze(x)`` of a tensor of rows whose other dims are
        known: on a batch of one it drops dim 0 as well."""
        value = self.value_of(tensor)
        if not (isinstance(value, TensorValue) and value.shape is not None and len(value.shape) >= 1
                and all(isinstance(d, int) for d in value.shape[1:])):
            return None
        if isinstance(value.shape[0], int):
            return None  # a fixed size, not the loader's rows
        rank_last = sum(1 for d in value.shape[1:] if d != 1)
        ones = tuple(i for i, d in enumerate(value.shape) if i > 0 and d == 1)
        return Rows(squeeze=node, rank_last=rank_last, ones=ones)

    def _rows_inferred(self, tensor: Any, sizes: List[Any]) -> bool:
        """``x.view(-1, d)`` of rows whose other dims hold ``d`` elements in all (``(B, 12, 4,
        4)`` viewed as ``(-1, 192)``): the inferred first size is the rows, on any batch."""
        if len(sizes) < 2 or _int(sizes[0]) != -1:
            return False
        value = self.value_of(tensor)
        if not (isinstance(value, TensorValue) and value.shape is not None and len(value.shape) >= 2):
            return False
        given = [self.value_of(size) for size in sizes[1:]]
        if not all(isinstance(d, int) and not isinstance(d, bool) for d in value.shape[1:]) or not all(
                isinstance(g, ScalarValue) and isinstance(g.const, int) and not isinstance(g.const, bool)
                and g.const > 0 for g in given):
            return False
        rest = 1
        for dim in value.shape[1:]:
            rest *= dim
        wanted = 1
        for size in given:
            wanted *= size.const  # type: ignore[union-attr]
        return rest > 0 and rest == wanted

    def _positive(self, tensor: Any, dim: int, extra: int = 0) -> bool:
        """Is ``dim`` a dim other than 0 of ``tensor`` (a negative one needs the rank)?"""
        if dim > 0:
            return True
        rank = self._rank(tensor)
        return rank is not None and rank + extra + dim > 0

    def _function(self, node: cst.Call, name: str, first: Any, known: Dict[str, Rows],
                  depth: int) -> Optional[Rows]:
        if name in ("cat", "concat", "concatenate", "stack"):
            return self._joined(node, name, known, depth)
        if first is None:
            return None
        kind = self.kind(first, known, depth)
        if kind is None or kind.many:
            return None
        if kind.squeezed:
            return kind if name in _SQUEEZE_KEEP_FUNCTIONS else None
        if name in _KEEP_FUNCTIONS:
            return ROWS
        if name == "squeeze" and len(node.args) == 1:
            return self._squeezed(node, first)  # torch.squeeze(x): every dim of size 1
        if name == "flatten":
            start = _int(node.args[1].value) if len(node.args) > 1 and node.args[1].keyword is None else \
                _keyword_int(node, "start_dim", 0)
            return ROWS if start is not None and start >= 1 else None
        return None

    def _joined(self, node: cst.Call, name: str, known: Dict[str, Rows], depth: int) -> Optional[Rows]:
        """``torch.cat(parts, dim=d)`` along a dim other than 0 of parts holding the rows."""
        if not node.args or node.args[0].keyword is not None or node.args[0].star:
            return None
        dim = concat_dim(node)
        if dim is None or dim == 0:
            return None
        parts = node.args[0].value
        kinds: List[Optional[Rows]] = []
        if isinstance(parts, (cst.List, cst.Tuple)):
            kinds = [self.kind(e.value, known, depth) if not isinstance(e, cst.StarredElement) else None
                     for e in parts.elements]
        else:
            listed = self.kind(parts, known, depth)
            kinds = [replace(listed, many=False)] if listed is not None and listed.many else []
        if not any(k is not None for k in kinds) or any(k is not None and (k.many or k.squeezed) for k in kinds):
            return None
        if dim < 0:
            result = self._rank(node)  # a negative dim counts from the end of the result's dims
            if result is None or result + dim <= 0:
                return None
        return ROWS

    def _layer(self, node: cst.Call, module: ModuleValue, first: Any, known: Dict[str, Rows],
               depth: int) -> Optional[Rows]:
        if first is None:
            return None
        kind = self.kind(first, known, depth)
        if kind is None or kind.many:
            return None
        result = self.value_of(node)
        if not isinstance(result, TensorValue) or (result.shape is not None and len(result.shape) == 0):
            return None  # a loss, a tuple of outputs and states
        if kind.squeezed:
            return kind if module.short_name in _ELEMENTWISE_LAYERS else None
        return ROWS if keeps_rows(module) else None

    def _returned(self, node: cst.Call, known: Dict[str, Rows], depth: int) -> Optional[Rows]:
        """What a function of the file (a model's ``forward``) returns when given the rows."""
        if depth + 1 > MAX_DEPTH:
            return None
        found = self._function_seeds(node, known, depth)
        if found is None:
            return None
        return self._function_returns(found[0], found[1], depth)

    def forward_rows(self, instance: Value) -> Optional[Rows]:
        """What a module of the file returns when its ``forward(self, x)`` is given the rows
        (a layer of an ``nn.Sequential``: the rows are its only argument)."""
        function, skip = called_function(instance)
        if function is None:
            return None
        params = function.node.params
        if len(params.params) != skip + 1 or params.star_arg is not cst.MaybeSentinel.DEFAULT \
                or params.kwonly_params or params.star_kwarg is not None:
            return None
        return self._function_returns(function, {params.params[skip].name.value: ROWS}, 0)

    def _function_returns(self, function: FunctionValue, seeds: Dict[str, Rows], depth: int) -> Optional[Rows]:
        """What ``function`` returns in every ``return`` when its parameters hold ``seeds``."""
        key = (id(function.node), tuple(sorted(seeds.items(), key=lambda kv: kv[0])))
        if key in self._returns:
            return self._returns[key]
        self._returns[key] = None  # a recursive call holds nothing known
        inner: Dict[str, Rows] = dict(seeds)
        for small in small_statements(function.node.body):
            self._assign(small, inner, depth + 1)
        kinds = [self.kind(value, inner, depth + 1) for value in returned_expressions(function)]
        result = kinds[0] if kinds and all(k == kinds[0] for k in kinds) else None
        self._returns[key] = result
        return result


def returned_expressions(function: FunctionValue) -> List[Any]:
    """The expressions a function of the file returns (its ``return x`` statements)."""
    return [small.value for small in small_statements(function.node.body)
            if isinstance(small, cst.Return) and small.value is not None]


def keeps_rows(module: ModuleValue) -> bool:
    """Does the library layer give one output row per input row (``nn.Sequential``: each of
    its layers)?"""
    name = module.short_name
    if name == "Sequential":
        return bool(module.children) and all(isinstance(c, ModuleValue) and keeps_rows(c) for c in module.children)
    if name in _ROW_CHANGING_LAYERS or name in ("ModuleList", "ModuleDict"):
        return False
    if name == "Flatten":
        return module.config.get("start_dim", 1) not in (0, None)
    return True


def called_function(callee: Value) -> Tuple[Optional[FunctionValue], int]:
    """The function of the file a call runs (a model's ``forward``, a helper, a bound method)
    and how many leading parameters the call does not give (``self``)."""
    if isinstance(callee, InstanceValue):
        function = callee.cls.methods.get("forward")
        skip = 1
    elif isinstance(callee, FunctionValue):
        function, skip = callee, 0
    else:
        function, skip = getattr(callee, "function", None), 1  # a bound method
    if not isinstance(function, FunctionValue) or not isinstance(function.node, cst.FunctionDef):
        return None, 0
    return function, skip


def concat_dim(node: cst.Call) -> Optional[int]:
    """The dim ``torch.cat``/``torch.stack`` joins along when written as an int (0 when not
    given), else None."""
    dims = [a.value for a in node.args[1:] if a.keyword is None and not a.star]
    dims += [a.value for a in node.args if a.keyword is not None and a.keyword.value in ("dim", "axis")]
    if not dims:
        return 0
    return _int(dims[0])


def _for_ins(node: Any) -> Iterator[Any]:
    clause = node.for_in
    while clause is not None:
        yield clause
        clause = clause.inner_for_in


def _short(qualname: str) -> str:
    for prefix in _TORCH_PREFIXES:
        if qualname.startswith(prefix) and "." not in qualname[len(prefix):]:
            return qualname[len(prefix):]
    return ""


def _int(node: Any) -> Optional[int]:
    if isinstance(node, cst.Integer):
        return int(node.value)
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus) and \
            isinstance(node.expression, cst.Integer):
        return -int(node.expression.value)
    return None


def _keyword_int(node: cst.Call, name: str, default: Optional[int]) -> Optional[int]:
    for arg in node.args:
        if arg.keyword is not None and arg.keyword.value == name:
            return _int(arg.value)
    return default


def _size_of_rows(size: Any, tensor: Any) -> bool:
    """``x.size(0)``, ``x.shape[0]``, ``len(x)`` of the tensor being reshaped."""
    text = _text(tensor)
    if text is None:
        return False
    if isinstance(size, cst.Call) and isinstance(size.func, cst.Attribute) and size.func.attr.value == "size" \
            and len(size.args) == 1 and _int(size.args[0].value) == 0:
        return _text(size.func.value) == text
    if isinstance(size, cst.Subscript) and isinstance(size.value, cst.Attribute) and \
            size.value.attr.value == "shape" and len(size.slice) == 1 and \
            isinstance(size.slice[0].slice, cst.Index) and _int(size.slice[0].slice.value) == 0:
        return _text(size.value.value) == text
    if isinstance(size, cst.Call) and isinstance(size.func, cst.Name) and size.func.value == "len" and \
            len(size.args) == 1:
        return _text(size.args[0].value) == text
    return False


def _text(node: Any) -> Optional[str]:
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        base = _text(node.value)
        return None if base is None else f"{base}.{node.attr.value}"
    return None
