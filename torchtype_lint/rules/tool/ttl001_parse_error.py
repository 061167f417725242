"""TTL001 parse-error: a file could not be read, decoded or parsed, or is beyond the limits."""
from __future__ import annotations

from ..base import Rule, register


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
