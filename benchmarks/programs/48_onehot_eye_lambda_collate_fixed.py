"""Fixed twin of 48_onehot_eye_lambda_collate_bug.py: the one-hot rows come from a float32 identity.

family: numpy-float64
expected: success
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
    return np.eye(len(vocabulary), dtype=np.float32)[vocabulary.index(value)]


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
        logits = model(xb).squeeze(1)
        loss = loss_fn(logits, yb)
        opt.zero_grad()
        loss.backward()
        opt.step()
        running += loss.item() * len(yb)
    print(f"epoch {epoch}: {running / len(loader.dataset):.4f}")
