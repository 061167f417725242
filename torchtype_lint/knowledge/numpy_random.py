"""numpy's random sampling: the legacy ``np.random.*`` functions (the global ``RandomState``'s
methods), ``np.random.RandomState(seed)`` and ``np.random.default_rng(seed)`` Generators.

A generator object is a ``SymbolValue`` named after its class (``numpy.random.Generator``):
attribute access on a symbol extends the name, so ``rng.normal`` arrives here as
``random.Generator.normal`` with no new kind of value. The class itself has the same name;
an unbound call (``np.random.Generator.normal(rng, ...)``) is told apart by its first argument.

Samples are float64 (int64 for counts and integers) unless ``dtype=`` says otherwise; the
shape is ``size=``, or without it the broadcast shape of array parameters (Python-scalar
parameters give one scalar). Checked against numpy in tests/test_numpy_knowledge.py.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Dict, Optional, Tuple

from ..model.values import (
    FLOAT64, INT64, TOP, ArrayValue, CallArgs, NoneValue, Origin, ScalarValue, SymbolValue,
    Value,
)
from . import shapes as S
from .numpy_args import as_array, bind, given
from .numpy_dtypes import numpy_dtype
from .torch_api import int_const, shape_from_size_args, shape_from_value

GENERATOR = "numpy.random.Generator"
RANDOM_STATE = "numpy.random.RandomState"

#: Calls that make a generator object, and the class name its value carries.
MAKERS: Dict[str, str] = {"default_rng": GENERATOR, "Generator": GENERATOR,
                          "RandomState": RANDOM_STATE}


@dataclass(frozen=True)
class Sampler:
    """One sampling method: numpy's parameters (the distribution's come before ``size``), the
    samples' dtype, and what a call without ``size=`` and with Python-scalar parameters gives:
    a Python "float" or "int", or "numpy" (a numpy scalar of ``dtype``)."""

    signature: Tuple[str, ...]
    dtype: str = FLOAT64
    scalar: str = "float"

    @property
    def parameters(self) -> Tuple[str, ...]:
        return self.signature[:self.signature.index("size")]


def _floats(*parameters: str) -> Sampler:
    return Sampler(parameters + ("size",))


def _counts(*parameters: str) -> Sampler:
    return Sampler(parameters + ("size",), INT64, "int")


#: Distributions both APIs share, with the same parameters.
_COMMON: Dict[str, Sampler] = {
    "normal": _floats("loc", "scale"), "uniform": _floats("low", "high"),
    "exponential": _floats("scale"), "beta": _floats("a", "b"), "gamma": _floats("shape", "scale"),
    "lognormal": _floats("mean", "sigma"), "laplace": _floats("loc", "scale"),
    "logistic": _floats("loc", "scale"), "gumbel": _floats("loc", "scale"),
    "chisquare": _floats("df"), "poisson": _counts("lam"), "binomial": _counts("n", "p"),
    "geometric": _counts("p"),
}

#: ``np.random.*`` and ``RandomState`` methods.
LEGACY: Dict[str, Sampler] = {
    **_COMMON,
    "random": _floats(), "random_sample": _floats(), "sample": _floats(), "ranf": _floats(),
    "standard_normal": _floats(), "standard_exponential": _floats(),
    "standard_gamma": _floats("shape"),
    "randint": Sampler(("low", "high", "size", "dtype"), INT64, "int"),
}

#: ``Generator`` methods; the standard_* ones and random take ``dtype=`` (float32 or float64).
GENERATOR_METHODS: Dict[str, Sampler] = {
    **_COMMON,
    "random": Sampler(("size", "dtype", "out")),
    "standard_normal": Sampler(("size", "dtype", "out")),
    "standard_exponential": Sampler(("size", "dtype", "method", "out")),
    "standard_gamma": Sampler(("shape", "size", "dtype", "out")),
    "integers": Sampler(("low", "high", "size", "dtype", "endpoint"), INT64, "numpy"),
}

#: Signatures of the calls that draw from a population rather than a distribution.
_CHOICE = {GENERATOR: ("a", "size", "replace", "p", "axis", "shuffle"),
           RANDOM_STATE: ("a", "size", "replace", "p")}
_PERMUTATION = {GENERATOR: ("x", "axis"), RANDOM_STATE: ("x",)}


def call_random(name: str, args: CallArgs, node: Any) -> Value:
    """``numpy.random.<name>(...)``: a module function, ``RandomState.<m>`` or
    ``Generator.<m>`` (the latter two reached through a generator object)."""
    if name in MAKERS:
        return SymbolValue(MAKERS[name], Origin(node, f"np.random.{name}"))
    owner, _, method = name.rpartition(".")
    api = {"": RANDOM_STATE, "Generator": GENERATOR, "RandomState": RANDOM_STATE}.get(owner)
    if api is None:
        return TOP
    first = args.pos[0] if args.pos else None
    if owner and isinstance(first, SymbolValue) and first.qualname == api:
        # the class's function called with the instance: np.random.Generator.normal(rng, ...)
        args = CallArgs(args.pos[1:], args.kw, args.pos_nodes[1:], args.kw_nodes, args.has_star)
    label = f"{owner or 'np.random'}.{method}"
    if method in ("rand", "randn") and api == RANDOM_STATE:
        return _dims(args, node, label)
    if method == "choice":
        return _choice(api, args, node, label)
    if method in ("permutation", "permuted"):
        return _permutation(api, method, args, node, label)
    if method == "shuffle":
        return NoneValue()  # shuffles in place
    sampler = (GENERATOR_METHODS if api == GENERATOR else LEGACY).get(method)
    return TOP if sampler is None else _sample(sampler, args, node, label)


def _dims(args: CallArgs, node: Any, label: str) -> Value:
    """``rand(d0, d1, ...)`` / ``randn``: the dims are the shape; no dims, a Python float."""
    if args.has_star or args.kw:
        return TOP
    if not args.pos:
        return ScalarValue("float", None, Origin(node, f"{label}() is a Python float"))
    return ArrayValue(frozenset({FLOAT64}), shape_from_size_args(args),
                      Origin(node, f"{label} gives float64"))


def _size_shape(size: Value) -> Any:
    return None if isinstance(size, NoneValue) else shape_from_value(size)


def _sample(sampler: Sampler, args: CallArgs, node: Any, label: str) -> Value:
    bound = bind(args, sampler.signature)
    if bound is None or given(bound, "out"):
        return TOP
    dtype: Optional[str] = sampler.dtype
    if given(bound, "dtype"):
        dtype = numpy_dtype(bound["dtype"])
    dtypes = None if dtype is None else frozenset({dtype})
    origin = Origin(node, f"{label} gives {dtype}" if dtype else "")
    if bound.get("size") is TOP:
        return TOP  # maybe None: one scalar
    if given(bound, "size"):
        return ArrayValue(dtypes, _size_shape(bound["size"]), origin)
    parameters = [bound[p] for p in sampler.parameters if p in bound]
    if all(isinstance(p, ScalarValue) for p in parameters):
        if given(bound, "dtype"):
            return TOP  # a numpy scalar of that dtype, or a Python float: not modelled
        if sampler.scalar == "numpy":
            return ArrayValue(dtypes, (), Origin(node, f"{label} gives a numpy {dtype} scalar"))
        return ScalarValue(sampler.scalar, None,
                           Origin(node, f"{label} gives a Python {sampler.scalar}"))
    shape: Any = ()
    for parameter in parameters:
        array = as_array(parameter)
        shape = S.broadcast_shapes(shape, array.shape if array is not None else None)
    if not shape:
        return TOP  # unknown, or 0-d numpy parameters (a scalar of some type)
    return ArrayValue(dtypes, shape, origin)


def _choice(api: str, args: CallArgs, node: Any, label: str) -> Value:
    """``choice(a, size)``: ``a`` an int draws from ``arange(a)`` (int64), an array draws its
    rows (the Generator along ``axis=0``; the legacy API only from 1-D arrays)."""
    bound = bind(args, _CHOICE[api])
    if bound is None or "a" not in bound or (given(bound, "axis") and int_const(bound["axis"]) != 0):
        return TOP
    population = bound["a"]
    if bound.get("size") is TOP:
        return TOP  # maybe None: one draw
    if isinstance(population, ScalarValue) and population.pytype == "int":
        dtypes, rows = frozenset({INT64}), ()
        origin = Origin(node, f"{label}(n) draws int64")
    else:
        array = as_array(population)
        if array is None or array.shape is None or not array.shape or (
                api == RANDOM_STATE and len(array.shape) != 1):
            return TOP
        dtypes, rows = array.dtypes, tuple(array.shape[1:])
        origin = Origin(node, f"{label} keeps the population's dtype", array.origin)
    if given(bound, "size"):
        size = _size_shape(bound["size"])
        return ArrayValue(dtypes, None if size is None else tuple(size) + rows, origin)
    if isinstance(population, ScalarValue):
        return ScalarValue("int", None, Origin(node, f"{label}(n) gives a Python int"))
    return ArrayValue(dtypes, rows, origin)  # rows == (): one numpy scalar


def _permutation(api: str, method: str, args: CallArgs, node: Any, label: str) -> Value:
    """``permutation(n)`` is a shuffled ``arange(n)``; of an array (and ``permuted``), a
    shuffled copy with its dtype and shape."""
    if method == "permuted" and api != GENERATOR:
        return TOP
    signature = ("x", "axis", "out") if method == "permuted" else _PERMUTATION[api]
    bound = bind(args, signature)
    if bound is None or "x" not in bound or given(bound, "out"):
        return TOP
    x = bound["x"]
    if method == "permutation" and isinstance(x, ScalarValue) and x.pytype == "int":
        return ArrayValue(frozenset({INT64}), (x.const if isinstance(x.const, int) else None,),
                          Origin(node, f"{label}(n) gives int64"))
    array = as_array(x)
    if array is None or array.shape == ():
        return TOP
    return ArrayValue(array.dtypes, array.shape, Origin(node, f"{label} keeps the dtype", array.origin))
