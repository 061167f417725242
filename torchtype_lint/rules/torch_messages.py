"""The message torch prints for a bad call, as the set of wordings it is known to use.

One failure can be worded differently on different machines with the same torch version: a
CPU convolution on float16 input takes oneDNN's kernels where the CPU has float16 support
(``Input type (torch.HalfTensor) and weight type (torch.FloatTensor) should be the same``,
recorded on the machine the rule was written on) and the reference kernels elsewhere
(``expected scalar type Half but found Float``, on an AVX2-only AMD EPYC; torch 2.13.0+cpu
both times; ``torch.ops.mkldnn._is_mkldnn_fp16_supported()`` tells which a machine has). A finding quotes every wording, and a
check of a quote accepts any of them; a failure whose wordings are not all known is quoted
with none.
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
