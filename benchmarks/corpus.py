"""Download the real-world corpus: pinned releases of torch-using packages from PyPI, plus torch's
own ``torch/nn`` from the installed wheel. Nothing here is committed (``benchmarks/corpus/`` is
git-ignored); run ``python benchmarks/corpus.py`` once, it skips what is already there.

Each package is fetched with pip (``pip download --no-deps``): the source distribution where one
exists (it carries the tests, the examples and the notebooks), else the wheel. The ``.py`` and
``.ipynb`` files are extracted, into ``benchmarks/corpus/<name>-<version>/``; a source may keep only
some folders (``only``): the examples, tutorials or notebooks of a package whose library code is not
what the corpus wants from it.

The corpus has two halves (``kind``): well-tested libraries, and what most users write -- course
code, tutorials, research-style model files and scripts, and Jupyter notebooks -- taken from the
releases on PyPI that ship them, since PyPI is the one place this corpus may be downloaded from.
"""
from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tarfile
import zipfile
from dataclasses import dataclass
from typing import Callable, List, Optional, Tuple

HERE = os.path.dirname(os.path.abspath(__file__))
CORPUS = os.path.join(HERE, "corpus")
DOWNLOADS = os.path.join(CORPUS, ".downloads")
#: The files a corpus directory holds (a notebook is linted natively, as one program of its code cells).
EXTRACTED_SUFFIXES = (".py", ".ipynb")


@dataclass(frozen=True)
class Source:
    """One pinned release in the corpus."""

    name: str  # PyPI name
    version: str  # pinned: every number in docs/real-world.md stays reproducible
    fetch: str  # "sdist" or "wheel"
    #: What its files are: "library" (tested library code), "course", "tutorial", "research"
    #: (model files and scripts written the way papers' code is) or "notebook"; shown in docs.
    kind: str
    #: Folders (or files) to keep, relative to the archive's root folder; empty: everything.
    only: Tuple[str, ...] = ()
    #: One line for docs/real-world.md: what these files are.
    about: str = ""


#: Well-tested libraries. The versions are the newest releases on the day the corpus was built.
LIBRARIES: List[Source] = [
    Source("torchvision", "0.29.1", "wheel", "library", about="no sdist on PyPI; 0.29.2 has no cp311 wheel"),
    Source("torchaudio", "2.11.0", "wheel", "library", about="no sdist on PyPI"),
    Source("torchmetrics", "1.9.0", "sdist", "library"),
    Source("pytorch-lightning", "2.6.6", "sdist", "library"),
    Source("kornia", "0.9.0", "sdist", "library"),
    Source("timm", "1.0.31", "sdist", "library"),
    Source("torch-geometric", "2.8.1", "sdist", "library"),
    Source("monai", "1.6.1", "wheel", "library", about="its sdist needs a build step to report metadata"),
]

#: What users write (issue 14): course code, tutorials, research code and notebooks, from the
#: PyPI releases that ship them (each checked by downloading it and reading its files).
USER_CODE: List[Source] = [
    Source("d2l", "1.0.3", "sdist", "course", ("d2l/torch.py",),
           "Dive into Deep Learning: the book's PyTorch code, written chapter by chapter (the other frameworks' files left out)"),
    Source("pytorch-tutorials", "0.2.19", "sdist", "tutorial", ("pytorch_tutorials",),
           "a course's computer-vision tutorial code: datasets, models, Lightning data modules"),
    Source("torchlingo", "0.2.9", "wheel", "course", ("torchlingo",),
           "an educational translation library for coursework: data, LSTM and Transformer models, training loops"),
    Source("mchnpkg", "0.4.9", "wheel", "course", ("src/mchnpkg",),
           "a student's homework package: tensor row operations, distributions, a small neural net"),
    Source("vit-pytorch", "1.26.11", "sdist", "research", ("vit_pytorch",),
           "one file per paper: vision-transformer variants written from the papers"),
    Source("x-transformers", "2.31.10", "sdist", "research", ("x_transformers",),
           "transformer research variants in a few large files"),
    Source("denoising-diffusion-pytorch", "2.3.4", "sdist", "research", ("denoising_diffusion_pytorch",),
           "diffusion-model papers, each with its own trainer"),
    Source("vector-quantize-pytorch", "1.32.0", "sdist", "research", ("vector_quantize_pytorch",),
           "vector-quantisation papers, one module each"),
    Source("pytorch-ignite", "0.5.5", "sdist", "tutorial", ("examples",),
           "example training scripts (MNIST, CIFAR-10, GANs, style transfer, RL, segmentation) and notebooks"),
    Source("avalanche-lib", "0.6.0", "sdist", "tutorial", ("examples",),
           "continual-learning example scripts"),
    Source("opacus", "1.6.0", "sdist", "tutorial", ("examples",),
           "differential-privacy training scripts (MNIST, CIFAR-10, IMDb, char-LSTM, DCGAN)"),
    Source("deepxde", "1.15.0", "sdist", "research", ("examples",),
           "physics-informed network scripts, one per equation, as in the papers"),
    Source("pytorch-forecasting", "1.8.0", "sdist", "tutorial", ("examples",),
           "forecasting example scripts"),
    Source("gpytorch", "1.15.2", "sdist", "notebook", ("examples",),
           "Gaussian-process tutorial notebooks (regression, variational, deep GPs, DKL)"),
    Source("sbi", "0.27.0", "sdist", "notebook", ("docs/tutorials", "docs/how_to_guide", "docs/advanced_tutorials"),
           "simulation-based-inference tutorial and how-to notebooks with their helper scripts"),
    Source("botorch", "0.18.1", "sdist", "notebook", ("notebooks_community",),
           "research notebooks contributed by users"),
    Source("torchkbnufft", "1.5.2", "sdist", "notebook", ("notebooks",),
           "MRI reconstruction example notebooks"),
]

SOURCES: List[Source] = LIBRARIES + USER_CODE


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


def _keeps(only: Tuple[str, ...], within_root: str) -> bool:
    """Whether a member (its path below the archive's root folder) is in one of ``only``."""
    return not only or any(within_root == k or within_root.startswith(k.rstrip("/") + "/") for k in only)


def _extract(archive: str, target: str, only: Tuple[str, ...] = ()) -> Tuple[int, int]:
    """Extract the ``.py`` and ``.ipynb`` members of ``archive`` (those under ``only`` when given)
    into ``target``; returns how many of each."""
    counts = {".py": 0, ".ipynb": 0}
    tmp = target + ".partial"
    shutil.rmtree(tmp, ignore_errors=True)
    os.makedirs(tmp)
    # An sdist has one root folder (name-version/); a wheel's members start at its root.
    below_root: Callable[[List[str]], str] = (lambda parts: "/".join(parts)) if archive.endswith(".whl") \
        else (lambda parts: "/".join(parts[1:]))

    def place(member_name: str, data: bytes) -> None:
        parts = [p for p in member_name.replace("\\", "/").split("/") if p not in ("", ".", "..")]
        if not parts or not _keeps(only, below_root(parts)):
            return
        dest = os.path.join(tmp, *parts)
        os.makedirs(os.path.dirname(dest), exist_ok=True)
        with open(dest, "wb") as handle:
            handle.write(data)
        counts[os.path.splitext(dest)[1]] += 1

    if archive.endswith((".whl", ".zip")):
        with zipfile.ZipFile(archive) as zf:
            for info in zf.infolist():
                if info.filename.endswith(EXTRACTED_SUFFIXES) and not info.is_dir():
                    place(info.filename, zf.read(info))
    else:
        with tarfile.open(archive) as tf:
            for member in tf.getmembers():
                if member.isfile() and member.name.endswith(EXTRACTED_SUFFIXES):
                    extracted = tf.extractfile(member)
                    if extracted is not None:
                        place(member.name, extracted.read())
    os.replace(tmp, target)
    return counts[".py"], counts[".ipynb"]


def source_directory(source: Source) -> str:
    return os.path.join(CORPUS, f"{source.name}-{source.version}")


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
    for source in SOURCES:
        if only and source.name not in only:
            continue
        target = source_directory(source)
        if not os.path.isdir(target):
            print(f"downloading {source.name}=={source.version} ({source.fetch})", file=sys.stderr)
            archive = _download(source.name, source.version, source.fetch)
            if archive is None:
                print(f"  skipped {source.name}: nothing downloaded", file=sys.stderr)
                continue
            py, notebooks = _extract(archive, target, source.only)
            print(f"  {os.path.basename(archive)}: {py} .py files, {notebooks} notebooks", file=sys.stderr)
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
