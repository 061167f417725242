"""The shape annotations users write, in the three dialects we read, as one set of facts.

* jaxtyping: ``Float[Tensor, "b c"]`` (a dtype class and a shape string, see
  ``jaxtyping_shapes``), also inside ``Annotated[...]``;
* TorchShapeFlow: ``Annotated[torch.Tensor, Shape("B", 3, 32, 32)]``, each ``Shape`` argument a
  str (a named dim) or an int (a fixed size), and, in a file that imports torchshapeflow, the
  string shorthand ``Annotated[torch.Tensor, "B 3 H W"]``. It says nothing about dtypes;
* torchtyping: ``TensorType["batch", 3, torch.float32]``: a str names a dim, an int fixes it
  (-1: any size), ``None`` and ``Any`` are any size, ``"name": 3`` a named fixed size, ``...``
  and ``"name": ...`` any number of dims, ``()`` a 0-d tensor; a torch dtype, or ``int``
  (int64), ``bool``, ``float`` (the default dtype) restricts the dtype (torchtyping 0.1.5,
  ``TensorType.__class_getitem__``).

The annotations are read from the syntax only, and only when their names resolve, through the
file's imports, to those packages (a class of the file named ``Shape`` is not TorchShapeFlow's);
nothing here imports them. Each reads as a ``ShapeAnnotation``: its dims as jaxtyping's
``DimSpec`` (so the TTL6xx rules match every dialect the same way) and the dtypes it admits.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Dict, FrozenSet, List, Mapping, Optional, Tuple

import libcst as cst

from ..model.values import BOOL, DTYPE_FAMILIES, FLOAT32, INT64
from .annotations import JAXTYPING_DTYPES
from .dtypes import TORCH_DTYPE_ATTRS
from .jaxtyping_shapes import DimSpec, ShapeSpecError, parse_jaxtyping_shape

JAXTYPING = "jaxtyping"
TORCHSHAPEFLOW = "TorchShapeFlow"
TORCHTYPING = "torchtyping"

ANNOTATED_NAMES = frozenset({"typing.Annotated", "typing_extensions.Annotated"})
TORCHSHAPEFLOW_SHAPE_NAMES = frozenset({"torchshapeflow.Shape", "torchshapeflow.annotations.Shape"})
TORCHTYPING_NAMES = frozenset({"torchtyping.TensorType", "torchtyping.tensor_type.TensorType"})
#: The array type the annotations must name for us to read them as torch tensors.
TENSOR_NAMES = frozenset({"torch.Tensor"})
#: jaxtyping dtype classes beyond the dtype table that still take a shape string.
JAXTYPING_OTHER_CLASSES = frozenset({"Key", "Float8e4m3fn", "Float8e5m2", "Int2", "Int4", "UInt2", "UInt4"})

#: How long a shown annotation may be before it is shortened in messages.
_TEXT_LIMIT = 60


@dataclass(frozen=True)
class ShapeAnnotation:
    """One annotation read as a contract on a tensor.

    ``dims`` is None when the shape is not known from the syntax (a shape string filled in at
    runtime, or one jaxtyping rejects: ``error`` then says why). ``dtypes`` None admits any
    dtype; ``dtype_label`` names what it admits (``Float``, ``torch.float32``).
    """

    dialect: str
    text: str
    dims: Optional[Tuple[DimSpec, ...]]
    dtypes: Optional[FrozenSet[str]] = None
    dtype_label: str = ""
    spec: str = ""  # the shape as written (jaxtyping's string, or the dims joined)
    spec_node: Any = None  # where a string jaxtyping rejects is reported
    error: Optional[str] = None


@dataclass(frozen=True)
class AnnotationScope:
    """What reading an annotation needs from its file: the qualified name a (dotted) name
    refers to through the imports, the module-level aliases (``Image = Float[...]``), whether
    torchshapeflow is imported (for its string shorthand) and torch's default float dtype."""

    qualname: Callable[[Any], Optional[str]]
    aliases: Mapping[str, Any]
    imports_torchshapeflow: bool = False
    default_float: str = FLOAT32


def module_aliases(module: cst.Module) -> Dict[str, Any]:
    """Names assigned exactly once at module level, with the expression assigned (a name
    assigned twice could hold either value: not an alias to rely on)."""
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
    return {name: value for name, value in found.items() if counts[name] == 1}


def imports_torchshapeflow(module: cst.Module) -> bool:
    """Whether the module imports torchshapeflow (at top level or under a top-level ``if``,
    such as ``if TYPE_CHECKING:``)."""
    statements: List[Any] = list(module.body)
    while statements:
        stmt = statements.pop()
        if isinstance(stmt, cst.If):
            statements.extend(stmt.body.body if isinstance(stmt.body, cst.IndentedBlock) else ())
            continue
        if not isinstance(stmt, cst.SimpleStatementLine):
            continue
        for small in stmt.body:
            if isinstance(small, cst.Import) and any(
                    _dotted(alias.name).split(".")[0] == "torchshapeflow" for alias in small.names):
                return True
            if isinstance(small, cst.ImportFrom) and small.module is not None and not small.relative \
                    and _dotted(small.module).split(".")[0] == "torchshapeflow":
                return True
    return False


#: How deep ``Annotated[Annotated[...], ...]`` is followed (an alias may even name itself).
MAX_NESTING = 8


def read_shape_annotation(node: Any, scope: AnnotationScope, depth: int = 0) -> Optional[ShapeAnnotation]:
    """The shape annotation ``node`` is, in any dialect (through module-level aliases), or
    None when it is none we read."""
    node = resolve_alias(node, scope)
    if depth > MAX_NESTING:
        return None
    if not isinstance(node, cst.Subscript):
        return None
    qual = scope.qualname(node.value)
    if qual is None:
        return None
    if qual in ANNOTATED_NAMES:
        return _annotated(node, scope, depth)
    if qual.startswith("jaxtyping."):
        return _jaxtyping(node, qual[len("jaxtyping."):], scope)
    if qual in TORCHTYPING_NAMES:
        return _torchtyping(node, scope)
    return None


def annotated_base(node: Any, scope: AnnotationScope) -> Optional[Any]:
    """``X`` for ``Annotated[X, ...]`` (the type the metadata decorates), else None."""
    node = resolve_alias(node, scope)
    if isinstance(node, cst.Subscript) and node.slice and isinstance(node.slice[0].slice, cst.Index) \
            and scope.qualname(node.value) in ANNOTATED_NAMES:
        return node.slice[0].slice.value
    return None


def resolve_alias(node: Any, scope: AnnotationScope) -> Any:
    """``Image`` -> the ``Float[Tensor, "c h w"]`` it names (module-level, assigned once)."""
    for _ in range(4):  # alias chains are short; a cycle must not loop
        if not isinstance(node, cst.Name) or node.value not in scope.aliases:
            break
        node = scope.aliases[node.value]
    return node


# ------------------------------------------------------------------ Annotated / TorchShapeFlow

def _annotated(node: cst.Subscript, scope: AnnotationScope, depth: int) -> Optional[ShapeAnnotation]:
    """``Annotated[torch.Tensor, Shape(...)]`` is TorchShapeFlow's; any other ``Annotated[X,
    ...]`` is read as ``X`` (``Annotated[Float[Tensor, "b c"], "doc"]``)."""
    parts = [element.slice.value for element in node.slice if isinstance(element.slice, cst.Index)]
    if len(parts) != len(node.slice) or len(parts) < 2:
        return None
    base, metadata = parts[0], parts[1:]
    if scope.qualname(resolve_alias(base, scope)) in TENSOR_NAMES:
        for item in metadata:
            found = _torchshapeflow(item, node, scope)
            if found is not None:
                return found
        return None
    return read_shape_annotation(base, scope, depth + 1)


def _torchshapeflow(item: Any, whole: cst.Subscript, scope: AnnotationScope) -> Optional[ShapeAnnotation]:
    if isinstance(item, cst.Call) and scope.qualname(item.func) in TORCHSHAPEFLOW_SHAPE_NAMES:
        dims: List[DimSpec] = []
        for arg in item.args:
            if arg.keyword is not None or arg.star:
                return None  # Shape takes its dims positionally
            literal = _literal(arg.value)
            if isinstance(literal, bool) or not isinstance(literal, (int, str)):
                return None  # a dim computed at runtime: the shape is not known here
            dims.append(_tsf_dim(literal))
        return _make(TORCHSHAPEFLOW, whole, dims, spec=" ".join(d.token for d in dims))
    if isinstance(item, cst.SimpleString) and scope.imports_torchshapeflow:
        text = item.evaluated_value
        if not isinstance(text, str):
            return None
        dims = []
        for token in text.split():
            try:
                dims.append(_tsf_dim(int(token)))
            except ValueError:
                if not token.isidentifier():
                    return None  # not a dim TorchShapeFlow documents: not guessed
                dims.append(_tsf_dim(token))
        return _make(TORCHSHAPEFLOW, whole, dims, spec=text)
    return None


def _tsf_dim(value: Any) -> DimSpec:
    """A ``Shape`` argument: an int is a fixed size, a name a named dim, any other str (such
    as ``"2*D"``) a size computed from others, never checked."""
    if isinstance(value, int):
        return DimSpec("fixed", value, token=str(value)) if value >= 0 else DimSpec("anonymous", token=str(value))
    if value.isidentifier():
        return DimSpec("named", value, token=value)
    return DimSpec("symbolic", value, token=value)


# ------------------------------------------------------------------ jaxtyping

def _jaxtyping(node: cst.Subscript, class_name: str, scope: AnnotationScope) -> Optional[ShapeAnnotation]:
    if class_name not in JAXTYPING_DTYPES and class_name not in JAXTYPING_OTHER_CLASSES:
        return None
    if len(node.slice) != 2 or not all(isinstance(e.slice, cst.Index) for e in node.slice):
        return None
    array_type = resolve_alias(node.slice[0].slice.value, scope)
    if isinstance(array_type, cst.Subscript) or scope.qualname(array_type) not in TENSOR_NAMES:
        return None  # Float[Image, "b"] prepends dims to Image's (not modelled); numpy, jax arrays
    dtypes = JAXTYPING_DTYPES.get(class_name)
    spec_node = node.slice[1].slice.value
    spec = _literal(spec_node)
    text = f"{class_name}[Tensor, \"{spec}\"]" if isinstance(spec, str) else f"{class_name}[Tensor, ...]"
    if not isinstance(spec, str) or "{" in spec:
        # The shape is filled in at runtime ("{size}" dims, a variable): only the dtype is known.
        return ShapeAnnotation(JAXTYPING, text, None, dtypes, class_name)
    try:
        dims = tuple(parse_jaxtyping_shape(spec))
    except ShapeSpecError as exc:
        return ShapeAnnotation(JAXTYPING, text, None, dtypes, class_name, spec, spec_node, str(exc))
    return ShapeAnnotation(JAXTYPING, text, dims, dtypes, class_name, spec, spec_node)


# ------------------------------------------------------------------ torchtyping

def _torchtyping(node: cst.Subscript, scope: AnnotationScope) -> Optional[ShapeAnnotation]:
    dims: List[DimSpec] = []
    dtypes: Optional[FrozenSet[str]] = None
    label = ""
    scalar = False
    for element in node.slice:
        part = element.slice
        if isinstance(part, cst.Slice):  # "name": size or "name": ...
            name = _literal(part.lower) if part.lower is not None else None
            if part.step is not None or not isinstance(name, str):
                return None
            if isinstance(part.upper, cst.Ellipsis):
                dims.append(DimSpec("named", name, variadic=True, token=f"{name}: ..."))
                continue
            size = _literal(part.upper)
            if isinstance(size, bool) or not isinstance(size, int):
                return None
            dims.append(DimSpec("fixed", size, token=f"{name}: {size}") if size >= 0
                        else DimSpec("named", name, token=name))
            continue
        value_node = part.value
        if isinstance(value_node, cst.Ellipsis):
            dims.append(DimSpec("anonymous", variadic=True, token="..."))
            continue
        if isinstance(value_node, cst.Tuple) and not value_node.elements:
            scalar = True  # TensorType[()]: a 0-d tensor
            continue
        literal = _literal(value_node)
        if isinstance(literal, str):
            dims.append(DimSpec("named", literal, token=literal))
            continue
        if isinstance(literal, int) and not isinstance(literal, bool):
            dims.append(DimSpec("fixed", literal, token=str(literal)) if literal >= 0
                        else DimSpec("anonymous", token=str(literal)))
            continue
        if isinstance(value_node, cst.Name) and value_node.value == "None":
            dims.append(DimSpec("anonymous", token="None"))
            continue
        qual = scope.qualname(value_node)
        if qual == "typing.Any":
            dims.append(DimSpec("anonymous", token="Any"))
        elif qual is not None and qual.startswith("torch.") and qual[6:] in TORCH_DTYPE_ATTRS:
            dtypes, label = frozenset({TORCH_DTYPE_ATTRS[qual[6:]]}), qual
        elif qual in ("builtins.int", "builtins.bool", "builtins.float"):
            py = qual[len("builtins."):]
            dtypes = frozenset({{"int": INT64, "bool": BOOL, "float": scope.default_float}[py]})
            label = py
        elif qual is not None and qual.startswith("torchtyping.") and qual.endswith("is_float"):
            dtypes, label = DTYPE_FAMILIES["float"], "is_float"
        # Layouts, is_named and other details say nothing about dtype or shape.
    if scalar and dims:
        return None  # torchtyping rejects a 0-d marker among dims
    variadics = sum(1 for d in dims if d.variadic)
    known = () if scalar else (tuple(dims) if dims and variadics <= 1 else None)
    return _make(TORCHTYPING, node, known, dtypes, label, " ".join(d.token for d in dims))


# ------------------------------------------------------------------ helpers

def _make(dialect: str, node: Any, dims: Any, dtypes: Optional[FrozenSet[str]] = None,
          label: str = "", spec: str = "") -> ShapeAnnotation:
    return ShapeAnnotation(dialect, _code(node), tuple(dims) if dims is not None else None,
                           dtypes, label, spec)


def _code(node: Any) -> str:
    """The annotation as written, on one line, shortened for messages."""
    text = " ".join(cst.Module([]).code_for_node(node).split())
    return text if len(text) <= _TEXT_LIMIT else text[:_TEXT_LIMIT - 3] + "..."


def _literal(node: Any) -> Any:
    """An int or str literal's value (``-1`` included), else None."""
    if isinstance(node, cst.Integer):
        try:
            return int(node.value, 0)  # "1_000" and "0x10" as Python reads them
        except ValueError:
            return None
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus) \
            and isinstance(node.expression, cst.Integer):
        inner = _literal(node.expression)
        return -inner if isinstance(inner, int) else None
    if isinstance(node, cst.SimpleString):
        try:
            value = node.evaluated_value
        except Exception:  # noqa: BLE001 - an odd literal is not ours to judge
            return None
        return value if isinstance(value, str) else None
    return None


def _dotted(node: Any) -> str:
    parts: List[str] = []
    while isinstance(node, cst.Attribute):
        parts.append(node.attr.value)
        node = node.value
    return ".".join([node.value if isinstance(node, cst.Name) else ""] + list(reversed(parts)))
