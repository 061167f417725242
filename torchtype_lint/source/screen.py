"""The screen before libcst: Python's own parser and caps on size, node count and nesting.

libcst's parser is superlinear in nesting and needs hundreds of bytes of memory per byte of
source: 10,000 unary minus signs (10 KB) take it 40 s and 5.5 GB, a 50 MB file aborts the
process, and a chain of a million ``and`` overflows its native stack. CPython's parser refuses
or accepts the same inputs in about a second. So every file is parsed by CPython first
(``ast``, no code is compiled to bytecode, nothing runs) and libcst only sees what is within
these caps; the rest becomes one diagnostic. The caps are far above real code: torch's
largest source file (1.3 MB) has 162,000 syntax nodes and nests 31 deep.
"""
from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from typing import Optional, Tuple

#: Characters of source. Comments and strings cost libcst little (10 MB of comments: 4 s,
#: 120 MB); dense code is bounded by the node cap below and by the worker's memory limit.
MAX_SOURCE_CHARS = 10 * 1024 * 1024
#: ``ast`` nodes; libcst parses about 40,000 of them a second.
MAX_SYNTAX_NODES = 400_000
#: Nesting of syntax nodes. libcst's time grows with the square of the nesting (2,500 nested
#: calls: 5 s); real code stays below 50, and 1,000 chained calls (2,000 levels) stay analysed.
MAX_NESTING = 2_500

#: String literals, comments, else a separator: every `,`, `and`, `or` outside strings and
#: comments adds at least one syntax node, so counting them bounds a file's nodes from below.
_STRING = "|".join([
    r'"""(?:\\.|[^\\])*?"""', r"'''(?:\\.|[^\\])*?'''",
    r'"(?:\\.|[^"\\\n])*"', r"'(?:\\.|[^'\\\n])*'",
])
_SEPARATORS = re.compile(r"[rRbBuUfF]{0,2}(?:" + _STRING + r")|#[^\n]*|(?P<separator>,|\band\b|\bor\b)")
#: Below this many characters a file cannot hold MAX_SYNTAX_NODES separators (each needs an
#: element beside it), so it is not scanned for them.
_SCAN_FROM_CHARS = 800_000

#: Python's parser signals nesting beyond its own limits with these rather than a SyntaxError.
_TOO_COMPLEX = (MemoryError, RecursionError)
#: SyntaxError messages that mean "too deep for Python", not "code from a newer Python".
_NESTING_MESSAGES = ("too many nested parentheses", "too many statically nested blocks",
                     "too complex")


@dataclass(frozen=True)
class Rejection:
    """Why a file is not handed to libcst: a finding at ``line``/``column`` (1-based, 0-based)."""

    code: str
    message: str
    line: int = 1
    column: int = 0


def screen(source: str, tree: Optional[ast.AST] = None) -> Optional[Rejection]:
    """None when libcst may parse ``source``; else the diagnostic to report instead.

    ``tree`` is a CPython ``ast`` of ``source`` that the caller already has (flake8 hands one
    to its plugins), which saves the parse. A plain syntax error is left to the caller (None):
    libcst may know syntax newer than the running Python, and reports the error otherwise."""
    return screen_for_parse(source, tree)[0]


def screen_for_parse(source: str, tree: Optional[ast.AST] = None) -> Tuple[Optional[Rejection], bool]:
    """``screen(source, tree)``, and whether Python's own parser accepted ``source`` (then
    libcst's parse need not validate its nodes again: ``cst_parse.py``)."""
    if len(source) > MAX_SOURCE_CHARS:
        return Rejection("TTL001", f"file too large to analyse: {len(source):,} characters "
                                   f"(torchtype-lint's limit is {MAX_SOURCE_CHARS:,})"), False
    if tree is None and len(source) >= _SCAN_FROM_CHARS and _separators_beyond(source, MAX_SYNTAX_NODES):
        # A million-item literal takes CPython's own parser seconds and a gigabyte of ast
        # objects; counting its commas takes a fraction of that.
        return Rejection("TTL001", f"file too large to analyse: more than {MAX_SYNTAX_NODES:,} "
                                   "syntax nodes (torchtype-lint's limit)"), False
    if tree is None:
        try:
            tree = compile(source, "<file>", "exec", flags=ast.PyCF_ONLY_AST, dont_inherit=True)
        except SyntaxError as exc:
            if any(words in str(exc.msg) for words in _NESTING_MESSAGES):
                return Rejection("TTL001", f"syntax error: {_one_line(exc.msg)}", exc.lineno or 1,
                                 max((exc.offset or 1) - 1, 0)), False
            return None, False
        except _TOO_COMPLEX as exc:
            return Rejection("TTL001", "syntax error: too deeply nested or too large for Python's own parser "
                                       f"({type(exc).__name__})"), False
        except ValueError:  # null bytes: the decoder reports those
            return None, False
    return _measure(tree), True


def _measure(tree: ast.AST) -> Optional[Rejection]:
    """Count nodes and the deepest nesting without recursion (the tree may be very deep).
    Fields are read directly: ``ast.iter_child_nodes`` would double the cost (6% of a parse)."""
    stack = [(tree, 1)]
    nodes = 0
    push, pop, node_type, bool_op = stack.append, stack.pop, ast.AST, ast.BoolOp
    while stack:
        node, depth = pop()
        nodes += 1
        if depth > MAX_NESTING:
            return Rejection("TTL001", f"expression nested too deeply to analyse: more than "
                                       f"{MAX_NESTING:,} levels (torchtype-lint's limit)",
                             getattr(node, "lineno", 1), getattr(node, "col_offset", 0))
        if nodes > MAX_SYNTAX_NODES:
            return Rejection("TTL001", f"file too large to analyse: more than {MAX_SYNTAX_NODES:,} "
                                       "syntax nodes (torchtype-lint's limit)")
        # libcst nests `a and b and c` one level per operand where ast keeps them flat.
        below = depth + (len(node.values) if node.__class__ is bool_op else 1)
        for name in node._fields:
            value = getattr(node, name, None)
            if value.__class__ is list:
                for item in value:
                    if isinstance(item, node_type):
                        push((item, below))
            elif isinstance(value, node_type):
                push((value, below))
    return None


def _separators_beyond(source: str, limit: int) -> bool:
    """Whether ``source`` has more than ``limit`` commas, ``and``s and ``or``s outside its
    strings and comments."""
    count = 0
    for match in _SEPARATORS.finditer(source):
        if match.lastgroup == "separator":
            count += 1
            if count > limit:
                return True
    return False


def _one_line(text: object) -> str:
    return " ".join(str(text).split())

