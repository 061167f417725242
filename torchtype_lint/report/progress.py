"""Progress of a long run on stderr: files done of the total and findings so far.

Shown only when stderr is a terminal (never in CI logs, pipes or files) and only once the run
has lasted ``DELAY`` seconds, so a quick run prints nothing extra. With ``tqdm`` installed
(``pip install 'torchtype-lint[progress]'``) it draws the bar; without it, one line rewritten
in place does. The line is cleared before the report is printed.
"""
from __future__ import annotations

import sys
import time
from typing import IO, Any, Optional

#: Seconds a run lasts before progress appears.
DELAY = 2.0


class Progress:
    def __init__(self, total: int, stream: Optional[IO[str]] = None, enabled: bool = True,
                 delay: float = DELAY):
        self.total, self.done, self.findings = total, 0, 0
        self.stream = stream if stream is not None else sys.stderr
        isatty = getattr(self.stream, "isatty", None)
        self.enabled = enabled and total > 1 and bool(isatty and isatty())
        self.started = time.monotonic()
        self.delay = delay
        self._bar: Any = None
        self._drawn = False

    def advance(self, findings: int) -> None:
        self.done += 1
        self.findings += findings
        if not self.enabled or time.monotonic() - self.started < self.delay:
            return
        if self._bar is None and not self._drawn:
            self._bar = _tqdm_bar(self.total, self.stream)
        if self._bar is not None:
            self._bar.n = self.done
            self._bar.set_postfix_str(f"{self.findings} findings", refresh=False)
            self._bar.refresh()
        else:
            self.stream.write(f"\r{self.done}/{self.total} files, {self.findings} findings\033[K")
            self.stream.flush()
        self._drawn = True

    def close(self) -> None:
        if self._bar is not None:
            self._bar.close()
        elif self._drawn:
            self.stream.write("\r\033[K")  # leave the terminal as it was for the report
            self.stream.flush()


def _tqdm_bar(total: int, stream: IO[str]) -> Any:
    try:
        from tqdm import tqdm
    except ImportError:  # optional: the plain line does the job
        return None
    # leave=False: the bar goes away when the run ends; the report follows on a clean line.
    return tqdm(total=total, file=stream, unit="file", leave=False, dynamic_ncols=True)
