"""Bug: a @dataclass model config names the dtype as a string ("bfloat16"); the factory resolves it with getattr(torch, ...) and casts the model, but the calibration batch is float32.

family: precision
category: configuration
expected: RuntimeError
message: mat1 and mat2 must have the same dtype
source: https://github.com/hpcaitech/ColossalAI/issues/6169
"""
from dataclasses import dataclass, field

import torch
import torch.nn as nn


@dataclass
class ModelConfig:
    d_model: int = 16
    n_classes: int = 4
    dtype: str = "bfloat16"
    dropout: float = 0.1


@dataclass
class RunConfig:
    model: ModelConfig = field(default_factory=ModelConfig)
    batch_size: int = 3


def build_model(cfg: ModelConfig) -> nn.Module:
    net = nn.Sequential(nn.Linear(cfg.d_model, cfg.d_model), nn.Dropout(cfg.dropout), nn.Linear(cfg.d_model, cfg.n_classes))
    return net.to(getattr(torch, cfg.dtype))  # cause: bfloat16 parameters


def calibration_batch(batch_size, d_model):
    return torch.randn(batch_size, d_model)


def main():
    run = RunConfig(model=ModelConfig())
    model = build_model(run.model)
    batch = calibration_batch(run.batch_size, run.model.d_model)
    with torch.no_grad():
        out = model(batch)  # bug: float32 batch into bfloat16 layers
    print(out.shape)


if __name__ == "__main__":
    main()
