"""Fixed twin of 58_padding_mask_bool_discarded_bug.py: the boolean mask is returned.

family: discarded-cast
expected: success
"""
import math

import torch
import torch.nn as nn
from torch.utils.data import DataLoader

torch.manual_seed(0)
VOCAB, PAD = 40, 0


def make_examples(n=32, max_len=10):
    examples = []
    for i in range(n):
        length = 3 + i % (max_len - 3)
        ids = torch.randint(1, VOCAB, (length,))
        examples.append((ids, int((ids < VOCAB // 2).sum() > length // 2)))
    return examples


def padding_mask(lengths, max_len):
    mask = torch.zeros(len(lengths), max_len)
    for i, n in enumerate(lengths):
        mask[i, n:] = 1
    return mask.bool()


def collate(batch):
    lengths = [len(ids) for ids, _ in batch]
    max_len = max(lengths)
    ids = torch.full((len(batch), max_len), PAD)
    for i, (seq, _) in enumerate(batch):
        ids[i, : len(seq)] = seq
    return ids, padding_mask(lengths, max_len), torch.tensor([y for _, y in batch])


class AttentionPooling(nn.Module):
    def __init__(self, dim=16, n_classes=2):
        super().__init__()
        self.embed = nn.Embedding(VOCAB, dim, padding_idx=PAD)
        self.query = nn.Parameter(torch.randn(dim) / math.sqrt(dim))
        self.out = nn.Linear(dim, n_classes)

    def forward(self, ids, pad_mask):
        h = self.embed(ids)
        scores = h @ self.query
        scores = scores.masked_fill(pad_mask, float("-inf"))
        weights = scores.softmax(dim=-1)
        return self.out((weights.unsqueeze(-1) * h).sum(dim=1))


model = AttentionPooling()
loader = DataLoader(make_examples(), batch_size=8, shuffle=True, collate_fn=collate)
opt = torch.optim.Adam(model.parameters(), lr=5e-3)
for epoch in range(2):
    for ids, pad_mask, labels in loader:
        loss = nn.functional.cross_entropy(model(ids, pad_mask), labels)
        opt.zero_grad()
        loss.backward()
        opt.step()
    print(f"epoch {epoch}: {loss.item():.3f}")
