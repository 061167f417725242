"""Tool-level codes (TTL0xx): the analysis itself could not run on a file."""
from __future__ import annotations

from .base import Rule, register


@register
class InternalError(Rule):
    """
    ## What it does
    Reports that torchtype-lint hit an internal error, or ran out of its per-file time
    budget, while analysing this file. The other files of the run are still checked.

    ## Why is this bad?
    The file was not analysed, so bugs in it may go unreported. Please file an issue with
    the file (or a reduced version of it) and the message.

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
    summary = "torchtype-lint could not analyse the file (internal error or time budget)"
    severity = "error"


@register
class ParseError(Rule):
    """
    ## What it does
    Reports a file that could not be read or parsed: a syntax error (with the parser's
    message and location), an undecodable encoding, or binary content.

    ## Why is this bad?
    A file that does not parse will not run either, and it cannot be analysed.

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
    summary = "the file could not be decoded or parsed"
    severity = "error"
