"""Fixed twin of 08_npload_double_stats_bug.py: the normalized features are cast back to float32.

family: numpy-float64
expected: success
"""
import os
import tempfile

import numpy as np
import torch
import torch.nn as nn

torch.manual_seed(0)
rng = np.random.default_rng(7)


def cache_features(directory, n=32, dim=12):
    path = os.path.join(directory, "features.npy")
    np.save(path, rng.standard_normal((n, dim), dtype=np.float32))
    return path


def load_normalized(path):
    feats = np.load(path).astype(np.float64)
    mean = feats.mean(axis=0, keepdims=True)
    std = feats.std(axis=0, keepdims=True) + 1e-8
    return ((feats - mean) / std).astype(np.float32)


class AutoEncoder(nn.Module):
    def __init__(self, dim=12, code=4):
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(dim, 8), nn.ReLU(), nn.Linear(8, code))
        self.decoder = nn.Sequential(nn.Linear(code, 8), nn.ReLU(), nn.Linear(8, dim))

    def forward(self, x):
        return self.decoder(self.encoder(x))


def reconstruct(model, batch):
    recon = model.decoder(model.encoder(batch))
    return recon, ((recon - batch) ** 2).mean()


with tempfile.TemporaryDirectory() as tmp:
    data = torch.from_numpy(load_normalized(cache_features(tmp)))

model = AutoEncoder()
optimizer = torch.optim.Adam(model.parameters(), lr=5e-3)
for step in range(3):
    idx = torch.randperm(len(data))[:8]
    _, loss = reconstruct(model, data[idx])
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    print(f"step {step}: reconstruction {loss.item():.4f}")
