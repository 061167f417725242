"""Source bytes to text the way Python decodes a module: a BOM, then a PEP 263 coding cookie,
else UTF-8. Shared by the checker and by the reader of imported project modules
(``project/sources.py``), which must not import the checker.
"""
from __future__ import annotations

import codecs
import io
import tokenize


class DecodeError(Exception):
    def __init__(self, message: str, line: int = 1, column: int = 0):
        super().__init__(message)
        #: Where decoding failed (1-based line, 0-based column), for the TTL001 location.
        self.line, self.column = line, column


def decode_source(data: bytes) -> str:
    """Decode like Python does: BOM, then a PEP 263 coding cookie, else UTF-8."""
    if b"\x00" in data:
        raise DecodeError("file contains null bytes (binary file?)")
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    except SyntaxError as exc:
        raise DecodeError(str(exc)) from None
    try:
        text = data.decode(encoding)
    except (UnicodeDecodeError, LookupError) as exc:
        start = getattr(exc, "start", 0)
        line = data.count(b"\n", 0, start) + 1
        line_start = data.rfind(b"\n", 0, start) + 1
        column = len(data[line_start:start].decode(encoding if isinstance(exc, UnicodeDecodeError) else "latin-1",
                                                   errors="replace"))
        raise DecodeError(f"cannot decode as {encoding}: {exc.reason if hasattr(exc, 'reason') else exc}"
                          " (declare the encoding with a `# -*- coding: ... -*-` line)", line, column) from None
    if text.startswith(codecs.BOM_UTF8.decode("utf-8")):
        text = text[1:]
    return text
