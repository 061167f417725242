"""Fixed twin of 40_heads_not_dividing_bug.py: 8 heads divide the 64-wide model.

family: shape
expected: success
"""
import torch
import torch.nn as nn

torch.manual_seed(0)

CONFIG = {"vocab": 40, "d_model": 64, "n_heads": 8, "n_layers": 1, "max_len": 10}


class MultiHeadSelfAttention(nn.Module):
    def __init__(self, d_model, n_heads):
        super().__init__()
        self.n_heads = n_heads
        self.head_dim = d_model // n_heads
        self.qkv = nn.Linear(d_model, 3 * d_model)
        self.proj = nn.Linear(d_model, d_model)

    def split_heads(self, x):
        B, T, _ = x.shape
        return x.view(B, T, self.n_heads, self.head_dim).transpose(1, 2)

    def forward(self, x):
        B, T, C = x.shape
        q, k, v = (self.split_heads(t) for t in self.qkv(x).split(C, dim=-1))
        att = (q @ k.transpose(-2, -1)) / self.head_dim ** 0.5
        y = att.softmax(-1) @ v
        return self.proj(y.transpose(1, 2).reshape(B, T, C))


class TinyGPT(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.tok = nn.Embedding(cfg["vocab"], cfg["d_model"])
        self.pos = nn.Parameter(torch.zeros(1, cfg["max_len"], cfg["d_model"]))
        self.blocks = nn.ModuleList(
            [MultiHeadSelfAttention(cfg["d_model"], cfg["n_heads"]) for _ in range(cfg["n_layers"])])
        self.ln = nn.LayerNorm(cfg["d_model"])
        self.head = nn.Linear(cfg["d_model"], cfg["vocab"])

    def forward(self, idx):
        x = self.tok(idx) + self.pos[:, : idx.size(1)]
        for block in self.blocks:
            x = x + block(x)
        return self.head(self.ln(x))


model = TinyGPT(CONFIG)
opt = torch.optim.AdamW(model.parameters(), lr=3e-4)
for step in range(3):
    seq = torch.randint(0, CONFIG["vocab"], (2, CONFIG["max_len"]))
    logits = model(seq[:, :-1])
    loss = nn.functional.cross_entropy(logits.reshape(-1, CONFIG["vocab"]), seq[:, 1:].reshape(-1))
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(step, round(loss.item(), 3))
