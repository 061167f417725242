"""Download the real-world corpus: pinned releases of torch-using packages from PyPI, plus torch's
own ``torch/nn`` from the installed wheel. Nothing here is committed (``benchmarks/corpus/`` is
git-ignored); run ``python benchmarks/corpus.py`` once, it skips what is already there.

Each package is fetched with pip (``pip download --no-deps``): the source distribution where one
exists (it carries the tests, which are the most torch-heavy code of a project), else the wheel.
Only the ``.py`` files are extracted, into ``benchmarks/corpus/<name>-<version>/``.
"""
from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tarfile
import zipfile
from typing import List, Optional, Tuple

HERE = os.path.dirname(os.path.abspath(__file__))
CORPUS = os.path.join(HERE, "corpus")
DOWNLOADS = os.path.join(CORPUS, ".downloads")

#: (PyPI name, pinned version, "sdist" or "wheel"). The versions are the newest releases on the
#: day the corpus was built; pinning keeps every number in docs/ reproducible.
PACKAGES: List[Tuple[str, str, str]] = [
    ("torchvision", "0.29.1", "wheel"),  # no sdist on PyPI; 0.29.2 has no cp311 wheel
    ("torchaudio", "2.11.0", "wheel"),  # no sdist on PyPI
    ("torchmetrics", "1.9.0", "sdist"),
    ("pytorch-lightning", "2.6.6", "sdist"),
    ("kornia", "0.9.0", "sdist"),
    ("timm", "1.0.31", "sdist"),
    ("torch-geometric", "2.8.1", "sdist"),
    ("monai", "1.6.1", "wheel"),  # its sdist needs a build step to report metadata
]


def torch_nn_source() -> Optional[str]:
    """``torch/nn`` of the torch installed next to this interpreter, found without importing torch."""
    import importlib.util

    spec = importlib.util.find_spec("torch")
    if spec is None or not spec.submodule_search_locations:
        return None
    path = os.path.join(list(spec.submodule_search_locations)[0], "nn")
    return path if os.path.isdir(path) else None


def _download(name: str, version: str, kind: str) -> Optional[str]:
    os.makedirs(DOWNLOADS, exist_ok=True)
    want = f"{name}=={version}"
    base = [sys.executable, "-m", "pip", "download", "--no-deps", "--quiet", "-d", DOWNLOADS, want]
    attempts = []
    if kind == "sdist":
        attempts.append(base + ["--no-binary", ":all:"])
    attempts.append(base + ["--only-binary", ":all:"])
    before = set(os.listdir(DOWNLOADS))
    for command in attempts:
        existing = _find_archive(name, version)
        if existing:
            return existing
        result = subprocess.run(command, capture_output=True, text=True)
        if result.returncode == 0:
            break
        print(f"  {' '.join(command[3:])}: failed, {result.stderr.strip().splitlines()[-1:]}", file=sys.stderr)
    return _find_archive(name, version) or next(
        (os.path.join(DOWNLOADS, f) for f in set(os.listdir(DOWNLOADS)) - before), None)


def _find_archive(name: str, version: str) -> Optional[str]:
    stems = {name.lower().replace("-", "_"), name.lower()}
    for f in sorted(os.listdir(DOWNLOADS)):
        low = f.lower()
        if any(low.startswith(f"{s}-{version}") for s in stems) and low.endswith((".tar.gz", ".zip", ".whl")):
            return os.path.join(DOWNLOADS, f)
    return None


def _extract_python(archive: str, target: str) -> int:
    """Extract the ``.py`` members of ``archive`` into ``target``; returns how many."""
    count = 0
    tmp = target + ".partial"
    shutil.rmtree(tmp, ignore_errors=True)
    os.makedirs(tmp)

    def place(member_name: str, data: bytes) -> None:
        nonlocal count
        parts = [p for p in member_name.replace("\\", "/").split("/") if p not in ("", ".", "..")]
        if not parts:
            return
        dest = os.path.join(tmp, *parts)
        os.makedirs(os.path.dirname(dest), exist_ok=True)
        with open(dest, "wb") as handle:
            handle.write(data)
        count += 1

    if archive.endswith((".whl", ".zip")):
        with zipfile.ZipFile(archive) as zf:
            for info in zf.infolist():
                if info.filename.endswith(".py") and not info.is_dir():
                    place(info.filename, zf.read(info))
    else:
        with tarfile.open(archive) as tf:
            for member in tf.getmembers():
                if member.isfile() and member.name.endswith(".py"):
                    extracted = tf.extractfile(member)
                    if extracted is not None:
                        place(member.name, extracted.read())
    os.replace(tmp, target)
    return count


def build(only: Optional[List[str]] = None) -> List[str]:
    """Make sure every corpus directory exists; returns them."""
    os.makedirs(CORPUS, exist_ok=True)
    dirs = []
    nn = torch_nn_source()
    nn_target = os.path.join(CORPUS, "torch-nn")
    if nn and not os.path.isdir(nn_target) and (not only or "torch-nn" in only):
        shutil.copytree(nn, nn_target, ignore=shutil.ignore_patterns("__pycache__", "*.pyc", "*.so"))
    if os.path.isdir(nn_target):
        dirs.append(nn_target)
    for name, version, kind in PACKAGES:
        if only and name not in only:
            continue
        target = os.path.join(CORPUS, f"{name}-{version}")
        if not os.path.isdir(target):
            print(f"downloading {name}=={version} ({kind})", file=sys.stderr)
            archive = _download(name, version, kind)
            if archive is None:
                print(f"  skipped {name}: nothing downloaded", file=sys.stderr)
                continue
            n = _extract_python(archive, target)
            print(f"  {os.path.basename(archive)}: {n} .py files", file=sys.stderr)
        dirs.append(target)
    return dirs


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", action="append", help="only this package (repeatable)")
    args = parser.parse_args()
    for d in build(args.only):
        print(d)
    return 0


if __name__ == "__main__":
    sys.exit(main())
