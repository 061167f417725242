"""Bug: the attention-MIL head picks its instance with torch.max and then marks the returned indices (an int64 tensor) as requiring gradients, which torch refuses.

family: int-float
category: model-outputs
expected: RuntimeError
message: only Tensors of floating point and complex dtype can require gradients
source: https://github.com/pytorch/pytorch/issues/95110
"""
import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset


class BagDataset(Dataset):
    def __init__(self, n_bags=8, bag_size=5, feat_dim=12, seed=0):
        rng = np.random.default_rng(seed)
        self.bags = rng.standard_normal((n_bags, bag_size, feat_dim)).astype(np.float32)
        self.labels = rng.integers(0, 2, n_bags)

    def __len__(self):
        return len(self.bags)

    def __getitem__(self, idx):
        return torch.from_numpy(self.bags[idx]), torch.tensor(self.labels[idx], dtype=torch.float32)


class MaxInstanceMIL(nn.Module):
    def __init__(self, feat_dim=12, hidden=16):
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(feat_dim, hidden), nn.ReLU())
        self.scorer = nn.Linear(hidden, 1)

    def forward(self, bag):
        h = self.encoder(bag)                      # (B, K, hidden)
        scores = self.scorer(h).squeeze(-1)        # (B, K)
        return scores


def select_instance(scores):
    top_score, top_idx = torch.max(scores, dim=1)
    selected = top_idx  # cause: the argmax indices (int64) are taken as the differentiable output
    selected.requires_grad = True  # bug: an int64 tensor cannot require gradients
    return selected


if __name__ == "__main__":
    torch.manual_seed(0)
    model = MaxInstanceMIL()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    criterion = nn.BCEWithLogitsLoss()
    for bags, labels in DataLoader(BagDataset(), batch_size=4):
        scores = model(bags)
        bag_logit = select_instance(scores)
        loss = criterion(bag_logit.float(), labels)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    print("loss", loss.item())
