"""Fixed twin of 75_default_collate_float_labels_bug.py: the label is returned as an int.

family: class-target
expected: success
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
        return torch.tensor(features, dtype=torch.float32), int(label)


def build_loader(batch_size=6):
    return DataLoader(CsvDataset(CSV_TEXT), batch_size=batch_size, shuffle=True)


def train(model, loader, epochs=2):
    criterion = nn.CrossEntropyLoss()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for _ in range(epochs):
        for x, y in loader:
            loss = criterion(model(x), y)
            opt.zero_grad()
            loss.backward()
            opt.step()
    return loss.item()


if __name__ == "__main__":
    net = nn.Sequential(nn.Linear(2, 16), nn.ReLU(), nn.Linear(16, 3))
    print(train(net, build_loader()))
