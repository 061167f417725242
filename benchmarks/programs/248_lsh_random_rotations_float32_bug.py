"""Bug: the LSH attention draws its random hashing rotations with torch.randn (float32) while the half model's query/key vectors are float16, and the einsum that rotates the vectors refuses the mixed dtypes.

family: precision
category: mixed-precision
expected: RuntimeError
message: expected scalar type Float but found Half
source: https://github.com/lucidrains/reformer-pytorch/issues/148
"""
import torch
import torch.nn as nn


class LSHAttention(nn.Module):
    def __init__(self, bucket_size=4, n_hashes=2):
        super().__init__()
        self.bucket_size, self.n_hashes = bucket_size, n_hashes

    def hash_vectors(self, n_buckets, vecs):
        batch_size = vecs.shape[0]
        rotations_shape = (1, vecs.shape[-1], self.n_hashes, n_buckets // 2)
        random_rotations = torch.randn(rotations_shape).expand(batch_size, -1, -1, -1)  # cause: float32 rotations
        rotated_vecs = torch.einsum("btf,bfhi->bhti", vecs, random_rotations)  # bug: half vectors, float32 rotations
        rotated_vecs = torch.cat([rotated_vecs, -rotated_vecs], dim=-1)
        return torch.argmax(rotated_vecs, dim=-1)

    def forward(self, qk, v):
        seqlen = qk.shape[1]
        buckets = self.hash_vectors(seqlen // self.bucket_size, qk)
        same_bucket = (buckets.unsqueeze(-1) == buckets.unsqueeze(-2)).any(dim=1)
        dots = qk @ qk.transpose(-2, -1) / qk.shape[-1] ** 0.5
        dots = dots.masked_fill(~same_bucket, -1e4)
        return dots.softmax(dim=-1) @ v


class ReformerLM(nn.Module):
    def __init__(self, num_tokens=64, dim=16, max_seq_len=16):
        super().__init__()
        self.token_emb = nn.Embedding(num_tokens, dim)
        self.pos_emb = nn.Embedding(max_seq_len, dim)
        self.to_qk, self.to_v = nn.Linear(dim, dim, bias=False), nn.Linear(dim, dim, bias=False)
        self.attn = LSHAttention()
        self.to_logits = nn.Linear(dim, num_tokens)

    def forward(self, x):
        h = self.token_emb(x) + self.pos_emb(torch.arange(x.shape[1]))
        h = h + self.attn(self.to_qk(h), self.to_v(h))
        return self.to_logits(h)


def main():
    torch.manual_seed(0)
    model = ReformerLM().half().eval()
    with torch.no_grad():
        seq = torch.randint(0, 64, (2, 16))
        logits = model(seq)
    print(logits.float().argmax(-1)[0])


if __name__ == "__main__":
    main()
