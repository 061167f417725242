"""The message torch prints for a bad call, as the set of wordings it is known to use.

One failure can be worded differently on different machines with the same torch version, by
the CPU's instruction set: a convolution without a bias check on float16/bfloat16 input takes
oneDNN's kernels where the CPU has the instructions (``Input type (CPUBFloat16Type) and weight
type (torch.FloatTensor) should be the same or ...``) and the reference kernels elsewhere
(``expected scalar type BFloat16 but found Float``). Such a failure is quoted with no wording
at all: a quote must be what torch prints on every CPU, and the set of wordings a CPU can pick
is not known. A check of a quote with several variants accepts any of them.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Tuple


@dataclass(frozen=True)
class TorchMessage:
    """Each variant is torch's text (or its first line) exactly as one backend prints it."""

    variants: Tuple[str, ...] = ()

    @classmethod
    def of(cls, *variants: str) -> "TorchMessage":
        return cls(tuple(v for v in variants if v))

    def __bool__(self) -> bool:
        return bool(self.variants)

    def quoted(self) -> str:
        """``"A"`` or ``"A" or "B"``: double quotes unless the text contains some."""
        return " or ".join(f"'{v}'" if '"' in v else f'"{v}"' for v in self.variants)

    def found_in(self, raised: str) -> bool:
        """Whether what torch raised is worded as one of the variants."""
        return any(variant in raised for variant in self.variants)
