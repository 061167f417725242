"""``torch.einsum``: its equation read the way torch reads it, the result shape, and why torch
refuses a call.

An equation names each operand's dims with letters (``"bij,bjk->bik"``): a letter used twice
is one size, ``...`` stands for the dims no letter names (they broadcast, aligned from the
right), and without ``->`` the output is the ellipsis dims followed by the letters used exactly
once, in ASCII order (capitals first). Sizes of one letter in different operands broadcast
(1 combines with anything); within one operand (a diagonal, ``"ii->i"``) they must be equal.
Every fact here is checked against torch in tests/test_shape_ops.py.
"""
from __future__ import annotations

import string
from dataclasses import dataclass
from typing import Dict, List, Optional, Sequence, Tuple, Union

from ..model.values import Dim, Shape

ELLIPSIS = "..."
_LETTERS = frozenset(string.ascii_letters)


@dataclass(frozen=True)
class Equation:
    """A parsed equation: each operand's subscripts (``...`` one item), and the output's."""

    operands: Tuple[Tuple[str, ...], ...]
    output: Tuple[str, ...]
    #: The output was written after ``->`` (else it is the implicit one).
    explicit: bool


@dataclass(frozen=True)
class EinsumProblem:
    """Why torch refuses an einsum call: a sentence for a message and the phrase torch prints."""

    reason: str
    torch_says: str
    #: The operand torch refuses (its index), when the problem is one operand's.
    operand: Optional[int] = None


def parse_equation(text: str) -> Optional[Equation]:
    """The equation as torch reads it, or None when it is not one this module reads with
    certainty (odd characters, dots outside a ``...``, several arrows): unknown, not wrong."""
    if text.count("->") > 1:
        return None
    left, arrow, right = text.partition("->")
    operands = []
    for part in left.split(","):
        subscripts = _subscripts(part)
        if subscripts is None:
            return None
        operands.append(subscripts)
    if arrow:
        output = _subscripts(right)
        if output is None:
            return None
        return Equation(tuple(operands), output, True)
    counts: Dict[str, int] = {}
    for subscripts in operands:
        for label in subscripts:
            counts[label] = counts.get(label, 0) + 1
    once = sorted(label for label, n in counts.items() if n == 1 and label != ELLIPSIS)
    has_ellipsis = any(ELLIPSIS in subscripts for subscripts in operands)
    return Equation(tuple(operands), ((ELLIPSIS,) if has_ellipsis else ()) + tuple(once), False)


def _subscripts(part: str) -> Optional[Tuple[str, ...]]:
    """One operand's (or the output's) subscripts; spaces are ignored, as torch does."""
    text = part.replace(" ", "")
    if text.count(ELLIPSIS) > 1 or "." in text.replace(ELLIPSIS, ""):
        return None  # a second ellipsis or stray dots: torch refuses, worded in ways not kept here
    labels: List[str] = []
    rest = text
    while rest:
        if rest.startswith(ELLIPSIS):
            labels.append(ELLIPSIS)
            rest = rest[3:]
        elif rest[0] in _LETTERS:
            labels.append(rest[0])
            rest = rest[1:]
        else:
            return None
    return tuple(labels)


def einsum_problem(equation: Equation, shapes: Sequence[Shape]) -> Optional[EinsumProblem]:
    """Why ``torch.einsum(equation, *operands)`` fails for operands of ``shapes``, when the
    known parts prove it; None when it runs or the unknown parts could make it run."""
    if len(shapes) != len(equation.operands):
        fewer = len(shapes) < len(equation.operands)
        return EinsumProblem(
            f"the equation names {len(equation.operands)} operand{'s' * (len(equation.operands) != 1)}, "
            f"the call passes {len(shapes)}",
            f"{'fewer' if fewer else 'more'} operands were provided than specified in the equation")
    # torch checks in this order: operand count, each operand's rank, the output, the sizes
    for index, (subscripts, shape) in enumerate(zip(equation.operands, shapes)):
        problem = _rank_problem(index, subscripts, shape) if shape is not None else None
        if problem is not None:
            return problem
    problem = _output_problem(equation)
    if problem is not None:
        return problem
    for index, (subscripts, shape) in enumerate(zip(equation.operands, shapes)):
        problem = _diagonal_problem(index, subscripts, shape) if shape is not None else None
        if problem is not None:
            return problem
    return _broadcast_problem(equation, shapes)


def _diagonal_problem(index: int, subscripts: Tuple[str, ...], shape: Tuple[Dim, ...]) -> Optional[EinsumProblem]:
    """A letter repeated within one operand names dims of one size (no broadcasting there)."""
    first: Dict[str, Dim] = {}
    for label, size in _labelled_dims(subscripts, shape):
        if label in first and _known(first[label]) and _known(size) and first[label] != size:
            return EinsumProblem(
                f"subscript {label} is repeated in operand {index} on dims of sizes {first[label]} and {size}",
                f"subscript {label} is repeated for operand {index} but the sizes don't match", index)
        first.setdefault(label, size)
    return None


def _broadcast_problem(equation: Equation, shapes: Sequence[Shape]) -> Optional[EinsumProblem]:
    """Sizes that do not broadcast, found in torch's order: operand by operand, over the
    output's dims (the ellipsis's where it stands), then an ellipsis the output drops, then
    the summed letters in ASCII order; each size against the first one other than 1."""
    ellipsis_width = max((len(_ellipsis_dims(sub, shape)) for sub, shape in zip(equation.operands, shapes)
                          if shape is not None), default=0)
    layout = [label for label in equation.output]
    if ELLIPSIS not in layout:
        layout.append(ELLIPSIS)
    layout += sorted({label for sub in equation.operands for label in sub} - set(layout))
    seen: Dict[Tuple[str, int], Tuple[int, int]] = {}  # (letter, or ellipsis and position) -> (size, operand)
    for index, (subscripts, shape) in enumerate(zip(equation.operands, shapes)):
        if shape is None:
            continue
        labelled = dict(_labelled_dims(subscripts, shape)[::-1])  # a repeated letter: its first dim
        covered = _ellipsis_dims(subscripts, shape)
        padded = (1,) * (ellipsis_width - len(covered)) + tuple(covered)
        for label in layout:
            positions = [(ELLIPSIS, k, padded[k]) for k in range(ellipsis_width)] if label == ELLIPSIS \
                else [(label, 0, labelled.get(label, 1))]
            for name, k, size in positions:
                if not _known(size) or size == 1:
                    continue
                first = seen.setdefault((name, k), (size, index))  # type: ignore[arg-type]
                if first[0] == size:
                    continue
                if name == ELLIPSIS:
                    return EinsumProblem(
                        f"the ellipsis covers a dim of size {first[0]} in operand {first[1]} and {size} in "
                        f"operand {index}, aligned from the right",
                        f"dimension {k} covered by ellipsis in operand {index}", index)
                return EinsumProblem(
                    f"subscript {name} has size {first[0]} in operand {first[1]} and {size} in operand {index}",
                    f"subscript {name} has size {size} for operand {index} which does not broadcast with "
                    f"previously seen size {first[0]}", index)
    return None


def _output_problem(equation: Equation) -> Optional[EinsumProblem]:
    if not equation.explicit:
        return None
    used = {label for subscripts in equation.operands for label in subscripts}
    for label in equation.output:
        if label != ELLIPSIS and label not in used:
            return EinsumProblem(f"output subscript {label} names no dim of any operand",
                                 f"output subscript {label} does not appear in the equation for any input operand")
        if equation.output.count(label) > 1:
            return EinsumProblem(f"output subscript {label} is written twice",
                                 f"output subscript {label} appears more than once in the output")
    return None


def _rank_problem(index: int, subscripts: Tuple[str, ...], shape: Tuple[Dim, ...]) -> Optional[EinsumProblem]:
    letters = len(subscripts) - (ELLIPSIS in subscripts)
    if ELLIPSIS not in subscripts and letters != len(shape):
        return EinsumProblem(
            f"operand {index} has {len(shape)} dim{'s' * (len(shape) != 1)}, its subscripts "
            f"'{''.join(subscripts)}' name {letters}",
            f"the number of subscripts in the equation ({letters}) does not match the number of "
            f"dimensions ({len(shape)}) for operand {index} and no ellipsis was given", index)
    if ELLIPSIS in subscripts and letters > len(shape):
        return EinsumProblem(
            f"operand {index} has {len(shape)} dim{'s' * (len(shape) != 1)}, its subscripts "
            f"'{''.join(subscripts)}' name {letters} besides the ellipsis",
            f"the number of subscripts in the equation ({letters}) is more than the number of "
            f"dimensions ({len(shape)}) for operand {index}", index)
    return None


def _labelled_dims(subscripts: Tuple[str, ...], shape: Tuple[Dim, ...]) -> List[Tuple[str, Dim]]:
    """(letter, size) for each dim a letter names; the ellipsis's dims are left out."""
    if ELLIPSIS not in subscripts:
        return list(zip(subscripts, shape))
    at = subscripts.index(ELLIPSIS)
    after = len(subscripts) - at - 1
    return list(zip(subscripts[:at], shape[:at])) + list(zip(subscripts[at + 1:], shape[len(shape) - after:]))


def _ellipsis_dims(subscripts: Tuple[str, ...], shape: Tuple[Dim, ...]) -> Tuple[Dim, ...]:
    if ELLIPSIS not in subscripts:
        return ()
    at = subscripts.index(ELLIPSIS)
    return tuple(shape[at:len(shape) - (len(subscripts) - at - 1)])


def einsum_shape(equation: Equation, shapes: Sequence[Shape]) -> Shape:
    """The result's shape (None when an operand's rank is unknown or the call fails)."""
    if any(shape is None for shape in shapes) or einsum_problem(equation, shapes) is not None:
        return None
    sizes: Dict[str, List[Dim]] = {}
    ellipses: List[Tuple[Dim, ...]] = []
    for subscripts, shape in zip(equation.operands, shapes):
        for label, size in _labelled_dims(subscripts, shape):  # type: ignore[arg-type]
            sizes.setdefault(label, []).append(size)
        ellipses.append(_ellipsis_dims(subscripts, shape))  # type: ignore[arg-type]
    out: List[Dim] = []
    for label in equation.output:
        if label == ELLIPSIS:
            out.extend(_broadcast_all(ellipses))
        else:
            out.append(_combined(sizes[label]))
    return tuple(out)


def _combined(sizes: Sequence[Dim]) -> Dim:
    """One letter's size from its occurrences (they broadcast): a known size other than 1
    wins; all 1 gives 1; otherwise the one symbolic name they share, else unknown."""
    known = {s for s in sizes if _known(s) and s != 1}
    if known:
        return known.pop()
    if all(s == 1 for s in sizes):
        return 1
    rest = {s for s in sizes if s != 1}
    return rest.pop() if len(rest) == 1 else None


def _broadcast_all(parts: Sequence[Tuple[Dim, ...]]) -> Tuple[Dim, ...]:
    width = max((len(p) for p in parts), default=0)
    columns: List[List[Dim]] = [[] for _ in range(width)]
    for part in parts:
        for i, size in enumerate(part):
            columns[width - len(part) + i].append(size)
    return tuple(_combined(column) for column in columns)


def _known(dim: Union[Dim, object]) -> bool:
    return isinstance(dim, int) and not isinstance(dim, bool)
