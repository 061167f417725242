"""TTL209 index-argument-dtype: embedding/gather/index_select/scatter index that is not int64 or int32."""
from __future__ import annotations


import libcst as cst

from ...model.findings import Fix
from ...knowledge import dtypes as D
from ...model.values import BOOL, INT32, INT64, ModuleValue, TensorValue, Value
from ..base import RuntimeClaim, register
from ..dtype_names import one, origin_note, said, show
from ..dtype_predicates import all_dtypes
from ..dtype_rule import DtypeRule
from ..source_edits import cast_expr, code
from ..context import RuleContext

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
    # CPU's checks (torch 2.4's gather says "Expected dtype int64 for index"), then CUDA's
    # kernel dispatch (`"index_select_out_cuda_impl" not implemented for 'Bool'`).
    runtime = RuntimeClaim("RuntimeError", r"Expected tensor for argument #1 'indices' to have one of the "
                                           r"following scalar types: Long, Int|Expected dtype (int32(/| or ))?int64 for index|"
                                           r"_cuda\w*\" not implemented for")

    def visit(self, node: cst.Call, ctx: RuleContext) -> None:
        found = self._index(node, ctx)
        if found is None:
            return
        what, index, index_node, torch_says = found
        if not all_dtypes(index, lambda d: d not in _INDEX_OK):
            return
        fix = None
        if index_node is not None:
            fix = Fix(index_node, cast_expr(index_node, INT64), "Convert the index with `.long()`", safe=False)
        text = code(index_node, 30) if index_node is not None else "index"
        self.flag(ctx, node,
                  f"{what} gets a {show(index)} index{origin_note(index)} but indices must be int64 or "
                  f"int32: torch raises RuntimeError ({said(torch_says)}); use `{text}.long()`",
                  origin=index.origin, fix=fix)

    def _index(self, node: cst.Call, ctx: RuleContext):
        callee = ctx.callee(node)
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
