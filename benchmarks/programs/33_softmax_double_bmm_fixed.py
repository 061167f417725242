"""Fixed twin of 33_softmax_double_bmm_bug.py: the float64 weights are cast back to the values' dtype.

family: precision
expected: success
"""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


def attention_weights(q, k, temperature=None):
    temperature = temperature or math.sqrt(q.size(-1))
    scores = torch.bmm(q, k.transpose(1, 2)) / temperature
    return F.softmax(scores, dim=-1, dtype=torch.float64).to(q.dtype)


class AttentionPooling(nn.Module):
    """Pools a set of instance features into one bag vector (multiple-instance learning)."""

    def __init__(self, dim=12, n_classes=2):
        super().__init__()
        self.query = nn.Parameter(torch.randn(1, 1, dim))
        self.key = nn.Linear(dim, dim)
        self.value = nn.Linear(dim, dim)
        self.classifier = nn.Linear(dim, n_classes)

    def forward(self, instances):
        q = self.query.expand(instances.size(0), -1, -1)
        weights = attention_weights(q, self.key(instances))
        bag = torch.bmm(weights, self.value(instances))
        return self.classifier(bag.squeeze(1)), weights


def make_bags(n_bags=6, bag_size=5, dim=12):
    bags = torch.randn(n_bags, bag_size, dim)
    labels = torch.randint(0, 2, (n_bags,))
    bags[labels == 1, 0] += 2.0
    return bags, labels


model = AttentionPooling()
opt = torch.optim.Adam(model.parameters(), lr=1e-2)
bags, labels = make_bags()
for epoch in range(3):
    logits, weights = model(bags)
    loss = F.cross_entropy(logits, labels)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"epoch {epoch}: loss {loss.item():.3f}, max weight {weights.max().item():.2f}")
