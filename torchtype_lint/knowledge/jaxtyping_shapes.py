"""jaxtyping's shape-string grammar: the dims of ``Float[Tensor, "*batch #c 3 rows=4 _ n-1"]``.

What jaxtyping 0.3.11 accepts and rejects when the annotation is built (checked by running
jaxtyping on the same strings in tests/test_jaxtyping_shapes.py and tests/test_rules_shape.py):

* dims are separated by whitespace; a comma outside brackets is an error (``min(a,b)`` is fine);
* each dim may start with the modifiers ``#`` (broadcastable: size 1 also matches), ``*``
  (variadic: any number of dims), ``_`` (anonymous: not bound to a name) and ``?`` (tree-path
  dependent), each at most once, in any order; ``doc=`` with exactly one ``=`` may stand
  among them and is documentation only (``rows=3`` is the fixed dim ``3``);
* what is left is a name (or nothing: ``_``, ``*``), an integer (``int()`` reads it: ``3``,
  ``-1``, ``1_000``), or else an expression jaxtyping evaluates at call time (``n-1``);
* ``...`` stands alone and is an anonymous variadic dim; one variadic dim at most.

The engine reads the dims as a shape (``knowledge/annotations.parse_shape_string``) and the
TTL6xx rules match them against inferred shapes and report the rejected strings.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Dict, List, Tuple


class ShapeSpecError(ValueError):
    """A shape string jaxtyping rejects; the message says why."""


@dataclass(frozen=True)
class DimSpec:
    """One dim of a shape string.

    kind: "fixed" (``28``), "named" (``batch``), "anonymous" (``_``, ``_x``, ``...``) or
    "symbolic" (``dim-1``: an expression jaxtyping evaluates later; never checked here).
    """

    kind: str
    value: Any = None  # the int for "fixed", the name for "named", the text for "symbolic"
    variadic: bool = False
    broadcastable: bool = False
    treepath: bool = False
    token: str = field(default="", compare=False)  # as written in the string


_MODIFIERS: Dict[str, str] = {"#": "broadcastable", "*": "variadic", "_": "anonymous", "?": "tree-path dependent"}


def parse_jaxtyping_shape(spec: str) -> List[DimSpec]:
    """The dims of a jaxtyping shape string, in order; ShapeSpecError for what jaxtyping rejects."""
    dims: List[DimSpec] = []
    variadic_seen = False
    for token in spec.split():
        if "," in token and "(" not in token:  # a call such as min(a,b) may hold commas
            raise ShapeSpecError("axes must be separated by spaces, not commas")
        if token.endswith("#"):
            raise ShapeSpecError(f"`{token}`: a broadcastable axis takes `#` in front (`#{token[:-1]}`), "
                                 "not at the end")
        if "..." in token:
            if token != "...":
                raise ShapeSpecError(f"`{token}`: `...` must stand alone")
            dim = DimSpec("anonymous", variadic=True, token=token)
        else:
            dim = _parse_dim(token)
        if dim.variadic:
            if variadic_seen:
                raise ShapeSpecError("more than one variadic axis (`*name` or `...`); jaxtyping allows one")
            variadic_seen = True
        dims.append(dim)
    return dims


def _modifiers(token: str) -> Tuple[str, str]:
    """(the modifiers in front of the dim, what is left), dropping one ``doc=`` among them."""
    seen = ""
    body = token
    while body:
        if body[0] in _MODIFIERS:
            if body[0] in seen:
                raise ShapeSpecError(f"`{token}`: `{body[0]}` used twice (the axis is already "
                                     f"{_MODIFIERS[body[0]]})")
            seen, body = seen + body[0], body[1:]
        elif body.count("=") == 1:  # "a=b=c" has two: an expression, not documentation
            body = body.split("=")[1]
        else:
            break
    return seen, body


def _parse_dim(token: str) -> DimSpec:
    seen, body = _modifiers(token)
    broadcastable, variadic, anonymous, treepath = ("#" in seen, "*" in seen, "_" in seen, "?" in seen)
    if body == "" or body.isidentifier():
        if not anonymous:
            return DimSpec("named", body, variadic, broadcastable, treepath, token)
        if broadcastable:
            raise ShapeSpecError(f"`{token}`: an axis cannot be both anonymous and broadcastable "
                                 "(`#_` is not allowed)")
        return DimSpec("anonymous", None, variadic, token=token)
    try:
        size = int(body)  # as jaxtyping reads it: "-1", "+2" and "1_000" are sizes too
    except ValueError:
        for flag, what in ((anonymous, "anonymous"), (variadic, "variadic"), (treepath, "tree-path dependent")):
            if flag:
                raise ShapeSpecError(f"`{token}`: a symbolic axis cannot be {what}") from None
        return DimSpec("symbolic", body, broadcastable=broadcastable, token=token)
    for flag, what in ((variadic, "variadic"), (anonymous, "anonymous"), (treepath, "tree-path dependent")):
        if flag:
            raise ShapeSpecError(f"`{token}`: a fixed-size axis cannot be {what}")
    return DimSpec("fixed", size, broadcastable=broadcastable, token=token)
