"""Bug: float64 features from a Dataset built with np.random.default_rng reach a float32 MLP through default collate.

family: numpy-float64
expected: RuntimeError
message: mat1 and mat2 must have the same dtype
"""
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, Dataset

torch.manual_seed(0)

N_SAMPLES, N_FEATURES, N_CLASSES = 48, 6, 3


class TabularDataset(Dataset):
    """Synthetic tabular data: each class has its own mean vector."""

    def __init__(self, n, n_features, n_classes, seed=0):
        rng = np.random.default_rng(seed)
        self.labels = rng.integers(0, n_classes, size=n)
        centers = rng.normal(0.0, 2.0, size=(n_classes, n_features))
        self.features = centers[self.labels] + rng.normal(size=(n, n_features))  # cause: Generator.normal gives float64

    def __len__(self):
        return len(self.labels)

    def __getitem__(self, idx):
        return self.features[idx], self.labels[idx]


class MLP(nn.Module):
    def __init__(self, in_dim, hidden, out_dim, dropout=0.1):
        super().__init__()
        self.fc1 = nn.Linear(in_dim, hidden)
        self.drop = nn.Dropout(dropout)
        self.fc2 = nn.Linear(hidden, out_dim)

    def forward(self, x):
        h = F.relu(self.fc1(x))  # bug: the float64 batch meets the float32 weights
        return self.fc2(self.drop(h))


def accuracy(logits, targets):
    return (logits.argmax(dim=1) == targets).float().mean().item()


def train(model, loader, epochs=2, lr=1e-2):
    opt = torch.optim.SGD(model.parameters(), lr=lr, momentum=0.9)
    for epoch in range(epochs):
        total = 0.0
        for step, (x, y) in enumerate(loader):
            logits = model(x)
            loss = F.cross_entropy(logits, y)
            opt.zero_grad()
            loss.backward()
            opt.step()
            total += loss.item()
            if step == 2:
                break
        print(f"epoch {epoch}: loss {total / (step + 1):.3f} acc {accuracy(logits, y):.2f}")


if __name__ == "__main__":
    ds = TabularDataset(N_SAMPLES, N_FEATURES, N_CLASSES)
    loader = DataLoader(ds, batch_size=8, shuffle=True)
    model = MLP(N_FEATURES, 32, N_CLASSES)
    train(model, loader)
