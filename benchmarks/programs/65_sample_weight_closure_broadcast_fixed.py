"""Fixed twin of 65_sample_weight_closure_broadcast_bug.py: the per-sample weights get a label axis.

family: shape
expected: success
"""
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, Dataset

torch.manual_seed(0)
TAGS = ["indoor", "outdoor", "people", "animal", "vehicle"]


class TaggedPhotos(Dataset):
    """Precomputed 20-d image features, multi-hot tags and a label-confidence weight per photo."""

    def __init__(self, n=48, dim=20, seed=0):
        rng = np.random.default_rng(seed)
        self.features = rng.standard_normal((n, dim)).astype(np.float32)
        self.tags = (rng.random((n, len(TAGS))) < 0.3).astype(np.float32)
        self.confidence = rng.uniform(0.5, 1.0, size=n).astype(np.float32)

    def __len__(self):
        return len(self.tags)

    def __getitem__(self, i):
        return self.features[i], self.tags[i], self.confidence[i]


def make_weighted_bce(pos_weight):
    pos_weight = torch.as_tensor(pos_weight, dtype=torch.float32)

    def weighted_bce(logits, targets, sample_weight):
        per_label = F.binary_cross_entropy_with_logits(logits, targets, pos_weight=pos_weight, reduction="none")
        weight = sample_weight[:, None]
        return (per_label * weight).sum() / (weight.sum() * per_label.shape[1])

    return weighted_bce


def tag_frequencies(dataset):
    return np.mean([dataset[i][1] for i in range(len(dataset))], axis=0)


dataset = TaggedPhotos()
freq = tag_frequencies(dataset)
criterion = make_weighted_bce((1 - freq) / np.maximum(freq, 1e-3))
model = nn.Sequential(nn.Linear(20, 32), nn.ReLU(), nn.Linear(32, len(TAGS)))
opt = torch.optim.Adam(model.parameters(), lr=3e-3)
loader = DataLoader(dataset, batch_size=8, shuffle=True)
for epoch in range(2):
    for features, tags, confidence in loader:
        loss = criterion(model(features), tags, confidence)
        opt.zero_grad()
        loss.backward()
        opt.step()
    print(f"epoch {epoch}: weighted bce {loss.item():.3f}")
