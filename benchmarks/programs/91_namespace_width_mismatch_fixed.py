"""Fixed twin of 91_namespace_width_mismatch_bug.py: proj_in matches enc_channels.

family: shape
expected: success
source: https://github.com/shabie/docformer/issues/40
"""
from types import SimpleNamespace

import torch
import torch.nn as nn

config = SimpleNamespace(
    image_size=32,
    enc_channels=48,
    proj_in=48,
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
        return self.proj(feats)


def build(cfg):
    return DocModel(cfg)


if __name__ == "__main__":
    model = build(config)
    pages = torch.rand(config.batch_size, 3, config.image_size, config.image_size)
    print(model(pages).shape)
