"""Bug: continuous ages and incomes are bucketized with np.floor, which keeps float64; the bucket ids reach nn.Embedding as a float tensor.

family: int-float
expected: RuntimeError
message: Expected tensor for argument #1 'indices' to have one of the following scalar types
"""
import functools

import numpy as np
import torch
import torch.nn as nn

torch.manual_seed(0)
rng = np.random.default_rng(3)


def bucketize(values, low, high, n_buckets):
    scaled = (np.clip(values, low, high - 1e-6) - low) / (high - low)
    return np.floor(scaled * n_buckets)  # cause: np.floor keeps float64


age_buckets = functools.partial(bucketize, low=18, high=90, n_buckets=8)
income_buckets = functools.partial(bucketize, low=0, high=200_000, n_buckets=10)


def make_users(n=64):
    ages = rng.uniform(18, 90, size=n)
    incomes = rng.lognormal(10.5, 0.6, size=n)
    clicked = (ages < 40).astype(np.float32)
    return ages, incomes, clicked


class WideAndDeep(nn.Module):
    def __init__(self, dim=8):
        super().__init__()
        self.age_emb = nn.Embedding(8, dim)
        self.income_emb = nn.Embedding(10, dim)
        self.mlp = nn.Sequential(nn.Linear(2 * dim, 16), nn.ReLU(), nn.Linear(16, 1))

    def forward(self, age_ids, income_ids):
        a = self.age_emb(age_ids)  # bug: float64 bucket ids as embedding indices
        b = self.income_emb(income_ids)
        return self.mlp(torch.cat([a, b], dim=1)).squeeze(1)


ages, incomes, clicked = make_users()
age_ids = torch.from_numpy(age_buckets(ages))
income_ids = torch.from_numpy(income_buckets(incomes))
y = torch.from_numpy(clicked)

model = WideAndDeep()
opt = torch.optim.Adam(model.parameters(), lr=1e-2)
for step in range(20):
    loss = nn.functional.binary_cross_entropy_with_logits(model(age_ids, income_ids), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    if step % 5 == 0:
        print(step, loss.item())
