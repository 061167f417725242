"""TTL2xx: dtype mixing that torch rejects at runtime (torch 2.13, verified on CPU).

Only what fails is flagged. Elementwise arithmetic, comparisons, ``torch.where``, ``cat`` and
``stack`` between integer and float tensors promote and are never reported here (see
``dtype-truth-table.md`` A-M1/A-M2). Float-vs-float width mismatches in matrix products and
layers are precision mixing, reported by TTL401.
"""
from __future__ import annotations

from typing import Any, Optional, Tuple

import libcst as cst

from ..findings import Fix
from ..knowledge import dtypes as D
from ..knowledge import torch_api as T
from ..values import (
    BOOL, FLOAT32, INT32, INT64, UINT8, ModuleValue, ScalarValue,
    TensorValue, Value, category,
)
from .base import RuntimeClaim, register
from .torch_messages import TorchMessage
from .dtype_support import (
    module_dtype_changed,
    castable,
    said,
    NORM_LAYERS, MATMUL_LAYERS, RNN_LAYERS, DtypeRule, all_dtypes, c10_name, cast_expr,
    cast_text, code, dtype_attr, dtypes_of, first_layer, is_bool, is_float, is_int_or_bool,
    matmul_message, matmul_operands, mismatch_kind, never_equal, one, origin_note, rank,
    scalar_type_name, show, torch_module_expr, torch_name,
)

MATMUL_PATTERN = (r"same dtype|expected scalar type \w+ but found \w+|both inputs should have same dtype")


def _culprit(a: Value, b: Value) -> int:
    """Which operand (0 or 1) holds the unusual dtype: the one that is neither float32 nor the
    other's dtype class default. The second operand when undecidable."""
    da, db = dtypes_of(a) or frozenset(), dtypes_of(b) or frozenset()
    usual = {FLOAT32, INT64}
    if not (da & usual) and (db & usual):
        return 0
    if not (db & usual) and (da & usual):
        return 1
    if FLOAT32 in db and FLOAT32 not in da:
        return 0
    return 1


def _symbol_or_module(ev: Any, node: cst.Call, functions: Tuple[str, ...], modules: Tuple[str, ...]):
    """(name, args) when ``node`` calls one of ``torch.nn.functional.<functions>`` or an
    ``nn.<modules>`` instance; None otherwise."""
    callee = ev.callee(node)
    if callee is None or callee.args.has_star:
        return None
    if callee.kind == "symbol" and callee.name.startswith("torch.nn.functional.") and \
            callee.name[20:] in functions:
        return callee.name[20:], callee.args
    if callee.kind == "module" and isinstance(callee.receiver, ModuleValue) and \
            callee.receiver.short_name in modules:
        return callee.receiver.short_name, callee.args
    return None


def _method_or_function(ev: Any, node: cst.Call, names: Any):
    """(name, receiver/first tensor, remaining args as (values, nodes) accessors, receiver node)
    for ``x.name(...)`` or ``torch.name(x, ...)``."""
    callee = ev.callee(node)
    if callee is None or callee.args.has_star:
        return None
    if callee.kind == "method" and isinstance(callee.receiver, TensorValue) and callee.name in names \
            and isinstance(node.func, cst.Attribute):
        return callee.name, callee.receiver, callee.args, 0, node.func.value
    if callee.kind == "symbol" and callee.name.startswith("torch.") and callee.name[6:] in names:
        first = callee.args.get(0, "input")
        if isinstance(first, TensorValue):
            return callee.name[6:], first, callee.args, 1, callee.args.node(0, "input")
    return None


# --------------------------------------------------------------------------- TTL201


@register
class MatmulDtypeMismatch(DtypeRule):
    """
    ## What it does
    Flags a matrix product (`@`, `torch.matmul`, `mm`, `bmm`, `mv`, `dot`, `einsum`,
    `F.linear`, `addmm`, `baddbmm`, `tensordot`, `cdist`) whose operands always have
    different dtypes and at least one of them is an integer or bool tensor: int64 vs
    float32, or even int32 vs int64.

    ## Why is this bad?
    Unlike elementwise arithmetic, matrix products never promote: torch raises
    `RuntimeError: expected m1 and m2 to have the same dtype, but got: long int != float`
    (or `expected scalar type Long but found Float`, depending on the op). Integer data
    usually comes from `torch.tensor([1, 2, 3])`, `torch.arange`, `F.one_hot` or numpy int
    arrays.

    ## Example
    ```python
    counts = torch.tensor([[1, 0, 2]])
    weights = torch.randn(3, 2)
    scores = counts @ weights
    ```

    ## Use instead
    ```python
    scores = counts.float() @ weights
    ```

    ## Fix safety
    Unsafe: the fix converts the operand with the unusual dtype (`.float()`, `.long()`) to
    the other operand's dtype; converting integers to floats is normally the intent, but
    the result dtype of the expression changes.
    """

    code = "TTL201"
    name = "matmul-dtype-mismatch"
    summary = "matrix product of an integer tensor with a tensor of another dtype (matmul never promotes)"
    severity = "error"
    listens = (cst.Call, cst.BinaryOperation)
    fix_safety = "unsafe"
    runtime = RuntimeClaim("RuntimeError", MATMUL_PATTERN, pattern_devices=("cpu",))

    def visit(self, node: Any, ev: Any) -> None:
        found = matmul_operands(node, ev)
        if found is None:
            return
        label, a, b, a_node, b_node = found
        if mismatch_kind(a, b) != "mixing" or label == "torch.cdist":
            return  # cdist rejects integers with a message of its own
        report_mismatch(self, ev, node, label, a, b, a_node, b_node)


def report_mismatch(rule: DtypeRule, ev: Any, node: Any, label: str, a: Value, b: Value,
                    a_node: Any, b_node: Any) -> None:
    """The TTL201/TTL401 report for a matrix product of mismatched dtypes."""
    bad = _culprit(a, b)
    culprit, culprit_node = (a, a_node) if bad == 0 else (b, b_node)
    other = b if bad == 0 else a
    da, db = one(a), one(b)
    torch_says = (matmul_message(label, da, db, rank(a), rank(b)) if da and db
                  else "expected m1 and m2 to have the same dtype")
    target = one(other)
    fix = None
    hint = "convert one operand so both have the same dtype"
    if castable(target) and culprit_node is not None:
        hint = f"convert it: `{cast_text(code(culprit_node, 30), target)}`"
        fix = Fix(culprit_node, cast_expr(culprit_node, target),
                  f"Convert the operand to {target}: `{cast_text(code(culprit_node, 30), target)}`",
                  safe=False)
    what = f"`{code(culprit_node, 30)}`" if culprit_node is not None else "an operand"
    rule.flag(ev, node,
              f"`{label}` of {show(a)} and {show(b)} raises RuntimeError: matrix products do not "
              f"promote dtypes (torch: {said(torch_says)}); {what} is {show(culprit)}"
              f"{origin_note(culprit)}; {hint}",
              origin=culprit.origin, fix=fix)


# --------------------------------------------------------------------------- TTL202


def layer_message(layer: ModuleValue, x_dtype: Optional[str], p_dtype: Optional[str]) -> TorchMessage:
    """What torch 2.13 prints when ``layer`` (params ``p_dtype``) gets ``x_dtype`` input (CPU),
    in every wording the CPU backends use; empty where a wording is not known."""
    name = layer.short_name
    if x_dtype is None or p_dtype is None:
        return TorchMessage.of("input and parameter dtypes must match")
    x, p = scalar_type_name(x_dtype), scalar_type_name(p_dtype)
    if name in ("Linear", "LSTMCell", "GRUCell", "RNNCell"):
        if layer.config.get("bias") is False and name == "Linear":
            return TorchMessage.of(f"expected m1 and m2 to have the same dtype, but got: "
                                   f"{c10_name(x_dtype)} != {c10_name(p_dtype)}")
        return TorchMessage.of(f"mat1 and mat2 must have the same dtype, but got {x} and {p}")
    if name.startswith("Conv") and (name.startswith("ConvTranspose") or layer.config.get("bias") is False):
        # No bias check first: the kernel's own check speaks, and which kernel runs depends on
        # the CPU (oneDNN takes float16/bfloat16 input where the CPU supports it).
        if x_dtype in ("int64", "float64"):
            return TorchMessage.of(f"expected scalar type {x} but found {p}")  # never oneDNN's
        if x_dtype in ("float16", "bfloat16") and p_dtype == FLOAT32:
            return TorchMessage.of(f"expected scalar type {x} but found {p}",
                                   f"Input type (torch.{x}Tensor) and weight type (torch.FloatTensor) "
                                   "should be the same")
        if name.startswith("ConvTranspose"):
            return TorchMessage()  # other combinations print device-specific type names
        return TorchMessage.of(f"expected scalar type {x} but found {p}")
    if name.startswith("Conv"):
        return TorchMessage.of(f"Input type ({c10_name(x_dtype)}) and bias type ({c10_name(p_dtype)}) "
                               "should be the same")
    if name in ("BatchNorm1d", "BatchNorm2d", "BatchNorm3d", "InstanceNorm1d", "InstanceNorm2d",
                "InstanceNorm3d") and category(x_dtype) < 2:
        return TorchMessage.of(f"\"batch_norm\" not implemented for '{x}'")
    if name in NORM_LAYERS:
        return TorchMessage.of("mixed dtype (CPU): all inputs must share same datatype.")
    if name == "Bilinear":
        return TorchMessage.of("All tensors must have the same dtype")
    return TorchMessage.of(f"expected m1 and m2 to have the same dtype, but got: "
                           f"{c10_name(x_dtype)} != {c10_name(p_dtype)}")


def module_call(ev: Any, node: cst.Call):
    """(layer, input value, input node, path) when ``node`` calls an nn layer on a tensor."""
    callee = ev.callee(node)
    if callee is None or callee.kind != "module" or not isinstance(callee.receiver, ModuleValue) \
            or callee.args.has_star:
        return None
    x = callee.args.get(0, "input")
    found = first_layer(callee.receiver, x)
    if found is None:
        return None
    layer, x, path = found
    return layer, x, callee.args.node(0, "input"), path, callee.receiver


@register
class LayerIntegerInput(DtypeRule):
    """
    ## What it does
    Flags an nn layer with floating-point parameters (`nn.Linear`, `nn.Conv*d`,
    `nn.ConvTranspose*d`, `nn.Bilinear`, RNN cells, `nn.MultiheadAttention`, transformer
    layers, batch/layer/group/instance norms) called on an integer or bool tensor,
    directly or as the first layer of an `nn.Sequential`.

    ## Why is this bad?
    Layers do not convert their input: torch raises `RuntimeError: mat1 and mat2 must have
    the same dtype, but got Long and Float` (Linear), `Input type (long int) and bias type
    (float) should be the same` (conv), `"batch_norm" not implemented for 'Long'` (norms).
    Typical sources are `torch.tensor` of Python ints, uint8 images, `F.one_hot` and numpy
    integer arrays.

    ## Example
    ```python
    layer = nn.Linear(3, 2)
    x = torch.tensor([[1, 2, 3]])
    y = layer(x)
    ```

    ## Use instead
    ```python
    y = layer(x.float())
    ```

    ## Fix safety
    Unsafe: the fix converts the input with `.float()` (or the parameters' dtype); for uint8
    images you may also want to scale to [0, 1].
    """

    code = "TTL202"
    name = "layer-integer-input"
    summary = "nn layer with float parameters called on an integer or bool tensor"
    severity = "error"
    listens = (cst.Call,)
    fix_safety = "unsafe"
    runtime = RuntimeClaim("RuntimeError", r"same dtype|should be the same|not implemented for|"
                                           r"mixed dtype|expected scalar type", pattern_devices=("cpu",))

    def visit(self, node: cst.Call, ev: Any) -> None:
        found = module_call(ev, node)
        if found is None:
            return
        layer, x, x_node, path, outer = found
        if layer.short_name not in MATMUL_LAYERS and layer.short_name not in NORM_LAYERS:
            return
        params = layer.param_dtypes
        if not params or not all(is_float(p) for p in params) or not all_dtypes(x, is_int_or_bool):
            return
        target = one(TensorValue(params))
        fix = None
        hint = "convert the input: `x.float()`"
        if castable(target) and x_node is not None:
            hint = f"convert the input: `{cast_text(code(x_node, 30), target)}`"
            fix = Fix(x_node, cast_expr(x_node, target), f"Convert the input to {target}", safe=False)
        where = f"`{layer.short_name}`" + (f" (layer {path} of the nn.Sequential)" if path else "")
        torch_says = layer_message(layer, one(x), target)
        exception = ("NotImplementedError" if any("not implemented" in v for v in torch_says.variants)
                     else "RuntimeError")
        quoted = f" ({torch_says.quoted()})" if torch_says else ""
        self.flag(ev, node,
                  f"{where} has {'/'.join(sorted(params))} parameters but gets a {show(x)} input"
                  f"{origin_note(x)}: torch raises {exception}{quoted}; {hint}",
                  origin=x.origin, fix=fix)


# --------------------------------------------------------------------------- TTL203


@register
class RnnInputDtype(DtypeRule):
    """
    ## What it does
    Flags `nn.LSTM`, `nn.GRU` or `nn.RNN` called on an input whose dtype always differs
    from the weights' dtype: integer input, float64 input (numpy data), float16/bfloat16
    input into a float32 model, or float32 input after `model.double()`/`model.half()`.

    ## Why is this bad?
    torch 2.13 checks this before running the recurrence and raises `ValueError: RNN input
    dtype (torch.float64) does not match weight dtype (torch.float32)`. Outside an
    autocast region nothing converts the input for you.

    ## Example
    ```python
    rnn = nn.LSTM(3, 5)
    seq = torch.from_numpy(np.random.rand(4, 2, 3))
    out, _ = rnn(seq)
    ```

    ## Use instead
    ```python
    out, _ = rnn(seq.float())
    ```

    ## Fix safety
    Unsafe: the fix converts the input to the weights' dtype.
    """

    code = "TTL203"
    name = "rnn-input-dtype"
    summary = "RNN/LSTM/GRU input dtype differs from the weight dtype"
    severity = "error"
    listens = (cst.Call,)
    fix_safety = "unsafe"
    runtime = RuntimeClaim("ValueError", r"RNN input dtype \(torch\.\w+\) does not match weight dtype",
                           pattern_devices=("cpu",))

    def visit(self, node: cst.Call, ev: Any) -> None:
        found = module_call(ev, node)
        if found is None:
            return
        layer, x, x_node, path, outer = found
        if layer.short_name not in RNN_LAYERS or not layer.param_dtypes:
            return
        if ev.default_float != FLOAT32 and not module_dtype_changed(layer):
            return  # built after torch.set_default_dtype(...): the engine's float32 may be wrong
        weights = TensorValue(layer.param_dtypes)
        kind = mismatch_kind(x, weights)
        if kind is None or (kind == "precision" and ev.autocast_depth):
            return
        target = one(weights)
        x_dtype = one(x)
        blame_model = x_dtype == FLOAT32 and layer.dtype_origin is not layer.origin
        origin = layer.dtype_origin if blame_model else x.origin
        fix = None
        if castable(target) and x_node is not None and not blame_model:
            fix = Fix(x_node, cast_expr(x_node, target), f"Convert the input to {target}", safe=False)
        torch_says = (f"RNN input dtype ({torch_name(x_dtype)}) does not match weight dtype "
                      f"({torch_name(target)})") if x_dtype and target else "RNN input dtype does not match weight dtype"
        source = (f"the weights are {show(weights)}{origin_note(layer)}" if blame_model
                  else f"the input is {show(x)}{origin_note(x)}")
        self.flag(ev, node,
                  f"`{layer.short_name}` has {show(weights)} weights but gets a {show(x)} input: torch "
                  f"raises ValueError ({said(torch_says)}); {source}; convert the input "
                  f"(`{cast_text(code(x_node, 30) if x_node is not None else 'x', target or FLOAT32)}`) "
                  f"or the model",
                  origin=origin, fix=fix)


# --------------------------------------------------------------------------- TTL204

_AUG_OPS = {"AddAssign": "+", "SubtractAssign": "-", "MultiplyAssign": "*", "DivideAssign": "/",
            "ModuloAssign": "%", "PowerAssign": "**", "FloorDivideAssign": "//"}
_INPLACE_BINARY = {"add_": "+", "sub_": "-", "subtract_": "-", "mul_": "*", "multiply_": "*",
                   "div_": "/", "divide_": "/", "true_divide_": "/", "pow_": "**",
                   "remainder_": "%", "fmod_": "%"}
_INPLACE_UNARY = {f + "_" for f in T.FLOATING_UNARY}
_OUT_FUNCTIONS = {"add": "+", "sub": "-", "subtract": "-", "mul": "*", "multiply": "*",
                  "div": "/", "divide": "/", "true_divide": "/", "pow": "**", "remainder": "%"}


def _promoted_uncastable(ev: Any, dest: Value, other: Value, op: str, node: Any) -> Optional[str]:
    """The promoted result dtype of ``dest <op> other`` when, for every possible dtype of
    ``dest``, it cannot be cast back into ``dest`` (None otherwise)."""
    dtypes = dtypes_of(dest)
    if dtypes is None:
        return None
    results = set()
    for d in dtypes:
        res = T.binary_op(TensorValue(frozenset({d}), dest.shape), other, op, node, ev.tenv)
        rd = dtypes_of(res)
        if rd is None or any(D.can_cast(r, d) for r in rd):
            return None
        results |= rd
    return "/".join(sorted(results))


def _cast_error(result: str, dest: Value) -> str:
    d = one(dest)
    r = result if "/" not in result else None
    if d and r:
        return f"result type {scalar_type_name(r)} can't be cast to the desired output type {scalar_type_name(d)}"
    return "result type can't be cast to the desired output type"


@register
class InplaceResultCast(DtypeRule):
    """
    ## What it does
    Flags in-place operations on an integer or bool tensor whose promoted result is
    floating point (or, on a bool tensor, integer): `counts += 0.5`, `counts /= 2`,
    `x.mul_(0.5)`, `x.div_(2)`, `x.clamp_(min=0.5)`, `x.exp_()`, `x.sqrt_()`, `mask += 1`,
    and `torch.add(a, b, out=int_tensor)` with a float result.

    ## Why is this bad?
    An in-place op must write its result into the existing tensor, and torch refuses to
    cast a result to a lower category: `RuntimeError: result type Float can't be cast to
    the desired output type Long`. `/=` always fails on integers, even `x /= 2`, because
    true division gives a float. (Downcasts within a category, such as `f32 += f64`, are
    allowed and not flagged; neither is `//=`.)

    ## Example
    ```python
    total = torch.zeros(3, dtype=torch.long)
    total += torch.rand(3)
    ```

    ## Use instead
    ```python
    total = total + torch.rand(3)   # a new float tensor
    # or keep a float accumulator: torch.zeros(3)
    ```

    ## Fix safety
    Unsafe: for `x op= y` the fix rebinds `x = x op y`, which creates a new (float) tensor
    instead of updating the old one in place; other references to the old tensor no longer
    see the updates.
    """

    code = "TTL204"
    name = "inplace-result-cast"
    summary = "in-place op whose promoted result cannot be cast back to the integer/bool destination"
    severity = "error"
    listens = (cst.AugAssign, cst.Call)
    fix_safety = "unsafe"
    runtime = RuntimeClaim("RuntimeError", r"result type \w+ can't be cast to the desired output type")

    def visit(self, node: Any, ev: Any) -> None:
        if isinstance(node, cst.AugAssign):
            self._aug_assign(node, ev)
        else:
            self._call(node, ev)

    def _aug_assign(self, node: cst.AugAssign, ev: Any) -> None:
        op = _AUG_OPS.get(type(node.operator).__name__)
        dest = ev.value(node.target)
        other = ev.value(node.value)
        if op is None or not isinstance(dest, TensorValue):
            return
        if op == "-" and (all_dtypes(dest, is_bool) or all_dtypes(other, is_bool)):
            return  # bool subtraction raises a different error (TTL212)
        result = _promoted_uncastable(ev, dest, other, op, node)
        if result is None:
            return
        fix = None
        if isinstance(node.target, (cst.Name, cst.Attribute)):
            binop = cst.BinaryOperation(left=node.target, operator=_BINARY_OPERATORS[op](),
                                        right=node.value)
            fix = Fix(node, cst.Assign(targets=[cst.AssignTarget(target=node.target)], value=binop),
                      f"Rebind instead of updating in place: `{code(node.target)} = {code(node.target)} "
                      f"{op} {code(node.value)}`", safe=False)
        target = code(node.target)
        self.flag(ev, node,
                  f"`{code(node)}` raises RuntimeError: the result is {result} but `{target}` is "
                  f"{show(dest)}{origin_note(dest)}, and in-place ops cannot cast it back "
                  f"(torch: {said(_cast_error(result, dest))}); write `{target} = {target} {op} "
                  f"{code(node.value, 30)}` or make `{target}` a float tensor first",
                  origin=dest.origin, fix=fix)

    def _call(self, node: cst.Call, ev: Any) -> None:
        callee = ev.callee(node)
        if callee is None or callee.args.has_star:
            return
        args = callee.args
        if callee.kind == "method" and isinstance(callee.receiver, TensorValue):
            dest, name = callee.receiver, callee.name
            result: Optional[str] = None
            if name in _INPLACE_BINARY and args.pos:
                if "alpha" in args.kw or "rounding_mode" in args.kw:
                    return
                op = _INPLACE_BINARY[name]
                result = _promoted_uncastable(ev, dest, args.pos[0], op, node)
            elif name in _INPLACE_UNARY:
                if all_dtypes(dest, is_int_or_bool):
                    result = ev.default_float
            elif name in ("clamp_", "clip_"):
                bounds = [args.get(0, "min"), args.get(1, "max")]
                if all_dtypes(dest, is_int_or_bool) and any(
                        (isinstance(v, ScalarValue) and v.pytype == "float") or all_dtypes(v, is_float)
                        for v in bounds):
                    result = ev.default_float
            if result is None:
                return
            self.flag(ev, node,
                      f"`{code(node)}` raises RuntimeError: the in-place result is {result} but the "
                      f"tensor is {show(dest)}{origin_note(dest)} (torch: {said(_cast_error(result, dest))}); "
                      f"use the out-of-place form and rebind (`x = x.{name[:-1]}(...)`), or convert "
                      f"the tensor to float first",
                      origin=dest.origin)
            return
        if callee.kind == "symbol" and callee.name.startswith("torch.") and "out" in args.kw:
            name = callee.name[6:]
            out = args.kw["out"]
            res = callee.result
            if name not in _OUT_FUNCTIONS and name not in T.FLOATING_UNARY:
                return
            rd, od = dtypes_of(res), dtypes_of(out)
            if rd is None or od is None or any(D.can_cast(r, o) for r in rd for o in od):
                return
            result = "/".join(sorted(rd))
            self.flag(ev, node,
                      f"`torch.{name}(..., out=...)` raises RuntimeError: the result is {result} but "
                      f"`out` is {show(out)}{origin_note(out)} (torch: {said(_cast_error(result, out))}); "
                      f"pass an `out` tensor of dtype {result} or drop `out=`",
                      origin=out.origin)


_BINARY_OPERATORS = {"+": cst.Add, "-": cst.Subtract, "*": cst.Multiply, "/": cst.Divide,
                     "%": cst.Modulo, "**": cst.Power, "//": cst.FloorDivide}


# --------------------------------------------------------------------------- TTL205

_SCATTER_METHODS = {
    # method -> (source position, source keyword, torch message template)
    "index_add_": (2, "source", "index_add_(): self ({d}) and source ({s}) must have the same scalar type"),
    "index_add": (2, "source", "index_add_(): self ({d}) and source ({s}) must have the same scalar type"),
    "index_copy_": (2, "source", "index_copy_(): self and source expected to have the same dtype, but got (self) {d} and (source) {s}"),
    "index_copy": (2, "source", "index_copy_(): self and source expected to have the same dtype, but got (self) {d} and (source) {s}"),
    "scatter_": (2, "src", "scatter(): Expected self.dtype to be equal to src.dtype"),
    "scatter": (2, "src", "scatter(): Expected self.dtype to be equal to src.dtype"),
    "scatter_add_": (2, "src", "scatter(): Expected self.dtype to be equal to src.dtype"),
    "scatter_add": (2, "src", "scatter(): Expected self.dtype to be equal to src.dtype"),
    "masked_scatter_": (1, "source", "masked_scatter: expected self and source to have same dtypes but got{d} and {s}"),
    "masked_scatter": (1, "source", "masked_scatter: expected self and source to have same dtypes but got{d} and {s}"),
    "index_put_": (1, "values", "Index put requires the source and destination dtypes match, got {d} for the destination and {s} for the source."),
    "index_put": (1, "values", "Index put requires the source and destination dtypes match, got {d} for the destination and {s} for the source."),
}


def _fill(template: str, dest: Value, src: Value) -> str:
    d, s = one(dest), one(src)
    if d is None or s is None:
        return template.split(",")[0].replace("({d})", "").replace("({s})", "")
    return template.format(d=scalar_type_name(d), s=scalar_type_name(s))


@register
class IndexPutDtype(DtypeRule):
    """
    ## What it does
    Flags writes through an index tensor or mask whose source tensor has another dtype
    than the destination: `x[idx] = t`, `x[mask] = t`, `index_put_`, `index_add_`,
    `index_copy_`, `scatter_`, `scatter_add_`, `masked_scatter_`.

    ## Why is this bad?
    These ops require exactly matching dtypes, even float64 into float32: `RuntimeError:
    Index put requires the source and destination dtypes match, got Float for the
    destination and Double for the source`. (Basic slicing such as `x[0:2] = t` and
    scalar values cast silently and are not flagged.)

    ## Example
    ```python
    x = torch.zeros(3)
    x[torch.tensor([0, 1])] = torch.ones(2, dtype=torch.float64)
    ```

    ## Use instead
    ```python
    x[torch.tensor([0, 1])] = torch.ones(2, dtype=torch.float64).to(x.dtype)
    ```

    ## Fix safety
    Unsafe: `x[idx] = t` becomes `x[idx] = t.to(x.dtype)`, which may round or truncate the
    values of `t`.
    """

    code = "TTL205"
    name = "index-put-dtype"
    summary = "index/mask assignment or scatter with a source tensor of another dtype"
    severity = "error"
    listens = (cst.Assign, cst.Call)
    fix_safety = "unsafe"
    runtime = RuntimeClaim("RuntimeError", r"Index put requires the source and destination dtypes match|"
                                           r"must have the same scalar type|Expected self\.dtype to be equal to src\.dtype|"
                                           r"expected to have the same dtype|to have same dtypes")

    def visit(self, node: Any, ev: Any) -> None:
        if isinstance(node, cst.Assign):
            for target in node.targets:
                if isinstance(target.target, cst.Subscript):
                    self._assign(node, target.target, ev)
            return
        callee = ev.callee(node)
        if callee is None or callee.kind != "method" or callee.name not in _SCATTER_METHODS \
                or not isinstance(callee.receiver, TensorValue) or callee.args.has_star:
            return
        position, keyword, template = _SCATTER_METHODS[callee.name]
        src = callee.args.get(position, keyword)
        dest = callee.receiver
        if not never_equal(dest, src):
            return
        self.flag(ev, node,
                  f"`.{callee.name}()` raises RuntimeError: the destination is {show(dest)} but the "
                  f"source is {show(src)}{origin_note(src)} (torch: {said(_fill(template, dest, src))}); "
                  f"convert the source with `.to({code(node.func.value, 20)}.dtype)`",
                  origin=src.origin)

    def _assign(self, stmt: cst.Assign, target: cst.Subscript, ev: Any) -> None:
        dest = ev.value(target.value)
        src = ev.value(stmt.value)
        if not isinstance(dest, TensorValue) or not never_equal(dest, src):
            return
        index_values = [ev.value(el.slice.value) for el in target.slice if isinstance(el.slice, cst.Index)]
        tensors = [v for v in index_values if isinstance(v, TensorValue)]
        if not tensors:
            return  # basic indexing casts silently
        src_rank = rank(src)
        integer_index = all(all_dtypes(t, lambda d: category(d) == 1) for t in tensors)
        if not (src_rank is not None and src_rank >= 1) and not integer_index:
            return  # a 0-dim source through a mask is filled (and cast) like a scalar
        d, s = one(dest), one(src)
        torch_says = (f"Index put requires the source and destination dtypes match, got "
                      f"{scalar_type_name(d)} for the destination and {scalar_type_name(s)} for the source."
                      if d and s else "Index put requires the source and destination dtypes match")
        new_value = cst.Call(func=cst.Attribute(value=_paren(stmt.value), attr=cst.Name("to")),
                             args=[cst.Arg(cst.Attribute(value=target.value, attr=cst.Name("dtype")))])
        fix = Fix(stmt.value, new_value, f"Convert the source: `{code(stmt.value, 30)}.to({code(target.value, 20)}.dtype)`",
                  safe=False)
        self.flag(ev, stmt,
                  f"`{code(target)} = ...` raises RuntimeError: writing through an index tensor or mask "
                  f"needs the same dtype, but `{code(target.value, 30)}` is {show(dest)} and the value is "
                  f"{show(src)}{origin_note(src)} (torch: {said(torch_says)}); convert the value with "
                  f"`.to({code(target.value, 20)}.dtype)`",
                  origin=src.origin, fix=fix)


def _paren(node: Any) -> Any:
    from .dtype_support import paren
    return paren(node)


# --------------------------------------------------------------------------- TTL206

_PARAMETER = {"torch.nn.Parameter", "torch.nn.parameter.Parameter"}


@register
class RequiresGradNonFloat(DtypeRule):
    """
    ## What it does
    Flags gradients requested on integer or bool tensors: `requires_grad=True` in a
    constructor that produces an integer tensor (`torch.tensor([1, 2, 3], ...)`,
    `torch.arange(5, ...)`, `torch.zeros(3, dtype=torch.long, ...)`), `x.requires_grad_()`
    and `x.requires_grad = True` on an integer tensor, and `nn.Parameter(int_tensor)`.

    ## Why is this bad?
    Only floating-point and complex tensors can have gradients: `RuntimeError: Only
    Tensors of floating point and complex dtype can require gradients`. `torch.tensor` of
    Python ints is int64, so `torch.tensor([1, 2, 3], requires_grad=True)` fails.

    ## Example
    ```python
    w = torch.tensor([1, 2, 3], requires_grad=True)
    ```

    ## Use instead
    ```python
    w = torch.tensor([1, 2, 3], requires_grad=True, dtype=torch.float32)
    # or float literals: torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    ```

    ## Fix safety
    Unsafe: the fix adds `dtype=torch.float32` to a constructor that has no `dtype=`; the
    tensor becomes float32, which changes later integer arithmetic.
    """

    code = "TTL206"
    name = "requires-grad-non-float"
    summary = "requires_grad on an integer or bool tensor (only float/complex tensors have gradients)"
    severity = "error"
    listens = (cst.Call, cst.Assign)
    fix_safety = "unsafe"
    runtime = RuntimeClaim("RuntimeError", r"(?i)only Tensors of floating point")

    def visit(self, node: Any, ev: Any) -> None:
        if isinstance(node, cst.Assign):
            for target in node.targets:
                t = target.target
                if isinstance(t, cst.Attribute) and t.attr.value == "requires_grad" and \
                        _is_true(ev.value(node.value)):
                    owner = ev.value(t.value)
                    if all_dtypes(owner, is_int_or_bool):
                        self.flag(ev, node,
                                  f"`{code(t)} = True` raises RuntimeError: `{code(t.value)}` is "
                                  f"{show(owner)}{origin_note(owner)} and only floating-point tensors "
                                  f"can require gradients; convert it first: `{code(t.value)} = "
                                  f"{code(t.value)}.float()`",
                                  origin=owner.origin)
            return
        callee = ev.callee(node)
        if callee is None or callee.args.has_star:
            return
        args = callee.args
        if callee.kind == "method" and callee.name == "requires_grad_" and \
                isinstance(callee.receiver, TensorValue):
            flag = args.get(0, "requires_grad")
            if args.has(0, "requires_grad") and not _is_true(flag):
                return
            x = callee.receiver
            if all_dtypes(x, is_int_or_bool):
                self.flag(ev, node,
                          f"`{code(node)}` raises RuntimeError (\"only Tensors of floating point dtype "
                          f"can require gradients\"): the tensor is {show(x)}{origin_note(x)}; convert "
                          f"it first: `.float().requires_grad_()`",
                          origin=x.origin)
            return
        if callee.kind != "symbol":
            return
        if callee.name in _PARAMETER or callee.name.endswith(".Parameter"):
            data = args.get(0, "data")
            if args.has(1, "requires_grad") and not _is_true(args.get(1, "requires_grad")):
                return
            if all_dtypes(data, is_int_or_bool):
                self.flag(ev, node,
                          f"`nn.Parameter(...)` of a {show(data)} tensor{origin_note(data)} raises "
                          f"RuntimeError (\"Only Tensors of floating point and complex dtype can require "
                          f"gradients\"); convert the data (`.float()`) or pass `requires_grad=False` "
                          f"for a non-trainable integer parameter",
                          origin=data.origin)
            return
        if not callee.name.startswith("torch.") or not _is_true(args.kw.get("requires_grad")):
            return
        result = callee.result
        if not all_dtypes(result, is_int_or_bool):
            return
        fix = None
        module_expr = torch_module_expr(node.func)
        if "dtype" not in args.kw and module_expr is not None and one(result) != BOOL:
            new_args = list(node.args)
            last = new_args[-1]
            new_args[-1] = last.with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
            new_args.append(cst.Arg(value=dtype_attr(module_expr, "float32"), keyword=cst.Name("dtype"),
                                    equal=cst.AssignEqual(whitespace_before=cst.SimpleWhitespace(""),
                                                          whitespace_after=cst.SimpleWhitespace(""))))
            fix = Fix(node, node.with_changes(args=new_args), "Add `dtype=torch.float32`", safe=False)
        self.flag(ev, node,
                  f"`{code(node)}` creates a {show(result)} tensor"
                  f"{' (' + result.origin.note + ')' if result.origin is not None and result.origin.note else ''} with "
                  f"requires_grad=True: torch raises RuntimeError (\"Only Tensors of floating point and "
                  f"complex dtype can require gradients\"); use float data or add `dtype=torch.float32`",
                  origin=result.origin, fix=fix)


def _is_true(value: Value) -> bool:
    return isinstance(value, ScalarValue) and value.const is True


# --------------------------------------------------------------------------- TTL207

_CLASS_LOSSES = ("cross_entropy", "nll_loss")
_CLASS_LOSS_MODULES = ("CrossEntropyLoss", "NLLLoss")


@register
class ClassTargetDtype(DtypeRule):
    """
    ## What it does
    Flags class-index targets of `F.cross_entropy`, `F.nll_loss`, `nn.CrossEntropyLoss` and
    `nn.NLLLoss` that have the wrong dtype: float targets of class indices (one dimension
    fewer than the input), int32/int16/int8/bool targets, and int64 one-hot targets of the
    input's shape given to cross-entropy.

    ## Why is this bad?
    Class indices must be int64 (or uint8): `RuntimeError: expected target dtype to be Long
    or Byte, but got Float` (or `... but got Int` for int32, a common result of numpy
    `astype(np.int32)` or `dtype=torch.int`). A target with the input's shape is read as
    class *probabilities*, which must be floating point: `Expected floating point type for
    target with class probabilities, got Long`.

    ## Example
    ```python
    logits = model(x)                     # (N, C) float32
    labels = torch.tensor([0., 2., 1.])   # float class indices
    loss = F.cross_entropy(logits, labels)
    ```

    ## Use instead
    ```python
    loss = F.cross_entropy(logits, labels.long())
    ```

    ## Fix safety
    Unsafe: the fix converts the target (`.long()` for class indices, `.float()` for
    one-hot targets); float class labels that are not whole numbers get truncated.
    """

    code = "TTL207"
    name = "class-target-dtype"
    summary = "cross_entropy/nll_loss target of the wrong dtype (class indices must be int64)"
    severity = "error"
    listens = (cst.Call,)
    fix_safety = "unsafe"
    runtime = RuntimeClaim("RuntimeError", r"expected target dtype to be Long or Byte|"
                                           r"Expected floating point type for target with class probabilities",
                           pattern_devices=("cpu",))

    def visit(self, node: cst.Call, ev: Any) -> None:
        found = _symbol_or_module(ev, node, _CLASS_LOSSES, _CLASS_LOSS_MODULES)
        if found is None:
            return
        name, args = found
        logits, target = args.get(0, "input"), args.get(1, "target")
        target_node = args.node(1, "target")
        if not isinstance(logits, TensorValue) or not all_dtypes(logits, is_float):
            return
        dtypes = dtypes_of(target)
        if dtypes is None:
            return
        lr, tr = rank(logits), rank(target)
        cross_entropy = name in ("cross_entropy", "CrossEntropyLoss")
        message, want = None, None
        if cross_entropy and all(category(d) <= 1 and d not in (INT64, UINT8) for d in dtypes) and \
                lr is not None and tr == lr and lr >= 1:
            # Same shape as the input: read as class probabilities, which must be float.
            t = one(target)
            message = ("Expected floating point type for target with class probabilities, got "
                       f"{scalar_type_name(t) if t else 'Int'}")
            want = FLOAT32
        elif all(category(d) <= 1 and d not in (INT64, UINT8) for d in dtypes):
            t = one(target)
            message = (f"expected target dtype to be Long or Byte, but got {scalar_type_name(t)}" if t
                       else "expected target dtype to be Long or Byte")
            want = INT64
        elif all(is_float(d) for d in dtypes) and lr is not None and tr is not None and tr == lr - 1:
            t = one(target)
            message = f"expected target dtype to be Long or Byte, but got {scalar_type_name(t) if t else 'Float'}"
            want = INT64
        elif cross_entropy and all(d in (INT64, UINT8) for d in dtypes) and lr is not None and tr == lr \
                and lr >= 1 and _same_class_dim(logits, target):
            message = ("Expected floating point type for target with class probabilities, got "
                       f"{scalar_type_name(one(target)) if one(target) else 'Long'}")
            want = FLOAT32
        if message is None:
            return
        fix = None
        if target_node is not None:
            fix = Fix(target_node, cast_expr(target_node, want),
                      f"Convert the target: `{cast_text(code(target_node, 30), want)}`", safe=False)
        meaning = ("class indices must be int64" if want == INT64
                   else "a target of the input's shape holds class probabilities, which must be float")
        self.flag(ev, node,
                  f"`{name}` target is {show(target)}{origin_note(target)} but {meaning}: torch raises "
                  f"RuntimeError ({said(message)}); use "
                  f"`{cast_text(code(target_node, 30) if target_node is not None else 'target', want)}`",
                  origin=target.origin, fix=fix)


def _same_class_dim(a: Value, b: Value) -> bool:
    """An int64 target of the logits' rank is read as class probabilities only when its class
    dimension is known to equal the logits'; an (N, 1) target of (N, C) logits, or of logits
    whose C is unknown, fails as a class-index column instead (torch: "0D or 1D target tensor
    expected", TTL512's case), so which message torch prints is not known here."""
    if not isinstance(a, TensorValue) or not isinstance(b, TensorValue) or a.shape is None or b.shape is None:
        return False
    if len(a.shape) != len(b.shape) or not a.shape:
        return False
    axis = 1 if len(a.shape) >= 2 else 0  # (N, C, ...) or unbatched (C,)
    ca, cb = a.shape[axis], b.shape[axis]
    if not (isinstance(ca, int) and isinstance(cb, int) and ca == cb):
        return False
    return not any(isinstance(x, int) and isinstance(y, int) and x != y for x, y in zip(a.shape, b.shape))


# --------------------------------------------------------------------------- TTL208

_BINARY_LOSSES = ("binary_cross_entropy", "binary_cross_entropy_with_logits", "huber_loss")
_BINARY_LOSS_MODULES = ("BCELoss", "BCEWithLogitsLoss", "HuberLoss")


@register
class LossTargetDtype(DtypeRule):
    """
    ## What it does
    Flags loss targets whose dtype torch rejects for that loss:
    `F.binary_cross_entropy` / `nn.BCELoss` with a target dtype different from the input's
    (int64 labels, or float64 labels from numpy against float32 predictions);
    `F.binary_cross_entropy_with_logits` / `nn.BCEWithLogitsLoss` with integer or bool
    targets; `F.huber_loss` / `nn.HuberLoss` with input and target of different dtypes
    (outside `torch.no_grad()`).

    ## Why is this bad?
    `BCELoss` raises `RuntimeError: Found dtype Long but expected Float` in the forward
    pass; `BCEWithLogitsLoss` raises `result type Float can't be cast to the desired output
    type Long` for integer targets. `huber_loss` computes the forward pass, then
    `backward()` raises `Found dtype Double but expected Float`. (MSE, L1, smooth L1 and
    BCE-with-logits accept a float64 target in torch 2.13 and are not flagged.)

    ## Example
    ```python
    probs = torch.sigmoid(model(x))          # float32
    labels = torch.randint(0, 2, (4, 1))     # int64
    loss = F.binary_cross_entropy(probs, labels)
    ```

    ## Use instead
    ```python
    loss = F.binary_cross_entropy(probs, labels.float())
    ```

    ## Fix safety
    Unsafe: the fix converts the target with `.float()` when the input is float32.
    """

    code = "TTL208"
    name = "loss-target-dtype"
    summary = "BCE / BCEWithLogits / Huber loss target of a dtype torch rejects"
    severity = "error"
    listens = (cst.Call,)
    fix_safety = "unsafe"
    runtime = RuntimeClaim("RuntimeError", r"Found dtype \w+ but expected \w+|result type \w+ can't be cast|"
                                           r"Subtraction, the `-` operator, with two bool tensors",
                           pattern_devices=("cpu",))

    def visit(self, node: cst.Call, ev: Any) -> None:
        found = _symbol_or_module(ev, node, _BINARY_LOSSES, _BINARY_LOSS_MODULES)
        if found is None:
            return
        name, args = found
        pred, target = args.get(0, "input"), args.get(1, "target")
        target_node = args.node(1, "target")
        if not all_dtypes(pred, is_float) or dtypes_of(target) is None:
            return
        p, t = one(pred), one(target)
        message = None
        when = "raises RuntimeError"
        if name in ("binary_cross_entropy", "BCELoss"):
            if p is not None and never_equal(pred, target):
                message = (f"Found dtype {scalar_type_name(t)} but expected {scalar_type_name(p)}" if t
                           else f"Found dtype ... but expected {scalar_type_name(p)}")
        elif name in ("binary_cross_entropy_with_logits", "BCEWithLogitsLoss"):
            if all_dtypes(target, lambda d: category(d) == 1):
                message = (f"result type Float can't be cast to the desired output type "
                           f"{scalar_type_name(t) if t else 'Long'}")
            elif all_dtypes(target, is_bool):
                message = "Subtraction, the `-` operator, with two bool tensors is not supported"
        else:
            if never_equal(pred, target) and not ev.no_grad_depth:
                when = "computes the loss, but `backward()` raises RuntimeError"
                message = (f"Found dtype {scalar_type_name(t)} but expected {scalar_type_name(p)}"
                           if t and p else "Found dtype ... but expected ...")
        if message is None:
            return
        fix = None
        if p == FLOAT32 and target_node is not None:
            fix = Fix(target_node, cast_expr(target_node, FLOAT32), "Convert the target with `.float()`",
                      safe=False)
        target_text = code(target_node, 30) if target_node is not None else "target"
        self.flag(ev, node,
                  f"`{name}` with a {show(pred)} input and a {show(target)} target{origin_note(target)} "
                  f"{when} (torch: {said(message)}); convert the target: "
                  f"`{cast_text(target_text, p or FLOAT32)}`",
                  origin=target.origin, fix=fix)


# --------------------------------------------------------------------------- TTL209

_INDEX_OK = (INT64, INT32)
_LEGACY_NAMES = {v: k for k, v in D.LEGACY_TENSOR_TYPES.items()}
_INDEX_METHODS = {
    # name -> (index position for the method form, keyword, torch message)
    "gather": (1, "index", "gather(): Expected dtype int32/int64 for index"),
    "index_select": (1, "index", "index_select(): Expected dtype int32 or int64 for index"),
    "scatter": (1, "index", "scatter(): Expected dtype int32/int64 for index"),
    "scatter_": (1, "index", "scatter(): Expected dtype int32/int64 for index"),
    "scatter_add": (1, "index", "scatter(): Expected dtype int32/int64 for index"),
    "scatter_add_": (1, "index", "scatter(): Expected dtype int32/int64 for index"),
    "index_add": (1, "index", "index_add_(): Expected dtype int32/int64 for index"),
    "index_add_": (1, "index", "index_add_(): Expected dtype int32/int64 for index"),
}


@register
class IndexArgumentDtype(DtypeRule):
    """
    ## What it does
    Flags index arguments that are not int64/int32: the input of `nn.Embedding`,
    `nn.EmbeddingBag` and `F.embedding`, and the `index` of `gather`, `index_select`,
    `scatter(_)`, `scatter_add(_)` and `index_add(_)`, when it is a float, bool, uint8 or
    int16 tensor.

    ## Why is this bad?
    These ops only accept int64 or int32 indices: `RuntimeError: Expected tensor for
    argument #1 'indices' to have one of the following scalar types: Long, Int; but got
    torch.FloatTensor instead`, `gather(): Expected dtype int32/int64 for index`. Token ids
    often become float after a division, `torch.tensor` of floats or a numpy float array.

    ## Example
    ```python
    emb = nn.Embedding(10, 4)
    ids = torch.tensor([1.0, 2.0])
    vectors = emb(ids)
    ```

    ## Use instead
    ```python
    vectors = emb(ids.long())
    ```

    ## Fix safety
    Unsafe: the fix converts the index with `.long()`, truncating fractional values.
    """

    code = "TTL209"
    name = "index-argument-dtype"
    summary = "embedding/gather/index_select/scatter index that is not int64 or int32"
    severity = "error"
    listens = (cst.Call,)
    fix_safety = "unsafe"
    runtime = RuntimeClaim("RuntimeError", r"Expected tensor for argument #1 'indices' to have one of the "
                                           r"following scalar types: Long, Int|Expected dtype int32(/| or )int64 for index")

    def visit(self, node: cst.Call, ev: Any) -> None:
        found = self._index(node, ev)
        if found is None:
            return
        what, index, index_node, torch_says = found
        if not all_dtypes(index, lambda d: d not in _INDEX_OK):
            return
        fix = None
        if index_node is not None:
            fix = Fix(index_node, cast_expr(index_node, INT64), "Convert the index with `.long()`", safe=False)
        text = code(index_node, 30) if index_node is not None else "index"
        self.flag(ev, node,
                  f"{what} gets a {show(index)} index{origin_note(index)} but indices must be int64 or "
                  f"int32: torch raises RuntimeError ({said(torch_says)}); use `{text}.long()`",
                  origin=index.origin, fix=fix)

    def _index(self, node: cst.Call, ev: Any):
        callee = ev.callee(node)
        if callee is None or callee.args.has_star:
            return None
        args = callee.args
        if callee.kind == "module" and isinstance(callee.receiver, ModuleValue) and \
                callee.receiver.short_name in ("Embedding", "EmbeddingBag"):
            index = args.get(0, "input")
            return (f"`{callee.receiver.short_name}`", index, args.node(0, "input"), _embedding_message(index))
        if callee.kind == "symbol" and callee.name == "torch.nn.functional.embedding":
            index = args.get(0, "input")
            return "`F.embedding`", index, args.node(0, "input"), _embedding_message(index)
        if callee.kind == "method" and isinstance(callee.receiver, TensorValue) and callee.name in _INDEX_METHODS:
            position, keyword, message = _INDEX_METHODS[callee.name]
            return f"`.{callee.name}()`", args.get(position, keyword), args.node(position, keyword), message
        if callee.kind == "symbol" and callee.name.startswith("torch.") and callee.name[6:] in (
                "gather", "index_select", "scatter", "scatter_add", "index_add"):
            position, keyword, message = _INDEX_METHODS[callee.name[6:]]
            return f"`{callee.name}`", args.get(position + 1, keyword), args.node(position + 1, keyword), message
        return None


def _embedding_message(index: Value) -> str:
    d = one(index)
    legacy = _LEGACY_NAMES.get(d or "")
    prefix = "Expected tensor for argument #1 'indices' to have one of the following scalar types: Long, Int"
    if legacy and d != BOOL:  # bool prints a backend-specific name (CPUBoolType)
        return f"{prefix}; but got torch.{legacy} instead"
    return prefix


# --------------------------------------------------------------------------- TTL210

_INDEXING_OK = (INT64, INT32, UINT8, BOOL)


@register
class FloatTensorIndex(DtypeRule):
    """
    ## What it does
    Flags indexing a tensor with a floating-point (or int8/int16) index tensor, or with a
    Python float: `x[idx]` where `idx` is float32, `x[i / 2]`.

    ## Why is this bad?
    Tensor indices must be int64, int32, uint8 or bool: `IndexError: tensors used as
    indices must be long, int, byte or bool tensors`, and Python floats are rejected with
    `IndexError: only integers, slices (`:`), ellipsis (`...`), None and long or byte
    Variables are valid indices (got float)`. Float indices usually come from true division
    (`/`), which always gives floats, or from `torch.tensor` of float literals.

    ## Example
    ```python
    x = torch.randn(10)
    idx = torch.arange(10) / 2
    picked = x[idx]
    ```

    ## Use instead
    ```python
    idx = torch.arange(10) // 2
    picked = x[idx]
    ```

    ## Fix safety
    Unsafe: the fix converts an index tensor with `.long()`, truncating fractions.
    """

    code = "TTL210"
    name = "float-tensor-index"
    summary = "tensor indexed with a float tensor or a Python float"
    severity = "error"
    listens = (cst.Subscript, cst.Assign)
    fix_safety = "unsafe"
    runtime = RuntimeClaim("IndexError", r"tensors used as indices must be long, int, byte or bool tensors|"
                                         r"are valid indices \(got float\)")

    def visit(self, node: Any, ev: Any) -> None:
        if isinstance(node, cst.Assign):
            for target in node.targets:
                if isinstance(target.target, cst.Subscript):
                    self._check(target.target, ev, node)
            return
        self._check(node, ev, node)

    def _check(self, sub: cst.Subscript, ev: Any, report_node: Any) -> None:
        container = ev.value(sub.value)
        if not isinstance(container, TensorValue):
            return
        for element in sub.slice:
            if not isinstance(element.slice, cst.Index):
                continue
            index_node = element.slice.value
            index = ev.value(index_node)
            if isinstance(index, ScalarValue) and index.pytype == "float" and _computed_float(index_node, index):
                self.flag(ev, report_node,
                          f"indexing `{code(sub.value, 30)}` with the Python float `{code(index_node, 30)}` "
                          "raises IndexError (\"only integers, slices (`:`), ellipsis (`...`), None and long or "
                          f"byte Variables are valid indices (got float)\"); use an int: `int({code(index_node, 30)})` "
                          "or `//` instead of `/`")
                return
            if all_dtypes(index, lambda d: d not in _INDEXING_OK):
                fix = Fix(index_node, cast_expr(index_node, INT64), "Convert the index with `.long()`", safe=False)
                self.flag(ev, report_node,
                          f"indexing `{code(sub.value, 30)}` with a {show(index)} tensor{origin_note(index)} "
                          "raises IndexError (\"tensors used as indices must be long, int, byte or bool "
                          f"tensors\"); use `{code(index_node, 30)}.long()`",
                          origin=index.origin, fix=fix)
                return


def _computed_float(node: Any, value: ScalarValue) -> bool:
    """A float the file computes here (`x[n / 2]`, `x[1.0]`), not one a parameter annotation
    promises (`i: float` is often a loose annotation of an int)."""
    return value.const is not None or (isinstance(node, cst.BinaryOperation)
                                       and isinstance(node.operator, cst.Divide))


# --------------------------------------------------------------------------- TTL211

_NEEDS_FLOAT = {
    "mean": "mean(): could not infer output dtype. Input dtype must be either a floating point or complex dtype. Got: {d}",
    "nanmean": "nanmean(): expected input to have floating point or complex dtype but got {d}",
    "std": "std and var only support floating point and complex dtypes",
    "var": "std and var only support floating point and complex dtypes",
    "std_mean": "std_mean only support floating point and complex dtypes",
    "var_mean": "var_mean only support floating point and complex dtypes",
    "norm": "linalg.vector_norm: Expected a floating point or complex tensor as input. Got {d}",
    "quantile": "quantile() input tensor must be either float or double dtype",
    "nanquantile": "quantile() input tensor must be either float or double dtype",
    "softmax": "\"softmax_lastdim_kernel_impl\" not implemented for '{d}'",
    "log_softmax": "\"log_softmax_lastdim_kernel_impl\" not implemented for '{d}'",
    "rand_like": "\"check_uniform_bounds\" not implemented for '{d}'",
    "randn_like": "\"normal_kernel_cpu\" not implemented for '{d}'",
    "gelu": "\"GeluKernelImpl\" not implemented for '{d}'",
}
#: Ops that take ``dtype=`` and then work on integers.
_ACCEPT_DTYPE = {"mean", "nanmean", "softmax", "log_softmax", "rand_like", "randn_like", "norm"}
_FUNCTIONAL = {"softmax", "log_softmax", "gelu", "normalize"}
_MODULES = {"Softmax": "softmax", "LogSoftmax": "log_softmax", "GELU": "gelu"}


@register
class OpUndefinedForDtype(DtypeRule):
    """
    ## What it does
    Flags operations that only exist for floating-point tensors, applied to an integer or
    bool tensor: `.mean()`, `.std()`, `.var()`, `std_mean`, `var_mean`, `nanmean`,
    `.norm()` / `F.normalize`, `quantile`, `softmax` / `log_softmax` (method, `torch.`,
    `F.` and `nn.Softmax`), `F.gelu` / `nn.GELU`, `rand_like` / `randn_like`, and
    `F.cross_entropy` with integer logits. The classic case is accuracy as
    `(pred == y).mean()`.

    ## Why is this bad?
    torch does not convert for you: `RuntimeError: mean(): could not infer output dtype.
    Input dtype must be either a floating point or complex dtype. Got: Bool`, `std and var
    only support floating point and complex dtypes`, `NotImplementedError:
    "softmax_lastdim_kernel_impl" not implemented for 'Long'`. (`sum`, `max`, `median`,
    `exp`, `sigmoid` work on integers and are not flagged.)

    ## Example
    ```python
    accuracy = (pred == y).mean()
    ```

    ## Use instead
    ```python
    accuracy = (pred == y).float().mean()
    ```

    ## Fix safety
    Safe for the method form: `x.mean()` becomes `x.float().mean()`, which computes exactly
    what the call was written to compute. Other forms get no fix.
    """

    code = "TTL211"
    name = "op-undefined-for-dtype"
    summary = "mean/std/var/softmax/norm on an integer or bool tensor (float-only ops)"
    severity = "error"
    listens = (cst.Call,)
    fix_safety = "safe"
    # NotImplementedError is a RuntimeError subclass.
    runtime = RuntimeClaim("RuntimeError", r"could not infer output dtype|only support floating point|"
                                           r"Expected a floating point or complex tensor|"
                                           r"must be either float or double|not implemented for|"
                                           r"expected input to have floating point", pattern_devices=("cpu",))

    def visit(self, node: cst.Call, ev: Any) -> None:
        callee = ev.callee(node)
        if callee is None or callee.args.has_star:
            return
        args = callee.args
        receiver_node = None
        if callee.kind == "method" and isinstance(callee.receiver, TensorValue) and callee.name in _NEEDS_FLOAT \
                and isinstance(node.func, cst.Attribute):
            op, x, receiver_node = callee.name, callee.receiver, node.func.value
            label = f".{op}()"
        elif callee.kind == "symbol" and callee.name.startswith("torch.nn.functional.") and \
                callee.name[20:] in _FUNCTIONAL | {"cross_entropy"}:
            op, x = callee.name[20:], args.get(0, "input")
            label = f"F.{op}"
            if op == "normalize":
                op = "norm"
            if op == "cross_entropy":
                op = "log_softmax"
        elif callee.kind == "symbol" and callee.name.startswith("torch.") and (
                callee.name[6:] in _NEEDS_FLOAT or callee.name in ("torch.linalg.vector_norm", "torch.linalg.norm")):
            op = "norm" if callee.name.startswith("torch.linalg.") else callee.name[6:]
            x, label = args.get(0, "input"), callee.name
        elif callee.kind == "module" and isinstance(callee.receiver, ModuleValue) and (
                callee.receiver.short_name in _MODULES or callee.receiver.short_name == "CrossEntropyLoss"):
            op = _MODULES.get(callee.receiver.short_name, "log_softmax")
            x, label = args.get(0, "input"), f"nn.{callee.receiver.short_name}"
        else:
            return
        if "dtype" in args.kw and op in _ACCEPT_DTYPE:
            return
        if not all_dtypes(x, is_int_or_bool):
            return
        d = one(x)
        torch_says = _NEEDS_FLOAT[op].format(d=scalar_type_name(d) if d else "...")
        exception = "NotImplementedError" if "not implemented" in torch_says else "RuntimeError"
        fix = None
        hint = "convert it first with `.float()`"
        if receiver_node is not None:
            fixed = cst.Call(func=cst.Attribute(value=cast_expr(receiver_node, FLOAT32), attr=node.func.attr),
                             args=node.args)
            fix = Fix(node, fixed, f"Convert to float first: `{code(fixed)}`", safe=True)
            hint = f"use `{code(fixed)}`"
        self.flag(ev, node,
                  f"`{label}` on a {show(x)} tensor{origin_note(x)} raises {exception} ({said(torch_says)}): "
                  f"it is only defined for floating-point tensors; {hint}",
                  origin=x.origin, fix=fix)


# --------------------------------------------------------------------------- TTL212


@register
class BoolTensorSubtraction(DtypeRule):
    """
    ## What it does
    Flags `-` with a bool tensor operand (`1 - mask`, `1.0 - mask`, `mask - other`) and
    unary negation of a bool tensor (`-mask`).

    ## Why is this bad?
    torch refuses arithmetic negation and subtraction on bool tensors: `RuntimeError:
    Subtraction, the `-` operator, with a bool tensor is not supported. If you are trying
    to invert a mask, use the `~` or `logical_not()` operator instead.` The attention-mask
    idiom `(1 - mask) * -1e9` fails as soon as the mask is bool (e.g. built with `==` or
    `<`). `mask * -1e9` and `~mask` are fine.

    ## Example
    ```python
    mask = tokens != pad_id
    penalty = (1 - mask) * -1e9
    ```

    ## Use instead
    ```python
    penalty = (~mask) * -1e9
    # or, keeping the arithmetic: (1 - mask.long()) * -1e9
    ```

    ## Fix safety
    Safe when the other operand is a number literal: `1 - mask` becomes
    `1 - mask.long()` and `1.0 - mask` becomes `1.0 - mask.float()`, which compute what the
    expression spells (Python's `1 - True == 0`). No fix otherwise.
    """

    code = "TTL212"
    name = "bool-tensor-subtraction"
    summary = "subtraction or negation of a bool tensor (use ~ or logical_not)"
    severity = "error"
    listens = (cst.BinaryOperation, cst.UnaryOperation)
    fix_safety = "safe"
    runtime = RuntimeClaim("RuntimeError", r"(Subtraction|Negation), the `-` operator, .*bool tensor")

    def visit(self, node: Any, ev: Any) -> None:
        if isinstance(node, cst.UnaryOperation):
            if isinstance(node.operator, cst.Minus):
                x = ev.value(node.expression)
                if all_dtypes(x, is_bool):
                    self.flag(ev, node,
                              f"`{code(node)}` raises RuntimeError (\"Negation, the `-` operator, on a bool "
                              f"tensor is not supported\"): `{code(node.expression, 30)}` is bool{origin_note(x)}; use "
                              f"`~{code(node.expression, 30)}` to invert a mask",
                              origin=x.origin)
            return
        if not isinstance(node.operator, cst.Subtract):
            return
        left, right = ev.value(node.left), ev.value(node.right)
        bool_side = None
        if all_dtypes(right, is_bool):
            bool_side = "right"
        elif all_dtypes(left, is_bool):
            bool_side = "left"
        if bool_side is None:
            return
        mask_node = node.right if bool_side == "right" else node.left
        other_node = node.left if bool_side == "right" else node.right
        mask = right if bool_side == "right" else left
        fix = None
        if isinstance(other_node, (cst.Integer, cst.Float)):
            dtype = INT64 if isinstance(other_node, cst.Integer) else FLOAT32
            new_mask = cast_expr(mask_node, dtype)
            fixed = node.with_changes(right=new_mask) if bool_side == "right" else node.with_changes(left=new_mask)
            fix = Fix(node, fixed, f"Convert the mask: `{code(fixed)}`", safe=True)
        two = all_dtypes(left, is_bool) and all_dtypes(right, is_bool)
        torch_says = ("Subtraction, the `-` operator, with two bool tensors is not supported" if two
                      else "Subtraction, the `-` operator, with a bool tensor is not supported")
        self.flag(ev, node,
                  f"`{code(node)}` raises RuntimeError ({said(torch_says)}): "
                  f"`{code(mask_node, 30)}` is bool{origin_note(mask)}; use `~{code(mask_node, 30)}` to "
                  f"invert a mask, or convert it first: `{code(mask_node, 30)}.long()`",
                  origin=mask.origin, fix=fix)
