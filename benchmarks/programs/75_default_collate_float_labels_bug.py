"""Bug: the Dataset returns each class label as a Python float read from a CSV column; the default collate turns the floats into a float64 tensor and CrossEntropyLoss needs int64 class indices.

family: class-target
category: factories
expected: RuntimeError
message: expected target dtype to be Long or Byte, but got Double
source: https://github.com/pytorch/pytorch/issues/1113
"""
import csv
import io

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset

CSV_TEXT = "\n".join(f"{i % 7 / 7:.3f},{(i * 3) % 5 / 5:.3f},{i % 3}" for i in range(30))


class CsvDataset(Dataset):
    def __init__(self, text):
        self.rows = [[float(v) for v in row] for row in csv.reader(io.StringIO(text))]

    def __len__(self):
        return len(self.rows)

    def __getitem__(self, i):
        *features, label = self.rows[i]
        return torch.tensor(features, dtype=torch.float32), label  # cause: the label stays a Python float


def build_loader(batch_size=6):
    return DataLoader(CsvDataset(CSV_TEXT), batch_size=batch_size, shuffle=True)


def train(model, loader, epochs=2):
    criterion = nn.CrossEntropyLoss()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for _ in range(epochs):
        for x, y in loader:
            loss = criterion(model(x), y)  # bug: float64 class labels from the default collate
            opt.zero_grad()
            loss.backward()
            opt.step()
    return loss.item()


if __name__ == "__main__":
    net = nn.Sequential(nn.Linear(2, 16), nn.ReLU(), nn.Linear(16, 3))
    print(train(net, build_loader()))
