"""TTL603 jaxtyping-malformed-shape: jaxtyping shape string that jaxtyping rejects."""
from __future__ import annotations

from typing import Any, List

import libcst as cst

from ..base import Rule, RuntimeClaim, register
from ...knowledge.shape_dialects import JAXTYPING
from .shape_annotations import shape_annotation
from ..context import RuleContext


def _annotation_nodes(fnode: cst.FunctionDef) -> List[Any]:
    params = fnode.params
    out = [p.annotation.annotation for p in list(params.posonly_params) + list(params.params)
           + list(params.kwonly_params) if p.annotation is not None]
    for star in (params.star_arg, params.star_kwarg):
        if isinstance(star, cst.Param) and star.annotation is not None:
            out.append(star.annotation.annotation)
    if fnode.returns is not None:
        out.append(fnode.returns.annotation)
    return out


class _SubscriptCollector(cst.CSTVisitor):
    def __init__(self) -> None:
        self.found: List[cst.Subscript] = []

    def visit_Subscript(self, node: cst.Subscript) -> None:
        self.found.append(node)


#: Annotation nodes walked by hand in ``_subscripts``; anything else goes to libcst's visitor.
_LEAVES = (cst.Name, cst.Attribute, cst.SimpleString, cst.ConcatenatedString, cst.Ellipsis, cst.Integer)


def _subscripts(node: Any) -> List[cst.Subscript]:
    """Every ``Subscript`` in an annotation, outermost first. Annotations are tiny trees
    (`Tensor`, `Optional[int]`), for which libcst's generic visitor costs far more than the
    walk itself (it was about a tenth of the analysis of torch/nn), so the usual shapes are
    walked directly."""
    found: List[cst.Subscript] = []
    stack = [node]
    while stack:
        item = stack.pop()
        if isinstance(item, _LEAVES):
            continue
        if isinstance(item, cst.Subscript):
            found.append(item)
            inner = [element.slice.value for element in item.slice if isinstance(element.slice, cst.Index)]
            if len(inner) != len(item.slice):  # a slice `a:b` inside: rare, let libcst walk it
                collector = _SubscriptCollector()
                for element in item.slice:
                    element.visit(collector)
                found.extend(collector.found)
            else:
                stack.extend(reversed(inner))
            stack.append(item.value)
        elif isinstance(item, cst.BinaryOperation):  # X | Y
            stack.extend((item.right, item.left))
        elif isinstance(item, (cst.Tuple, cst.List)):
            stack.extend(reversed([element.value for element in item.elements]))
        else:
            collector = _SubscriptCollector()
            item.visit(collector)
            found.extend(collector.found)
    return found


@register
class JaxtypingMalformedShape(Rule):
    """
    ## What it does
    Flags a jaxtyping shape string that jaxtyping rejects when the annotation is
    evaluated (at import time for a function's annotations): dimensions separated by
    commas (`"b, c"`), two variadic dimensions (`"*batch *channels"`, `"... *x"`),
    `#_`, doubled modifiers (`"##b"`, `"**b"`, `"__b"`), variadic, anonymous or
    tree-path fixed sizes (`"*4"`, `"_4"`, `"?4"`), the old trailing `#` (`"b#"`),
    `...` glued to a name, and anonymous or variadic symbolic sizes (`"_n+1"`, `"*n+1"`).
    The message gives jaxtyping's reason.

    ## Why is this bad?
    Importing the module raises `ValueError` (for example `Axes should be separated with
    spaces, not commas`), so nothing in it can be used. Strings that jaxtyping accepts,
    including symbolic sizes such as `"dim-1"` and documentation names such as
    `"rows=3"`, are never reported.

    ## Example
    ```python
    def f(x: Float[Tensor, "batch, channels"]) -> Float[Tensor, "batch"]: ...
    ```

    ## Use instead
    ```python
    def f(x: Float[Tensor, "batch channels"]) -> Float[Tensor, "batch"]: ...
    ```

    ## Fix safety
    No fix (for commas, the intended spelling is usually obvious; it is still left to you).

    ## See also
    pyflakes' F722/F821 on valid shape strings are a different matter: see TTL601 for how
    to silence them.
    """

    code = "TTL603"
    name = "jaxtyping-malformed-shape"
    summary = "jaxtyping shape string that jaxtyping rejects"
    listens = (cst.Subscript, cst.FunctionDef, cst.ClassDef, cst.AnnAssign)
    runtime = RuntimeClaim(
        "ValueError",
        r"Axes should be separated with spaces, not commas|Cannot use variadic specifiers|"
        r"Cannot have |Do not use [#*_?] twice|must be used on its own|broadcastable axes are now denoted")

    def visit(self, node: Any, ctx: RuleContext) -> None:
        if isinstance(node, cst.Subscript):
            candidates = [node]
        elif isinstance(node, cst.FunctionDef):
            candidates = [s for a in _annotation_nodes(node) for s in _subscripts(a)]
        elif isinstance(node, cst.AnnAssign):
            candidates = _subscripts(node.annotation.annotation)
        else:
            candidates = []
            body = node.body.body if isinstance(node.body, cst.IndentedBlock) else ()
            for item in body:
                if isinstance(item, cst.FunctionDef):
                    candidates += [s for a in _annotation_nodes(item) for s in _subscripts(a)]
                elif isinstance(item, cst.SimpleStatementLine):
                    for small in item.body:
                        if isinstance(small, cst.AnnAssign):
                            candidates += _subscripts(small.annotation.annotation)
        for subscript in candidates:
            annotation = shape_annotation(subscript, ctx)
            if annotation is None or annotation.dialect != JAXTYPING or annotation.error is None:
                continue
            self.report(annotation.spec_node, f"jaxtyping rejects the shape string \"{annotation.spec}\": "
                                              f"{annotation.error}")
