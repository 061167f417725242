"""Bug: a sinusoidal position table computed with numpy (float64) is registered as a buffer in a base class; adding it to float32 embeddings promotes them to float64 before the subclass's Linear.

family: numpy-float64
expected: RuntimeError
message: mat1 and mat2 must have the same dtype
"""
import math

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)


def sinusoid_table(max_len, dim):
    pos = np.arange(max_len)[:, None]
    rates = np.exp(-math.log(10000.0) * np.arange(0, dim, 2) / dim)
    table = np.zeros((max_len, dim))  # cause: np.zeros defaults to float64
    table[:, 0::2] = np.sin(pos * rates)
    table[:, 1::2] = np.cos(pos * rates)
    return table


class SequenceEncoder(nn.Module):
    """Token + position embeddings, shared by every task head."""

    def __init__(self, vocab_size, dim, max_len=64):
        super().__init__()
        self.tokens = nn.Embedding(vocab_size, dim)
        self.register_buffer("positions", torch.from_numpy(sinusoid_table(max_len, dim)))

    def embed(self, ids):
        return self.tokens(ids) * math.sqrt(self.tokens.embedding_dim) + self.positions[: ids.shape[1]]


class SentimentModel(SequenceEncoder):
    def __init__(self, vocab_size, dim=32, n_classes=2):
        super().__init__(vocab_size, dim)
        self.mix = nn.Linear(dim, dim)
        self.head = nn.Linear(dim, n_classes)

    def forward(self, ids):
        h = self.embed(ids)
        h = torch.tanh(self.mix(h))  # bug: float64 embeddings into the float32 Linear
        return self.head(h.mean(dim=1))


def make_data(n=64, seq_len=12, vocab=50):
    ids = torch.randint(1, vocab, (n, seq_len))
    labels = (ids[:, 0] > vocab // 2).long()
    return TensorDataset(ids, labels)


model = SentimentModel(vocab_size=50)
loader = DataLoader(make_data(), batch_size=16, shuffle=True)
opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
for epoch in range(2):
    for ids, labels in loader:
        loss = nn.functional.cross_entropy(model(ids), labels)
        opt.zero_grad()
        loss.backward()
        opt.step()
    print(epoch, round(loss.item(), 4))
