"""jaxtyping shape strings parsed into dims, and the strings jaxtyping rejects.

The shape-string grammar below mirrors what jaxtyping 0.3.11 accepts and rejects (checked
by running jaxtyping in tests/test_rules_shape.py).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, List


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
