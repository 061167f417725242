"""Source text for messages and the small libcst nodes fixes are built from."""
from __future__ import annotations

from typing import Any, Optional

import libcst as cst

_EMPTY = cst.Module(body=[])


def code(node: Any, limit: int = 60) -> str:
    """Short source text of a node, for messages."""
    try:
        text = " ".join(_EMPTY.code_for_node(node).split())
    except Exception:  # noqa: BLE001 - messages never crash a rule
        return "?"
    return text if len(text) <= limit else text[: limit - 3] + "..."


def torch_module_expr(func: Any) -> Optional[Any]:
    """For ``torch.tensor`` / ``th.from_numpy`` the expression naming torch (``torch``/``th``)."""
    if isinstance(func, cst.Attribute):
        return func.value
    return None


def dtype_attr(module_expr: Any, dtype: str) -> cst.Attribute:
    """``<module_expr>.<dtype>`` as a node (``torch.float32``)."""
    return cst.Attribute(value=module_expr, attr=cst.Name(dtype))


def method_call(receiver: Any, method: str) -> cst.Call:
    """``receiver.method()`` as a node."""
    return cst.Call(func=cst.Attribute(value=receiver, attr=cst.Name(method)))


def paren(node: Any) -> Any:
    """``node`` wrapped in parentheses when a method call on it would bind wrongly."""
    if isinstance(node, (cst.Name, cst.Attribute, cst.Call, cst.Subscript)) or node.lpar:
        return node
    return node.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])


_CAST_FOR = {"float32": "float", "float64": "double", "float16": "half", "bfloat16": "bfloat16",
             "int64": "long", "int32": "int", "bool": "bool", "uint8": "byte"}


def castable(dtype: Optional[str]) -> bool:
    """A dtype with a cast method (`.float()`, `.long()`...) that fixes can write."""
    return dtype in _CAST_FOR


def cast_expr(node: Any, dtype: str) -> cst.Call:
    """``node.float()`` (or the cast method for ``dtype``) as a node."""
    return method_call(paren(node), _CAST_FOR[dtype])


def cast_text(text: str, dtype: str) -> str:
    method = _CAST_FOR.get(dtype)
    return f"{text}.{method}()" if method else f"{text}.to(torch.{dtype})"
