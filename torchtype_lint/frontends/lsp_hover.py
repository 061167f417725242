"""Hovers, worked out in the resident analysis child and sent back to the server as plain text.

A hover shows what the engine inferred for a name (dtype, shape, device, where they came from),
which needs a whole analysis that keeps its libcst tree and values: hundreds of MB on a large
file. That analysis runs in the resident child (``resident.py``, under the deadline and memory
cap of the diagnostics), which renders every hover of the text at once and returns only a
``HoverTable``: positions and markdown. The server keeps nothing else (``Hovers``: the request
until the table comes), so its memory stays flat however many large files are hovered, and a
hover that cannot finish costs its deadline, never the server.
"""
from __future__ import annotations

from concurrent.futures import Future
from dataclasses import dataclass
from typing import Any, Callable, Dict, List, Mapping, Optional, Tuple

import libcst as cst

from ..run.bounded import BoundExceeded, hard_deadline
from ..checker.check import check_source
from ..run.resident import call_resident
from ..model.settings import Settings
from ..model.values import ArrayValue, ModuleValue, TensorValue, describe_dtypes, describe_shape


@dataclass(frozen=True)
class HoverSpan:
    """A tensor-, array- or layer-valued name in the analysed text (0-based line, code-point
    columns) and what a hover on it shows."""

    start: Tuple[int, int]
    end: Tuple[int, int]
    markdown: str

    def size(self) -> Tuple[int, int]:
        return (self.end[0] - self.start[0], self.end[1] - self.start[1])


@dataclass(frozen=True)
class HoverTable:
    """Every hover of one analysed text, in the order the engine met the names."""

    spans: Tuple[HoverSpan, ...] = ()

    def at(self, line: int, column: int) -> Optional[HoverSpan]:
        """The innermost span under the position: on ``self.x`` the attribute, on ``x`` the name."""
        hits = [span for span in self.spans if span.start <= (line, column) <= span.end]
        return min(hits, key=HoverSpan.size) if hits else None


@dataclass(frozen=True)
class HoverRequest:
    """What the child needs to work out the hovers of one analysed text. ``notebook``: the
    notebook whose code cells the text joins (its lines are then shown as cell and line)."""

    source: str
    path: str
    settings: Settings
    notebook: Any = None


class Hovers:
    """The hovers of one analysed text, shared by every cell of a notebook: what the child
    needs to work them out (``request``) until it has, then their ``table``. The job runs in
    the queue's worker thread, which sets ``table``; everything else is on the event loop."""

    def __init__(self, request: HoverRequest):
        self.request: Optional[HoverRequest] = request
        self.table: Optional[HoverTable] = None
        #: The queued or running job that works them out (None: not asked for yet).
        self.job: "Optional[Future[None]]" = None

    def work_out(self, overlay: Dict[str, str]) -> None:
        """In the queue's thread: ask the child, keep only the table."""
        request, self.request = self.request, None  # the text is not needed once asked for
        try:
            self.table = work_out_hovers(request, overlay) if request is not None else HoverTable()
        except Exception:  # noqa: BLE001 - the child could not even start (fork failed): no hovers
            self.table = HoverTable()

    def drop(self) -> None:
        """The text was edited or closed: a job that has not started never will."""
        if self.job is not None:
            self.job.cancel()  # a no-op on a running job; it ends at its deadline


def work_out_hovers(request: HoverRequest, overlay: Optional[Mapping[str, str]] = None) -> HoverTable:
    """The hovers of ``request``, worked out in the resident child under the diagnostics'
    deadline; an empty table when the analysis was stopped or failed. Never raises."""
    try:
        return call_resident(hover_table, request, dict(overlay or {}),
                             seconds=hard_deadline(request.settings.time_budget))
    except BoundExceeded:
        return HoverTable()  # no hovers for this version of the text, rather than no server


def hover_table(request: HoverRequest, overlay: Dict[str, str]) -> HoverTable:
    """In the child: analyse, keep the tree, render every hover, and return only the text."""
    from libcst.metadata import MetadataWrapper, PositionProvider

    result = check_source(request.source, request.path, request.settings, True, overlay=overlay)
    if result.module is None or result.interpreter is None:
        return HoverTable()
    module = result.module
    positions = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    label = _line_label(request.notebook)
    #: One string per distinct markdown: pickled once however many spans show it.
    rendered: Dict[str, str] = {}
    spans: List[HoverSpan] = []
    for node, value in result.interpreter.values.items():
        if not (isinstance(node, (cst.Name, cst.Attribute))
                and isinstance(value, (TensorValue, ArrayValue, ModuleValue))):
            continue
        where = positions.get(node)
        if where is None:
            continue
        markdown = hover_markdown(_snippet(module, node), value, module, positions, label)
        spans.append(HoverSpan((where.start.line - 1, where.start.column), (where.end.line - 1, where.end.column),
                               rendered.setdefault(markdown, markdown)))
    return HoverTable(tuple(spans))


def _line_label(notebook: Any) -> Callable[[int], str]:
    """How a 1-based line of the analysed text is shown ("line 4", "cell 2, line 4")."""
    if notebook is None:
        return lambda line: f"line {line}"

    def label(line: int) -> str:
        cell, local = notebook.locate(line)
        return f"cell {cell.number}, line {local}"

    return label


def hover_markdown(name: str, value: Any, module: cst.Module, positions: Any,
                   line_label: Callable[[int], str] = lambda line: f"line {line}") -> str:
    """What a hover shows: the value, then where its dtype and shape came from."""
    if isinstance(value, ModuleValue):
        return module_hover_markdown(name, value, module, positions, line_label)
    kind = "Tensor" if isinstance(value, TensorValue) else "ndarray"
    dtype = describe_dtypes(value.dtypes)
    shape = describe_shape(value.shape)
    facts = [f"dtype `{dtype}`" + (" (unknown)" if value.dtypes is None else
                                   " (one of these)" if dtype.startswith("{") else ""),
             f"shape `{shape}`" + (" (unknown rank)" if value.shape is None else "")]
    if isinstance(value, TensorValue):
        if value.device:
            facts.append(f"device `{value.device}`")
        if value.requires_grad is not None:
            facts.append(f"requires_grad `{value.requires_grad}`")
    text = [f"**`{name}`**: {kind}[{dtype}, {shape}] (torchtype-lint)", "", " · ".join(facts)]
    origin = value.origin
    if origin is not None:
        steps = []
        for link in origin.chain():
            where = positions.get(link.node) if link.node is not None else None
            if where is None:
                continue
            step = f"- {line_label(where.start.line)}: `{_snippet(module, link.node)}`"
            steps.append(step + (f" — {link.note}" if link.note else ""))
        if steps:
            text += ["", "Where it came from (newest first):", *steps]
    return "\n".join(text)


#: Constructor arguments a hover on a layer names first: what it takes in and gives out.
FEATURE_KEYS = ("in_features", "out_features", "in_channels", "out_channels", "input_size", "hidden_size",
                "num_embeddings", "embedding_dim", "num_features", "normalized_shape")


def module_hover_markdown(name: str, value: Any, module: cst.Module, positions: Any,
                          line_label: Callable[[int], str] = lambda line: f"line {line}") -> str:
    """An ``nn`` layer: its class, its parameters' dtype, what it takes in and gives out (in and
    out features or channels...), its other known arguments, and where the dtype was set."""
    dtype = describe_dtypes(value.param_dtypes)
    facts = [f"parameters `{dtype}`"]
    config = {k: v for k, v in value.config.items() if v is not None}
    facts += [f"{key} `{config[key]}`" for key in FEATURE_KEYS if key in config]
    facts += [f"{key} `{v}`" for key, v in config.items() if key not in FEATURE_KEYS]
    if value.device:
        facts.append(f"device `{value.device}`")
    if value.children:
        facts.append(f"{len(value.children)} layers")
    text = [f"**`{name}`**: nn.{value.short_name} (torchtype-lint)", "", " · ".join(facts)]
    origin = value.dtype_origin
    if origin is not None:
        steps = []
        for link in origin.chain():
            where = positions.get(link.node) if link.node is not None else None
            if where is not None:
                step = f"- {line_label(where.start.line)}: `{_snippet(module, link.node)}`"
                steps.append(step + (f" — {link.note}" if link.note else ""))
        if steps:
            text += ["", "Where its parameter dtype was set (newest first):", *steps]
    return "\n".join(text)


def _snippet(module: cst.Module, node: Any, limit: int = 60) -> str:
    try:
        text = " ".join(module.code_for_node(node).split())
    except Exception:  # noqa: BLE001 - a hover must never fail on rendering
        return "?"
    return text if len(text) <= limit else text[: limit - 3] + "..."
