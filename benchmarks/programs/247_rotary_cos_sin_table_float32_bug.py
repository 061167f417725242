"""Bug: the rotary embedding builds its cos/sin tables in a hard-coded float32; in the half model the rotated queries and keys come out float32, so the attention probabilities are float32 while the values are still half, and the probabilities @ values matmul is refused.

family: precision
category: mixed-precision
expected: RuntimeError
message: m1 and m2 to have the same dtype
source: https://github.com/facebookresearch/xformers/issues/325
"""
import argparse

import torch
import torch.nn as nn


def rotate_half(x):
    x1, x2 = x.chunk(2, dim=-1)
    return torch.cat((-x2, x1), dim=-1)


class RotaryEmbedding(nn.Module):
    def __init__(self, dim_model):
        super().__init__()
        inv_freq = 1.0 / (10000 ** (torch.arange(0, dim_model, 2).float() / dim_model))
        self.register_buffer("inv_freq", inv_freq)
        self._seq_len_cached = None

    def _update_cos_sin_tables(self, x, seq_dimension=-2):
        seq_len = x.shape[seq_dimension]
        if seq_len != self._seq_len_cached:
            self._seq_len_cached = seq_len
            t = torch.arange(seq_len, dtype=torch.float32)
            freqs = torch.outer(t, self.inv_freq.float())
            emb = torch.cat((freqs, freqs), dim=-1)
            self._cos_cached = emb.cos()[None, None, :, :]  # cause: the tables stay float32 next to half q / k
            self._sin_cached = emb.sin()[None, None, :, :]
        return self._cos_cached, self._sin_cached

    def forward(self, q, k):
        cos, sin = self._update_cos_sin_tables(k)
        return q * cos + rotate_half(q) * sin, k * cos + rotate_half(k) * sin


class RotaryAttention(nn.Module):
    def __init__(self, dim, heads):
        super().__init__()
        self.heads, self.head_dim = heads, dim // heads
        self.qkv = nn.Linear(dim, 3 * dim)
        self.proj = nn.Linear(dim, dim)
        self.rotary = RotaryEmbedding(self.head_dim)

    def forward(self, x):
        b, n, d = x.shape
        q, k, v = self.qkv(x).view(b, n, 3, self.heads, self.head_dim).permute(2, 0, 3, 1, 4)
        q, k = self.rotary(q, k)
        attn = (q @ k.transpose(-2, -1) / self.head_dim ** 0.5).softmax(dim=-1)
        out = attn @ v  # bug: float32 probabilities @ half values
        return self.proj(out.transpose(1, 2).reshape(b, n, d))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--fp16", action="store_true")
    args = parser.parse_args(["--fp16"])
    torch.manual_seed(0)
    block = nn.Sequential(nn.Embedding(64, 32), RotaryAttention(32, heads=4), nn.Linear(32, 64)).eval()
    if args.fp16:
        block = block.half()
    with torch.no_grad():
        logits = block(torch.randint(0, 64, (2, 10)))
    print(logits.float().argmax(-1))


if __name__ == "__main__":
    main()
