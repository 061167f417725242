"""What a reproduction may name: an allowlist built from the linter's own knowledge.

A reproduction is code that ``check --confirm`` runs, and the files it is built from may come
from an untrusted pull request. So a callable is allowed only when the linter's knowledge
(``knowledge/``, the op contract table) names it exactly, and never when it reads or writes
files, loads pickles, compiles, or reaches other processes (``FORBIDDEN_CALLS`` stays as a
second guard). ``torch.os``, ``torch.builtins`` and everything else reachable through a module's
attributes are not in any table, so they are refused by construction. No torch here.
"""
from __future__ import annotations

import keyword
from functools import lru_cache
from typing import FrozenSet, Iterable

from ..contracts.table import public_names
from ..knowledge import dtypes as D
from ..knowledge import nn_modules as NN
from ..knowledge import numpy_api as NP
from ..knowledge import torch_api as T

#: Library functions a reproduction never calls: they read or write files, load pickles
#: (which runs code), download, compile, or reach other processes. Prefixes of qualified names.
FORBIDDEN_CALLS = (
    "torch.load", "torch.save", "torch.hub", "torch.jit", "torch.package", "torch.onnx",
    "torch.export", "torch.compile", "torch.from_file", "torch.utils", "torch.distributed",
    "torch.multiprocessing", "torch.backends", "torch.ops", "torch.library", "torch.classes",
    "torch.cuda.memory", "torch.profiler", "torch.serialization", "torch.os", "torch.sys",
    "torch.builtins", "torch.importlib", "torch.subprocess", "torch.func", "torch.vmap",
    "torch.set_default_tensor_type", "torch.set_default_device", "torch.set_default_dtype",
    "numpy.load", "numpy.save", "numpy.loadtxt", "numpy.savetxt", "numpy.genfromtxt",
    "numpy.fromfile", "numpy.memmap", "numpy.lib", "numpy.ctypeslib", "numpy.f2py",
    "numpy.testing", "numpy.distutils", "numpy.fromregex", "numpy.DataSource",
)
#: Methods never called on a rebuilt object: file output, pickling, shared memory, storages
#: (whose ``type(str)`` imports the named module), and methods that take arbitrary callables.
FORBIDDEN_METHODS = frozenset({
    "tofile", "dump", "dumps", "save", "load", "load_state_dict", "state_dict", "apply", "apply_",
    "map_", "map2_", "register_hook", "register_forward_hook", "register_forward_pre_hook",
    "register_full_backward_hook", "register_buffer", "register_parameter", "register_module",
    "share_memory_", "storage", "untyped_storage", "storage_type", "set_", "data_ptr",
})

#: Tensor methods the interpreter models by name (``torch_api.tensor_method``) beyond the sets
#: it exports, and what the harness's own reproductions call.
MODELLED_TENSOR_METHODS = frozenset({
    "to", "type", "type_as", "cuda", "cpu", "expand", "view", "view_as", "reshape_as",
    "expand_as", "size", "dim", "ndimension", "numel", "nelement", "element_size", "item",
    "numpy", "tolist", "gather", "index_add_", "scatter_add_", "backward", "requires_grad_",
    "is_floating_point", "is_complex", "float", "double",
})
#: Methods of ``nn`` modules a reproduction calls (casts and device moves; calling a module is a
#: plain call of its name).
MODULE_METHODS = frozenset({"to", "float", "double", "half", "bfloat16", "cuda", "cpu", "train",
                            "eval", "forward", "requires_grad_", "zero_grad"})
#: ndarray methods the numpy knowledge models (``numpy_api.ndarray_method``).
NDARRAY_METHODS = frozenset({"astype", "copy", "flatten", "ravel", "reshape", "transpose",
                             "squeeze"})
#: Methods of the harness's own helper values (``__outcomes__.append``).
HELPER_METHODS = frozenset({"append"})
#: Data attributes read (not called) from tensors, arrays and dtypes.
VALUE_ATTRIBUTES = frozenset({"dtype", "shape", "device", "ndim", "requires_grad", "grad", "T",
                              "is_cuda", "is_leaf", "layout", "is_floating_point", "itemsize",
                              "real", "imag", "mT", "H", "size"})

#: numpy functions the numpy knowledge models (``numpy_api.call_numpy_function``), loaders
#: left out.
MODELLED_NUMPY_FUNCTIONS = frozenset({
    "full", "array", "asarray", "ascontiguousarray", "arange", "linspace", "concatenate",
    "stack", "vstack", "hstack", "zeros_like", "ones_like", "empty_like", "full_like", "dtype",
})
#: torch functions the harness's own reproducers call.
HARNESS_TORCH_FUNCTIONS = frozenset({"get_default_dtype", "broadcast_shapes", "device",
                                     "result_type", "can_cast", "promote_types"})
#: Values (not called) besides dtypes: classes used in ``isinstance`` and numeric constants.
EXTRA_CONSTANTS = frozenset({"torch.Tensor", "torch.Size", "torch.dtype", "torch.inf", "torch.nan",
                             "torch.pi", "numpy.ndarray", "numpy.inf", "numpy.nan", "numpy.pi",
                             "numpy.e", "torch.e"})


def _clean(names: Iterable[str]) -> FrozenSet[str]:
    """Drop private components and anything under a forbidden prefix."""
    out = set()
    for name in names:
        parts = name.split(".")
        if any(not p.isidentifier() or p.startswith("_") or keyword.iskeyword(p) for p in parts):
            continue
        if any(name == bad or name.startswith(bad + ".") for bad in FORBIDDEN_CALLS):
            continue
        out.add(name)
    return frozenset(out)


@lru_cache(maxsize=1)
def functions() -> FrozenSet[str]:
    """Exact qualified names a reproduction may call (``torch.matmul``, ``torch.nn.Linear``...)."""
    names = {n for n in public_names() if not n.startswith("Tensor.")}
    names |= {f"torch.{n}" for n in T._TORCH_FUNCTIONS}  # noqa: SLF001 - the modelled table
    names |= {f"torch.{n}" for n in T.TENSOR_OPS_ALSO_FUNCTIONS | set(D.LEGACY_TENSOR_TYPES)}
    names |= {f"torch.{n}" for n in HARNESS_TORCH_FUNCTIONS} | {"torch.Tensor"}
    names |= {f"torch.nn.functional.{n}" for n in T.LOSS_FUNCTIONALS.values()}
    names |= {f"torch.nn.functional.{n}" for n in ("linear", "softmax", "log_softmax", "normalize",
                                                   "gelu", "embedding", "one_hot", "relu")}
    names |= {f"torch.nn.{n}" for n in NN.KNOWN} | {"torch.nn.Parameter"}
    names |= {f"numpy.{n}" for n in NP.FLOAT64_FACTORIES | MODELLED_NUMPY_FUNCTIONS}
    names |= {f"numpy.random.{n}" for n in NP.RANDOM_FLOAT | {"randint", "permutation"}}
    names |= {f"numpy.{n}" for n in D.NUMPY_DTYPE_NAMES if n.isidentifier()}  # np.float32(1.0)
    return _clean(names)


@lru_cache(maxsize=1)
def constants() -> FrozenSet[str]:
    """Qualified names a reproduction may use as values: dtypes and a few classes/constants."""
    names = {f"torch.{n}" for n in D.TORCH_DTYPE_ATTRS}
    names |= {f"numpy.{n}" for n in D.NUMPY_DTYPE_NAMES if n.isidentifier()}
    return _clean(names | EXTRA_CONSTANTS) | functions()


@lru_cache(maxsize=1)
def methods() -> FrozenSet[str]:
    """Method names a reproduction may call on a tensor, array, module or helper value."""
    names = {n[len("Tensor."):] for n in public_names() if n.startswith("Tensor.")}
    names |= T.SHAPE_PRESERVING | set(T.PROMOTING_BINARY) | T.FLOATING_UNARY | T.REDUCTIONS_KEEP
    names |= T.REDUCTIONS_INT64 | T.INDEX_RESULT | T.BOOL_RESULT | T.TENSOR_OPS_ALSO_FUNCTIONS
    names |= set(D.CAST_METHODS) | MODELLED_TENSOR_METHODS | MODULE_METHODS | NDARRAY_METHODS
    names |= HELPER_METHODS
    return frozenset(n for n in names
                     if n.isidentifier() and not n.startswith("_") and not keyword.iskeyword(n)
                     and n not in FORBIDDEN_METHODS)


def attributes() -> FrozenSet[str]:
    """Attribute names a reproduction may read from a value (methods included)."""
    return methods() | VALUE_ATTRIBUTES


def allowed_function(qualname: str) -> bool:
    return qualname in functions()


def allowed_method(name: str) -> bool:
    return name in methods()


def nn_module(qualname: str) -> bool:
    """``torch.nn.<Name>`` for a module class the nn knowledge models."""
    prefix = "torch.nn."
    return qualname.startswith(prefix) and qualname[len(prefix):] in NN.KNOWN


def torch_dtype(name: str) -> bool:
    return name in D.TORCH_DTYPE_ATTRS


def numpy_dtype(name: str) -> bool:
    return name.isidentifier() and name in D.NUMPY_DTYPE_NAMES


def identifier(name: str) -> bool:
    """A keyword-argument or parameter name that is safe to write as ``name=``."""
    return isinstance(name, str) and name.isidentifier() and not keyword.iskeyword(name) \
        and not name.startswith("__")
