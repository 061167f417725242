"""``check --confirm``: rebuild the reported operation from the inferred facts and run it in torch.

Only the synthesized operation runs, never the user's code: each operand becomes a fresh
tensor (or array, scalar, nn module) with the dtype and shape the engine inferred, and the
reported call, operator or cast is applied to them in a torch worker subprocess, on CPU and
on CUDA where one exists. torch's own message is attached to the finding.

Where the reproduction comes from, first match wins:
1. a rule's own ``reproduce(facts) -> Optional[str]`` classmethod (a snippet that may use
   ``DEVICE``, ``_tensor(dtype, shape)``, ``_array(dtype, shape)`` and ``torch``/``numpy``);
2. ``REPRODUCERS`` below, per rule code, for silent bugs that need their own assertion;
3. the generic synthesizer: the reported call / binary operator / augmented assignment /
   subscript, with operands rendered from their abstract values.

Whatever made it, a snippet runs (or is saved) only after ``snippet_guard.verify`` accepted it:
the user's files may be hostile, so nothing they wrote is copied as text (literals are rendered
from their values, operators from a table, callables from ``allowlist``).
"""
from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

import libcst as cst

from ..rules.base import RuntimeClaim, get_rule
from ..model.values import (
    ArrayValue, DeviceValue, DTypeValue, ModuleValue, NoneValue, ScalarValue, SequenceValue,
    StringValue, SymbolValue, TensorValue, Value, describe_dtypes,
)
from . import allowlist
from .facts import Facts, collect
from .literals import Unrenderable as _Unrenderable
from .literals import is_literal, literal_value, operator, render
from .snippet_guard import UnsafeSnippet, verify, verify_script

PRELUDE = '''\
import torch
import torch.nn
import torch.nn.functional
import numpy


def _tensor(dtype, shape, device=None):
    device = device or DEVICE
    if dtype == torch.bool:
        return torch.ones(shape, device=device, dtype=torch.bool)  # masks select everything
    if dtype.is_floating_point or dtype.is_complex:
        return torch.rand(shape, device=device).to(dtype)
    return torch.randint(0, 2, shape, device=device, dtype=dtype)


def _array(dtype, shape):
    return (numpy.random.rand(*shape) * 2).astype(dtype)


def _describe(value):
    if isinstance(value, torch.Tensor):
        return f"{str(value.dtype).replace('torch.', '')} {tuple(value.shape)}"
    if isinstance(value, (tuple, list)) and value and isinstance(value[0], torch.Tensor):
        return _describe(value[0])
    if isinstance(value, (bool, int, float, str)) or value is None:
        return repr(value)
    return type(value).__name__

'''

#: Sizes for dims the engine left open. Symbols get distinct sizes so that two symbolic dims
#: that the engine could not prove equal do not accidentally line up.
UNKNOWN_DIM = 4
SYMBOL_SIZES = (3, 5, 6, 7, 9, 10, 11)

#: Constructor defaults for module parameters the engine did not know.
MODULE_DEFAULTS = {
    "in_features": 4, "out_features": 4, "in1_features": 4, "in2_features": 4,
    "in_channels": 3, "out_channels": 4, "kernel_size": 3, "num_embeddings": 10,
    "embedding_dim": 4, "input_size": 4, "hidden_size": 4, "num_features": 4,
    "normalized_shape": 4, "num_groups": 1, "num_channels": 4, "embed_dim": 4, "num_heads": 1,
    "d_model": 4, "nhead": 1,
}


#: Builtins a rebuilt argument may name: the types used as dtypes.
ALLOWED_BUILTINS = {"float", "int", "bool", "complex"}


def _allowed_call(qualname: str) -> bool:
    return allowlist.allowed_function(qualname)


@dataclass
class Reproduction:
    finding: Any
    source: str                    # the snippet (without the prelude)
    claim: Optional[RuntimeClaim]
    summary: str                   # the operation in user terms, for messages
    needs_cuda: bool = False


class Synth:
    """Renders abstract values as torch expressions, binding each operand to a fresh name."""

    def __init__(self, facts: Facts):
        self.facts = facts
        self.lines: List[str] = []
        self.names = 0
        self.symbols: Dict[str, int] = {}
        self.needs_cuda = False
        # Devices are kept as inferred only when the operation mixes them (a cross-device
        # finding); otherwise everything goes on the device the harness is confirming.
        devices = {getattr(v, "device", None) for v in facts.values.values()}
        self.mixed_devices = {"cpu", "cuda"} <= devices

    def fresh(self, stem: str) -> str:
        self.names += 1
        return f"{stem}{self.names}"

    def dims(self, shape: Any, template: Optional[Tuple[int, ...]] = None) -> Tuple[int, ...]:
        if shape is None:
            return template if template is not None else (UNKNOWN_DIM, UNKNOWN_DIM)
        out = []
        for i, dim in enumerate(shape):
            if isinstance(dim, int) and dim >= 0:
                out.append(dim)
            elif isinstance(dim, str):
                if dim not in self.symbols:
                    self.symbols[dim] = SYMBOL_SIZES[len(self.symbols) % len(SYMBOL_SIZES)]
                out.append(self.symbols[dim])
            elif template is not None and len(template) == len(shape):
                out.append(template[i])
            else:
                out.append(UNKNOWN_DIM)
        return tuple(out)

    def _dtype(self, dtypes: Any, library: str = "torch") -> str:
        if not dtypes:
            raise _Unrenderable("dtype unknown")
        # Rules fire only when every possible dtype is bad, so any member reproduces it.
        dtype = sorted(dtypes)[0]
        known = allowlist.torch_dtype if library == "torch" else allowlist.numpy_dtype
        if not known(dtype):
            raise _Unrenderable(f"unknown dtype {dtype!r}")
        return dtype

    def _device(self, device: Optional[str]) -> str:
        if not self.mixed_devices:
            return "DEVICE"
        if device == "cuda":
            self.needs_cuda = True
            return '"cuda"'
        if device == "cpu":
            return '"cpu"'
        return "DEVICE"

    def bind(self, value: Value, template: Optional[Tuple[int, ...]] = None) -> str:
        """A name holding a fresh object like ``value``."""
        if isinstance(value, TensorValue):
            name = self.fresh("t")
            shape = self.dims(value.shape, template)
            self.lines.append(f"{name} = _tensor(torch.{self._dtype(value.dtypes)}, {shape!r}, "
                              f"{self._device(value.device)})")
            if value.requires_grad:
                self.lines.append(f"{name}.requires_grad_(True)")
            return name
        if isinstance(value, ArrayValue):
            name = self.fresh("a")
            self.lines.append(f"{name} = _array(numpy.{self._dtype(value.dtypes, 'numpy')}, "
                              f"{self.dims(value.shape, template)!r})")
            return name
        if isinstance(value, ModuleValue):
            name = self.fresh("m")
            self.lines.append(f"{name} = {self.module(value)}")
            return name
        return self.expr(value)

    def expr(self, value: Value, template: Optional[Tuple[int, ...]] = None) -> str:
        if isinstance(value, (TensorValue, ArrayValue, ModuleValue)):
            return self.bind(value, template)
        if isinstance(value, ScalarValue):
            if value.const is not None:
                return render(value.const)
            samples = {"int": "2", "float": "0.5", "bool": "True", "complex": "1j"}
            if value.pytype in samples:
                return samples[value.pytype]
        if isinstance(value, DTypeValue) and allowlist.torch_dtype(value.dtype):
            return f"torch.{value.dtype}"
        if isinstance(value, StringValue) and value.const is not None:
            return render(value.const)
        if isinstance(value, NoneValue):
            return "None"
        if isinstance(value, DeviceValue) and value.device:
            return self._device(value.device)
        if isinstance(value, SymbolValue) and value.qualname in allowlist.constants():
            return value.qualname
        if isinstance(value, SymbolValue) and value.qualname.startswith("builtins.") and \
                value.qualname[len("builtins."):] in ALLOWED_BUILTINS:
            return value.qualname[len("builtins."):]
        if isinstance(value, SequenceValue) and value.items is not None:
            items = [self.expr(v) for v in value.items]
            if value.container == "tuple":
                return "(" + ", ".join(items) + ("," if len(items) == 1 else "") + ")"
            if value.container == "list":
                return "[" + ", ".join(items) + "]"
        raise _Unrenderable(f"cannot build a {getattr(value, 'kind', '?')} value")

    def module(self, value: ModuleValue) -> str:
        if not allowlist.nn_module(value.qualname):
            raise _Unrenderable(f"module {value.short_name} is not a known nn module")
        if value.short_name == "Sequential":
            children = []
            for child in value.children:
                if not isinstance(child, ModuleValue):
                    raise _Unrenderable("unknown layer in Sequential")
                children.append(self.module(child))
            text = f"torch.nn.Sequential({', '.join(children)})"
        else:
            args = []
            for key, const in value.config.items():
                if const is None:
                    if key not in MODULE_DEFAULTS:
                        continue  # an optional argument the engine could not read
                    const = MODULE_DEFAULTS[key]
                if not allowlist.identifier(key):
                    raise _Unrenderable("odd constructor argument name")
                args.append(f"{key}={render(const)}")
            text = f"{value.qualname}({', '.join(args)})"
        dtype = value.param_dtypes
        if dtype and len(dtype) == 1 and next(iter(dtype)) != "float32":
            text += f".to(torch.{self._dtype(dtype)})"
        return text + f".to({self._device(value.device)})"


def module_input_template(module: Value) -> Optional[Tuple[int, ...]]:
    """A plausible input shape for ``module(x)`` when the engine knows only part of ``x``."""
    if not isinstance(module, ModuleValue):
        return None
    cfg, name = module.config, module.short_name

    def get(key: str) -> int:
        value = cfg.get(key)
        return value if isinstance(value, int) else MODULE_DEFAULTS.get(key, UNKNOWN_DIM)

    if name == "Linear":
        return (2, get("in_features"))
    if name.startswith("Conv") and name[-2].isdigit():
        return (2, get("in_channels")) + (8,) * int(name[-2])
    if name.startswith("BatchNorm") and name[-2].isdigit():
        return (2, get("num_features")) + (8,) * max(int(name[-2]) - 1, 0) if name != "BatchNorm1d" \
            else (2, get("num_features"))
    if name in ("LSTM", "GRU", "RNN"):
        return (2, 3, get("input_size"))
    if name in ("LSTMCell", "GRUCell", "RNNCell"):
        return (2, get("input_size"))
    if name == "Embedding":
        return (2, 3)
    if name == "LayerNorm":
        shape = cfg.get("normalized_shape")
        return (2,) + (tuple(shape) if isinstance(shape, tuple) else (get("normalized_shape"),))
    return None


# --------------------------------------------------------------------------- the operation


def _operation(facts: Facts) -> Any:
    """The expression or statement that fails: the reported node, or the one the rule visited."""
    for node in (facts.node, facts.visited):
        if isinstance(node, cst.Expr):
            node = node.value
        if isinstance(node, cst.Assign) and len(node.targets) == 1 and \
                isinstance(node.targets[0].target, cst.Subscript):
            return node  # `x[i] = v`: the store itself is the operation
        if isinstance(node, (cst.Assign, cst.AnnAssign)) and node.value is not None:
            node = node.value
        if isinstance(node, (cst.Call, cst.BinaryOperation, cst.UnaryOperation, cst.AugAssign,
                             cst.Subscript, cst.Comparison)):
            return node
    return None


def _fully_known(value: Value) -> bool:
    return isinstance(value, TensorValue) and bool(value.dtypes) and value.shape is not None and \
        all(isinstance(d, int) for d in value.shape)


def _arg(synth: Synth, node: Any, value: Value, template: Optional[Tuple[int, ...]] = None) -> str:
    """An argument: a literal rendered from its value, a tensor whose dtype and shape are known built
    fresh, else the sub-expression rebuilt from its own operands (so torch computes the shape
    the engine left open), else the abstract value with small default sizes."""
    if is_literal(node):
        return render(literal_value(node, synth.facts.module))
    if _fully_known(value) or node is None:
        return synth.expr(value, template)
    if isinstance(node, (cst.Call, cst.BinaryOperation, cst.UnaryOperation)):
        mark = len(synth.lines)
        try:
            return "(" + _expression(synth, node) + ")"
        except _Unrenderable:
            del synth.lines[mark:]
    return synth.expr(value, template)


def _expression(synth: Synth, node: Any) -> str:
    facts = synth.facts
    if isinstance(node, cst.Call):
        return _call(synth, node)
    if isinstance(node, cst.BinaryOperation):
        return f"{_arg(synth, node.left, facts.value(node.left))} {operator(node.operator)} " \
               f"{_arg(synth, node.right, facts.value(node.right))}"
    if isinstance(node, cst.UnaryOperation):
        return f"{operator(node.operator)}{_arg(synth, node.expression, facts.value(node.expression))}"
    raise _Unrenderable(type(node).__name__)


def _call(synth: Synth, node: cst.Call) -> str:
    callee = synth.facts.callee(node)
    if callee is None or callee.args.has_star:
        raise _Unrenderable("call not resolved")
    args = callee.args
    template = module_input_template(callee.receiver) if callee.kind == "module" else None
    pos = [_arg(synth, args.pos_nodes[i] if i < len(args.pos_nodes) else None, v,
                template if i == 0 else None) for i, v in enumerate(args.pos)]
    if not all(allowlist.identifier(key) for key in args.kw):
        raise _Unrenderable("odd keyword argument name")
    # The reproduction runs on the harness's device, whatever device the user's code names.
    kws = [f"{key}=DEVICE" if key == "device" else f"{key}={_arg(synth, args.kw_nodes.get(key), v)}"
           for key, v in args.kw.items()]
    if callee.kind == "symbol" and _allowed_call(callee.name):
        func = callee.name
    elif callee.kind == "method" and allowlist.allowed_method(callee.name) and \
            isinstance(callee.receiver, (TensorValue, ArrayValue, ModuleValue)):
        receiver_node = node.func.value if isinstance(node.func, cst.Attribute) else None
        func = f"{_arg(synth, receiver_node, callee.receiver)}.{callee.name}"
    elif callee.kind == "module" and isinstance(callee.receiver, ModuleValue):
        func = synth.bind(callee.receiver)
    else:
        raise _Unrenderable(f"{callee.kind} call")
    return f"{func}({', '.join(pos + kws)})"


def generic(facts: Facts) -> Optional[Tuple[str, str, bool]]:
    """(snippet, summary, needs_cuda) for the reported operation, or None."""
    node = _operation(facts)
    if node is None:
        return None
    synth = Synth(facts)
    try:
        if isinstance(node, (cst.Call, cst.BinaryOperation, cst.UnaryOperation)):
            synth.lines.append(f"__result__ = {_expression(synth, node)}")
        elif isinstance(node, cst.Comparison):
            if len(node.comparisons) != 1:
                return None
            right = node.comparisons[0].comparator
            op = operator(node.comparisons[0].operator)
            synth.lines.append(f"__result__ = {_arg(synth, node.left, facts.value(node.left))} {op} "
                               f"{_arg(synth, right, facts.value(right))}")
        elif isinstance(node, cst.AugAssign):
            target = synth.bind(facts.value(node.target))
            synth.lines.append(f"{target} {operator(node.operator)} {_arg(synth, node.value, facts.value(node.value))}")
            synth.lines.append(f"__result__ = {target}")
        elif isinstance(node, (cst.Subscript, cst.Assign)):
            subscript = node if isinstance(node, cst.Subscript) else node.targets[0].target
            if len(subscript.slice) != 1 or not isinstance(subscript.slice[0].slice, cst.Index):
                return None
            base = synth.bind(facts.value(subscript.value))
            index_node = subscript.slice[0].slice.value
            index = _arg(synth, index_node, facts.value(index_node))
            if isinstance(node, cst.Assign):
                synth.lines.append(f"{base}[{index}] = {_arg(synth, node.value, facts.value(node.value))}")
                synth.lines.append(f"__result__ = {base}")
            else:
                synth.lines.append(f"__result__ = {base}[{index}]")
        else:
            return None
    except _Unrenderable:
        return None
    synth.lines.append("__observed__ = _describe(__result__)")
    # A loss is used by its backward pass; some dtype mismatches only fail there.
    synth.lines.append("if isinstance(__result__, torch.Tensor) and __result__.requires_grad "
                       "and __result__.numel() == 1:\n    __result__.backward()")
    return "\n".join(synth.lines) + "\n", facts.text(node), synth.needs_cuda


# --------------------------------------------------------------------------- per-rule reproducers


def _discarded_cast(facts: Facts) -> Optional[Tuple[str, str, bool]]:
    """TTL101: apply the cast as a bare statement, then show the receiver kept its dtype."""
    node = _operation(facts)
    if not isinstance(node, cst.Call):
        return None
    callee = facts.callee(node)
    if callee is None or not isinstance(callee.receiver, TensorValue):
        return None
    result = callee.result
    if not isinstance(result, TensorValue) or not result.dtypes or len(result.dtypes) != 1 \
            or result.dtypes == callee.receiver.dtypes:
        return None
    target = describe_dtypes(result.dtypes)
    if not allowlist.allowed_method(callee.name) or not allowlist.torch_dtype(target) or \
            not all(allowlist.identifier(k) for k in callee.args.kw):
        return None
    synth = Synth(facts)
    try:
        receiver = synth.bind(callee.receiver)
        args = [synth.expr(v) for v in callee.args.pos] + \
            [f"{k}={synth.expr(v)}" for k, v in callee.args.kw.items()]
    except _Unrenderable:
        return None
    shown = _quoted(facts, node)
    synth.lines += [
        f"{receiver}.{callee.name}({', '.join(args)})",
        f"assert {receiver}.dtype == torch.{target}, "
        f"{f'after the bare statement `{shown}`, the tensor is still '!r} + str({receiver}.dtype)",
    ]
    return "\n".join(synth.lines) + "\n", shown, synth.needs_cuda


def _loss_broadcast(facts: Facts) -> Optional[Tuple[str, str, bool]]:
    """TTL511: run the loss, then show that its input and target broadcast to a bigger shape."""
    node = _operation(facts)
    if not isinstance(node, cst.Call):
        return None
    callee = facts.callee(node)
    if callee is None or callee.args.has_star:
        return None
    args = callee.args
    pair = [args.get(0, "input"), args.get(1, "target")]
    if not all(isinstance(v, TensorValue) for v in pair):
        return None
    synth = Synth(facts)
    try:
        names = [synth.bind(v) for v in pair]
        if callee.kind == "symbol" and callee.name.startswith("torch.") and _allowed_call(callee.name):
            func = callee.name
        elif callee.kind == "module" and isinstance(callee.receiver, ModuleValue):
            func = synth.bind(callee.receiver)
        else:
            return None
    except _Unrenderable:
        return None
    shown = _quoted(facts, node)
    a, b = names
    synth.lines += [
        f"__result__ = {func}({a}, {b})",
        f"__shape__ = tuple(torch.broadcast_shapes({a}.shape, {b}.shape))",
        f"assert __shape__ == tuple({a}.shape), ({f'`{shown}` averages over '!r} + str(__shape__) + "
        f"' pairs: input ' + str(tuple({a}.shape)) + ' and target ' + str(tuple({b}.shape)) + "
        f"' broadcast against each other')",
    ]
    return "\n".join(synth.lines) + "\n", shown, synth.needs_cuda


#: Every dtype a tensor in a comparison is tried with (what "always False" means).
TRIED_DTYPES = ("float32", "float64", "float16", "bfloat16", "int64", "int32", "int16", "int8",
                "uint8", "bool", "complex64")


def _always_false_comparison(facts: Facts) -> Optional[Tuple[str, str, bool]]:
    """TTL102/TTL103: evaluate the comparison for a tensor of every dtype; it is never True."""
    node = _operation(facts)
    if not isinstance(node, cst.Comparison) or len(node.comparisons) != 1:
        return None
    sides = [node.left, node.comparisons[0].comparator]
    tensor_side = receiver = None
    for side in sides:
        for sub in _tensor_receivers(side, facts):
            tensor_side, receiver = side, sub
            break
        if receiver is not None:
            break
    if tensor_side is None or receiver is None:
        return None
    other = sides[1] if tensor_side is sides[0] else sides[0]
    synth = Synth(facts)
    try:
        other_text = synth.expr(facts.value(other))
        tensor_value = facts.value(receiver)
        shape = synth.dims(tensor_value.shape if isinstance(tensor_value, TensorValue) else None)
        replaced = _on_fresh_tensor(tensor_side, facts)
        op = operator(node.comparisons[0].operator)
    except _Unrenderable:
        return None
    expression = f"{replaced} {op} {other_text}" if tensor_side is sides[0] else f"{other_text} {op} {replaced}"
    shown = _quoted(facts, node)
    tried = ", ".join(TRIED_DTYPES)
    synth.lines += [
        "__outcomes__ = []",
        f"for __dtype__ in ({', '.join(f'torch.{d}' for d in TRIED_DTYPES)},):",
        f"    __t__ = _tensor(__dtype__, {shape!r})",
        f"    __outcomes__.append(bool({expression}))",
        f"assert any(__outcomes__), "
        f"{f'`{shown}` is False for a tensor of every dtype ({tried})'!r}",
    ]
    return "\n".join(synth.lines) + "\n", shown, synth.needs_cuda


def _on_fresh_tensor(side: Any, facts: Facts) -> str:
    """``x.dtype`` or ``x.type()`` rewritten onto ``__t__``: the attribute or method name from
    the allowlist, the arguments rendered from their literal values."""
    if isinstance(side, cst.Attribute):
        if side.attr.value not in allowlist.attributes():
            raise _Unrenderable(f"attribute {side.attr.value}")
        return f"__t__.{side.attr.value}"
    if isinstance(side, cst.Call) and isinstance(side.func, cst.Attribute) and \
            allowlist.allowed_method(side.func.attr.value):
        args = []
        for arg in side.args:
            if arg.star or not is_literal(arg.value):
                raise _Unrenderable("a non-literal argument")
            value = render(literal_value(arg.value, facts.module))
            if arg.keyword is not None:
                if not allowlist.identifier(arg.keyword.value):
                    raise _Unrenderable("odd keyword argument name")
                value = f"{arg.keyword.value}={value}"
            args.append(value)
        return f"__t__.{side.func.attr.value}({', '.join(args)})"
    raise _Unrenderable(type(side).__name__)


def _tensor_receivers(side: Any, facts: Facts) -> List[Any]:
    """Tensor-valued names or attributes that ``side`` reads a method or attribute of
    (``x`` in ``x.type()`` and ``x.dtype``)."""
    target = side.func if isinstance(side, cst.Call) else side
    if isinstance(target, cst.Attribute) and isinstance(facts.value(target.value), TensorValue) and \
            isinstance(target.value, (cst.Name, cst.Attribute)):
        return [target.value]
    return []


def _not_default_float(facts: Facts) -> Optional[Tuple[str, str, bool]]:
    """TTL301: the conversion keeps numpy's float64 instead of torch's default float32."""
    made = generic(facts)
    if made is None:
        return None
    snippet, _, needs_cuda = made
    shown = _quoted(facts, _operation(facts))
    snippet += (f"assert __result__.dtype == torch.get_default_dtype(), "
                f"{f'`{shown}` gives '!r} + str(__result__.dtype) + ', not the default ' + "
                f"str(torch.get_default_dtype()) + ' of nn layers'\n")
    return snippet, shown, needs_cuda


Reproducer = Callable[[Facts], Optional[Tuple[str, str, bool]]]
def _failing_assertion(facts: Facts) -> Optional[Tuple[str, str, bool]]:
    """TTL531: the asserted comparison with each side rebuilt, a tensor's attribute or method read
    on a fresh tensor of the dtype and shape inferred for it, anything else from its inferred value
    or as written; the assert then fails."""
    node = facts.node
    if not isinstance(node, cst.Assert) or not isinstance(node.test, cst.Comparison) \
            or len(node.test.comparisons) != 1:
        return None
    synth = Synth(facts)
    sides = []
    try:
        for side in (node.test.left, node.test.comparisons[0].comparator):
            receivers = _tensor_receivers(side, facts)
            if receivers:
                tensor = synth.bind(facts.value(receivers[0]))
                sides.append(_on_fresh_tensor(side, facts).replace("__t__", tensor, 1))
            elif is_literal(side):
                sides.append(render(literal_value(side, facts.module)))
            else:
                sides.append(synth.expr(facts.value(side)))
        op = operator(node.test.comparisons[0].operator)
    except _Unrenderable:
        return None
    shown = _quoted(facts, node.test)
    synth.lines.append(f"assert {sides[0]} {op} {sides[1]}, {f'`{shown}` fails'!r}")
    return "\n".join(synth.lines) + "\n", shown, synth.needs_cuda


REPRODUCERS: Dict[str, Reproducer] = {
    "TTL101": _discarded_cast,
    "TTL531": _failing_assertion,
    "TTL511": _loss_broadcast,
    "TTL102": _always_false_comparison,
    "TTL103": _always_false_comparison,
    "TTL301": _not_default_float,
}


def _quoted(facts: Facts, node: Any) -> str:
    """The user's expression for an assert message in a snippet (a repr'd string: data, never
    code), shortened to stay under the guard's string limit."""
    return _shorten(facts.text(node), 160)


def build(facts: Facts) -> Optional[Reproduction]:
    """The reproduction of one finding, None when it cannot be built; raises
    ``UnsafeSnippet`` when a snippet was made but the guard refused it (it never runs)."""
    rule = get_rule(facts.code)
    claim = rule.runtime if rule is not None else None
    hook = getattr(rule, "reproduce", None) if rule is not None else None
    made: Optional[Tuple[str, str, bool]] = None
    if hook is not None:
        snippet = hook(facts)
        if snippet:
            made = (snippet, facts.text(_operation(facts) or facts.node), "cuda" in snippet)
    if made is None and facts.code in REPRODUCERS:
        made = REPRODUCERS[facts.code](facts)
    if made is None:
        made = generic(facts)
    if made is None:
        return None
    verify(made[0])
    return Reproduction(None, made[0], claim, made[1], made[2])


# --------------------------------------------------------------------------- running and attaching


def _shorten(text: str, limit: int = 240) -> str:
    text = " ".join((text or "").split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def verdict(repro: Reproduction, device: str, result: Dict[str, Any]) -> str:
    """One line for the finding: what torch did with the synthesized operation on ``device``."""
    from .confirm import claim_matches

    outcome = result.get("outcome")
    if outcome == "unavailable":
        return f"not run on {device}: no {device.upper()} device"
    if outcome in ("timeout", "crashed"):
        return f"not confirmed on {device}: the reproduction {result.get('message') or outcome}"
    raised = f"{result.get('exception')}: {_shorten(result.get('message', ''))}" if outcome == "raised" else ""
    claim = repro.claim
    if claim is not None and device in claim.devices and claim_matches(claim, result, device):
        if outcome == "raised":
            return f"confirmed on {device}: {raised}"
        warning = next((m for c, m in result.get("warnings", []) if c == claim.exception), "")
        return f"confirmed on {device}: {claim.exception}: {_shorten(warning)}"
    if outcome == "raised":
        return f"not confirmed on {device}: `{repro.summary}` raised {raised}"
    observed = result.get("observed")
    shown = f" (result {observed})" if observed else ""
    if claim is not None and device not in claim.devices and outcome == "ok":
        return f"runs on {device}, as the rule says (it fails on {', '.join(claim.devices)} only)"
    if claim is not None and claim.exception == "AssertionError":
        return f"observed on {device}: `{repro.summary}` gives {observed or 'no error'}"
    return f"not reproduced on {device}: `{repro.summary}` ran without error{shown}"


#: What every saved script starts with after its comment header: ours, never the user's.
SCRIPT_PREFIX = 'import os\n\nDEVICE = os.environ.get("TTL_DEVICE", "cpu")\n' + PRELUDE


def comment_line(text: str) -> str:
    """User text as one ``#`` comment line: every character Python or an editor may treat as
    a line break (or any other unprintable one) is written as its escape."""
    return "# " + "".join(ch if ch.isprintable() else ascii(ch)[1:-1] for ch in text)


def script(repro: Reproduction) -> str:
    """A reproduction as a standalone script: ``TTL_DEVICE=cuda python repro.py``. The user's
    path and expression appear only in comments; raises ``UnsafeSnippet`` if the result is
    not exactly comments + ``SCRIPT_PREFIX`` + a snippet the guard accepts."""
    finding = repro.finding
    header = [comment_line(f"{finding.code} at {finding.path}:{finding.line}: `{repro.summary}`"),
              "# rebuilt by torchtype-lint check --confirm from the inferred dtypes and shapes"]
    text = "\n".join(header) + "\n" + SCRIPT_PREFIX + repro.source
    verify_script(text, SCRIPT_PREFIX)
    return text


def save_scripts(repros: Sequence[Reproduction], directory: str) -> None:
    """Write each reproduction to ``directory`` and point its finding at the file."""
    import os
    import re as _re

    os.makedirs(directory, exist_ok=True)
    for repro in repros:
        finding = repro.finding
        stem = _re.sub(r"[^A-Za-z0-9_]+", "_", os.path.splitext(os.path.basename(finding.path))[0])
        name = os.path.join(directory, f"{stem}_L{finding.line}_{finding.code}.py")
        try:
            text = script(repro)
        except UnsafeSnippet as exc:
            finding.confirmations.append(f"reproduction not saved: {exc}")
            continue
        with open(name, "w", encoding="utf-8", newline="\n") as handle:
            handle.write(text)
        finding.confirmations.append(f"reproduction: {name}")


def _build_reproductions(source: str, keys: Sequence[Tuple[str, int, int]],
                         settings: Any) -> List[Tuple[Optional[Reproduction], str]]:
    """(reproduction or None, why not) for each finding (code, line, column) of ``source``;
    plain data, to cross the process boundary."""
    facts_by_key = collect(source, settings)
    out: List[Tuple[Optional[Reproduction], str]] = []
    for key in keys:
        facts = facts_by_key.get(key)
        try:
            repro = build(facts) if facts is not None else None
        except UnsafeSnippet as exc:
            out.append((None, f"not confirmed: the reproduction was refused by the snippet guard ({exc})"))
            continue
        except Exception as exc:  # noqa: BLE001 - one odd finding must not stop the others
            out.append((None, f"not confirmed: building the reproduction failed ({type(exc).__name__}: {exc})"))
            continue
        if repro is None:
            out.append((None, "not confirmed: no reproduction can be built from the inferred facts"))
            continue
        out.append((repro, ""))
    return out


def confirm_findings(files: Sequence[Tuple[str, Sequence[Any]]], settings: Any = None,
                     devices: Sequence[str] = ("cpu", "cuda"),
                     locate: Optional[Callable[[Any], Tuple[int, int]]] = None,
                     save_to: Optional[str] = None) -> Dict[str, Any]:
    """Attach torch's verdict to the findings of each ``(source, findings)`` pair, in place.

    ``locate(finding) -> (line, column)`` maps a finding to its position in ``source`` when the
    two differ (notebook findings count lines within their cell). With ``save_to``, each
    reproduction is also written there as a standalone script.

    Returns counts and the time taken. Raises ``pool.TorchMissing`` when torch is not
    installed; the caller says so and reports the findings unchanged.
    """
    from ..run.bounded import BoundExceeded, call_bounded
    from ..checker.check import Settings
    from ..run.runner import hard_deadline
    from ..model.selection import Selection
    from ..model.settings import DEFAULT_TIME_BUDGET
    from .pool import Workers

    started = time.perf_counter()
    files = [(source, findings) for source, findings in files if findings and source is not None]
    # Start torch now: its import overlaps with re-analysing the files for facts.
    workers = Workers(devices) if files else None
    repros: List[Reproduction] = []
    for source, findings in files:
        codes = sorted({f.code for f in findings})
        file_settings = Settings(selection=Selection(select=codes),
                                 time_budget=getattr(settings, "time_budget", DEFAULT_TIME_BUDGET))
        # Tool diagnostics and rules about annotations: nothing torch could say.
        wanted = [f for f in findings if get_rule(f.code) is not None and get_rule(f.code).runtime is not None]
        keys = [(f.code,) + tuple(locate(f) if locate is not None else (f.line, f.column)) for f in wanted]
        try:
            # The file is analysed again for facts: in a killable child, like every analysis.
            built = call_bounded(_build_reproductions, source, keys, file_settings,
                                 seconds=hard_deadline(file_settings))
        except BoundExceeded as exc:
            built = [(None, f"not confirmed: re-analysing the file for facts failed ({exc})")] * len(wanted)
        for finding, (repro, note) in zip(wanted, built):
            if repro is None:
                finding.confirmations.append(note)
                continue
            repro.finding = finding
            repros.append(repro)
    stats: Dict[str, Any] = {"reproductions": len(repros), "devices": {}, "seconds": 0.0}
    if workers is not None:
        jobs = {device: [{"id": str(i), "source": PRELUDE + r.source} for i, r in enumerate(repros)
                         if device == "cuda" or not r.needs_cuda]
                for device in devices}
        runs = workers.run(jobs)
        for device in devices:
            run = runs[device]
            stats["devices"][device] = run.available
            if not run.available:
                continue
            for i, repro in enumerate(repros):
                result = run.results.get(str(i))
                if result is None:
                    if repro.needs_cuda and device == "cpu":
                        repro.finding.confirmations.append(
                            "not run on cpu: the reproduction needs a CUDA device")
                    continue
                repro.finding.confirmations.append(verdict(repro, device, result))
    if save_to and repros:
        save_scripts(repros, save_to)
    stats["seconds"] = time.perf_counter() - started
    return stats
