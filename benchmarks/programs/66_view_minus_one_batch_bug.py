"""Bug: the CNN flattens with x.view(-1, 16 * 8 * 8) written for 32x32 inputs; with the 16x16 images of the config the view silently folds the batch of 8 into 2 rows and the loss sees 2 predictions for 8 targets.

family: shape
expected: ValueError
message: Expected input batch_size (2) to match target batch_size (8)
"""
import argparse

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F


def get_args():
    parser = argparse.ArgumentParser()
    parser.add_argument("--image-size", type=int, default=16)
    parser.add_argument("--batch-size", type=int, default=8)
    parser.add_argument("--classes", type=int, default=4)
    parser.add_argument("--steps", type=int, default=3)
    return parser.parse_args()


def fake_icons(n, size, n_classes, seed=0):
    """Small RGB icons as float32 arrays in [0, 1], channels first."""
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, n_classes, size=n)
    images = rng.random((n, 3, size, size), dtype=np.float32) * 0.2
    for img, label in zip(images, labels):
        img[label % 3, : size // 2] += 0.8
    return torch.from_numpy(images), torch.from_numpy(labels)


class IconNet(nn.Module):
    def __init__(self, n_classes):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 8, 3, padding=1)
        self.conv2 = nn.Conv2d(8, 16, 3, padding=1)
        self.fc1 = nn.Linear(16 * 8 * 8, 64)
        self.fc2 = nn.Linear(64, n_classes)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.conv1(x)), 2)
        x = F.max_pool2d(F.relu(self.conv2(x)), 2)
        x = x.view(-1, 16 * 8 * 8)  # cause: -1 absorbs the size mismatch into the batch axis
        return self.fc2(F.relu(self.fc1(x)))


def main():
    args = get_args()
    images, labels = fake_icons(64, args.image_size, args.classes)
    model = IconNet(args.classes)
    opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    for step in range(args.steps):
        idx = torch.randint(0, len(images), (args.batch_size,))
        logits = model(images[idx])
        loss = F.cross_entropy(logits, labels[idx])  # bug: 2 rows of logits for 8 targets
        opt.zero_grad()
        loss.backward()
        opt.step()
        print(f"step {step}: {loss.item():.3f}")


if __name__ == "__main__":
    main()
