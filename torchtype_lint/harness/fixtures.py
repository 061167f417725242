"""Rule fixtures on disk: ``fixtures/<CODE>/bad_*.py`` and ``good_*.py`` with ``# expect:`` labels.

No torch here: this part is shared by ``confirm`` (which also runs them) and by the tests.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, List, Optional, Set, Tuple

from ..source.lines import source_lines

EXPECT = re.compile(r"#\s*expect:\s*(?P<codes>TTL[0-9]{3}(?:\s*,\s*TTL[0-9]{3})*)")
RULE_DIR = re.compile(r"^TTL[0-9]{3}$")


@dataclass(frozen=True)
class Fixture:
    code: str          # the rule the fixture belongs to (its directory name)
    path: Path
    kind: str          # "bad" or "good"
    labels: Tuple[Tuple[int, str], ...]  # (line, code) pairs from `# expect:` comments

    @property
    def name(self) -> str:
        return self.path.name

    @property
    def ident(self) -> str:
        return f"{self.code}/{self.path.name}"


def default_root() -> Optional[Path]:
    """The fixtures the installed package carries (a wheel puts them in ``torchtype_lint/``),
    else the repository's ``fixtures/`` next to the package (editable installs, checkouts).
    Never the working directory's: running its programs would run whatever a checkout holds."""
    package = Path(__file__).resolve().parents[1]
    for candidate in (package / "fixtures", package.parent / "fixtures"):
        if candidate.is_dir():
            return candidate
    return None


def parse_labels(text: str) -> Tuple[Tuple[int, str], ...]:
    labels = []
    for number, line in enumerate(source_lines(text), start=1):  # the findings' numbering
        match = EXPECT.search(line)
        if match:
            for code in re.split(r"\s*,\s*", match.group("codes").strip()):
                labels.append((number, code))
    return tuple(labels)


def discover(root: Path, codes: Optional[Set[str]] = None) -> Dict[str, List[Fixture]]:
    """code -> its fixtures (bad first, then good, each sorted by name)."""
    out: Dict[str, List[Fixture]] = {}
    if not root.is_dir():
        return out
    for directory in sorted(p for p in root.iterdir() if p.is_dir() and RULE_DIR.match(p.name)):
        code = directory.name
        if codes is not None and code not in codes:
            continue
        items = []
        for kind in ("bad", "good"):
            for path in sorted(directory.glob(f"{kind}_*.py")):
                labels = parse_labels(path.read_text(encoding="utf-8"))
                items.append(Fixture(code, path.resolve(), kind, labels))
        if items:
            out[code] = items
    return out
