"""Expressions other than calls: literals, containers, comprehensions, attribute access,
subscripts, operators. ``EXPRESSION_HANDLERS`` maps each libcst expression type to the
function that evaluates it; ``Interpreter.eval`` dispatches through it and records the value.

Operators on tensors and arrays are answered by ``knowledge/`` (promotion, broadcasting,
indexing shapes); what stays here is Python's own semantics and the dispatch.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, Dict, List, Optional, Tuple

import libcst as cst

from ..knowledge.tensor_array_ops import tensor_with_array
from ..knowledge import numpy_api as NP
from ..knowledge import torch_api as T
from ..knowledge.autocast import under_autocast
from ..knowledge.devices import runtime_choice
from ..knowledge.dtype_comparisons import dtype_comparison
from ..knowledge.indexing import ELLIPSIS, SLICE, UNKNOWN_BOUND, index_array, index_tensor
from ..knowledge.layouts import elementwise_result, fresh_result, index_result
from ..knowledge.nn_modules import EXACT_CHILDREN, layer_at
from ..model.values import (
    Callee,
    TOP, ArrayValue, ClassValue, DeviceValue, DTypeValue, FunctionValue, InstanceValue, ModuleValue, NoneValue,
    ChoiceValue, ScalarValue, SequenceValue, StringValue, SymbolValue, TensorValue, Value,
    join, join_all, part_origin,
)
from .counted_loops import counted, iteration_count
from .builtins import LITERAL_HANDLERS, iterate, name_value, scalar_binary
from .calls import eval_call, get_attribute, item_of
from .configuration import ConfigOrigin, derived, folded_comparison
from .runtime import Frame
from .syntax import OPERATOR_SYMBOLS

if TYPE_CHECKING:
    from .interpreter import Interpreter


def _collection(interp: "Interpreter", node: Any) -> Value:
    kind = {cst.List: "list", cst.Tuple: "tuple", cst.Set: "set"}[type(node)]
    items: List[Value] = []
    starred = False
    for element in node.elements:
        v = interp.eval(element.value)
        if isinstance(element, cst.StarredElement):
            if isinstance(v, SequenceValue) and v.container in ("list", "tuple") and v.items is not None:
                items.extend(v.items)  # (n, *size, 3) of a known tuple: its items in place
                continue
            starred = True
        items.append(v)
    element_value: Value = items[0] if items else TOP
    for v in items[1:]:
        element_value = join(element_value, v)
    return SequenceValue(kind, element_value, None if starred else tuple(items))


def _dict(interp: "Interpreter", node: cst.Dict) -> Value:
    element_value: Optional[Value] = None
    keys: Optional[List[str]] = []
    values: List[Value] = []
    for element in node.elements:
        if isinstance(element, cst.DictElement):
            key = interp.eval(element.key)
            v = interp.eval(element.value)
            if keys is not None and isinstance(key, StringValue) and key.const is not None \
                    and key.const not in keys:
                keys.append(key.const)
                values.append(v)
            else:
                keys = None  # an unknown or repeated key: only the joined values are kept
        else:
            interp.eval(element.value)
            v = TOP
            keys = None  # **other: its keys are not known here
        element_value = v if element_value is None else join(element_value, v)
    if not node.elements:
        return SequenceValue("dict", TOP, ())  # known-empty: an element added later is the only one
    if keys:
        return SequenceValue("dict", element_value or TOP, tuple(values), None, tuple(keys))
    return SequenceValue("dict", element_value or TOP, None)


def _comprehension(interp: "Interpreter", node: Any) -> Value:
    outer = interp.frame
    interp.frame = Frame({}, parent=outer, function=outer.function, instance=outer.instance)
    try:
        for_in = node.for_in
        if isinstance(node, cst.DictComp) and for_in.inner_for_in is None:
            iterable = interp.eval(for_in.iter)
            known = _dict_comprehension(interp, node, iterable)
            if known is not None:
                return known
        if isinstance(node, (cst.ListComp, cst.SetComp, cst.GeneratorExp)) and for_in.inner_for_in is None \
                and not for_in.ifs:
            # a generator over known items too: `a, b = (torch.from_numpy(x) for x in (xa, xb))`
            iterable = interp.eval(for_in.iter)
            items = _exact_items(iterable)
            if items is not None and not interp._comprehension_unrolling:
                return _item_by_item(interp, node, items)
        if isinstance(node, (cst.ListComp, cst.SetComp)) and for_in.inner_for_in is None and for_in.ifs:
            items = _exact_items(interp.eval(for_in.iter))
            kept = _kept_items(interp, node, items) if items is not None and not interp._comprehension_unrolling \
                else None
            if kept:  # none kept: the generic list, which the rules read as one that may be empty
                return _item_by_item(interp, node, kept)
        first: Value = TOP
        while for_in is not None:
            iterable = interp.eval(for_in.iter)
            first = iterable if for_in is node.for_in else first
            interp.assign_target(for_in.target, iterate(iterable), node, record=False)
            for cond in for_in.ifs:
                interp.eval(cond.test)
            for_in = for_in.inner_for_in
        if isinstance(node, cst.DictComp):
            interp.eval(node.key)
            element = interp.eval(node.value)
            return SequenceValue("dict", element, None)
        element = interp.eval(node.elt)
    finally:
        interp.frame = outer
    if isinstance(node, cst.GeneratorExp):
        return SequenceValue("generator", element, None)
    result = SequenceValue("set" if isinstance(node, cst.SetComp) else "list", element, None)
    if isinstance(node, cst.ListComp) and node.for_in.inner_for_in is None and not node.for_in.ifs:
        # one item per iteration: [row[1:] for row in rows] holds as many items as rows
        return counted(element, iteration_count(interp, node.for_in.iter, first), result) or result
    return result


#: Dict comprehensions over at most this many known items are evaluated item by item.
_KNOWN_COMPREHENSION = 16
#: List comprehensions over at most this many known items are evaluated item by item (as a
#: ``for`` loop over them is unrolled).
_UNROLLED_COMPREHENSION = 6


def _exact_items(iterable: Value) -> Optional[Tuple[Value, ...]]:
    """The items a ``for`` over ``iterable`` binds one by one, in order, when each is known
    (a list or tuple of known items, an ``nn.Sequential``, an ``nn.ModuleList`` built from
    known layers) and there are a few of them; else None."""
    if isinstance(iterable, SequenceValue) and iterable.container in ("list", "tuple"):
        items = iterable.items
    elif isinstance(iterable, ModuleValue) and (iterable.short_name == "Sequential" or (
            iterable.short_name == "ModuleList" and iterable.config.get(EXACT_CHILDREN))):
        items = iterable.children
    else:
        return None
    return items if items is not None and 0 < len(items) <= _UNROLLED_COMPREHENSION else None


def _item_by_item(interp: "Interpreter", node: Any, items: Tuple[Value, ...]) -> Value:
    """``[f(x) for x in items]`` (no ``if``) over items known one by one: the element is
    evaluated for each item, as Python does, and recorded each time (every evaluation runs:
    what a rule finds in one of them happens), giving a list of known items
    (``[nn.Conv1d(e, f, k) for k in (2, 3, 4)]``: three layers, each with its kernel size)."""
    values = []
    # one at a time: a comprehension or a loop inside is evaluated once, over the join
    interp._comprehension_unrolling += 1
    interp._unrolling += 1
    try:
        for item in items:
            interp.assign_target(node.for_in.target, item, node, record=False)
            values.append(interp.eval(node.elt))
    finally:
        interp._unrolling -= 1
        interp._comprehension_unrolling -= 1
    if isinstance(node, cst.SetComp):
        return SequenceValue("set", join_all(values), None)
    container = "generator" if isinstance(node, cst.GeneratorExp) else "list"
    return SequenceValue(container, join_all(values), tuple(values))


def _kept_items(interp: "Interpreter", node: Any, items: Tuple[Value, ...]) -> Optional[Tuple[Value, ...]]:
    """The items a one-``for`` comprehension with ``if`` conditions keeps, when every condition
    is known for every item (``[q for q in questions if q is not None]`` of tensors and Nones);
    None when one is not. Those items are then evaluated one by one (``_item_by_item``)."""
    kept = []
    recording = interp.recording
    interp.recording = False  # a trial: the generic evaluation records if this gives up
    try:
        for item in items:
            interp.assign_target(node.for_in.target, item, node, record=False)
            truths = [interp.known_truth(interp.eval(cond.test)) for cond in node.for_in.ifs]
            if any(truth is None for truth in truths):
                return None
            if all(truths):
                kept.append(item)
    finally:
        interp.recording = recording
    return tuple(kept)


def _dict_comprehension(interp: "Interpreter", node: cst.DictComp, iterable: Value) -> Optional[Value]:
    """``{k: v for k, v in cfg.items() if k != "type"}`` over items known one by one: the dict
    of known keys it builds; None when a key or a condition is not known for every item."""
    if not isinstance(iterable, SequenceValue) or iterable.items is None or \
            len(iterable.items) > _KNOWN_COMPREHENSION:
        return None
    keys: List[str] = []
    values: List[Value] = []
    recording = interp.recording
    interp.recording = False  # a trial: the generic evaluation records if this gives up
    try:
        for item in iterable.items:
            interp.assign_target(node.for_in.target, item, node, record=False)
            truths = [interp.known_truth(interp.eval(cond.test)) for cond in node.for_in.ifs]
            if any(truth is None for truth in truths):
                return None
            if not all(truths):
                continue
            key = interp.eval(node.key)
            if not isinstance(key, StringValue) or key.const is None or key.const in keys:
                return None
            keys.append(key.const)
            values.append(interp.eval(node.value))
    finally:
        interp.recording = recording
    if not keys:
        return SequenceValue("dict", TOP, ())
    return SequenceValue("dict", join_all(values), tuple(values), None, tuple(keys))


def _attribute(interp: "Interpreter", node: cst.Attribute) -> Value:
    owner = interp.eval(node.value)
    return get_attribute(interp, owner, node.attr.value, node)


def _subscript(interp: "Interpreter", node: cst.Subscript) -> Value:
    container = interp.eval(node.value)
    indices: List[Value] = []
    #: position in ``indices`` -> (lower, upper, step) as int constants, None when absent,
    #: UNKNOWN_BOUND when not a known int.
    slices: Dict[int, Tuple[Any, Any, Any]] = {}
    for element in node.slice:
        if isinstance(element.slice, cst.Index):
            if isinstance(element.slice.value, cst.Ellipsis):
                indices.append(ELLIPSIS)
            else:
                indices.append(interp.eval(element.slice.value))
        else:
            bounds = []
            for part in (element.slice.lower, element.slice.upper, element.slice.step):
                if part is None:
                    bounds.append(None)
                    continue
                bound = interp.eval(part)
                bounds.append(bound.const if isinstance(bound, ScalarValue) and bound.pytype == "int"
                              and isinstance(bound.const, int) else UNKNOWN_BOUND)
            slices[len(indices)] = (bounds[0], bounds[1], bounds[2])
            indices.append(SLICE)
    if isinstance(container, SymbolValue):
        return TOP  # a type expression such as Float[Tensor, "b"]
    if isinstance(container, SequenceValue) and container.container == "dict":
        key = indices[0] if len(indices) == 1 else None
        if isinstance(key, StringValue) and key.const is not None:
            return container.value_of(key.const)
        return container.element
    if isinstance(container, SequenceValue):
        if len(indices) == 1 and isinstance(indices[0], ScalarValue) and container.items is not None \
                and isinstance(indices[0].const, int) and -len(container.items) <= indices[0].const < len(container.items):
            return container.items[indices[0].const]
        if len(indices) == 1 and indices[0] is SLICE:
            lower, upper, step = slices[0]
            if container.items is not None and UNKNOWN_BOUND not in (lower, upper, step) and step != 0:
                items = container.items[lower:upper:step]  # x.shape[-2:]: the sizes themselves
                return SequenceValue(container.container, join_all(items) if items else container.element,
                                     items, part_origin(container.origin))
            return SequenceValue(container.container, container.element, None, part_origin(container.origin))
        return container.element
    if isinstance(container, TensorValue):
        return index_result(container, _basic_index(indices, slices), index_tensor(container, indices, slices), node)
    if isinstance(container, ArrayValue):
        return index_array(container, indices, slices)
    if isinstance(container, ModuleValue) and len(indices) == 1 and indices[0] is not SLICE:
        return layer_at(container, indices[0])  # model[-1]: the last layer of an nn.Sequential
    if len(indices) == 1 and indices[0] is not SLICE and indices[0] is not ELLIPSIS \
            and isinstance(node.slice[0].slice, cst.Index):
        # dataset[i], an instance's own __getitem__
        item = item_of(interp, container, indices[0], node.slice[0].slice.value, node)
        if item is not None:
            return item
    return TOP


def _binary(interp: "Interpreter", node: cst.BinaryOperation) -> Value:
    left = interp.eval(node.left)
    right = interp.eval(node.right)
    op = OPERATOR_SYMBOLS.get(type(node.operator).__name__, "?")
    result = binary(interp, left, right, op, node)
    # The operator path: no Callee is recorded for operators; this one only tells autocast
    # what ran.
    if interp.autocast_dtypes:
        result = under_autocast(Callee("operator", op), result, node, interp.autocast_dtypes[-1])
    return result


def binary(interp: "Interpreter", left: Value, right: Value, op: str, node: Any) -> Value:
    """``left <op> right`` (also for augmented assignments, which pass their statement)."""
    if isinstance(left, StringValue):
        if op == "+" and isinstance(right, StringValue) and left.const is not None and right.const is not None:
            return StringValue(left.const + right.const)  # "lin" + str(i): a name setattr can store
        return StringValue(None) if op in ("%", "+", "*") else TOP  # "%.2f" % loss
    if isinstance(left, TensorValue) and isinstance(right, ArrayValue):
        return tensor_with_array(left, right, op, node)  # numpy computes it: numpy's promotion
    if isinstance(left, (TensorValue,)) or isinstance(right, TensorValue):
        if op in ("+", "-", "*", "/", "//", "%", "**", "@", "&", "|", "^"):
            result = T.binary_op(left, right, op, node, interp.tenv)
            # its strides: TensorIterator's for an elementwise operator, row-major for a product
            return elementwise_result(result, [left, right], node) if op != "@" else fresh_result(result)
        return TOP
    if isinstance(left, ArrayValue) or isinstance(right, ArrayValue):
        return NP.binary_op(left, right, op, node)
    if isinstance(left, ScalarValue) and isinstance(right, ScalarValue):
        return derived(scalar_binary(left, right, op), left, right)  # `args.n_gpu * 2` keeps a default's origin
    if op == "*" and isinstance(left, SequenceValue) and isinstance(right, ScalarValue) and \
            right.pytype == "int" and left.container in ("list", "tuple"):
        # [x] * n: same elements, count unknown unless both are constants
        count = right.const
        items = left.items * count if left.items is not None and isinstance(count, int) \
            and 0 <= count * len(left.items) <= 64 else None
        return SequenceValue(left.container, left.element, items, left.origin)
    if isinstance(left, SequenceValue) and isinstance(right, SequenceValue) and op == "+":
        # an empty side adds no elements to disagree with
        element = right.element if left.items == () else left.element if right.items == () else \
            join(left.element, right.element)
        return SequenceValue(left.container, element, (
            left.items + right.items if left.items is not None and right.items is not None else None))
    return TOP


def _basic_index(indices: List[Value], slices: Dict[int, Tuple[Any, Any, Any]]) -> List[Tuple[str, Any]]:
    """The parts of ``x[...]`` for ``knowledge/layouts.index_result``: ints, slices of known
    bounds, ``None`` and ``...``; an ("other", None) part for anything else (advanced indexing)."""
    parts: List[Tuple[str, Any]] = []
    for i, index in enumerate(indices):
        if index is ELLIPSIS:
            parts.append(("ellipsis", None))
        elif index is SLICE and UNKNOWN_BOUND not in slices[i]:
            parts.append(("slice", slices[i]))
        elif isinstance(index, NoneValue):
            parts.append(("none", None))
        elif isinstance(index, ScalarValue) and index.pytype == "int" and isinstance(index.const, int):
            parts.append(("int", index.const))
        else:
            parts.append(("other", None))
    return parts


def _unary(interp: "Interpreter", node: cst.UnaryOperation) -> Value:
    operand = interp.eval(node.expression)
    if isinstance(node.operator, cst.Not):
        if isinstance(operand, ScalarValue) and isinstance(operand.origin, ConfigOrigin) and operand.const is not None:
            return ScalarValue("bool", not operand.const, operand.origin)  # `not args.no_cuda`
        if isinstance(operand, ScalarValue) and operand.pytype == "bool" and isinstance(operand.const, bool):
            return ScalarValue("bool", not operand.const)  # `if not self.aux:` of a flag set to True
        return ScalarValue("bool") if not isinstance(operand, TensorValue) else TOP
    if isinstance(operand, TensorValue):
        return elementwise_result(operand, [operand], node)  # -x is a new tensor: TensorIterator's strides
    if isinstance(operand, ArrayValue):
        return operand
    if isinstance(operand, ScalarValue):
        # -True, +True and ~True are ints
        pytype = "int" if operand.pytype == "bool" else operand.pytype
        const = operand.const
        if not isinstance(const, (int, float)) or isinstance(node.operator, cst.BitInvert) and \
                not isinstance(const, int):
            return ScalarValue(pytype)
        value = {cst.Minus: lambda c: -c, cst.Plus: lambda c: +c,
                 cst.BitInvert: lambda c: ~c}[type(node.operator)](const)
        return ScalarValue(pytype, value)
    return TOP


#: Values whose comparisons give a Python bool (numbers, strings, None, containers).
_PYTHON_OBJECTS = (ScalarValue, StringValue, NoneValue, SequenceValue, SymbolValue, DTypeValue, DeviceValue,
                   ChoiceValue)

#: Values that are certainly not None (``x is None`` is then False).
_NOT_NONE = (TensorValue, ArrayValue, ScalarValue, SequenceValue, StringValue, DTypeValue, DeviceValue,
             InstanceValue, ModuleValue, FunctionValue, ClassValue)  # a value joined with None is unknown


def _is_none(value: Value) -> Optional[bool]:
    """Whether ``value is None`` certainly holds or fails; None when it could go either way."""
    if isinstance(value, NoneValue):
        return True
    if isinstance(value, ChoiceValue):
        return None if None in value.options else False
    return False if isinstance(value, _NOT_NONE) else None


def _comparison(interp: "Interpreter", node: cst.Comparison) -> Value:
    left = interp.eval(node.left)
    if len(node.comparisons) == 1 and isinstance(node.comparisons[0].operator, (cst.Is, cst.IsNot)):
        right = interp.eval(node.comparisons[0].comparator)
        is_none = _is_none(left) if isinstance(right, NoneValue) else None
        if is_none is None:
            # `x.dtype is torch.float16` of known dtypes: torch's dtypes are singletons
            same = dtype_comparison(left, "is" if isinstance(node.comparisons[0].operator, cst.Is) else "is not",
                                    right)
            return ScalarValue("bool", same)
        # `args.resume is None` of a command-line default: the answer is an assumption too
        origin = left.origin if isinstance(left.origin, ConfigOrigin) else None
        return ScalarValue("bool", is_none if isinstance(node.comparisons[0].operator, cst.Is) else not is_none,
                           origin)
    result: Value = TOP
    for target in node.comparisons:
        right = interp.eval(target.comparator)
        op = OPERATOR_SYMBOLS.get(type(target.operator).__name__, "?")
        if isinstance(left, TensorValue) or isinstance(right, TensorValue):
            result = T.binary_op(left, right, op, node, interp.tenv) if op in T.COMPARISON_OPS else TOP
            if len(node.comparisons) == 1:
                result = elementwise_result(result, [left, right], node)
        elif isinstance(left, ArrayValue) or isinstance(right, ArrayValue):
            result = NP.binary_op(left, right, op, node) if op in T.COMPARISON_OPS else TOP
        elif op in ("in", "not in", "is", "is not") or (
                isinstance(left, _PYTHON_OBJECTS) and isinstance(right, _PYTHON_OBJECTS)):
            folded = folded_comparison(left, op, right) if len(node.comparisons) == 1 else None
            if folded is None and len(node.comparisons) == 1:
                # `pic.dtype == np.uint8`, `x.dtype in (torch.float16, torch.bfloat16)` of known dtypes
                folded = ScalarValue("bool", dtype_comparison(left, op, right))
            result = folded if folded is not None else ScalarValue("bool")  # `cfg["task"] == "binary"`
        else:
            result = TOP  # an unknown operand may be an array or a tensor: elementwise, not a bool
        left = right
    return result


def _boolean(interp: "Interpreter", node: cst.BooleanOperation) -> Value:
    left = interp.eval(node.left)
    truth = interp.known_truth(left)
    if truth is not None:
        # `a or b` is a when a is true, else b; `a and b` the other way round (b never runs
        # when a decides)
        decides = truth if isinstance(node.operator, cst.Or) else not truth
        return left if decides else interp.eval(node.right)
    right = interp.eval(node.right)
    return join(left, right)


def _if_exp(interp: "Interpreter", node: cst.IfExp) -> Value:
    truth = interp.known_truth(interp.eval(node.test))
    if truth is not None:
        return interp.eval(node.body if truth else node.orelse)  # the other side never runs
    body, orelse = interp.eval(node.body), interp.eval(node.orelse)
    # `"cuda" if torch.cuda.is_available() else "cpu"`: CUDA wherever the condition holds
    picked = runtime_choice(node, node.test, T.device_of_arg(body), T.device_of_arg(orelse))
    return picked if picked is not None else join(body, orelse)


def _lambda(interp: "Interpreter", node: cst.Lambda) -> Value:
    """A lambda is a function of the file: calling it (``collate_fn=lambda b: ...``) evaluates
    its body with the arguments, in the scope it was written in."""
    interp._evaluate_defaults(node)
    interp.closures[node] = interp.frame
    if interp.home is not interp.main_home:
        interp.homes[node] = interp.home
    return FunctionValue(node)


def _named_expr(interp: "Interpreter", node: Any) -> Value:
    value = interp.eval(node.value)
    interp.assign_target(node.target, value, node)
    return value


def _yield(interp: "Interpreter", node: Any) -> Value:
    """``yield x`` adds x to the generator's elements (``yield from xs``: any element of xs);
    its own value is what ``send()`` passes in: unknown."""
    if isinstance(node.value, cst.From):
        element = iterate(interp.eval(node.value.item))
    elif node.value is not None:
        element = interp.eval(node.value)
    else:
        element = NoneValue()
    if interp.frame.function is not None:
        interp._generators.add(interp.frame.function.node)
        interp.frame.yields.append(element)
    return TOP


def _await(interp: "Interpreter", node: Any) -> Value:
    interp.eval(node.expression)
    return TOP


EXPRESSION_HANDLERS: Dict[type, Callable[["Interpreter", Any], Value]] = {
    cst.Name: name_value,
    **LITERAL_HANDLERS,
    cst.List: _collection,
    cst.Tuple: _collection,
    cst.Set: _collection,
    cst.Dict: _dict,
    cst.ListComp: _comprehension,
    cst.SetComp: _comprehension,
    cst.DictComp: _comprehension,
    cst.GeneratorExp: _comprehension,
    cst.Attribute: _attribute,
    cst.Subscript: _subscript,
    cst.BinaryOperation: _binary,
    cst.UnaryOperation: _unary,
    cst.Comparison: _comparison,
    cst.BooleanOperation: _boolean,
    cst.IfExp: _if_exp,
    cst.Lambda: _lambda,
    cst.NamedExpr: _named_expr,
    cst.Await: _await,
    cst.Yield: _yield,
    cst.Call: eval_call,
}
