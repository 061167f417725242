"""Bug: the slot-attention classifier views the backbone's maps as (B, channel, feature_size, feature_size) with feature_size derived from --img_size (64 -> 8), but the dataset transform resizes images to --resize (96), so the maps are 12x12 and the view cannot hold them.

family: shape
category: model-shapes
expected: RuntimeError
message: shape '[4, 32, 8, 8]' is invalid for input of size 18432
source: https://github.com/wbw520/scouter/issues/10
"""
import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, Dataset


class ResizedImages(Dataset):
    def __init__(self, n, size, num_classes):
        g = torch.Generator().manual_seed(0)
        self.raw = torch.rand(n, 3, 120, 120, generator=g)
        self.labels = torch.randint(0, num_classes, (n,), generator=g)
        self.size = size

    def __len__(self):
        return len(self.raw)

    def __getitem__(self, i):
        img = F.interpolate(self.raw[i:i + 1], size=(self.size, self.size), mode="bilinear", align_corners=False)[0]
        return img, self.labels[i]


class SlotModel(nn.Module):
    def __init__(self, args):
        super().__init__()
        self.channel = args.channel
        self.feature_size = args.img_size // 8  # cause: sized for --img_size, not the images the loader yields
        self.backbone = nn.Sequential(
            nn.Conv2d(3, 16, 3, stride=2, padding=1), nn.ReLU(),
            nn.Conv2d(16, 32, 3, stride=2, padding=1), nn.ReLU(),
            nn.Conv2d(32, self.channel, 3, stride=2, padding=1), nn.ReLU(),
        )
        self.conv1x1 = nn.Conv2d(self.channel, args.hidden_dim, 1)
        self.slots = nn.Parameter(torch.randn(args.num_classes, args.hidden_dim))

    def forward(self, x):
        x = self.backbone(x)
        x = self.conv1x1(x.view(x.size(0), self.channel, self.feature_size, self.feature_size))  # bug: 12x12 maps
        tokens = x.flatten(2).transpose(1, 2)
        attn = torch.softmax(self.slots @ tokens.transpose(1, 2), dim=-1)
        return (attn @ tokens).mean(-1)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--img_size", type=int, default=64)
    parser.add_argument("--resize", type=int, default=96)
    parser.add_argument("--channel", type=int, default=32)
    parser.add_argument("--hidden_dim", type=int, default=16)
    parser.add_argument("--num_classes", type=int, default=5)
    parser.add_argument("--batch_size", type=int, default=4)
    args = parser.parse_args()
    torch.manual_seed(0)
    loader = DataLoader(ResizedImages(12, args.resize, args.num_classes), batch_size=args.batch_size, shuffle=True)
    model = SlotModel(args)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4)
    for inputs, labels in loader:
        logits = model(inputs)
        loss = F.cross_entropy(logits, labels)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    print("loss", loss.item())


if __name__ == "__main__":
    main()
