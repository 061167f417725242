"""Bug: categorical columns one-hot encoded with np.eye (float64) are concatenated to float32 numeric columns; the feature rows become float64 and a lambda collate_fn passes them on.

family: numpy-float64
expected: RuntimeError
message: mat1 and mat2 must have the same dtype
"""
import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset

torch.manual_seed(0)

CITIES = ["paris", "lyon", "nantes", "lille"]
PLANS = ["free", "pro"]


def fake_customers(n=40, seed=1):
    rng = np.random.default_rng(seed)
    rows = []
    for i in range(n):
        rows.append({
            "age": float(rng.integers(18, 80)),
            "spend": float(rng.gamma(2.0, 30.0)),
            "city": CITIES[i % len(CITIES)],
            "plan": PLANS[int(rng.integers(0, 2))],
            "churned": int(rng.random() < 0.3),
        })
    return rows


def one_hot(value, vocabulary):
    return np.eye(len(vocabulary))[vocabulary.index(value)]  # cause: np.eye is float64


class CustomerDataset(Dataset):
    def __init__(self, rows):
        self.rows = rows

    def __len__(self):
        return len(self.rows)

    def __getitem__(self, i):
        r = self.rows[i]
        numeric = np.array([r["age"] / 100.0, r["spend"] / 100.0], dtype=np.float32)
        x = np.concatenate([numeric, one_hot(r["city"], CITIES), one_hot(r["plan"], PLANS)])
        return x, r["churned"]


collate = lambda batch: (  # noqa: E731
    torch.from_numpy(np.stack([x for x, _ in batch])),
    torch.tensor([y for _, y in batch], dtype=torch.float32),
)

n_features = 2 + len(CITIES) + len(PLANS)
model = nn.Sequential(nn.Linear(n_features, 16), nn.ReLU(), nn.Linear(16, 1))
loader = DataLoader(CustomerDataset(fake_customers()), batch_size=8, shuffle=True, collate_fn=collate)
opt = torch.optim.Adam(model.parameters(), lr=1e-2)
loss_fn = nn.BCEWithLogitsLoss()

for epoch in range(3):
    running = 0.0
    for xb, yb in loader:
        logits = model(xb).squeeze(1)  # bug: float64 features into the float32 Linear
        loss = loss_fn(logits, yb)
        opt.zero_grad()
        loss.backward()
        opt.step()
        running += loss.item() * len(yb)
    print(f"epoch {epoch}: {running / len(loader.dataset):.4f}")
