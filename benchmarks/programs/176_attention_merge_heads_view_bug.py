"""Bug: the multi-head attention block merges its heads with transpose(1, 2).view(...): the attention output is laid out (batch, heads, time, dim), so the transposed tensor cannot be viewed as (batch, time, heads * dim).

family: shape
category: model-shapes
expected: RuntimeError
message: view size is not compatible with input tensor's size and stride
source: https://github.com/PetrochukM/PyTorch-NLP/pull/90
"""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F

VOCAB, DIM, HEADS, SEQ = 50, 32, 4, 12


class SelfAttention(nn.Module):
    def __init__(self, dim, heads):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(dim, 3 * dim)
        self.out = nn.Linear(dim, dim)

    def forward(self, x):
        b, t, c = x.shape
        q, k, v = self.qkv(x).split(c, dim=2)
        q = q.view(b, t, self.heads, c // self.heads).transpose(1, 2)
        k = k.view(b, t, self.heads, c // self.heads).transpose(1, 2)
        v = v.view(b, t, self.heads, c // self.heads).transpose(1, 2)
        att = (q @ k.transpose(-2, -1)) / math.sqrt(c // self.heads)
        y = F.softmax(att, dim=-1) @ v  # cause: (b, heads, t, dim) in memory
        y = y.transpose(1, 2).view(b, t, c)  # bug: merging heads needs reshape
        return self.out(y)


class TinyLM(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(VOCAB, DIM)
        self.attn = SelfAttention(DIM, HEADS)
        self.head = nn.Linear(DIM, VOCAB)

    def forward(self, tokens):
        return self.head(self.attn(self.embed(tokens)))


model = TinyLM()
tokens = torch.randint(0, VOCAB, (3, SEQ))
logits = model(tokens[:, :-1])
loss = F.cross_entropy(logits.reshape(-1, VOCAB), tokens[:, 1:].reshape(-1))
loss.backward()
print("loss", loss.item())
