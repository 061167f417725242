"""Bug: in a cross-attention block the keys are split into heads with view but not transposed to (batch, heads, time, dim); the einsum meets (batch, time, heads, dim).

family: shape
expected: RuntimeError
message: einsum()
"""
import math

import torch
import torch.nn as nn

torch.manual_seed(0)


class CrossAttention(nn.Module):
    def __init__(self, dim=32, heads=4):
        super().__init__()
        self.heads, self.head_dim = heads, dim // heads
        self.q_proj = nn.Linear(dim, dim)
        self.kv_proj = nn.Linear(dim, 2 * dim)
        self.out = nn.Linear(dim, dim)

    def _split(self, x):
        b, t, _ = x.shape
        return x.view(b, t, self.heads, self.head_dim).transpose(1, 2)

    def _keys_values(self, memory):
        b, s, _ = memory.shape
        k, v = self.kv_proj(memory).chunk(2, dim=-1)
        k = k.reshape(b, s, self.heads, self.head_dim)  # cause: (b, s, h, d), no transpose(1, 2)
        return k, self._split(v)

    def forward(self, x, memory):
        q = self._split(self.q_proj(x))
        k, v = self._keys_values(memory)
        scores = torch.einsum("bhqd,bhkd->bhqk", q, k) / math.sqrt(self.head_dim)  # bug: k is (b, s, h, d)
        attn = scores.softmax(dim=-1)
        ctx = torch.einsum("bhqk,bhkd->bhqd", attn, v)
        b, _, t, _ = ctx.shape
        return self.out(ctx.transpose(1, 2).reshape(b, t, -1))


class CaptionDecoderLayer(nn.Module):
    def __init__(self, dim=32, heads=4):
        super().__init__()
        self.norm1, self.norm2 = nn.LayerNorm(dim), nn.LayerNorm(dim)
        self.cross = CrossAttention(dim, heads)
        self.ff = nn.Sequential(nn.Linear(dim, 4 * dim), nn.GELU(), nn.Linear(4 * dim, dim))

    def forward(self, tokens, image_patches):
        tokens = tokens + self.cross(self.norm1(tokens), image_patches)
        return tokens + self.ff(self.norm2(tokens))


layer = CaptionDecoderLayer()
head = nn.Linear(32, 100)
opt = torch.optim.Adam(list(layer.parameters()) + list(head.parameters()), lr=1e-3)
for step in range(3):
    tokens = torch.randn(2, 7, 32)
    patches = torch.randn(2, 9, 32)
    targets = torch.randint(0, 100, (2, 7))
    logits = head(layer(tokens, patches))
    loss = nn.functional.cross_entropy(logits.reshape(-1, 100), targets.reshape(-1))
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"step {step}: {loss.item():.3f}")
