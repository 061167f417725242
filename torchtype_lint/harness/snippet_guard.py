"""The last gate before a reproduction runs: verify the snippet with Python's ``ast``.

Why: ``check --confirm`` runs each reproduction in a torch worker, and CI runs the linter on
untrusted pull requests. The synthesizers build reproductions only from inferred values, but a
bug in any of them (or in a rule's own ``reproduce`` hook) could still let user-written text
through, and through ``torch.os``, ``torch.builtins`` or a lambda default that is code
execution. So every snippet, however it was made, is parsed and checked against the small
language the synthesizers actually emit, and is not run (or saved) unless it passes:

- statements: assignments to plain names or subscripts, ``+=``-style updates, expression
  statements, ``assert``, ``if``, ``for`` over a literal tuple or list, ``raise`` of a builtin
  exception; no imports, definitions, ``with``, ``try``, ``global``, ``del``;
- expressions: operators, comparisons, calls, subscripts and slices, tuples, lists, constants
  (strings length-capped), names and attributes; no lambdas, comprehensions, f-strings,
  starred arguments, ``**kwargs``, walrus;
- names: ``torch``, ``numpy``, ``DEVICE``, the prelude's helpers, a few builtins, and the names
  the snippet assigns itself (which may not shadow those);
- attributes never start with ``_``; a dotted ``torch.``/``numpy.`` name must be exactly one the
  linter's knowledge knows (``allowlist.py``); a method or attribute of any other value must be
  on the method/attribute allowlist;
- every call's callee is an allowed dotted name, a helper or allowed builtin, a snippet-local
  name (an ``nn`` module being called) or an allowed method.
"""
from __future__ import annotations

import ast
import re
from typing import Optional, Set

from . import allowlist

#: Names every snippet may read: the modules, the device, the prelude's helpers, a few builtins.
MODULES = frozenset({"torch", "numpy"})
HELPERS = frozenset({"DEVICE", "_tensor", "_array", "_describe"})
BUILTINS = frozenset({"bool", "any", "all", "isinstance", "tuple", "str", "float", "int", "complex",
                      "len", "list", "min", "max", "abs"})
#: Exceptions a rule's own hook may raise to state torch's behaviour.
EXCEPTIONS = frozenset({"RuntimeError", "ValueError", "TypeError", "AssertionError", "IndexError"})
#: Double-underscore names the synthesizers assign; any other dunder (``__builtins__``,
#: ``__import__``...) would change how the snippet's namespace behaves.
SNIPPET_DUNDERS = frozenset({"__result__", "__observed__", "__outcomes__", "__t__", "__dtype__",
                             "__shape__"})
#: Longest string constant (messages in asserts quote the user's expression, shortened).
MAX_STRING = 1000
#: Longest snippet accepted at all.
MAX_SOURCE = 100_000

_PLAIN_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_]*$")

_STATEMENTS = (ast.Assign, ast.AugAssign, ast.Expr, ast.Assert, ast.If, ast.For, ast.Raise,
               ast.Pass)


class UnsafeSnippet(ValueError):
    """The snippet uses something outside the reproduction language."""


def verify(source: str) -> None:
    """Raise ``UnsafeSnippet`` unless ``source`` stays inside the reproduction language."""
    if not isinstance(source, str) or len(source) > MAX_SOURCE:
        raise UnsafeSnippet("snippet too long")
    try:
        tree = ast.parse(source, mode="exec")
    except (SyntaxError, ValueError, RecursionError, MemoryError) as exc:
        raise UnsafeSnippet(f"does not parse ({type(exc).__name__})") from None
    assigned = _assigned_names(tree)
    _Checker(assigned).statements(tree.body)


def _assigned_names(tree: ast.Module) -> Set[str]:
    """Names the snippet binds; each must be a plain or known dunder name and shadow nothing."""
    names: Set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            name = node.id
            if not (_PLAIN_NAME.match(name) or name in SNIPPET_DUNDERS):
                raise UnsafeSnippet(f"assigns the reserved name {name!r}")
            if name in MODULES or name in HELPERS or name in BUILTINS or name in EXCEPTIONS:
                raise UnsafeSnippet(f"rebinds {name!r}")
            names.add(name)
    return names


def _dotted(node: ast.AST) -> Optional[str]:
    """``torch.nn.Linear`` for a pure attribute chain on a Name, else None."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        return ".".join([node.id] + parts[::-1])
    return None


class _Checker:
    def __init__(self, assigned: Set[str]):
        self.assigned = assigned

    # ----------------------------------------------------------------- statements

    def statements(self, body: list) -> None:
        for stmt in body:
            self.statement(stmt)

    def statement(self, node: ast.AST) -> None:
        if not isinstance(node, _STATEMENTS):
            raise UnsafeSnippet(f"statement {type(node).__name__} is not allowed")
        if isinstance(node, ast.Assign):
            for target in node.targets:
                self.target(target)
            self.expr(node.value)
        elif isinstance(node, ast.AugAssign):
            self.target(node.target)
            self.expr(node.value)
        elif isinstance(node, ast.Expr):
            self.expr(node.value)
        elif isinstance(node, ast.Assert):
            self.expr(node.test)
            if node.msg is not None:
                self.expr(node.msg)
        elif isinstance(node, ast.If):
            self.expr(node.test)
            self.statements(node.body)
            self.statements(node.orelse)
        elif isinstance(node, ast.For):
            if node.orelse or not isinstance(node.target, ast.Name):
                raise UnsafeSnippet("for loops bind one name and have no else")
            if not isinstance(node.iter, (ast.Tuple, ast.List)):
                raise UnsafeSnippet("for loops run over a literal tuple or list")
            self.target(node.target)
            self.expr(node.iter)
            self.statements(node.body)
        elif isinstance(node, ast.Raise):
            self.raised(node)

    def raised(self, node: ast.Raise) -> None:
        exc = node.exc
        callee = exc.func if isinstance(exc, ast.Call) else exc
        if node.cause is not None or not (isinstance(callee, ast.Name) and callee.id in EXCEPTIONS):
            raise UnsafeSnippet("raise only a builtin exception")
        if isinstance(exc, ast.Call):
            self.arguments(exc)

    def target(self, node: ast.AST) -> None:
        if isinstance(node, ast.Name):
            return  # checked by _assigned_names
        if isinstance(node, ast.Subscript):
            self.expr(node.value)
            self.expr(node.slice)
            return
        if isinstance(node, ast.Tuple):
            for element in node.elts:
                self.target(element)
            return
        raise UnsafeSnippet(f"cannot assign to {type(node).__name__}")

    # ----------------------------------------------------------------- expressions

    def expr(self, node: ast.AST) -> None:
        if isinstance(node, ast.Constant):
            self.constant(node.value)
        elif isinstance(node, ast.Name):
            self.name(node.id)
        elif isinstance(node, ast.Attribute):
            self.attribute(node, called=False)
        elif isinstance(node, ast.Call):
            self.call(node)
        elif isinstance(node, ast.BinOp):
            self.expr(node.left)
            self.expr(node.right)
        elif isinstance(node, ast.UnaryOp):
            self.expr(node.operand)
        elif isinstance(node, ast.BoolOp):
            for value in node.values:
                self.expr(value)
        elif isinstance(node, ast.Compare):
            self.expr(node.left)
            for value in node.comparators:
                self.expr(value)
        elif isinstance(node, ast.Subscript):
            self.expr(node.value)
            self.expr(node.slice)
        elif isinstance(node, ast.Slice):
            for part in (node.lower, node.upper, node.step):
                if part is not None:
                    self.expr(part)
        elif isinstance(node, (ast.Tuple, ast.List)):
            for element in node.elts:
                self.expr(element)
        else:
            raise UnsafeSnippet(f"expression {type(node).__name__} is not allowed")

    def constant(self, value: object) -> None:
        if isinstance(value, (str, bytes)) and len(value) > MAX_STRING:
            raise UnsafeSnippet("string constant too long")
        if not (value is None or value is Ellipsis
                or isinstance(value, (bool, int, float, complex, str, bytes))):
            raise UnsafeSnippet(f"constant of type {type(value).__name__}")

    def name(self, name: str) -> None:
        if name in MODULES:
            raise UnsafeSnippet(f"the module {name!r} itself may not be used as a value")
        if name in HELPERS or name in BUILTINS or name in self.assigned:
            return
        raise UnsafeSnippet(f"unknown name {name!r}")

    def attribute(self, node: ast.Attribute, called: bool) -> None:
        if node.attr.startswith("_"):
            raise UnsafeSnippet(f"private attribute {node.attr!r}")
        dotted = _dotted(node)
        root = dotted.split(".", 1)[0] if dotted else None
        if root in MODULES:
            allowed = allowlist.functions() if called else allowlist.constants()
            if dotted not in allowed:
                raise UnsafeSnippet(f"{dotted} is not on the allowlist")
            return
        if node.attr in allowlist.FORBIDDEN_METHODS:
            raise UnsafeSnippet(f"forbidden method {node.attr!r}")
        names = allowlist.methods() if called else allowlist.attributes()
        if node.attr not in names:
            raise UnsafeSnippet(f"attribute {node.attr!r} is not on the allowlist")
        if isinstance(node.value, ast.Name) and node.value.id not in self.assigned:
            # Attributes of helpers and builtins (``str.format``...) are never needed.
            raise UnsafeSnippet(f"attribute of {node.value.id!r}")
        self.expr(node.value)

    def call(self, node: ast.Call) -> None:
        func = node.func
        if isinstance(func, ast.Name):
            if func.id not in HELPERS - {"DEVICE"} and func.id not in BUILTINS \
                    and func.id not in self.assigned:
                raise UnsafeSnippet(f"call of {func.id!r}")
        elif isinstance(func, ast.Attribute):
            self.attribute(func, called=True)
        else:
            raise UnsafeSnippet(f"call of a {type(func).__name__}")
        self.arguments(node)

    def arguments(self, node: ast.Call) -> None:
        for arg in node.args:
            if isinstance(arg, ast.Starred):
                raise UnsafeSnippet("starred argument")
            self.expr(arg)
        for kw in node.keywords:
            if kw.arg is None or not allowlist.identifier(kw.arg):
                raise UnsafeSnippet("** or reserved keyword argument")
            self.expr(kw.value)


def verify_script(text: str, trusted_prefix: str) -> None:
    """A saved reproduction: ``#`` comment lines, then exactly ``trusted_prefix`` (our own
    imports and helpers), then a snippet that passes ``verify``. Raises ``UnsafeSnippet``."""
    lines = text.split("\n")
    if text.splitlines() != lines[:-1] + ([lines[-1]] if lines[-1] else []):
        raise UnsafeSnippet("a line separator other than \\n")  # editors would split there
    header = 0
    while header < len(lines) and lines[header].startswith("#"):
        header += 1
    rest = "\n".join(lines[header:])
    if not rest.startswith(trusted_prefix):
        raise UnsafeSnippet("the script does not continue with the harness's own prelude")
    snippet = rest[len(trusted_prefix):]
    verify(snippet)
    try:
        whole, ours, theirs = (ast.parse(t) for t in (text, trusted_prefix, snippet))
    except SyntaxError:
        raise UnsafeSnippet("the script does not parse") from None
    # Comments add no statements: if they did, a comment line was not one.
    if len(whole.body) != len(ours.body) + len(theirs.body):
        raise UnsafeSnippet("the header holds code")


def safe(source: str) -> Optional[str]:
    """None when ``source`` passes, else why it does not."""
    try:
        verify(source)
    except UnsafeSnippet as exc:
        return str(exc)
    return None
