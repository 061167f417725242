"""flake8 front end: ``flake8 --select=TTL``. Thin: it calls ``runner.check_bytes_bounded``.

flake8 hands us the file's lines; we parse with libcst. Columns are yielded 0-based, as flake8
expects. The plugin never raises: any failure becomes one TTL000 finding. The analysis runs in
a killable child process so that no input can hang or exhaust flake8 itself: one resident child
per flake8 process (``resident.py``), which keeps the project modules files import parsed and
run for the next file (a child forked per file would read, parse and run them again each time).
"""
from __future__ import annotations

from typing import Any, Iterator, List, Tuple

from .. import __version__
from ..report.printable import printable  # small (one regex): what every yielded text goes through


class TorchTypeChecker:
    name = "torchtype-lint"
    version = __version__

    def __init__(self, tree: Any, lines: List[str], filename: str = "<stdin>"):
        self.tree = tree
        self.lines = lines
        self.filename = filename

    @staticmethod
    def add_options(optmanager: Any) -> None:
        # Opt-in pedantic rules stay off unless the user selects TTL9 explicitly.
        optmanager.extend_default_ignore(["TTL9"])

    @classmethod
    def parse_options(cls, options: Any) -> None:
        # Stored on the class: flake8 makes one instance per file (and forks workers for -j).
        # Opt-in rules follow the CLI's rule: they run only when a TTL9... prefix is named
        # explicitly, so `flake8 --select=TTL` reports what `torchtype-lint check` reports.
        named = list(getattr(options, "select", None) or []) + list(getattr(options, "extend_select", None) or [])
        cls._opt_in = [p.strip().upper() for p in named if p.strip().upper().startswith("TTL9")]
        # flake8 runs every installed plugin whatever is selected: when the user's selection
        # cannot include a TTL code (`flake8 --select=F`), skip the analysis altogether.
        chosen = [p.strip().upper() for p in named if p.strip()]
        explicit = bool(getattr(options, "select", None))
        cls._wanted = not explicit or any("TTL".startswith(p) or p.startswith("TTL") for p in chosen)
        # Our codes' noqa comments are read by noqa.py, as in the CLI (flake8 applies its own
        # reading on top, which never suppresses more): `#noqa:TTL101` means the same in both.
        cls._respect_noqa = not getattr(options, "disable_noqa", False)

    _opt_in: List[str] = []
    _wanted: bool = True
    _respect_noqa: bool = True
    _run_plan: Any = None

    @classmethod
    def _plan(cls) -> Any:
        # One plan per process: it caches the configuration found for each directory.
        if cls._run_plan is None:
            from ..run.config import RunPlan

            cls._run_plan = RunPlan.from_args(select=None)
        return cls._run_plan

    def run(self) -> Iterator[Tuple[int, int, str, type]]:
        if not self._wanted:
            return
        source = "".join(self.lines)
        try:
            # Imported lazily: flake8 users who never lint torch code pay only this check.
            from ..checker.check import PREFILTER_MARKERS
            from ..run.runner import check_bytes_bounded
            from ..model.selection import Selection

            if not any(marker in source for marker in PREFILTER_MARKERS):
                return
            plan = self._plan()
            if self.filename not in ("-", "stdin", "<stdin>") and plan.is_excluded(self.filename):
                return
            # [tool.torchtype-lint] in pyproject.toml applies here too, so every front end
            # agrees; flake8 does noqa and its own selection on top.
            settings = plan.settings_for(self.filename)
            selection = settings.selection
            settings.selection = Selection(select=selection.select,
                                           extend_select=selection.extend_select + self._opt_in,
                                           ignore=selection.ignore)
            settings.respect_noqa = self._respect_noqa
            # In a killable child, like every front end: this process's resident one, which
            # keeps imported project modules loaded for the next file. flake8's ast is not sent:
            # pickling it there costs more than the screen's own parse (torch/nn: 0.87 s of
            # dumps and loads against 0.41 s of ast.parse).
            found = check_bytes_bounded(source, self.filename, settings, resident=True).findings
            findings = plan.apply_per_file_ignores(found)
        except Exception as exc:  # noqa: BLE001 - never take the host down (a bad config included)
            message = printable(" ".join(str(exc).split()))
            if type(exc).__name__ == "ConfigError":
                yield 1, 0, f"TTL000 invalid torchtype-lint configuration: {message}", type(self)
            else:
                yield 1, 0, f"TTL000 internal error in torchtype-lint: {type(exc).__name__}: {message}", type(self)
            return
        for f in findings:
            if f.code == "TTL001" and f.message.startswith("syntax error"):
                continue  # flake8 already reports E999 for syntax errors
            # The headline, escaped like the CLI's concise lines: flake8's output is one line a finding.
            yield f.line, f.column, f"{f.code} {printable(f.headline)}", type(self)

