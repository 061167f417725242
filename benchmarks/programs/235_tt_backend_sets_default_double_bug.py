"""Bug: the tensor-train helper sets torch's default dtype to float64 when it is loaded (as importing the library did), after the rating model was built in float32; the feature batches built afterwards with torch.tensor() from Python floats are float64 and the float32 model rejects them.

family: precision
category: mutated-modules
expected: RuntimeError
message: mat1 and mat2 must have the same dtype
source: https://github.com/rballester/tntorch/issues/4
"""
import random

import torch
import torch.nn as nn


def load_tt_backend():
    """Stand-in for the lazy `import tntorch`, whose module body changed the global default."""
    torch.set_default_dtype(torch.float64)  # cause: every later torch.tensor() of Python floats is float64


def compress_item_table(table, rank):
    load_tt_backend()
    u, s, vh = torch.linalg.svd(table.double(), full_matrices=False)
    return (u[:, :rank] * s[:rank]) @ vh[:rank]


class RatingModel(nn.Module):
    def __init__(self, n_features, hidden=16):
        super().__init__()
        self.mlp = nn.Sequential(nn.Linear(n_features, hidden), nn.ReLU(), nn.Linear(hidden, 1))

    def forward(self, feats):
        return self.mlp(feats).squeeze(-1)  # bug: float64 features, float32 weights


def read_rows(n, n_features, seed=0):
    rnd = random.Random(seed)
    return [[rnd.random() for _ in range(n_features)] + [rnd.uniform(1, 5)] for _ in range(n)]


def batches(rows, batch_size):
    for i in range(0, len(rows), batch_size):
        chunk = rows[i:i + batch_size]
        yield torch.tensor([r[:-1] for r in chunk]), torch.tensor([r[-1] for r in chunk])


def main():
    torch.manual_seed(0)
    n_features = 6
    model = RatingModel(n_features)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
    item_table = torch.randn(10, 8)
    compact = compress_item_table(item_table, rank=3)
    print("tt error", (compact - item_table.double()).norm().item())
    for feats, ratings in batches(read_rows(40, n_features), batch_size=8):
        loss = nn.functional.mse_loss(model(feats), ratings.float())
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    print(f"loss {loss.item():.3f}")


if __name__ == "__main__":
    main()
