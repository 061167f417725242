"""Bug: the attention block keeps its relative-position bias as a plain tensor attribute, so model.half() converts the projections but leaves the bias float32; the scores are promoted to float32 and the half value projection rejects them.

family: precision
category: mutated-modules
expected: RuntimeError
message: to have the same dtype
source: https://github.com/huggingface/transformers/pull/22888
"""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class Attention(nn.Module):
    def __init__(self, dim, n_ctx):
        super().__init__()
        self.q = nn.Linear(dim, dim)
        self.k = nn.Linear(dim, dim)
        self.v = nn.Linear(dim, dim)
        self.out = nn.Linear(dim, dim)
        self.norm_factor = math.sqrt(dim)
        positions = torch.arange(n_ctx)
        self.rel_bias = -(positions[None, :] - positions[:, None]).abs().float() / n_ctx  # cause: a plain attribute, not a buffer

    def forward(self, x):
        scores = self.q(x) @ self.k(x).transpose(-2, -1) / self.norm_factor
        probs = F.softmax(scores + self.rel_bias, dim=-1)
        mixed = probs @ self.v(x)  # bug: float32 probabilities @ half values
        return self.out(mixed)


class TinyLM(nn.Module):
    def __init__(self, vocab=50, dim=16, n_ctx=8):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        self.attn = Attention(dim, n_ctx)
        self.head = nn.Linear(dim, vocab)

    def forward(self, tokens):
        return self.head(self.attn(self.embed(tokens)))


def main():
    torch.manual_seed(0)
    model = TinyLM().half().eval()
    tokens = torch.randint(0, 50, (2, 8))
    with torch.no_grad():
        logits = model(tokens)
    print(logits.float().softmax(-1).argmax(-1))


if __name__ == "__main__":
    main()
