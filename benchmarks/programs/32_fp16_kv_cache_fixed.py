"""Fixed twin of 32_fp16_kv_cache_bug.py: the cache is float32.

family: precision
expected: success
"""
import math

import torch
import torch.nn as nn

torch.manual_seed(0)
VOCAB, D_MODEL, MAX_LEN = 20, 16, 8


class CachedAttention(nn.Module):
    def __init__(self, d_model=D_MODEL, max_len=MAX_LEN, batch_size=2):
        super().__init__()
        self.q = nn.Linear(d_model, d_model)
        self.kv = nn.Linear(d_model, 2 * d_model)
        self.register_buffer("cache_k", torch.zeros(batch_size, max_len, d_model))
        self.register_buffer("cache_v", torch.zeros(batch_size, max_len, d_model))

    def forward(self, x, t):
        k_new, v_new = self.kv(x).chunk(2, dim=-1)
        self.cache_k[:, t] = k_new[:, 0]
        self.cache_v[:, t] = v_new[:, 0]
        k, v = self.cache_k[:, : t + 1], self.cache_v[:, : t + 1]
        scores = self.q(x) @ k.transpose(1, 2) / math.sqrt(x.size(-1))
        return scores.softmax(-1) @ v


class TinyDecoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(VOCAB, D_MODEL)
        self.attn = CachedAttention()
        self.lm_head = nn.Linear(D_MODEL, VOCAB)

    def step(self, token, t):
        h = self.emb(token)
        return self.lm_head(h + self.attn(h, t))


@torch.no_grad()
def greedy_decode(model, start, n_steps=3):
    tokens = [start]
    for t in range(n_steps):
        logits = model.step(tokens[-1], t)
        tokens.append(logits.argmax(-1))
    return torch.cat(tokens, dim=1)


model = TinyDecoder().eval()
start = torch.randint(0, VOCAB, (2, 1))
print(greedy_decode(model, start))
