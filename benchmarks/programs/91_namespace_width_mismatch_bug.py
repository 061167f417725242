"""Bug: the SimpleNamespace config gives the visual encoder 48 output channels but the projection is built from a separate proj_in entry left at 32.

family: shape
category: configuration
expected: RuntimeError
message: mat1 and mat2 shapes cannot be multiplied
source: https://github.com/shabie/docformer/issues/40
"""
from types import SimpleNamespace

import torch
import torch.nn as nn

config = SimpleNamespace(
    image_size=32,
    enc_channels=48,
    proj_in=32,  # cause: not updated when enc_channels went from 32 to 48
    hidden=64,
    batch_size=2,
)


class VisualEncoder(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.conv = nn.Conv2d(3, cfg.enc_channels, 4, stride=4)
        self.pool = nn.AdaptiveAvgPool2d(1)

    def forward(self, x):
        return self.pool(torch.relu(self.conv(x))).flatten(1)


class DocModel(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.visual = VisualEncoder(cfg)
        self.proj = nn.Linear(cfg.proj_in, cfg.hidden)

    def forward(self, images):
        feats = self.visual(images)
        return self.proj(feats)  # bug: 48 features into a Linear expecting 32


def build(cfg):
    return DocModel(cfg)


if __name__ == "__main__":
    model = build(config)
    pages = torch.rand(config.batch_size, 3, config.image_size, config.image_size)
    print(model(pages).shape)
