"""Fixed twin of 176_attention_merge_heads_view_bug.py: the heads are merged with reshape, which copies the transposed output.

family: shape
expected: success
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
        y = F.softmax(att, dim=-1) @ v
        y = y.transpose(1, 2).reshape(b, t, c)
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
