"""torchtype-lint: a static analyzer for PyTorch dtype and shape bugs."""

__version__ = "0.1.0"
