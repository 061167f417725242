"""Fixed twin of 12_multihot_int_targets_bug.py: the multi-hot target is float32.

family: class-target
expected: success
"""
import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset

torch.manual_seed(0)
TAGS = ["cat", "dog", "outdoor", "night", "person"]


class TaggedImages(Dataset):
    def __init__(self, n=24, size=8, seed=0):
        rng = np.random.default_rng(seed)
        self.images = rng.random((n, 3, size, size), dtype=np.float32)
        self.tags = [rng.choice(len(TAGS), size=rng.integers(1, 3), replace=False) for _ in range(n)]

    def __len__(self):
        return len(self.images)

    def encode(self, tag_ids):
        target = np.zeros(len(TAGS), dtype=np.float32)
        target[tag_ids] = 1
        return target

    def __getitem__(self, idx):
        return {"image": self.images[idx], "target": self.encode(self.tags[idx])}


class Tagger(nn.Module):
    def __init__(self, n_tags=len(TAGS)):
        super().__init__()
        self.features = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(1))
        self.head = nn.Linear(8, n_tags)

    def forward(self, x):
        return self.head(self.features(x).flatten(1))


def fit(model, loader, steps=3, pos_weight=None):
    criterion = nn.BCEWithLogitsLoss(pos_weight=pos_weight)
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    it = iter(loader)
    for step in range(steps):
        batch = next(it)
        logits = model(batch["image"])
        loss = criterion(logits, batch["target"])
        opt.zero_grad()
        loss.backward()
        opt.step()
        print(f"step {step}: {loss.item():.4f}")


fit(Tagger(), DataLoader(TaggedImages(), batch_size=4, shuffle=True))
