"""Render known values as Python source, never by copying the user's text.

A reproduction may contain the *value* of a literal the user wrote (``3``, ``(2, 3)``,
``"mean"``), rendered here from the evaluated value, and the operators of the reported
expression, written from a fixed table keyed by libcst's operator class. Whatever the user's
source looked like (comments inside an expression, odd spacing, a call disguised as a literal),
only these renderings reach the snippet.
"""
from __future__ import annotations

import ast
import math
from typing import Any, Dict, Optional, Type

import libcst as cst

#: Longest string or bytes constant, longest sequence, and most digits rendered.
MAX_STRING = 200
MAX_ITEMS = 64
MAX_DIGITS = 40
#: How deep tuples and lists may nest.
MAX_DEPTH = 4


class Unrenderable(Exception):
    """A value that has no safe rendering (an object, a huge constant, ...)."""


def render(value: Any, depth: int = 0) -> str:
    """Python source for ``value``: bool, int, float, complex, str, bytes, None and
    tuples/lists of them; anything else raises ``Unrenderable``."""
    if value is None or isinstance(value, bool):
        return repr(value)
    if isinstance(value, int):
        if abs(value) >= 10 ** MAX_DIGITS:
            raise Unrenderable("integer too large")
        return repr(int(value))  # int(...) drops a subclass's __repr__
    if isinstance(value, float):
        return _float(float(value))
    if isinstance(value, complex):
        return f"complex({_float(value.real)}, {_float(value.imag)})"
    if isinstance(value, (str, bytes)):
        if len(value) > MAX_STRING:
            raise Unrenderable("string too long")
        return repr(str(value) if isinstance(value, str) else bytes(value))
    if isinstance(value, (tuple, list)) and depth < MAX_DEPTH:
        if len(value) > MAX_ITEMS:
            raise Unrenderable("sequence too long")
        items = [render(v, depth + 1) for v in value]
        if isinstance(value, tuple):
            return "(" + ", ".join(items) + ("," if len(items) == 1 else "") + ")"
        return "[" + ", ".join(items) + "]"
    raise Unrenderable(f"cannot render a {type(value).__name__}")


def _float(value: float) -> str:
    if math.isnan(value):
        return 'float("nan")'
    if math.isinf(value):
        return 'float("inf")' if value > 0 else '-float("inf")'
    return repr(value)


#: libcst node types a literal may consist of (checked before evaluating its text).
_LITERAL_NODES = (cst.Integer, cst.Float, cst.Imaginary, cst.SimpleString, cst.Name,
                  cst.UnaryOperation, cst.List, cst.Tuple, cst.Element, cst.Minus, cst.Plus,
                  cst.ConcatenatedString)


def literal_value(node: Any, module: cst.Module) -> Any:
    """The value of a literal expression (numbers, strings, True/False/None, tuples/lists of
    them), evaluated with ``ast.literal_eval``; ``Unrenderable`` for anything else."""
    if not _is_literal(node):
        raise Unrenderable("not a literal")
    text = module.code_for_node(node)
    try:
        # literal_eval evaluates no names, calls or attributes; the text was checked above.
        return ast.literal_eval("(" + text.strip() + "\n)")
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        raise Unrenderable("not a literal") from None


def _is_literal(node: Any) -> bool:
    if isinstance(node, (cst.Integer, cst.Float, cst.Imaginary, cst.SimpleString)):
        return True
    if isinstance(node, cst.ConcatenatedString):
        return _is_literal(node.left) and _is_literal(node.right)
    if isinstance(node, cst.Name):
        return node.value in ("True", "False", "None")
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, (cst.Minus, cst.Plus)):
        return isinstance(node.expression, (cst.Integer, cst.Float, cst.Imaginary))
    if isinstance(node, (cst.List, cst.Tuple)):
        return all(isinstance(e, cst.Element) and _is_literal(e.value) for e in node.elements)
    return False


def is_literal(node: Any) -> bool:
    """Whether ``node`` is a literal ``literal_value`` can evaluate."""
    return node is not None and _is_literal(node)


#: Operators by libcst class: binary, augmented, unary and comparison.
OPERATORS: Dict[Type[Any], str] = {
    cst.Add: "+", cst.Subtract: "-", cst.Multiply: "*", cst.Divide: "/",
    cst.FloorDivide: "//", cst.Modulo: "%", cst.Power: "**", cst.MatrixMultiply: "@",
    cst.LeftShift: "<<", cst.RightShift: ">>", cst.BitAnd: "&", cst.BitOr: "|", cst.BitXor: "^",
    cst.AddAssign: "+=", cst.SubtractAssign: "-=", cst.MultiplyAssign: "*=",
    cst.DivideAssign: "/=", cst.FloorDivideAssign: "//=", cst.ModuloAssign: "%=",
    cst.PowerAssign: "**=", cst.MatrixMultiplyAssign: "@=", cst.LeftShiftAssign: "<<=",
    cst.RightShiftAssign: ">>=", cst.BitAndAssign: "&=", cst.BitOrAssign: "|=",
    cst.BitXorAssign: "^=",
    cst.Minus: "-", cst.Plus: "+", cst.BitInvert: "~", cst.Not: "not ",
    cst.Equal: "==", cst.NotEqual: "!=", cst.LessThan: "<", cst.LessThanEqual: "<=",
    cst.GreaterThan: ">", cst.GreaterThanEqual: ">=", cst.Is: "is", cst.IsNot: "is not",
    cst.In: "in", cst.NotIn: "not in",
}


def operator(op: Any) -> str:
    """The source of a libcst operator node, from ``OPERATORS``; ``Unrenderable`` otherwise."""
    text: Optional[str] = OPERATORS.get(type(op))
    if text is None:
        raise Unrenderable(f"operator {type(op).__name__}")
    return text
