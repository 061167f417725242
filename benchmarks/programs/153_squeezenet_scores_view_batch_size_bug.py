"""Bug: the training loop reshapes the network's scores with view(args.batch_size, args.num_classes); 100 images in batches of 32 leave 4 at the end of the epoch, 40 scores that cannot fill [32, 10].

family: shape
category: data-paths
expected: RuntimeError
message: is invalid for input of size 40
source: https://github.com/gsp-27/pytorch_Squeezenet/issues/2
"""
import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset


def get_args():
    parser = argparse.ArgumentParser()
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--num-classes", type=int, default=10)
    parser.add_argument("--epochs", type=int, default=1)
    return parser.parse_args([])


class TinySqueeze(nn.Module):
    def __init__(self, num_classes):
        super().__init__()
        self.features = nn.Sequential(nn.Conv2d(3, 16, 3, stride=2), nn.ReLU(), nn.Conv2d(16, 32, 1), nn.ReLU())
        self.classifier = nn.Sequential(nn.Conv2d(32, num_classes, 1), nn.AdaptiveAvgPool2d(1))

    def forward(self, x):
        return self.classifier(self.features(x))


def train(args, model, loader, optimizer):
    model.train()
    for batch_idx, (data, target) in enumerate(loader):
        optimizer.zero_grad()
        scores = model(data)
        scores = scores.view(args.batch_size, args.num_classes)  # bug: the last batch has 4 images  # cause: the configured batch size
        loss = F.cross_entropy(scores, target)
        loss.backward()
        optimizer.step()
    return loss.item()


def main():
    args = get_args()
    torch.manual_seed(0)
    images = torch.randn(100, 3, 16, 16)
    labels = torch.randint(0, args.num_classes, (100,))
    loader = DataLoader(TensorDataset(images, labels), batch_size=args.batch_size, shuffle=True)
    model = TinySqueeze(args.num_classes)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    for epoch in range(args.epochs):
        print(f"epoch {epoch}: {train(args, model, loader, optimizer):.3f}")


if __name__ == "__main__":
    main()
