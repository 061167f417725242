"""torch.utils.data: ``TensorDataset``, ``DataLoader`` and the batches default_collate makes.

A dataset defined in the analysed file (a class with ``__getitem__``) can only be sampled by
running its code, which is the engine's job: ``dataloader`` takes that as a callable.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Callable, Optional, Tuple

from ..model.values import (
    CallArgs,
    BOOL, FLOAT64, INT64, TOP, ArrayValue, InstanceValue, NoneValue, Origin, ScalarValue,
    SequenceValue, TensorValue, Value, join, join_all,
)
from .indexing import index_first
from .layouts import contiguous, known_shape, stacked_contiguous, with_layout

TENSOR_DATASET_NAMES = ("torch.utils.data.TensorDataset", "torch.utils.data.dataset.TensorDataset")
SUBSET_NAMES = frozenset({"torch.utils.data.Subset", "torch.utils.data.dataset.Subset"})
RANDOM_SPLIT_NAMES = frozenset({"torch.utils.data.random_split", "torch.utils.data.dataset.random_split"})
CONCAT_DATASET_NAMES = frozenset({"torch.utils.data.ConcatDataset", "torch.utils.data.dataset.ConcatDataset"})
#: Progress bars that yield their iterable's items unchanged (``for x, y in tqdm(loader)``).
PROGRESS_BARS = frozenset({"tqdm.tqdm", "tqdm.std.tqdm", "tqdm.auto.tqdm", "tqdm.autonotebook.tqdm",
                           "tqdm.notebook.tqdm", "tqdm.rich.tqdm", "tqdm.tqdm_notebook"})
DATALOADER_NAMES = ("torch.utils.data.DataLoader", "torch.utils.data.dataloader.DataLoader")


class DataLoaderValue(Value):
    """``DataLoader(dataset, ...)``: iterating yields collated batches of ``item``."""

    __slots__ = ("item", "batch_size", "origin", "collated", "last_batch")
    kind = "dataloader"

    def __init__(self, item: Value, batch_size: Optional[int], origin: Optional[Origin],
                 collated: Optional[Value] = None, last_batch: Optional["LastBatch"] = None):
        self.item = item
        self.batch_size = batch_size
        self.origin = origin
        #: The batch a custom ``collate_fn`` makes (None: torch's default_collate).
        self.collated = collated
        #: The configured batch size the last batch may fall short of (None: it cannot, or the
        #: loader's options are not known well enough to say).
        self.last_batch = last_batch

    def describe(self) -> str:
        return f"DataLoader of {self.item.describe()}"

    def _facts(self) -> tuple:
        return (self.item, self.batch_size, self.origin, self.collated, self.last_batch)

    def __eq__(self, other: object) -> bool:
        # two loaders of the same facts are one fact (a loop's fixed point compares them)
        return isinstance(other, DataLoaderValue) and self._facts() == other._facts()

    def __hash__(self) -> int:
        return hash(self._facts())

    def joined_with(self, other: Value) -> Optional[Value]:
        """Either of two loaders (one per client, one per branch): batches of either item;
        a batch size, a collate_fn's batch or a last batch only where both agree."""
        assert isinstance(other, DataLoaderValue)
        if (self.collated is None) != (other.collated is None):
            return None  # default_collate against a collate_fn's batch: nothing shared
        collated = None if self.collated is None else join(self.collated, other.collated)  # type: ignore[arg-type]
        item = join(self.item, other.item)
        if item is TOP and collated is None or collated is TOP:
            return None
        return DataLoaderValue(item, self.batch_size if self.batch_size == other.batch_size else None,
                               self.origin, collated,
                               self.last_batch if self.last_batch == other.last_batch else None)


@dataclass(frozen=True)
class LastBatch:
    """A loader that keeps its last, smaller batch (``drop_last`` False, the default):
    ``batch_size`` the configured size, ``dataset_size`` the number of items when known. The
    last batch holds ``dataset_size % batch_size`` items when that is not zero."""

    batch_size: int
    dataset_size: Optional[int]

    @property
    def remainder(self) -> Optional[int]:
        """How many items the last batch holds (0: every batch is full; None: unknown)."""
        return None if self.dataset_size is None else self.dataset_size % self.batch_size

    @property
    def batches(self) -> Optional[int]:
        """How many batches the loader yields, ``len(loader)``: ceil(N / B), the last one kept
        (None: unknown)."""
        return None if self.dataset_size is None else -(-self.dataset_size // self.batch_size)


class TensorDatasetValue(Value):
    """``TensorDataset(a, b, ...)``: item ``i`` is the tuple ``(a[i], b[i], ...)``."""

    __slots__ = ("item", "origin", "length")
    kind = "dataset"

    def __init__(self, item: Value, origin: Optional[Origin], length: Optional[int] = None):
        self.item = item
        self.origin = origin
        #: How many items it holds (the first tensor's first dim), when known.
        self.length = length

    def describe(self) -> str:
        return f"TensorDataset of {self.item.describe()}"

    def __eq__(self, other: object) -> bool:
        # two datasets of the same facts are one fact (a loop's fixed point compares them)
        return isinstance(other, TensorDatasetValue) and (self.item, self.length, self.origin) == (
            other.item, other.length, other.origin)

    def __hash__(self) -> int:
        return hash((self.item, self.length, self.origin))

    def joined_with(self, other: Value) -> Optional[Value]:
        """Either of two datasets (``[TensorDataset(x_i, y_i) for each client]``): items of
        either, a length only where both have it."""
        assert isinstance(other, TensorDatasetValue)
        item = join(self.item, other.item)
        if item is TOP:
            return None
        return TensorDatasetValue(item, self.origin, self.length if self.length == other.length else None)


class SubsetValue(Value):
    """Items of another dataset: ``Subset(dataset, indices)``, one part of ``random_split``, or
    ``ConcatDataset`` of datasets whose items are alike (``dataset`` then stands for all of
    them). ``length``: how many items it holds, when known."""

    __slots__ = ("dataset", "length", "origin")
    kind = "dataset"

    def __init__(self, dataset: Value, length: Optional[int], origin: Optional[Origin]):
        self.dataset = dataset
        self.length = length
        self.origin = origin

    def describe(self) -> str:
        return f"Subset of {self.dataset.describe()}"

    def __eq__(self, other: object) -> bool:
        # two subsets of the same facts are one fact (a loop's fixed point compares them)
        return isinstance(other, SubsetValue) and (self.dataset, self.length, self.origin) == (
            other.dataset, other.length, other.origin)

    def __hash__(self) -> int:
        try:
            base = hash(self.dataset)
        except TypeError:
            base = hash(type(self.dataset))
        return hash((base, self.length, self.origin))

    def joined_with(self, other: Value) -> Optional[Value]:
        assert isinstance(other, SubsetValue)
        dataset = join(self.dataset, other.dataset)
        if dataset is TOP:
            return None
        return SubsetValue(dataset, self.length if self.length == other.length else None, self.origin)


def base_dataset(dataset: Value) -> Value:
    """The dataset whose items a (nested) subset yields."""
    while isinstance(dataset, SubsetValue):
        dataset = dataset.dataset
    return dataset


def dataset_size(dataset: Value, length: Optional[Callable[[InstanceValue], Optional[int]]] = None) -> Optional[int]:
    """``len(dataset)`` when known: a TensorDataset's rows, a subset's or a list's items, what a
    dataset class's ``__len__`` returns (``length``, run by the engine)."""
    if isinstance(dataset, (TensorDatasetValue, SubsetValue)):
        return dataset.length
    if isinstance(dataset, SequenceValue) and dataset.container in ("list", "tuple") and dataset.items is not None:
        return len(dataset.items)
    if isinstance(dataset, InstanceValue) and length is not None:
        return length(dataset)
    return None


def subset(args: CallArgs, node: Any) -> Value:
    """``Subset(dataset, indices)``: the dataset's items, as many as the indices."""
    if args.has_star or len(args.pos) + len(args.kw) != 2:
        return TOP
    dataset, indices = args.get(0, "dataset"), args.get(1, "indices")
    if dataset is TOP:
        return TOP
    count = None
    if isinstance(indices, SequenceValue) and indices.container in ("list", "tuple") and indices.items is not None:
        count = len(indices.items)
    elif isinstance(indices, (TensorValue, ArrayValue)) and indices.shape is not None and len(indices.shape) == 1 \
            and isinstance(indices.shape[0], int):
        count = indices.shape[0]
    return SubsetValue(dataset, count, Origin(node, "Subset"))


def split_lengths(size: Optional[int], lengths: Tuple[Any, ...]) -> Optional[Tuple[int, ...]]:
    """The part sizes ``random_split`` makes of ``size`` items from ``lengths`` (ints, or
    fractions summing to 1: each floor(size * fraction), the remainder handed out one by one
    from the first part); None where torch raises or a size is not known."""
    if not lengths or any(isinstance(n, bool) or not isinstance(n, (int, float)) for n in lengths):
        return None
    total = sum(lengths)
    if math.isclose(total, 1) and total <= 1:
        if size is None or any(n < 0 or n > 1 for n in lengths):
            return None
        parts = [math.floor(size * n) for n in lengths]
        for i in range(size - sum(parts)):
            parts[i % len(parts)] += 1
        return tuple(parts)
    if any(not isinstance(n, int) or n < 0 for n in lengths) or (size is not None and total != size):
        return None
    return tuple(lengths)


def random_split(args: CallArgs, node: Any, length: Optional[Callable[[InstanceValue], Optional[int]]] = None
                 ) -> Value:
    """``random_split(dataset, lengths)``: a list of subsets of the dataset's items, one per
    length, each of its size where known."""
    if args.has_star:
        return TOP
    dataset, lengths = args.get(0, "dataset"), args.get(1, "lengths")
    if dataset is TOP or not isinstance(lengths, SequenceValue) or lengths.container not in ("list", "tuple"):
        return TOP
    origin = Origin(node, "random_split")
    if lengths.items is None or not all(isinstance(n, ScalarValue) for n in lengths.items):
        return SequenceValue("list", SubsetValue(dataset, None, origin), None)
    sizes = split_lengths(dataset_size(dataset, length), tuple(n.const for n in lengths.items))  # type: ignore[union-attr]
    parts = tuple(SubsetValue(dataset, sizes[i] if sizes is not None else None, origin)
                  for i in range(len(lengths.items)))
    return SequenceValue("list", join_all(parts) if parts else TOP, parts)


def concat_dataset(args: CallArgs, node: Any, length: Optional[Callable[[InstanceValue], Optional[int]]] = None
                   ) -> Value:
    """``ConcatDataset([a, b])`` of datasets whose items are alike: their items, as many as
    they hold together."""
    datasets = args.get(0, "datasets")
    if args.has_star or not isinstance(datasets, SequenceValue) or not datasets.items:
        return TOP
    joined = join_all(datasets.items)
    if joined is TOP:
        return TOP
    sizes = [dataset_size(d, length) for d in datasets.items]
    return SubsetValue(joined, None if None in sizes else sum(sizes), Origin(node, "ConcatDataset"))  # type: ignore[arg-type]


def dataset_item(dataset: Value, sample: Optional[Callable[[InstanceValue], Value]] = None) -> Value:
    """One item of ``dataset``: a TensorDataset's row, a list's element, what a dataset class's
    ``__getitem__`` gives (``sample``, run by the engine), through subsets."""
    dataset = base_dataset(dataset)
    if isinstance(dataset, InstanceValue):
        return sample(dataset) if sample is not None else TOP
    if isinstance(dataset, TensorDatasetValue):
        return dataset.item
    if isinstance(dataset, SequenceValue) and dataset.container in ("list", "tuple"):
        return join_all(dataset.items) if dataset.items else dataset.element
    return TOP


def progress_bar(args: CallArgs) -> Value:
    """``tqdm(loader, desc=...)``: iterating the bar gives what iterating its iterable gives, so
    the engine lets the iterable stand for the bar (``for x, y in tqdm(loader)`` gets batches)."""
    if args.has_star:
        return TOP
    return args.get(0, "iterable")


def tensor_dataset(args: CallArgs, node: Any) -> Value:
    """``TensorDataset(a, b, ...)`` of tensors given positionally; anything else is unknown."""
    if args.has_star or args.kw or not args.pos or not all(
            isinstance(t, TensorValue) for t in args.pos):
        return TOP
    rows = tuple(index_first(t) for t in args.pos)  # type: ignore[arg-type]
    first = args.pos[0].shape  # type: ignore[attr-defined]
    length = first[0] if first and isinstance(first[0], int) else None
    return TensorDatasetValue(SequenceValue("tuple", TOP, rows), Origin(node, "TensorDataset rows"), length)


def dataloader(args: CallArgs, node: Any, sample: Callable[[InstanceValue], Value],
               call_collate: Optional[Callable[[Value, Value], Value]] = None,
               length: Optional[Callable[[InstanceValue], Optional[int]]] = None) -> Value:
    """``DataLoader(dataset, batch_size=..., ...)``. ``sample(dataset)`` gives one item of a
    dataset defined in the file; it is only called once the options are known to be modelled.
    ``call_collate(collate_fn, items)`` gives what a ``collate_fn`` defined in the file makes
    of a list of items (the engine runs it). ``length(dataset)`` gives what the ``__len__`` of
    a dataset defined in the file returns, when it is a known int (the engine runs it)."""
    dataset = args.get(0, "dataset")
    batch_size_value = args.get(1, "batch_size")
    batch_size = batch_size_value.const if isinstance(batch_size_value, ScalarValue) else (
        1 if not args.has(1, "batch_size") else None)
    custom = args.kw.get("collate_fn")
    if "batch_sampler" in args.kw or args.has_star or isinstance(batch_size_value, NoneValue) or (
            custom is not None and (call_collate is None or isinstance(custom, NoneValue))):
        return TOP
    drop_last = args.kw.get("drop_last")
    last_batch = _last_batch(args, batch_size, dataset, length)
    every_batch_full = last_batch is not None and last_batch.remainder == 0
    if not (isinstance(drop_last, ScalarValue) and drop_last.const is True) and batch_size != 1 \
            and not every_batch_full:
        # The last batch holds the remainder: the batch dim is only known when it is dropped,
        # or when the dataset's known size is a multiple of the batch size (every batch full).
        batch_size = None
    # a dataset class's __getitem__, a TensorDataset's rows, a list's elements, through subsets
    item = dataset_item(dataset, sample)
    # A collate_fn of the file makes the batch; what it builds from scratch (a zeros tensor
    # of a stated dtype) is known even when the items it reads are not.
    if item is TOP and (custom is None or call_collate is None):
        return TOP
    collated = None
    if custom is not None and call_collate is not None:
        # collate_fn gets the list of a batch's items, and its result is the batch
        collated = call_collate(custom, SequenceValue("list", item, None))
        if collated is TOP:
            return TOP
    return DataLoaderValue(item, batch_size, Origin(node, "DataLoader batches"), collated, last_batch)


def _last_batch(args: CallArgs, batch_size: Optional[int], dataset: Value,
                length: Optional[Callable[[InstanceValue], Optional[int]]] = None) -> Optional[LastBatch]:
    """The last-batch facts of a loader with a known batch size > 1 that keeps its last batch
    (``drop_last`` absent or a literal False); None otherwise (unknown options say nothing)."""
    drop_last = args.kw.get("drop_last", ScalarValue("bool", False))
    if not isinstance(batch_size, int) or batch_size <= 1 or "sampler" in args.kw or not (
            isinstance(drop_last, ScalarValue) and drop_last.const is False):
        return None  # a sampler may draw any number of items: no length to divide
    return LastBatch(batch_size, dataset_size(dataset, length))


def first_batch(loader: DataLoaderValue) -> Optional[Value]:
    """The first batch of a loader whose last batch falls short (``N % B`` items): a full batch
    of ``B`` items, as torch's sequential or random sampler fills it whenever the dataset holds at
    least ``B`` items. None when the first batch is no better known than any batch (every batch
    full, a dataset size not known, a ``collate_fn`` of the file, a sampler: ``_last_batch``)."""
    last = loader.last_batch
    if loader.collated is not None or last is None or last.dataset_size is None \
            or last.dataset_size < last.batch_size or loader.batch_size == last.batch_size:
        return None
    node = loader.origin.node if loader.origin is not None else None
    note = f"the first batch holds {last.batch_size} items (the last {last.remainder})"
    first = _noted(collate(loader.item, last.batch_size, node), node, note)
    return first if first is not TOP else None


def _noted(value: Value, node: Any, note: str) -> Value:
    """``value`` (a batch) with each tensor's origin saying which batch it is."""
    if isinstance(value, TensorValue):
        noted = TensorValue(value.dtypes, value.shape, Origin(node, note, value.origin), value.device,
                            value.requires_grad)
        return with_layout(noted, value.layout.strides) if value.layout is not None else noted
    if isinstance(value, SequenceValue) and value.items is not None:
        items = tuple(_noted(item, node, note) for item in value.items)
        return SequenceValue(value.container, join_all(items) if items else value.element, items, value.origin,
                             value.keys)
    return value


def batch(loader: DataLoaderValue) -> Value:
    """One batch of ``for batch in loader``."""
    if loader.collated is not None:
        return loader.collated
    return collate(loader.item, loader.batch_size,
                   loader.origin.node if loader.origin is not None else None)


def collate(item: Value, batch_size: Optional[int], loader_node: Any = None) -> Value:
    """torch's default_collate: Python floats -> float64, ints -> int64, arrays keep dtype.
    Tuples and lists of fields become lists of batched fields."""
    batch_dim: Any = batch_size if isinstance(batch_size, int) else None
    if isinstance(item, TensorValue):
        shape = None if item.shape is None else (batch_dim,) + tuple(item.shape)
        stacked = TensorValue(item.dtypes, shape, item.origin, item.device)
        if known_shape(shape) and stacked_contiguous(item):  # torch.stack of row-major samples
            return with_layout(stacked, contiguous(shape))  # type: ignore[arg-type]
        return stacked
    if isinstance(item, ArrayValue):
        shape = None if item.shape is None else (batch_dim,) + tuple(item.shape)
        return TensorValue(item.dtypes, shape, Origin(loader_node, "default_collate keeps the ndarray's dtype",
                                                      item.origin), "cpu")
    if isinstance(item, ScalarValue):
        dtype = {"float": FLOAT64, "int": INT64, "bool": BOOL}.get(item.pytype)
        if dtype is None:
            return TOP
        return TensorValue(frozenset({dtype}), (batch_dim,),
                           Origin(loader_node, f"default_collate turns Python {item.pytype}s into {dtype}",
                                  item.origin), "cpu")
    if isinstance(item, SequenceValue) and item.items is not None and item.container in ("tuple", "list"):
        return SequenceValue("list", TOP, tuple(collate(i, batch_size, loader_node) for i in item.items))
    if isinstance(item, SequenceValue) and item.container == "dict":
        # a dict of fields: each key's samples are collated under that key
        if item.keys is not None and item.items is not None:
            fields = tuple(collate(i, batch_size, loader_node) for i in item.items)
            return SequenceValue("dict", join_all(fields), fields, None, item.keys)
        element = collate(item.element, batch_size, loader_node)
        return SequenceValue("dict", element, None) if element is not TOP else TOP
    return TOP
