"""Shared by the torch-verified knowledge tests: run a snippet through the engine and through
real torch/numpy, and say whether the engine's fact contradicts what really happened.

"Unknown" (TOP, ``dtypes=None``, a ``None`` dim) never contradicts anything; a known fact that
differs from the real result does.
"""
from __future__ import annotations

from typing import Any, Dict, Optional, Tuple

import libcst as cst

from torchtype_lint.engine.interpreter import Interpreter
from torchtype_lint.model.values import (
    TOP, ArrayValue, ScalarValue, SequenceValue, TensorValue, Value,
)


def engine_globals(source: str) -> Dict[str, Value]:
    """Module-level bindings after the engine ran over ``source``."""
    interp = Interpreter(cst.parse_module(source)).run()
    return dict(interp.globals.vars)


def real_globals(source: str) -> Dict[str, Any]:
    import numpy as np
    import torch

    namespace: Dict[str, Any] = {"torch": torch, "np": np, "numpy": np}
    exec(compile(source, "<case>", "exec"), namespace)  # noqa: S102 - test tables only
    return namespace


def dtype_name(dtype: Any) -> str:
    """'float32' for torch.float32 and for numpy's float32."""
    text = str(dtype)
    return text[6:] if text.startswith("torch.") else getattr(dtype, "name", text)


def describe_real(value: Any) -> Tuple[str, Optional[str], Optional[Tuple[int, ...]]]:
    """(kind, dtype, shape) of a real Python/torch/numpy value."""
    import numpy as np
    import torch

    if isinstance(value, torch.Tensor):
        return "tensor", dtype_name(value.dtype), tuple(value.shape)
    if isinstance(value, np.ndarray):
        return "ndarray", value.dtype.name, tuple(value.shape)
    if isinstance(value, np.generic):  # before Python's: np.float64 is a float subclass
        return "npscalar", value.dtype.name, ()
    if isinstance(value, (bool, int, float, complex)):
        return "scalar", type(value).__name__, None
    if isinstance(value, range):
        return "list", None, (len(value),)  # the engine models range() as a list of ints
    if isinstance(value, (dict, set)):
        # An OrderedDict (what state_dict() returns) is a dict to the engine, as to Python.
        return ("dict" if isinstance(value, dict) else "set"), None, (len(value),)
    if isinstance(value, (tuple, list)):
        # torch.Size and torch.return_types.max are tuples too
        return "list" if isinstance(value, list) else "tuple", None, (len(value),)
    return type(value).__name__, None, None


def contradiction(engine: Value, real: Any, require_known: bool = False) -> Optional[str]:
    """Why the engine's value is wrong about ``real``, or None when it is right or unknown.

    With ``require_known`` an unknown dtype is also reported (for facts the engine claims to
    model: a table row that silently degrades to TOP would otherwise pass forever).
    """
    kind, dtype, shape = describe_real(real)
    if engine is TOP:
        return "engine says unknown" if require_known else None
    if isinstance(engine, (TensorValue, ArrayValue)):
        expected_kind = "tensor" if isinstance(engine, TensorValue) else "ndarray"
        if kind == "npscalar" and expected_kind == "ndarray":
            kind = "ndarray"  # the engine holds a numpy scalar as a 0-d array (promoted alike)
        if kind != expected_kind:
            return f"engine says {engine.describe()}, real value is a {kind}"
        if engine.dtypes is None:
            if require_known:
                return f"engine dtype unknown, real {dtype}"
        elif dtype not in engine.dtypes:
            return f"engine dtype {sorted(engine.dtypes)}, real {dtype}"
        elif require_known and len(engine.dtypes) != 1:
            return f"engine dtype {sorted(engine.dtypes)} imprecise, real {dtype}"
        return _shape_contradiction(engine.shape, shape, require_known)
    if isinstance(engine, ScalarValue):
        if kind != "scalar":
            return f"engine says Python {engine.pytype}, real value is a {kind} ({dtype})"
        if engine.pytype != dtype:
            return f"engine says Python {engine.pytype}, real {dtype}"
        if engine.const is not None and engine.const != real:
            return f"engine constant {engine.const!r}, real {real!r}"
        return None
    if isinstance(engine, SequenceValue):
        if kind != engine.container:
            return f"engine says {engine.container}, real value is a {kind}"
        if kind in ("dict", "set"):
            return None
        if engine.items is not None and len(engine.items) != len(real):
            return f"engine has {len(engine.items)} items, real {len(real)}"
        if engine.items is not None:
            for i, (item, real_item) in enumerate(zip(engine.items, real)):
                why = contradiction(item, real_item, require_known)
                if why:
                    return f"item {i}: {why}"
        return None
    return None


def _shape_contradiction(engine_shape: Any, real_shape: Tuple[int, ...],
                         require_known: bool) -> Optional[str]:
    if engine_shape is None:
        return f"engine shape unknown, real {real_shape}" if require_known else None
    if len(engine_shape) != len(real_shape):
        return f"engine shape {engine_shape}, real {real_shape}"
    for mine, theirs in zip(engine_shape, real_shape):
        if isinstance(mine, int) and mine != theirs:
            return f"engine shape {engine_shape}, real {real_shape}"
        if mine is None and require_known:
            return f"engine shape {engine_shape} partly unknown, real {real_shape}"
    return None
