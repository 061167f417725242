"""TTL218 container-used-as-tensor: a tuple or list (a model's outputs, an LSTM's
``(output, (h, c))``, ``torch.max``'s ``(values, indices)``) used as if it were the tensor it holds:
a tensor method or attribute read on it, or a tensor-style index."""
from __future__ import annotations

from typing import Any, Optional

import libcst as cst

from ...knowledge.named_tuples import named_field, type_name
from ...knowledge.tensor_arguments import TENSOR_ONLY_ATTRIBUTES
from ...model.values import SequenceValue, Value
from ..base import RuntimeClaim, register
from ..context import RuleContext
from ..dtype_names import origin_note
from ..dtype_rule import DtypeRule
from ..source_edits import code


def _container(value: Value) -> Optional[SequenceValue]:
    """``value`` when it is certainly a tuple or a list."""
    if isinstance(value, SequenceValue) and value.container in ("tuple", "list"):
        return value
    return None


def _described(value: SequenceValue) -> str:
    named = type_name(value)
    count = f" of {len(value.items)} items" if value.items is not None else ""
    return f"a namedtuple `{named}`{count}" if named else f"a {value.container}{count}"


def _object(value: SequenceValue) -> str:
    """How Python's message names the object: its namedtuple type where known; a tuple may be
    a torch.return_types namedtuple the engine holds as a tuple (``x.max(1)``), named by type."""
    named = type_name(value)
    if named:
        return f"'{named}'"
    return "'list'" if value.container == "list" else "..."


def _tensor_style_index(sub: cst.Subscript) -> Optional[str]:
    """How ``sub`` indexes when a tuple or list refuses it: several indices at once
    (``out[:, -1]``, a tuple index), ``None`` or ``...``; None for an int or a slice."""
    if len(sub.slice) > 1:
        return "tuple"
    element = sub.slice[0].slice
    if isinstance(element, cst.Index):
        if isinstance(element.value, cst.Name) and element.value.value == "None":
            return "NoneType"
        if isinstance(element.value, cst.Ellipsis):
            return "ellipsis"
    return None


@register
class ContainerUsedAsTensor(DtypeRule):
    """
    ## What it does
    Flags a tuple or list used as if it were a tensor: a tensor method or attribute read on it
    (`out.size(0)`, `out.view(n, -1)`, `pred.eq(y)`, `out.shape`), or a tensor-style index
    (`out[:, -1, :]`, `out[..., 0]`, `out[None]`). The value must certainly be a tuple or list:
    what an `nn.LSTM`/`nn.GRU` returns (`(output, (h_n, c_n))`), a model whose `forward` returns
    several values, `torch.max(x, dim)` / `x.sort()` / `x.topk(k)` (a namedtuple of values and
    indices), or a literal. Only where the code runs as analysed: a function nobody in the
    file calls is not judged (its parameters' defaults stand for whatever a caller passes), and
    a branch that a type test rules out (`if isinstance(out, torch.Tensor):`) is not analysed.

    ## Why is this bad?
    A Python tuple has no tensor methods and takes only ints and slices as indices: `out.size(0)`
    raises `AttributeError: 'tuple' object has no attribute 'size'`, `out[:, -1, :]` raises
    `TypeError: tuple indices must be integers or slices, not tuple`, and
    `output.max(1).eq(target)` raises `AttributeError: 'torch.return_types.max' object has no
    attribute 'eq'`. The tensor is inside: the output of a recurrent layer is its first item, the
    predicted classes are the indices of `max`.

    ## Example
    ```python
    lstm = nn.LSTM(10, 20, batch_first=True)
    out = lstm(x)
    last = out[:, -1, :]
    ```

    ## Use instead
    ```python
    out, (h_n, c_n) = lstm(x)
    last = out[:, -1, :]
    ```
    """

    code = "TTL218"
    name = "container-used-as-tensor"
    summary = "tuple or list (a model's outputs, an LSTM's (output, state)) used as a tensor"
    severity = "error"
    #: A method call's ``out.size`` is evaluated as part of its call: the call is where it is seen.
    listens = (cst.Attribute, cst.Subscript, cst.Call)
    #: AttributeError for a method or attribute, TypeError for an index: their common base, told
    #: apart by the message
    runtime = RuntimeClaim("Exception",
                           r"object has no attribute|indices must be integers or slices")

    def visit(self, node: Any, ctx: RuleContext) -> None:
        if ctx.analysed_on_its_own:
            return  # a default or a prototype's attribute may be a tensor a caller passes
        if isinstance(node, cst.Call):
            if isinstance(node.func, cst.Attribute) and node.func.attr.value in TENSOR_ONLY_ATTRIBUTES:
                self._attribute(node.func, ctx)
        elif isinstance(node, cst.Attribute):
            self._attribute(node, ctx)
        else:
            self._subscript(node, ctx)

    def _attribute(self, node: cst.Attribute, ctx: RuleContext) -> None:
        attr = node.attr.value
        if attr not in TENSOR_ONLY_ATTRIBUTES:
            return
        value = _container(ctx.value(node.value))
        if value is None or named_field(value, attr) is not None:
            return  # a namedtuple's own field of that name
        self.flag(ctx, node,
                  f"`{code(node.value, 30)}` is {_described(value)}{origin_note(value)}, not a tensor: "
                  f"`.{attr}` raises AttributeError (\"{_object(value)} object has no attribute "
                  f"'{attr}'\"); take the tensor it holds first (unpack it, or index it with an int)",
                  origin=value.origin)

    def _subscript(self, node: cst.Subscript, ctx: RuleContext) -> None:
        index_type = _tensor_style_index(node)
        if index_type is None:
            return
        value = _container(ctx.value(node.value))
        if value is None:
            return
        self.flag(ctx, node,
                  f"`{code(node.value, 30)}` is {_described(value)}{origin_note(value)}, not a tensor: "
                  f"`{code(node, 40)}` raises TypeError (\"{value.container} indices must be integers or slices, "
                  f"not {index_type}\"); take the tensor it holds first (unpack it, or index it with an int)",
                  origin=value.origin)
