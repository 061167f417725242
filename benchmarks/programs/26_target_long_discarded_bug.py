"""Bug: the loss helper calls targets.long() without assigning it; float32 class labels reach cross_entropy.

family: discarded-cast
expected: RuntimeError
message: expected target dtype to be Long or Byte, but got Float
"""
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

np.random.seed(0)
torch.manual_seed(0)


def load_split(n=48, n_features=8, n_classes=3):
    X = np.random.randn(n, n_features).astype(np.float32)
    y = np.random.randint(0, n_classes, size=n).astype(np.float32)
    X[np.arange(n), y.astype(int)] += 2.0
    return torch.from_numpy(X), torch.from_numpy(y)


class Model(nn.Module):
    def __init__(self, n_features=8, n_classes=3):
        super().__init__()
        self.linear1 = nn.Linear(n_features, 24)
        self.linear2 = nn.Linear(24, n_classes)

    def forward(self, x):
        return self.linear2(F.gelu(self.linear1(x)))


def compute_loss(logits, targets, label_smoothing=0.1):
    targets.long()  # cause: the int64 copy is discarded
    return F.cross_entropy(logits, targets, label_smoothing=label_smoothing)  # bug: float32 class indices


X, y = load_split()
model = Model()
opt = torch.optim.Adam(model.parameters(), lr=3e-3)
stats = {"loss": [], "acc": []}
for epoch in range(3):
    for start in range(0, len(X), 16):
        xb, yb = X[start:start + 16], y[start:start + 16]
        logits = model(xb)
        loss = compute_loss(logits, yb)
        opt.zero_grad()
        loss.backward()
        opt.step()
    stats["loss"].append(loss.item())
    stats["acc"].append((model(X).argmax(1) == y.long()).float().mean().item())
print(stats)
