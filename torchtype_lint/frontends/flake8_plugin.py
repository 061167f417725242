"""flake8 front end: ``flake8 --select=TTL``. Thin: it calls ``check.check_source``.

flake8 hands us its ``ast`` tree (unused, but the parameter must exist for flake8 to
classify the plugin) and the file's lines; we re-parse with libcst. Columns are yielded
0-based, as flake8 expects. The plugin never raises: any failure becomes one TTL000 finding.
"""
from __future__ import annotations

from typing import Any, Iterator, List, Tuple

from .. import __version__


class TorchTypeChecker:
    name = "torchtype-lint"
    version = __version__

    def __init__(self, tree: Any, lines: List[str], filename: str = "<stdin>"):
        self.lines = lines
        self.filename = filename

    @staticmethod
    def add_options(optmanager: Any) -> None:
        # Opt-in pedantic rules stay off unless the user selects TTL9 explicitly.
        optmanager.extend_default_ignore(["TTL9"])

    def run(self) -> Iterator[Tuple[int, int, str, type]]:
        source = "".join(self.lines)
        try:
            # Imported lazily: flake8 users who never lint torch code pay only this check.
            from ..check import PREFILTER_MARKERS, Settings, check_source
            from ..selection import Selection

            if not any(marker in source for marker in PREFILTER_MARKERS):
                return
            # flake8 does the selection and noqa itself; report everything.
            settings = Settings(selection=Selection(select=["TTL"], extend_select=["TTL9"]),
                                respect_noqa=False)
            findings = check_source(source, self.filename, settings).findings
        except Exception as exc:  # noqa: BLE001 - never take the host down
            yield 1, 0, f"TTL000 internal error in torchtype-lint: {type(exc).__name__}: {exc}", type(self)
            return
        for f in findings:
            if f.code == "TTL001":
                continue  # flake8 already reports E999 for syntax errors
            yield f.line, f.column, f"{f.code} {f.message}", type(self)
