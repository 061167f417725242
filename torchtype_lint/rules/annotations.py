"""TTL6xx: jaxtyping annotations read as contracts.

``Float[Tensor, "b c"]`` says two things: the dtype class and a shape in which named
dimensions are bound once per call. The engine infers the shapes and dtypes of arguments
and return values; these rules report where the inferred facts contradict the annotation
(only known ints and known dtype sets, never symbolic dims), and shape strings that
jaxtyping itself rejects when the annotation is evaluated.

The shape-string grammar below mirrors what jaxtyping 0.3.11 accepts and rejects (checked
by running jaxtyping in tests/test_rules_shape_annotations.py).
"""
from __future__ import annotations

import weakref
from dataclasses import dataclass
from typing import Any, Dict, List, Optional, Sequence, Tuple

import libcst as cst

from ..knowledge.annotations import JAXTYPING_DTYPES
from ..values import (
    COMMON_DTYPES, FunctionValue, InstanceValue, SymbolValue, TensorValue, Value, describe_dtypes,
    describe_shape,
)
from .base import Rule, RuntimeClaim, expr_text, register

# --------------------------------------------------------------------------- shape strings


class MalformedShape(ValueError):
    """A shape string jaxtyping rejects; the message says why."""


@dataclass(frozen=True)
class DimSpec:
    """One token of a shape string.

    kind: "fixed" (``28``), "named" (``batch``), "anonymous" (``_``, ``_x``, ``...``) or
    "symbolic" (``dim-1``: an expression jaxtyping evaluates later; never checked here).
    """

    kind: str
    value: Any = None  # the int for "fixed", the name for "named"
    variadic: bool = False
    broadcastable: bool = False


def parse_jaxtyping_shape(spec: str) -> List[DimSpec]:
    """Tokens of a jaxtyping shape string; MalformedShape for what jaxtyping rejects.

    Tokens are separated by whitespace. Prefix modifiers ``#`` (broadcastable), ``*``
    (variadic), ``_`` (anonymous) and ``?`` (tree-path dependent) may each appear once,
    in any order, and ``doc=`` before the real token is documentation.
    """
    dims: List[DimSpec] = []
    variadic_seen = False
    for token in spec.split():
        if "," in token and "(" not in token:  # a call such as min(a,b) may hold commas
            raise MalformedShape("axes must be separated by spaces, not commas")
        if token.endswith("#"):
            raise MalformedShape(f"`{token}`: a broadcastable axis takes `#` in front (`#{token[:-1]}`), "
                                 "not at the end")
        if "..." in token:
            if token != "...":
                raise MalformedShape(f"`{token}`: `...` must stand alone")
            dim = DimSpec("anonymous", None, variadic=True)
        else:
            dim = _parse_token(token)
        if dim.variadic:
            if variadic_seen:
                raise MalformedShape("more than one variadic axis (`*name` or `...`); jaxtyping allows one")
            variadic_seen = True
        dims.append(dim)
    return dims


def _parse_token(token: str) -> DimSpec:
    flags = {"#": False, "*": False, "_": False, "?": False}
    meaning = {"#": "broadcastable", "*": "variadic", "_": "anonymous", "?": "tree-path dependent"}
    body = token
    while body:
        head = body[0]
        if head in flags:
            if flags[head]:
                raise MalformedShape(f"`{token}`: `{head}` used twice (the axis is already {meaning[head]})")
            flags[head] = True
            body = body[1:]
        elif body.count("=") == 1:
            body = body.split("=")[1]  # "rows=3": the name before `=` is documentation
        else:
            break
    broadcastable, variadic, anonymous, treepath = flags["#"], flags["*"], flags["_"], flags["?"]
    if body == "" or body.isidentifier():
        if anonymous:
            if broadcastable:
                raise MalformedShape(f"`{token}`: an axis cannot be both anonymous and broadcastable "
                                     "(`#_` is not allowed)")
            return DimSpec("anonymous", None, variadic=variadic)
        return DimSpec("named", body, variadic=variadic, broadcastable=broadcastable)
    try:
        size = int(body)
    except ValueError:
        if anonymous:
            raise MalformedShape(f"`{token}`: a symbolic axis cannot be anonymous") from None
        if variadic:
            raise MalformedShape(f"`{token}`: a symbolic axis cannot be variadic") from None
        if treepath:
            raise MalformedShape(f"`{token}`: a symbolic axis cannot be tree-path dependent") from None
        return DimSpec("symbolic", body, broadcastable=broadcastable)
    if variadic:
        raise MalformedShape(f"`{token}`: a fixed-size axis cannot be variadic")
    if anonymous:
        raise MalformedShape(f"`{token}`: a fixed-size axis cannot be anonymous")
    if treepath:
        raise MalformedShape(f"`{token}`: a fixed-size axis cannot be tree-path dependent")
    return DimSpec("fixed", size, broadcastable=broadcastable)


# --------------------------------------------------------------------------- annotations


#: jaxtyping dtype classes beyond the engine's table that still take a shape string.
_OTHER_CLASSES = {"Key", "Float8e4m3fn", "Float8e5m2", "Int2", "Int4", "UInt2", "UInt4"}


@dataclass
class JaxAnnotation:
    class_name: str
    spec_node: Any
    spec: str
    dims: Optional[List[DimSpec]]  # None when malformed
    error: Optional[str] = None

    @property
    def dtypes(self) -> Optional[frozenset]:
        return JAXTYPING_DTYPES.get(self.class_name)


def _qualified(node: Any, ev: Any) -> Optional[str]:
    """The qualified name a (dotted) name in an annotation refers to, via the imports."""
    parts: List[str] = []
    while isinstance(node, cst.Attribute):
        parts.append(node.attr.value)
        node = node.value
    if not isinstance(node, cst.Name):
        return None
    head = ev.lookup(node.value)
    if not isinstance(head, SymbolValue):
        return None
    return ".".join([head.qualname] + list(reversed(parts)))


#: Per analysis: names assigned at module level, with the expression assigned (for aliases
#: such as ``Image = Float[Tensor, "c h w"]``).
_MODULE_ASSIGNMENTS: "weakref.WeakKeyDictionary[Any, Dict[str, Any]]" = weakref.WeakKeyDictionary()


def _module_assignments(ev: Any) -> Dict[str, Any]:
    module = getattr(ev, "module", None)
    if module is None:
        return {}
    try:  # keyed by the analysis (libcst nodes cannot be weakly referenced)
        cached = _MODULE_ASSIGNMENTS.get(ev)
    except TypeError:
        return {}
    if cached is not None:
        return cached
    found: Dict[str, Any] = {}
    counts: Dict[str, int] = {}
    for stmt in module.body:
        if not isinstance(stmt, cst.SimpleStatementLine):
            continue
        for small in stmt.body:
            target = value = None
            if isinstance(small, cst.Assign) and len(small.targets) == 1:
                target, value = small.targets[0].target, small.value
            elif isinstance(small, cst.AnnAssign) and small.value is not None:
                target, value = small.target, small.value
            if isinstance(target, cst.Name):
                counts[target.value] = counts.get(target.value, 0) + 1
                found[target.value] = value
    # A name assigned twice could be either value: not an alias we can rely on.
    aliases = {name: value for name, value in found.items() if counts[name] == 1}
    _MODULE_ASSIGNMENTS[ev] = aliases
    return aliases


def _resolve_alias(node: Any, ev: Any, depth: int = 0) -> Any:
    """``Image`` -> the ``Float[Tensor, "c h w"]`` it names (module-level, assigned once)."""
    while isinstance(node, cst.Name) and depth < 4:
        target = _module_assignments(ev).get(node.value)
        if target is None:
            return node
        node, depth = target, depth + 1
    return node


def jaxtyping_annotation(node: Any, ev: Any) -> Optional[JaxAnnotation]:
    """``Float[Tensor, "b c"]`` (any import style, or a module-level alias of one) with its
    parsed shape string."""
    node = _resolve_alias(node, ev)
    if not isinstance(node, cst.Subscript) or len(node.slice) != 2:
        return None
    qual = _qualified(node.value, ev)
    if qual is None or not qual.startswith("jaxtyping."):
        return None
    class_name = qual[len("jaxtyping."):]
    if class_name not in JAXTYPING_DTYPES and class_name not in _OTHER_CLASSES:
        return None
    array_slice = node.slice[0].slice
    if not isinstance(array_slice, cst.Index):
        return None
    array_type = _resolve_alias(array_slice.value, ev)
    if isinstance(array_type, cst.Subscript) and jaxtyping_annotation(array_type, ev) is not None:
        return None  # Float[Image, "b"] prepends dims to Image's: not modelled
    spec_slice = node.slice[1].slice
    if not isinstance(spec_slice, cst.Index) or not isinstance(spec_slice.value, cst.SimpleString):
        return None
    spec_node = spec_slice.value
    try:
        spec = spec_node.evaluated_value
    except Exception:  # noqa: BLE001 - an odd literal is not ours to judge
        return None
    if not isinstance(spec, str) or "{" in spec:
        return None  # f-string style dims ("{size}") are filled in at runtime
    try:
        return JaxAnnotation(class_name, spec_node, spec, parse_jaxtyping_shape(spec))
    except MalformedShape as exc:
        return JaxAnnotation(class_name, spec_node, spec, None, str(exc))


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


# --------------------------------------------------------------------------- binding dims


def match_shape(dims: Sequence[DimSpec], shape: Tuple[Any, ...], bound: Dict[str, Any]) -> Optional[str]:
    """Check a known-rank shape against parsed dims, binding named dims into ``bound``.

    Returns why they disagree (only from known ints), or None. Named dims already in
    ``bound`` must have the same size; a broadcastable dim of size 1 always passes.
    """
    variadic_at = next((i for i, d in enumerate(dims) if d.variadic), None)
    if variadic_at is None:
        if len(shape) != len(dims):
            return f"has {_dims(len(shape))}, the annotation {len(dims)}"
        pairs = list(zip(dims, shape))
    else:
        fixed_count = len(dims) - 1
        if len(shape) < fixed_count:
            return f"has {_dims(len(shape))}, the annotation at least {fixed_count}"
        after = len(dims) - variadic_at - 1
        pairs = list(zip(dims[:variadic_at], shape[:variadic_at]))
        pairs += list(zip(dims[variadic_at + 1:], shape[len(shape) - after:] if after else ()))
        middle = dims[variadic_at]
        if middle.kind == "named" and not middle.broadcastable:
            group = tuple(shape[variadic_at:len(shape) - after])
            known = all(isinstance(d, int) for d in group)
            name = "*" + str(middle.value)
            if known:
                if name in bound and bound[name] != group:
                    return (f"binds `{name}` to {describe_shape(group)} while it is already "
                            f"{describe_shape(bound[name])}")
                bound.setdefault(name, group)
    for position, (dim, actual) in enumerate(pairs):
        if not isinstance(actual, int) or isinstance(actual, bool):
            continue
        if dim.broadcastable and actual == 1:
            continue
        if dim.kind == "fixed" and actual != dim.value:
            return f"has size {actual} where the annotation fixes {dim.value}"
        if dim.kind == "named":
            previous = bound.get(dim.value)
            if isinstance(previous, int) and previous != actual:
                return f"binds `{dim.value}` = {actual} while `{dim.value}` is already {previous}"
            bound.setdefault(dim.value, actual)
    return None


def _dims(n: int) -> str:
    return "1 dimension" if n == 1 else f"{n} dimensions"


def dtype_conflict(annotation: JaxAnnotation, value: TensorValue) -> Optional[str]:
    """Why the value's dtypes break the dtype class, when every possible dtype does."""
    allowed = annotation.dtypes
    if allowed is None or value.dtypes is None or not value.dtypes:
        return None
    if not all(d in COMMON_DTYPES for d in value.dtypes):
        return None  # exotic dtypes (float8, uint16...) are not in our class table
    if any(d in allowed for d in value.dtypes):
        return None
    return f"is {describe_dtypes(value.dtypes)}, not a {annotation.class_name} dtype"


def _callee_function(node: cst.Call, ev: Any) -> Optional[Tuple[cst.FunctionDef, bool]]:
    """(function node, whether the first parameter is self) for calls of functions of the file."""
    value = ev.value(node.func)
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


def _bind_call(fnode: cst.FunctionDef, skip_self: bool, node: cst.Call, ev: Any) -> Optional[List[Tuple[cst.Param, Value, Any]]]:
    """(parameter, argument value, argument node) for the arguments of a call."""
    callee = ev.callee(node)
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


# --------------------------------------------------------------------------- rules


@register
class JaxtypingArgumentMismatch(Rule):
    """
    ## What it does
    Reads jaxtyping annotations (`Float[Tensor, "b c"]`) on the parameters of a function
    of the file as a contract, and flags a call whose arguments, as inferred, break it: a
    named dimension bound to two different sizes across the arguments (`x` of shape
    `(4, 3)` and `y` of shape `(5, 3)` for `"b c"` and `"b c"`), a fixed size or rank that
    differs, or a dtype outside the annotation's class (an int64 tensor for `Float`).

    ## Why is this bad?
    With a runtime checker (`@jaxtyped(typechecker=beartype)`) the call raises
    `TypeCheckError`; without one the annotation is silently wrong, and the function
    computes on shapes its author did not plan for (broadcasting `(4, 1, 3)` against
    `(5, 3)`, for instance). Either way the call and the annotation disagree.

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
    name = "jaxtyping-argument-mismatch"
    summary = "call whose arguments contradict the function's jaxtyping annotations"
    listens = (cst.Call,)
    runtime = RuntimeClaim("AssertionError")

    def visit(self, node: cst.Call, ev: Any) -> None:
        target = _callee_function(node, ev)
        if target is None:
            return
        fnode, skip_self = target
        bindings = _bind_call(fnode, skip_self, node, ev)
        if not bindings:
            return
        bound: Dict[str, Any] = {}
        seen: Dict[str, str] = {}  # dim name -> the argument that bound it
        for param, value, arg_node in bindings:
            if param.annotation is None or not isinstance(value, TensorValue):
                continue
            annotation = jaxtyping_annotation(param.annotation.annotation, ev)
            if annotation is None or annotation.dims is None:
                continue
            pname = param.name.value
            arg = _arg_text(arg_node)
            problem = dtype_conflict(annotation, value)
            if problem is not None:
                self.report(node, f"argument `{pname}` of `{fnode.name.value}` is annotated "
                                  f"`{annotation.class_name}[..., \"{annotation.spec}\"]`, but {arg} {problem}",
                            origin=value.origin)
                return
            if value.shape is None:
                continue
            before = dict(bound)
            problem = match_shape(annotation.dims, tuple(value.shape), bound)
            if problem is not None:
                earlier = _earlier_binding(problem, before, seen)
                self.report(node, f"argument `{pname}` of `{fnode.name.value}` is annotated "
                                  f"\"{annotation.spec}\", but {arg} (shape {describe_shape(value.shape)}) "
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


@register
class JaxtypingReturnMismatch(Rule):
    """
    ## What it does
    Flags a `return` whose inferred value contradicts the function's jaxtyping return
    annotation: a dtype outside the class (`Float[...]` returning an int64 or bool
    tensor), a different rank, a fixed size that differs, or a named dimension whose size
    differs from the one the arguments bound in the same call.

    ## Why is this bad?
    Callers rely on the annotation; with a runtime checker the function raises
    `TypeCheckError ... whilst checking the return value`, without one the wrong shape
    travels on (a reduction over the wrong dimension, a lost `keepdim`, a comparison
    returned instead of a score).

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
    name = "jaxtyping-return-mismatch"
    summary = "returned tensor contradicts the function's jaxtyping return annotation"
    listens = (cst.Return,)
    runtime = RuntimeClaim("AssertionError")

    def visit(self, node: cst.Return, ev: Any) -> None:
        frame = getattr(ev, "frame", None)
        fn = getattr(frame, "function", None)
        fnode = getattr(fn, "node", None)
        if not isinstance(fnode, cst.FunctionDef) or fnode.returns is None or node.value is None:
            return
        annotation = jaxtyping_annotation(fnode.returns.annotation, ev)
        if annotation is None or annotation.dims is None:
            return
        value = ev.value(node.value)
        if not isinstance(value, TensorValue):
            return
        problem = dtype_conflict(annotation, value)
        if problem is None and value.shape is not None:
            bound = _parameter_bindings(fnode, ev)
            problem = match_shape(annotation.dims, tuple(value.shape), bound)
            if problem is not None:
                problem = f"(shape {describe_shape(value.shape)}) {problem}"
        if problem is None:
            return
        self.report(node, f"`{fnode.name.value}` is annotated to return "
                          f"`{annotation.class_name}[..., \"{annotation.spec}\"]`, but "
                          f"`{_short(node.value)}` {problem}", origin=value.origin)


def _short(node: Any) -> str:
    text = " ".join(expr_text(node).split())
    return text if len(text) <= 40 else text[:37] + "..."


def _parameter_bindings(fnode: cst.FunctionDef, ev: Any) -> Dict[str, Any]:
    """Named dims bound by the parameters' values in the current activation."""
    bound: Dict[str, Any] = {}
    params = list(fnode.params.posonly_params) + list(fnode.params.params) + list(fnode.params.kwonly_params)
    for param in params:
        if param.annotation is None:
            continue
        annotation = jaxtyping_annotation(param.annotation.annotation, ev)
        value = ev.value(param.name)
        if annotation is None or annotation.dims is None or not isinstance(value, TensorValue) \
                or value.shape is None:
            continue
        trial = dict(bound)
        if match_shape(annotation.dims, tuple(value.shape), trial) is None:
            bound = trial  # a contradicting argument is TTL601's finding; it binds nothing here
    return bound


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

    def visit(self, node: Any, ev: Any) -> None:
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
            annotation = jaxtyping_annotation(subscript, ev)
            if annotation is None or annotation.error is None:
                continue
            self.report(annotation.spec_node, f"jaxtyping rejects the shape string \"{annotation.spec}\": "
                                              f"{annotation.error}")

