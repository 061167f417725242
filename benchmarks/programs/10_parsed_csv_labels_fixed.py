"""Fixed twin of 10_parsed_csv_labels_bug.py: the label is converted to int.

family: class-target
expected: success
"""
import io
import random

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset

random.seed(0)
torch.manual_seed(0)


def fake_csv(n_rows=30, n_cols=4, n_classes=3):
    out = io.StringIO()
    out.write(",".join(f"f{i}" for i in range(n_cols)) + ",label\n")
    for _ in range(n_rows):
        label = random.randrange(n_classes)
        values = [f"{random.gauss(label, 1.0):.4f}" for _ in range(n_cols)]
        out.write(",".join(values) + f",{label}\n")
    return out.getvalue()


class CsvDataset(Dataset):
    def __init__(self, text):
        lines = text.strip().splitlines()[1:]
        self.rows = [[float(v) for v in line.split(",")] for line in lines]

    def __len__(self):
        return len(self.rows)

    def __getitem__(self, idx):
        row = self.rows[idx]
        return torch.tensor(row[:-1]), int(row[-1])


class Net(nn.Module):
    def __init__(self, n_in=4, n_classes=3):
        super().__init__()
        self.fc = nn.Sequential(nn.Linear(n_in, 16), nn.ReLU(), nn.Linear(16, n_classes))

    def forward(self, x):
        return self.fc(x)


def train_one_epoch(model, loader, criterion, optimizer, log_every=2):
    for i, (inputs, targets) in enumerate(loader):
        outputs = model(inputs)
        loss = criterion(outputs, targets)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        if i % log_every == 0:
            print(f"batch {i}: {loss.item():.3f}")


dataset = CsvDataset(fake_csv())
loader = DataLoader(dataset, batch_size=10, shuffle=True)
model = Net()
train_one_epoch(model, loader, nn.CrossEntropyLoss(), torch.optim.SGD(model.parameters(), lr=0.1))
