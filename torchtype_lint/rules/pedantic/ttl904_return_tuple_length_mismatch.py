"""TTL904 return-tuple-length-mismatch: tuple returned of another length than a plain tuple annotation (opt-in)."""
from __future__ import annotations

import libcst as cst

from ...model.values import SequenceValue
from ..annotation.shape_annotations import shape_annotation, tuple_element_annotations
from ..annotation.ttl602_shape_annotation_return_mismatch import producer, short
from ..base import Rule, RuntimeClaim, register
from ..context import RuleContext


@register
class ReturnTupleLengthMismatch(Rule):
    """
    ## What it does
    Flags a `return` of a tuple whose length differs from the function's `Tuple[...]` /
    `tuple[...]` return annotation when no element of the annotation is a shape
    annotation: `-> tuple[torch.Tensor]` returning two tensors, `-> Tuple[str, int]`
    returning one string. (With a shape annotation among the elements --
    `Tuple[Float[Tensor, "b d"], ...]` of another length -- TTL602 reports it.)

    ## Why is this bad?
    It runs: Python does not check annotations. But type checkers and readers trust the
    annotation, and a caller unpacking the result as annotated (`(hidden,) = f(x)`)
    raises `ValueError: too many values to unpack`. Many code bases use `tuple[Tensor]`
    loosely for "a tuple of tensors" (transformers' convention), so this is a typing
    question rather than a crash: opt-in.

    ## Example
    ```python
    def encode(x: torch.Tensor) -> tuple[torch.Tensor]:
        return x, x.mean(0)
    ```

    ## Use instead
    ```python
    def encode(x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        return x, x.mean(0)
    ```

    ## Fix safety
    No fix: which of the two is wrong is the author's call.
    """

    code = "TTL904"
    name = "return-tuple-length-mismatch"
    summary = "returned tuple's length differs from a plain tuple return annotation (opt-in)"
    severity = "warning"
    listens = (cst.Return,)
    default_enabled = False
    runtime = RuntimeClaim("AssertionError")

    def visit(self, node: cst.Return, ctx: RuleContext) -> None:
        fnode = ctx.function_node
        if not isinstance(fnode, cst.FunctionDef) or fnode.returns is None or node.value is None:
            return
        elements = tuple_element_annotations(fnode.returns.annotation, ctx)
        if elements is None or any(shape_annotation(element, ctx) is not None for element in elements):
            return  # not a fixed-length tuple annotation, or one with shapes: TTL602's
        value = ctx.value(node.value)
        if not isinstance(value, SequenceValue) or value.container != "tuple" or value.items is None \
                or len(value.items) == len(elements):
            return
        self.report(producer(fnode, node.value) or node,
                    f"`{fnode.name.value}` is annotated to return a tuple of {len(elements)}, but "
                    f"`{short(node.value)}` is a tuple of {len(value.items)}")
