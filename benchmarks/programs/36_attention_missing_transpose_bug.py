"""Bug: a scaled dot-product helper computes q @ k instead of q @ k.transpose(-2, -1).

family: shape
expected: RuntimeError
message: Expected size for first two dimensions of batch2 tensor to be
"""
import math

import torch
import torch.nn as nn

torch.manual_seed(0)


def scaled_dot_product(q, k, v, mask=None):
    d_k = q.size(-1)
    scores = torch.matmul(q, k) / math.sqrt(d_k)  # bug: k is not transposed  # cause: missing k.transpose(-2, -1)
    if mask is not None:
        scores = scores.masked_fill(mask, float("-inf"))
    return torch.matmul(scores.softmax(dim=-1), v)


class EncoderLayer(nn.Module):
    def __init__(self, d_model=24, d_ff=48, dropout=0.1):
        super().__init__()
        self.q_proj = nn.Linear(d_model, d_model)
        self.k_proj = nn.Linear(d_model, d_model)
        self.v_proj = nn.Linear(d_model, d_model)
        self.norm1 = nn.LayerNorm(d_model)
        self.norm2 = nn.LayerNorm(d_model)
        self.ff = nn.Sequential(nn.Linear(d_model, d_ff), nn.GELU(), nn.Linear(d_ff, d_model))
        self.drop = nn.Dropout(dropout)

    def forward(self, x):
        attn = scaled_dot_product(self.q_proj(x), self.k_proj(x), self.v_proj(x))
        x = self.norm1(x + self.drop(attn))
        return self.norm2(x + self.drop(self.ff(x)))


class SequenceRegressor(nn.Module):
    def __init__(self, n_in=4, d_model=24, n_layers=2):
        super().__init__()
        self.inp = nn.Linear(n_in, d_model)
        self.layers = nn.ModuleList([EncoderLayer(d_model) for _ in range(n_layers)])
        self.out = nn.Linear(d_model, 1)

    def forward(self, x):
        h = self.inp(x)
        for layer in self.layers:
            h = layer(h)
        return self.out(h.mean(dim=1)).squeeze(-1)


model = SequenceRegressor()
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
for step in range(3):
    x = torch.randn(6, 10, 4)
    y = x.sum(dim=(1, 2))
    loss = nn.functional.mse_loss(model(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(step, loss.item())
