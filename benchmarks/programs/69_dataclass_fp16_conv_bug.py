"""Bug: a @dataclass training config enables fp16 by default; the model factory halves the CNN but the test images are built float32.

family: precision
category: configuration
expected: RuntimeError
message: Input type (float) and bias type (c10::Half) should be the same
source: https://github.com/mlfoundations/open_flamingo/issues/260
"""
from dataclasses import dataclass

import torch
import torch.nn as nn


@dataclass
class TrainConfig:
    image_size: int = 32
    channels: int = 3
    num_classes: int = 10
    fp16: bool = True
    batch_size: int = 2


class SmallCNN(nn.Module):
    def __init__(self, channels, num_classes):
        super().__init__()
        self.features = nn.Sequential(nn.Conv2d(channels, 8, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(1))
        self.head = nn.Linear(8, num_classes)

    def forward(self, x):
        return self.head(self.features(x).flatten(1))  # bug: float32 images into a float16 convolution


def create_model(cfg: TrainConfig) -> nn.Module:
    model = SmallCNN(cfg.channels, cfg.num_classes)
    if cfg.fp16:
        model = model.half()  # cause: fp16 is on by default
    return model


def make_inputs(cfg: TrainConfig):
    return torch.rand(cfg.batch_size, cfg.channels, cfg.image_size, cfg.image_size)


def main():
    cfg = TrainConfig()
    model = create_model(cfg)
    images = make_inputs(cfg)
    logits = model(images)
    print(logits.shape)


if __name__ == "__main__":
    main()
