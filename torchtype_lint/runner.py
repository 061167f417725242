"""Running ``check`` over many files: the one place that decides order, parallelism and caching."""
from __future__ import annotations

from typing import Iterable, List, Sequence

from .check import FileResult, Settings, check_path
from .files import discover


def run_paths(paths: Sequence[str], settings: Settings, excludes: Sequence[str] = ()) -> List[FileResult]:
    """Check every file under ``paths``; results in discovery order."""
    return [check_path(path, settings) for path in discover(paths, excludes)]


def run_files(files: Iterable[str], settings: Settings) -> List[FileResult]:
    return [check_path(path, settings) for path in files]
