"""TTL000 internal-error: the analysis of a file could not finish (reported by the checker)."""
from __future__ import annotations

from ..base import Rule, register


@register
class InternalError(Rule):
    """
    ## What it does
    Reports that torchtype-lint could not finish analysing this file: an internal error, the
    per-file time budget (`--time-budget`, wall time, parsing included) ran out, the worker
    analysing it was stopped at its hard deadline or ran out of its memory allowance, or
    libcst's parser refused a file that Python accepts. The other files of the run are still
    checked.

    ## Why is this bad?
    The file was not analysed, so bugs in it may go unreported. Please file an issue with
    the file (or a reduced version of it) and the message; for a very large generated file,
    raise `--time-budget` or exclude it.

    ## Example
    ```text
    model.py:1:1: TTL000 internal error while analysing this file: RecursionError (...)
    ```

    ## Use instead
    Nothing to change in your code; `# noqa: TTL000` on line 1 silences it.

    ## Fix safety
    No fix.
    """

    code = "TTL000"
    name = "internal-error"
    summary = "torchtype-lint could not finish analysing the file (internal error, time or memory bound)"
    severity = "error"
