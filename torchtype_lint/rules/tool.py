"""Tool-level codes (TTL0xx): the analysis itself could not run on a file."""
from __future__ import annotations

from .base import Rule, register


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


@register
class ParseError(Rule):
    """
    ## What it does
    Reports a file that could not be read or parsed: a syntax error (with the parser's
    message and location), an undecodable encoding, binary content, a notebook that is not
    nbformat 4 JSON, a file `--fix` could not write back, or a file beyond the analyser's
    limits (more than 10 Mi characters, 400,000 syntax nodes or 2,500 levels of nesting),
    which is refused at once instead of exhausting time and memory.

    ## Why is this bad?
    A file that does not parse will not run either, and it cannot be analysed. A file
    beyond the limits is almost always generated code; exclude it.

    ## Example
    ```python
    def broken(:
        pass
    ```

    ## Use instead
    Fix the syntax error, or exclude the file (`--exclude`, `exclude = [...]`).

    ## Fix safety
    No fix.
    """

    code = "TTL001"
    name = "parse-error"
    summary = "the file could not be read, decoded or parsed, or is beyond the analyser's limits"
    severity = "error"
