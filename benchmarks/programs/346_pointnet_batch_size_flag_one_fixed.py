"""Fixed twin of 346_pointnet_batch_size_flag_one_bug.py: the script runs with a batch size of 4 (12 clouds, no batch of one), so every BatchNorm layer sees several point clouds.

family: shape
category: configuration
expected: success
source: https://github.com/nikitakaraevv/pointnet/issues/18
"""
import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, Dataset


class PointCloudData(Dataset):
    def __init__(self, n_clouds=12, n_points=64, n_classes=4):
        g = torch.Generator().manual_seed(0)
        self.clouds = torch.rand(n_clouds, n_points, 3, generator=g)
        self.labels = torch.arange(n_clouds) % n_classes

    def __len__(self):
        return len(self.labels)

    def __getitem__(self, idx):
        return {"pointcloud": self.clouds[idx], "category": self.labels[idx]}


class Tnet(nn.Module):
    def __init__(self, k=3):
        super().__init__()
        self.k = k
        self.conv1, self.conv2 = nn.Conv1d(k, 32, 1), nn.Conv1d(32, 64, 1)
        self.fc1, self.fc2 = nn.Linear(64, 32), nn.Linear(32, k * k)
        self.bn1, self.bn2, self.bn3 = nn.BatchNorm1d(32), nn.BatchNorm1d(64), nn.BatchNorm1d(32)

    def forward(self, input):
        bs = input.size(0)
        xb = F.relu(self.bn2(self.conv2(F.relu(self.bn1(self.conv1(input))))))
        flat = nn.Flatten(1)(nn.MaxPool1d(xb.size(-1))(xb))
        xb = F.relu(self.bn3(self.fc1(flat)))
        init = torch.eye(self.k).repeat(bs, 1, 1)
        return self.fc2(xb).view(-1, self.k, self.k) + init


class PointNet(nn.Module):
    def __init__(self, classes=4):
        super().__init__()
        self.input_transform = Tnet(k=3)
        self.conv1, self.conv2 = nn.Conv1d(3, 32, 1), nn.Conv1d(32, 64, 1)
        self.bn1, self.bn2 = nn.BatchNorm1d(32), nn.BatchNorm1d(64)
        self.fc = nn.Linear(64, classes)

    def forward(self, input):
        matrix3x3 = self.input_transform(input)
        xb = torch.bmm(torch.transpose(input, 1, 2), matrix3x3).transpose(1, 2)
        xb = F.relu(self.bn2(self.conv2(F.relu(self.bn1(self.conv1(xb))))))
        xb = nn.Flatten(1)(nn.MaxPool1d(xb.size(-1))(xb))
        return self.fc(xb), matrix3x3


def train(model, loader, epochs, lr):
    optimizer = torch.optim.Adam(model.parameters(), lr=lr)
    for epoch in range(epochs):
        model.train()
        for data in loader:
            inputs, labels = data["pointcloud"].float(), data["category"]
            outputs, m3x3 = model(inputs.transpose(1, 2))
            loss = F.cross_entropy(outputs, labels)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        print(f"epoch {epoch} loss {loss.item():.4f}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--batch_size", default=4, type=int, help="training batch size")
    parser.add_argument("--epochs", default=2, type=int)
    parser.add_argument("--lr", default=1e-3, type=float)
    args = parser.parse_args([])
    torch.manual_seed(0)
    loader = DataLoader(PointCloudData(), batch_size=args.batch_size, shuffle=True)
    train(PointNet(), loader, args.epochs, args.lr)
