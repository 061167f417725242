"""Binary classification on a small table loaded with numpy: dtype bugs torchtype-lint finds.

    torchtype-lint check examples/demo_tabular.py

Each line marked BUG fails (or silently computes the wrong thing) when run with torch; the
script stops at the first one it reaches.
"""
import numpy as np
import torch
import torch.nn as nn

np.random.seed(0)
features = np.random.randn(64, 5)            # numpy's default dtype: float64
labels = np.zeros(64, dtype=np.int64)
labels[features[:, 0] > 0] = 1


class Classifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(5, 16), nn.ReLU(), nn.Linear(16, 1))

    def forward(self, x):
        return self.body(x).squeeze(-1)


model = Classifier()
optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
loss_fn = nn.BCEWithLogitsLoss()

x = torch.from_numpy(features)               # BUG: float64 meets the float32 weights in forward()
y = torch.from_numpy(labels)
for step in range(3):
    logits = model(x)
    loss = loss_fn(logits, y)                # BUG: BCEWithLogitsLoss needs a float target
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()

accuracy = ((logits > 0) == y).mean()       # BUG: mean of a bool tensor
print(f"loss {loss.item():.3f}, accuracy {accuracy.item():.2f}")
