"""``check --show-files`` and ``check --show-settings``: what a run would check, and with what,
without checking anything (ruff's options of the same names)."""
from __future__ import annotations

import argparse
import json
from typing import Any, List

#: What ``check`` and ``--show-settings`` say when the paths hold no file to check.
NO_FILES_WARNING = "No Python files found under the given path(s)"


def show_files(plan: Any, args: argparse.Namespace) -> str:
    """Every file the run would check, one a line, in the order it would check them."""
    from ..report.printable import printable_path  # a name holding a newline would forge a line

    return "".join(f"{printable_path(path)}\n" for _, files in plan.groups(args.paths) for path in files)


def show_settings(plan: Any, args: argparse.Namespace) -> str:
    """The settings that apply to the first file the run would check (TOML-like lines)."""
    from ..run.runner import default_jobs

    files = [path for _, group in plan.groups(args.paths) for path in group]
    if not files:
        return f"{NO_FILES_WARNING}\n"
    first = files[0]
    config = plan.config_for(first)
    selection = plan.settings_for(first).selection
    excludes: List[str] = (config.exclude if config is not None else []) + list(plan.exclude)
    ignores = plan.per_file_ignores if plan.per_file_ignores is not None else (
        config.per_file_ignores if config is not None else [])
    rows = [
        ("select", selection.select),
        ("extend-select", selection.extend_select),
        ("ignore", selection.ignore),
        ("exclude", excludes),
        ("per-file-ignores", {pattern: codes for pattern, codes in ignores}),
        ("respect-gitignore", plan.respect_gitignore and (config is None or config.respect_gitignore)),
        ("fixable", list(args.fixable_policy.fixable)),
        ("unfixable", list(args.fixable_policy.unfixable)),
        ("time-budget", plan.time_budget),
        ("jobs", args.jobs or default_jobs()),
        ("cache", "off" if args.no_cache else (args.cache_dir or "default")),
        ("output-format", (args.output_format or "concise").lower()),
    ]
    head = [f"Resolved settings for: {json.dumps(first)}",
            f"Settings path: {json.dumps(config.path) if config is not None and config.path else 'none'}", ""]
    return "\n".join(head + [f"{key} = {json.dumps(value)}" for key, value in rows]) + "\n"
