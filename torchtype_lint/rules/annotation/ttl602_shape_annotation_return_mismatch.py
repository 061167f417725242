"""TTL602 shape-annotation-return-mismatch: returned tensor contradicts the function's shape return annotation."""
from __future__ import annotations

from typing import Any, Dict, List, Optional, Tuple

import libcst as cst

from ...knowledge.shape_dialects import ShapeAnnotation
from ...model.values import SequenceValue, TensorValue, Value, describe_shape
from ..base import Rule, RuntimeClaim, expr_text, register
from .shape_annotations import shape_annotation, tuple_element_annotations
from .matching import dtype_conflict, match_shape, name_conflict
from .size_contracts import declared_names
from ..context import RuleContext


@register
class JaxtypingReturnMismatch(Rule):
    """
    ## What it does
    Flags a `return` whose inferred value contradicts the function's shape return
    annotation: a dtype outside the annotation's (`Float[...]` returning an int64 or bool
    tensor), a different rank, a fixed size that differs, a named dimension whose size
    differs from the one the arguments bound in the same call, a variadic dimension
    (`*batch`) of another rank than the arguments gave it, or another annotated size in
    a named dimension's place: `x.T` returned for `"b d"` when `x` is `"b d"` has shape
    `(d, b)`, which fits only when `b == d`. A `Tuple[...]` return annotation is checked
    per element, and its length against the tuple returned. The annotation may be
    jaxtyping's `Float[Tensor, "b 1"]` (also inside `Annotated[...]`), TorchShapeFlow's
    `Annotated[torch.Tensor, Shape("b", 1)]` or torchtyping's `TensorType["b", 1]`.
    A tuple of another length is flagged only when the annotation gives a shape for one of
    its elements; a plain `tuple[Tensor]` or `Tuple[str]` of another length is a typing
    question, flagged by TTL904 (opt-in).

    The finding is placed where the returned value is made when the function assigns the
    returned name once (`y = x.T` ... `return y`), else at the `return`.

    ## Why is this bad?
    Callers rely on the annotation; with a runtime checker the function raises a
    type-check error on the return value (jaxtyping: `TypeCheckError ... whilst checking
    the return value`), without one the wrong shape travels on (a reduction over the
    wrong dimension, a lost `keepdim`, a comparison returned instead of a score, a
    transpose that only looks right while the sizes happen to be equal).

    ## Example
    ```python
    def row_totals(x: Float[Tensor, "b c"]) -> Float[Tensor, "b 1"]:
        return x.sum(dim=1)  # shape (b,)
    ```

    ## Use instead
    ```python
    def row_totals(x: Float[Tensor, "b c"]) -> Float[Tensor, "b 1"]:
        return x.sum(dim=1, keepdim=True)
    ```

    ## Fix safety
    No fix.
    """

    code = "TTL602"
    name = "shape-annotation-return-mismatch"
    summary = "returned tensor contradicts the function's shape return annotation"
    listens = (cst.Return,)
    runtime = RuntimeClaim("AssertionError")

    def visit(self, node: cst.Return, ctx: RuleContext) -> None:
        fnode = ctx.function_node
        if not isinstance(fnode, cst.FunctionDef) or fnode.returns is None or node.value is None:
            return
        returns = fnode.returns.annotation
        annotation = shape_annotation(returns, ctx)
        if annotation is not None:
            if annotation.error is None:
                self._check(fnode, node, node.value, annotation, ctx.value(node.value),
                            _parameter_bindings(fnode, ctx), ctx, "")
            return
        elements = tuple_element_annotations(returns, ctx)
        if elements is None:
            return
        value = ctx.value(node.value)
        if not isinstance(value, SequenceValue) or value.container != "tuple" or value.items is None:
            return
        if len(value.items) != len(elements):
            if all(shape_annotation(element, ctx) is None for element in elements):
                return  # `tuple[Tensor]`, `Tuple[str]`: a typing question, TTL904's (opt-in)
            self.report(producer(fnode, node.value) or node,
                        f"`{fnode.name.value}` is annotated to return a tuple of {len(elements)}, but "
                        f"`{short(node.value)}` is a tuple of {len(value.items)}")
            return
        literal = node.value if isinstance(node.value, cst.Tuple) else None
        bound = _parameter_bindings(fnode, ctx)
        for index, (element, item) in enumerate(zip(elements, value.items)):
            element_annotation = shape_annotation(element, ctx)
            if element_annotation is None or element_annotation.error is not None:
                continue
            # A tuple display shows (and places) each element; else the tuple's element i.
            item_node = literal.elements[index].value if literal is not None else None
            if self._check(fnode, item_node or node, item_node or node.value, element_annotation, item, bound,
                           ctx, f" as element {index} of its tuple"):
                return

    def _check(self, fnode: cst.FunctionDef, at: Any, value_node: Any, annotation: ShapeAnnotation,
               value: Value, bound: Dict[str, Any], ctx: RuleContext, which: str) -> bool:
        """Report the first way ``value`` (the expression ``value_node``) breaks ``annotation``
        (True when reported), at the assignment that made it, else at ``at``."""
        if not isinstance(value, TensorValue):
            return False
        problem = dtype_conflict(annotation, value)
        if problem is None and value.shape is not None and annotation.dims is not None:
            shape = tuple(value.shape)
            problem = match_shape(annotation.dims, shape, bound) or name_conflict(
                annotation.dims, shape, declared_names(ctx))
            if problem is not None:
                problem = f"(shape {describe_shape(value.shape)}) {problem}"
        if problem is None:
            return False
        made = producer(fnode, value_node)
        shown = f"`{value_node.value} = {short(made)}`" if made is not None else f"`{short(value_node)}`"
        self.report(made or at, f"`{fnode.name.value}` is annotated to return `{annotation.text}`{which}, "
                                f"but {shown} {problem}", origin=value.origin)
        return True


def short(node: Any) -> str:
    text = " ".join(expr_text(node).split())
    return text if len(text) <= 40 else text[:37] + "..."


def _parameter_bindings(fnode: cst.FunctionDef, ctx: RuleContext) -> Dict[str, Any]:
    """Named dims bound by the parameters' values in the current activation."""
    bound: Dict[str, Any] = {}
    params = list(fnode.params.posonly_params) + list(fnode.params.params) + list(fnode.params.kwonly_params)
    for param in params:
        if param.annotation is None:
            continue
        annotation = shape_annotation(param.annotation.annotation, ctx)
        value = ctx.value(param.name)
        if annotation is None or annotation.dims is None or not isinstance(value, TensorValue) \
                or value.shape is None:
            continue
        trial = dict(bound)
        if match_shape(annotation.dims, tuple(value.shape), trial) is None:
            bound = trial  # a contradicting argument is TTL601's finding; it binds nothing here
    return bound


class _Assignments(cst.CSTVisitor):
    """Where a function's body binds ``name`` (nested functions and classes excluded): the
    values of plain ``name = value`` statements, and how many other bindings there are."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.values: List[Any] = []
        self.others = 0

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        return False

    def visit_ClassDef(self, node: cst.ClassDef) -> bool:
        return False

    def visit_Lambda(self, node: cst.Lambda) -> bool:
        return False

    def visit_Assign(self, node: cst.Assign) -> None:
        for target in node.targets:
            if isinstance(target.target, cst.Name) and target.target.value == self.name:
                self.values.append(node.value)

    def visit_Name(self, node: cst.Name) -> None:
        pass

    def _other(self, target: Any) -> None:
        if target is not None and any(isinstance(n, cst.Name) and n.value == self.name for n in _names(target)):
            self.others += 1

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self._other(node.target)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        self._other(node.target)

    def visit_For(self, node: cst.For) -> None:
        self._other(node.target)

    def visit_NamedExpr(self, node: cst.NamedExpr) -> None:
        self._other(node.target)

    def visit_AsName(self, node: cst.AsName) -> None:
        self._other(node.name)

    def visit_CompFor(self, node: cst.CompFor) -> None:
        self._other(node.target)

    def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
        if not isinstance(node.target, cst.Name):
            self._other(node.target)  # a, b = ... binds by unpacking


def _names(node: Any) -> Tuple[Any, ...]:
    """The Name nodes a target binds (through tuples, lists and starred targets)."""
    if isinstance(node, (cst.Tuple, cst.List)):
        return tuple(n for element in node.elements for n in _names(element.value))
    if isinstance(node, cst.StarredElement):
        return _names(node.value)
    return (node,)


def producer(fnode: cst.FunctionDef, value_node: Any) -> Optional[Any]:
    """The expression that made a returned name, when the function binds the name once,
    with a plain assignment, and never as a parameter; else None."""
    if not isinstance(value_node, cst.Name):
        return None
    params = fnode.params
    every = list(params.posonly_params) + list(params.params) + list(params.kwonly_params)
    every += [p for p in (params.star_arg, params.star_kwarg) if isinstance(p, cst.Param)]
    if any(p.name.value == value_node.value for p in every):
        return None
    finder = _Assignments(value_node.value)
    fnode.body.visit(finder)
    return finder.values[0] if len(finder.values) == 1 and not finder.others else None
