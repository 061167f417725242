"""Fixed twin of 365_mil_topk_indices_requires_grad_bug.py: the max score (float, already in the graph) is returned instead of the argmax indices.

family: int-float
category: model-outputs
expected: success
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
    selected = top_score
    return selected


if __name__ == "__main__":
    torch.manual_seed(0)
    model = MaxInstanceMIL()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    criterion = nn.BCEWithLogitsLoss()
    for bags, labels in DataLoader(BagDataset(), batch_size=4):
        scores = model(bags)
        bag_logit = select_instance(scores)
        loss = criterion(bag_logit, labels)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    print("loss", loss.item())
