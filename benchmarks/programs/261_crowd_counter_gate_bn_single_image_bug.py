"""Bug: the crowd counter's channel gate pools the features to 1x1 and normalizes them with BatchNorm2d; 13 training images in batches of 4 end with a batch of one image, and the pooled (1, 16, 1, 1) tensor has one value per channel.

family: shape
category: data-paths
expected: ValueError
message: Expected more than 1 value per channel when training
source: https://github.com/erdongsanshi/Fuss-Free-structure/issues/1
"""
import argparse

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset


class CrowdDataset(Dataset):
    def __init__(self, n_images, size=32):
        g = torch.Generator().manual_seed(0)
        self.images = torch.rand(n_images, 3, size, size, generator=g)
        self.density = torch.rand(n_images, 1, size // 4, size // 4, generator=g) * 0.1

    def __len__(self):
        return len(self.images)

    def __getitem__(self, idx):
        return self.images[idx], self.density[idx]


class FFNet(nn.Module):
    def __init__(self, width=16):
        super().__init__()
        self.backbone = nn.Sequential(
            nn.Conv2d(3, width, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(width, width, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        )
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.gate = nn.Sequential(nn.Conv2d(width, width, 1), nn.BatchNorm2d(width), nn.Sigmoid())
        self.head = nn.Conv2d(width, 1, 1)

    def forward(self, x):
        feats = self.backbone(x)
        weights = self.gate(self.pool(feats))  # bug: (1, 16, 1, 1) in the last batch
        return torch.relu(self.head(feats * weights))


def train(args):
    torch.manual_seed(args.seed)
    loader = DataLoader(CrowdDataset(args.n_train), batch_size=args.batch_size, shuffle=True)  # cause: 13 images, batches of 4
    model = FFNet()
    optimizer = torch.optim.Adam(model.parameters(), lr=args.lr)
    for epoch in range(args.max_epoch):
        model.train()
        for images, density in loader:
            pred = model(images)
            loss = nn.functional.mse_loss(pred, density)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        print(f"epoch {epoch}: mse {loss.item():.5f}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--n-train", type=int, default=13)
    parser.add_argument("--batch-size", type=int, default=4)
    parser.add_argument("--lr", type=float, default=1e-4)
    parser.add_argument("--max-epoch", type=int, default=2)
    parser.add_argument("--seed", type=int, default=0)
    train(parser.parse_args())
