"""TTL601 shape-annotation-argument-mismatch: call whose arguments contradict the function's shape annotations."""
from __future__ import annotations

from typing import Any, Dict, List, Optional, Tuple

import libcst as cst

from ...model.values import FunctionValue, InstanceValue, TensorValue, Value, describe_shape
from ..base import Rule, RuntimeClaim, expr_text, register
from .shape_annotations import shape_annotation
from .matching import dtype_conflict, match_shape
from ..context import RuleContext


def _callee_function(node: cst.Call, ctx: RuleContext) -> Optional[Tuple[cst.FunctionDef, bool]]:
    """(function node, whether the first parameter is self) for calls of functions of the file."""
    value = ctx.value(node.func)
    fn = getattr(value, "function", None)  # a bound method
    if fn is not None and getattr(fn, "node", None) is not None and isinstance(fn.node, cst.FunctionDef):
        return fn.node, not _is_static(fn.node)
    if isinstance(value, FunctionValue) and isinstance(value.node, cst.FunctionDef):
        return value.node, False
    if isinstance(value, InstanceValue):  # calling a Module instance runs forward
        forward = value.cls.methods.get("forward")
        if forward is not None:
            return forward.node, True
    return None


def _is_static(fnode: cst.FunctionDef) -> bool:
    return any(isinstance(d.decorator, cst.Name) and d.decorator.value == "staticmethod"
               for d in fnode.decorators)


def _bind_call(fnode: cst.FunctionDef, skip_self: bool, node: cst.Call, ctx: RuleContext) -> Optional[List[Tuple[cst.Param, Value, Any]]]:
    """(parameter, argument value, argument node) for the arguments of a call."""
    callee = ctx.callee(node)
    if callee is None or callee.args.has_star:
        return None
    params = list(fnode.params.posonly_params) + list(fnode.params.params)
    if skip_self and params:
        params = params[1:]
    out = []
    for i, value in enumerate(callee.args.pos):
        if i < len(params):
            out.append((params[i], value, callee.args.pos_nodes[i]))
    by_name = {p.name.value: p for p in params + list(fnode.params.kwonly_params)}
    for name, value in callee.args.kw.items():
        if name in by_name:
            out.append((by_name[name], value, callee.args.kw_nodes.get(name)))
    return out


@register
class JaxtypingArgumentMismatch(Rule):
    """
    ## What it does
    Reads the shape annotations on the parameters of a function of the file as a contract,
    and flags a call whose arguments, as inferred, break it: a named dimension bound to two
    different sizes across the arguments (`x` of shape `(4, 3)` and `y` of shape `(5, 3)`
    for `"b c"` and `"b c"`), a fixed size or rank that differs, or a dtype outside the
    annotation's (an int64 tensor for `Float`). Every dialect reads the same way:
    jaxtyping's `Float[Tensor, "b c"]` (also inside `Annotated[...]`), TorchShapeFlow's
    `Annotated[torch.Tensor, Shape("b", "c")]` and torchtyping's
    `TensorType["b", "c", torch.float32]`, when their names come from those packages.

    ## Why is this bad?
    With a runtime checker (`@jaxtyped(typechecker=beartype)`, torchtyping's
    `@typechecked`) the call raises a type-check error; without one the annotation is
    silently wrong, and the function computes on shapes its author did not plan for
    (broadcasting `(4, 1, 3)` against `(5, 3)`, for instance). Either way the call and the
    annotation disagree. TorchShapeFlow reports such calls statically.

    ## Example
    ```python
    def distance(x: Float[Tensor, "b c"], y: Float[Tensor, "b c"]) -> Float[Tensor, "b"]:
        return (x - y).norm(dim=-1)

    distance(torch.randn(4, 3), torch.randn(5, 3))
    ```

    ## Use instead
    ```python
    def distance(x: Float[Tensor, "n c"], y: Float[Tensor, "m c"]) -> Float[Tensor, "n m"]:
        return torch.cdist(x, y)
    ```

    ## Fix safety
    No fix.

    ## flake8 and pyflakes on shape strings
    pyflakes (and so flake8 and ruff) reads the string in `Float[Tensor, "b c"]` as a
    forward reference: multi-dimension strings give **F722** (syntax error in forward
    annotation) and single names give **F821** (undefined name `b`). jaxtyping's own
    advice is to silence F722 for the project and to write one-dimension shapes with a
    leading space (`" b"`), which pyflakes does not parse:

    ```ini
    # setup.cfg / .flake8
    [flake8]
    extend-ignore = F722
    ```

    ```toml
    # pyproject.toml (ruff)
    [tool.ruff.lint]
    ignore = ["F722"]
    ```

    A per-line `# noqa: F722, F821` works too. torchtype-lint itself never reports on
    a shape string as a name or an expression: it parses it with jaxtyping's grammar, and
    only a string jaxtyping would reject is reported (TTL603).
    """

    code = "TTL601"
    name = "shape-annotation-argument-mismatch"
    summary = "call whose arguments contradict the function's shape annotations"
    listens = (cst.Call,)
    runtime = RuntimeClaim("AssertionError")

    def visit(self, node: cst.Call, ctx: RuleContext) -> None:
        target = _callee_function(node, ctx)
        if target is None:
            return
        fnode, skip_self = target
        bindings = _bind_call(fnode, skip_self, node, ctx)
        if not bindings:
            return
        bound: Dict[str, Any] = {}
        seen: Dict[str, str] = {}  # dim name -> the argument that bound it
        for param, value, arg_node in bindings:
            if param.annotation is None or not isinstance(value, TensorValue):
                continue
            annotation = shape_annotation(param.annotation.annotation, ctx)
            if annotation is None or annotation.error is not None:
                continue
            pname = param.name.value
            arg = _arg_text(arg_node)
            problem = dtype_conflict(annotation, value)
            if problem is not None:
                self.report(node, f"argument `{pname}` of `{fnode.name.value}` is annotated "
                                  f"`{annotation.text}`, but {arg} {problem}", origin=value.origin)
                return
            if value.shape is None or annotation.dims is None:
                continue
            before = dict(bound)
            problem = match_shape(annotation.dims, tuple(value.shape), bound)
            if problem is not None:
                earlier = _earlier_binding(problem, before, seen)
                self.report(node, f"argument `{pname}` of `{fnode.name.value}` is annotated "
                                  f"`{annotation.text}`, but {arg} (shape {describe_shape(value.shape)}) "
                                  f"{problem}{earlier}", origin=value.origin)
                return
            for name in bound:
                seen.setdefault(name, f"`{pname}`")


def _arg_text(node: Any) -> str:
    if node is None:
        return "the argument"
    text = " ".join(expr_text(node).split())
    return f"`{text if len(text) <= 40 else text[:37] + '...'}`"


def _earlier_binding(problem: str, before: Dict[str, Any], seen: Dict[str, str]) -> str:
    for name in before:
        if f"`{name}` is already" in problem and name in seen:
            return f" (bound by {seen[name]})"
    return ""
