"""Fixed twin of 268_triplet_hard_mining_short_identity_bug.py: an identity with fewer than K crops is sampled with replacement (as open-reid's sampler does), so every batch holds K crops of each identity.

family: shape
expected: success
source: https://github.com/huanghoujing/person-reid-triplet-loss-baseline/issues/35
"""
import random
from collections import defaultdict

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Sampler, TensorDataset


class RandomIdentitySampler(Sampler):
    """P identities x K instances per batch."""

    def __init__(self, pids, num_instances):
        self.num_instances = num_instances
        self.index_dic = defaultdict(list)
        for index, pid in enumerate(pids):
            self.index_dic[pid].append(index)
        self.pids = sorted(self.index_dic)

    def __iter__(self):
        ret = []
        for pid in random.sample(self.pids, len(self.pids)):
            t = self.index_dic[pid]
            ret.extend(random.sample(t, self.num_instances) if len(t) >= self.num_instances else random.choices(t, k=self.num_instances))
        return iter(ret)

    def __len__(self):
        return len(self.pids) * self.num_instances


def hard_example_mining(dist_mat, labels):
    N = dist_mat.size(0)
    is_pos = labels.expand(N, N).eq(labels.expand(N, N).t())
    is_neg = labels.expand(N, N).ne(labels.expand(N, N).t())
    dist_ap, _ = torch.max(dist_mat[is_pos].contiguous().view(N, -1), 1, keepdim=True)
    dist_an, _ = torch.min(dist_mat[is_neg].contiguous().view(N, -1), 1, keepdim=True)
    return dist_ap.squeeze(1), dist_an.squeeze(1)


def global_loss(tri_loss, feat, labels):
    dist_mat = torch.cdist(feat, feat)
    dist_ap, dist_an = hard_example_mining(dist_mat, labels)
    return tri_loss(dist_an, dist_ap, torch.ones_like(dist_ap))


random.seed(0)
torch.manual_seed(0)
pids = [0] * 6 + [1] * 5 + [2] * 2 + [3] * 7 + [4] * 4 + [5] * 6  # person 2 has only 2 crops
images = torch.rand(len(pids), 3, 16, 8)
dataset = TensorDataset(images, torch.tensor(pids))
loader = DataLoader(dataset, batch_size=12, sampler=RandomIdentitySampler(pids, num_instances=4))
model = nn.Sequential(nn.Conv2d(3, 16, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(16, 32))
tri_loss = nn.MarginRankingLoss(margin=0.3)
optimizer = torch.optim.Adam(model.parameters(), lr=3e-4)
for epoch in range(2):
    for ims, labels in loader:
        loss = global_loss(tri_loss, model(ims), labels)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    print(f"epoch {epoch}: triplet loss {loss.item():.4f}")
