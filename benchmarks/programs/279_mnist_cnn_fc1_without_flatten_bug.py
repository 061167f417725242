"""Bug: the MNIST CNN's forward goes from the pooled (N, 64, 12, 12) conv maps straight into fc1 = Linear(9216, 128) without flattening them, so the Linear multiplies along the last axis (12) instead of the 9216 features.

family: shape
category: model-shapes
expected: RuntimeError
message: mat1 and mat2 shapes cannot be multiplied (7680x12 and 9216x128)
source: https://github.com/facebookresearch/CrypTen/issues/487
"""
import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset


class CNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 32, 3, 1)
        self.conv2 = nn.Conv2d(32, 64, 3, 1)
        self.dropout1 = nn.Dropout(0.25)
        self.dropout2 = nn.Dropout(0.5)
        self.fc1 = nn.Linear(9216, 128)
        self.fc2 = nn.Linear(128, 10)

    def forward(self, x):
        x = F.relu(self.conv1(x))
        x = F.relu(self.conv2(x))
        x = F.max_pool2d(x, 2)
        x = self.dropout1(x)  # cause: still (N, 64, 12, 12) when it reaches fc1
        x = self.fc1(x)  # bug: Linear over the last axis of a 4-D map
        x = self.dropout2(F.relu(x))
        return F.log_softmax(self.fc2(x), dim=1)


def train(args, model, loader, optimizer, epoch):
    model.train()
    for batch_idx, (data, target) in enumerate(loader):
        optimizer.zero_grad()
        loss = F.nll_loss(model(data), target)
        loss.backward()
        optimizer.step()
        if batch_idx % args.log_interval == 0:
            print(f"Train Epoch: {epoch} [{batch_idx * len(data)}/{len(loader.dataset)}]\tLoss: {loss.item():.6f}")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--batch-size", type=int, default=10)
    parser.add_argument("--epochs", type=int, default=1)
    parser.add_argument("--lr", type=float, default=1.0)
    parser.add_argument("--log-interval", type=int, default=2)
    args = parser.parse_args()
    torch.manual_seed(1)
    x_train = torch.rand(40, 1, 28, 28)
    y_train = torch.randint(0, 10, (40,))
    loader = DataLoader(TensorDataset(x_train, y_train), batch_size=args.batch_size, shuffle=True)
    model = CNN()
    optimizer = torch.optim.Adadelta(model.parameters(), lr=args.lr)
    for epoch in range(1, args.epochs + 1):
        train(args, model, loader, optimizer, epoch)


if __name__ == "__main__":
    main()
