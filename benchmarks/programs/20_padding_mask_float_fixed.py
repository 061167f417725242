"""Fixed twin of 20_padding_mask_float_bug.py: the mask stays bool, the pooling weights are made float where needed.

family: int-float
expected: success
"""
import math

import torch
import torch.nn as nn

torch.manual_seed(0)
VOCAB, D_MODEL = 30, 16


def make_padding_mask(lengths, max_len):
    positions = torch.arange(max_len).unsqueeze(0)
    return positions >= lengths.unsqueeze(1)


class SelfAttention(nn.Module):
    def __init__(self, d_model=D_MODEL):
        super().__init__()
        self.qkv = nn.Linear(d_model, 3 * d_model)
        self.out = nn.Linear(d_model, d_model)

    def forward(self, x, pad_mask):
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        scores = q @ k.transpose(1, 2) / math.sqrt(x.size(-1))
        scores = scores.masked_fill(pad_mask[:, None, :], float("-inf"))
        return self.out(scores.softmax(dim=-1) @ v)


class SentenceEncoder(nn.Module):
    def __init__(self, vocab=VOCAB, d_model=D_MODEL, n_classes=2):
        super().__init__()
        self.emb = nn.Embedding(vocab, d_model, padding_idx=0)
        self.attn = SelfAttention(d_model)
        self.cls = nn.Linear(d_model, n_classes)

    def forward(self, tokens, lengths):
        mask = make_padding_mask(lengths, tokens.size(1))
        h = self.attn(self.emb(tokens), mask)
        keep = (~mask).float()
        pooled = (h * keep.unsqueeze(-1)).sum(1) / keep.sum(1, keepdim=True)
        return self.cls(pooled)


def random_batch(batch_size=4, max_len=7):
    lengths = torch.randint(2, max_len + 1, (batch_size,))
    tokens = torch.randint(1, VOCAB, (batch_size, max_len))
    tokens[torch.arange(max_len)[None] >= lengths[:, None]] = 0
    return tokens, lengths, torch.randint(0, 2, (batch_size,))


model = SentenceEncoder()
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
for step in range(3):
    tokens, lengths, labels = random_batch()
    loss = nn.functional.cross_entropy(model(tokens, lengths), labels)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(step, loss.item())
