"""Bug: categorical codes are gathered with np.array of nested int lists (int64) and fed straight into an nn.Linear.

family: int-float
expected: RuntimeError
message: mat1 and mat2 must have the same dtype, but got Long and Float
"""
import numpy as np
import torch
import torch.nn as nn

torch.manual_seed(0)
rng = np.random.default_rng(1)

COLORS = {"red": 0, "green": 1, "blue": 2}
SIZES = {"S": 0, "M": 1, "L": 2, "XL": 3}


def sample_orders(n=30):
    orders = []
    for _ in range(n):
        color = rng.choice(list(COLORS))
        size = rng.choice(list(SIZES))
        qty = int(rng.integers(1, 5))
        orders.append({"color": color, "size": size, "qty": qty, "returned": int(size == "XL" and qty > 2)})
    return orders


def encode(orders):
    rows = [[COLORS[o["color"]], SIZES[o["size"]], o["qty"]] for o in orders]
    X = torch.from_numpy(np.array(rows))  # cause: nested lists of ints give an int64 array
    y = torch.tensor([o["returned"] for o in orders], dtype=torch.float32)
    return X, y


class ReturnPredictor(nn.Module):
    def __init__(self, n_in=3, hidden=8):
        super().__init__()
        self.fc1 = nn.Linear(n_in, hidden)
        self.fc2 = nn.Linear(hidden, 1)

    def forward(self, x):
        h = torch.relu(self.fc1(x))  # bug: int64 codes into the float32 Linear
        return self.fc2(h).squeeze(-1)


orders = sample_orders()
X, y = encode(orders)
model = ReturnPredictor()
optimizer = torch.optim.Adam(model.parameters(), lr=0.05)
loss_fn = nn.BCEWithLogitsLoss()
for step in range(3):
    perm = torch.randperm(len(X))[:10]
    loss = loss_fn(model(X[perm]), y[perm])
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    print(f"step {step}: {loss.item():.3f}")
