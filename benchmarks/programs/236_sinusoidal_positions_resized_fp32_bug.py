"""Bug: the sinusoidal position table is rebuilt in forward when a longer batch arrives, always in the default float32; in a model converted with .half() the half token embeddings plus the new float32 positions are float32 and the half attention projection rejects them.

family: precision
category: mutated-modules
expected: RuntimeError
message: mat1 and mat2 must have the same dtype
source: https://github.com/huggingface/transformers/pull/13665
"""
import math

import torch
import torch.nn as nn


class SinusoidalPositionalEmbedding(nn.Module):
    def __init__(self, num_positions, embedding_dim, padding_idx):
        super().__init__()
        self.embedding_dim, self.padding_idx = embedding_dim, padding_idx
        self.make_weights(num_positions + padding_idx + 1, embedding_dim)

    def make_weights(self, num_embeddings, embedding_dim):
        half_dim = embedding_dim // 2
        freqs = torch.exp(torch.arange(half_dim, dtype=torch.float) * -(math.log(10000.0) / (half_dim - 1)))
        angles = torch.arange(num_embeddings, dtype=torch.float).unsqueeze(1) * freqs.unsqueeze(0)
        emb = torch.cat([torch.sin(angles), torch.cos(angles)], dim=1)
        emb[self.padding_idx, :] = 0
        self.weights = nn.Parameter(emb, requires_grad=False)

    def forward(self, input_ids):
        bsz, seq_len = input_ids.size()
        max_pos = self.padding_idx + 1 + seq_len
        if max_pos > self.weights.size(0):
            self.make_weights(max_pos, self.embedding_dim)  # cause: the table is rebuilt in float32 after model.half()
        positions = torch.arange(seq_len) + self.padding_idx + 1
        return self.weights.index_select(0, positions).unsqueeze(0).expand(bsz, -1, -1)


class EncoderLayer(nn.Module):
    def __init__(self, d_model, n_heads):
        super().__init__()
        self.attn = nn.MultiheadAttention(d_model, n_heads, batch_first=True)
        self.q_proj = nn.Linear(d_model, d_model)
        self.norm = nn.LayerNorm(d_model)

    def forward(self, x):
        q = self.q_proj(x)  # bug: float32 hidden states, half projection
        out, _ = self.attn(q, x, x, need_weights=False)
        return self.norm(x + out)


class Encoder(nn.Module):
    def __init__(self, vocab_size=100, d_model=16, max_positions=8, pad_id=1):
        super().__init__()
        self.embed_tokens = nn.Embedding(vocab_size, d_model, padding_idx=pad_id)
        self.embed_positions = SinusoidalPositionalEmbedding(max_positions, d_model, pad_id)
        self.layer = EncoderLayer(d_model, n_heads=2)
        self.embed_scale = math.sqrt(d_model)

    def forward(self, input_ids):
        hidden = self.embed_tokens(input_ids) * self.embed_scale + self.embed_positions(input_ids)
        return self.layer(hidden)


def main():
    torch.manual_seed(0)
    model = Encoder().half().eval()
    with torch.no_grad():
        for seq_len in (6, 12):
            input_ids = torch.randint(2, 100, (2, seq_len))
            print(seq_len, model(input_ids).shape)


if __name__ == "__main__":
    main()
