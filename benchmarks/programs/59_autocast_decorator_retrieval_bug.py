"""Bug: query embeddings come from a function decorated with CPU bfloat16 autocast; they leave the region in bfloat16 and meet the float32 index in a matmul.

family: precision
expected: RuntimeError
message: expected m1 and m2 to have the same dtype
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
IN_DIM, DIM, N_ITEMS = 12, 16, 40


class Encoder(nn.Module):
    def __init__(self, in_dim=IN_DIM, dim=DIM):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(in_dim, 32), nn.GELU(), nn.Linear(32, dim))

    def forward(self, x):
        return self.net(x)


@torch.autocast("cpu", dtype=torch.bfloat16)
def embed(encoder, x):
    return F.normalize(encoder(x), dim=-1)  # cause: the bfloat16 result leaves the autocast region


def augment(x, noise=0.1):
    return x + noise * torch.randn_like(x)


def train(encoder, catalog, steps=10, temperature=0.1):
    opt = torch.optim.Adam(encoder.parameters(), lr=1e-3)
    targets = torch.arange(len(catalog))
    for step in range(steps):
        q, k = embed(encoder, augment(catalog)), embed(encoder, augment(catalog))
        loss = F.cross_entropy((q @ k.T).float() / temperature, targets)
        opt.zero_grad()
        loss.backward()
        opt.step()
    return loss.item()


@torch.no_grad()
def build_index(encoder, catalog):
    encoder.eval()
    return F.normalize(encoder(catalog), dim=-1)


@torch.no_grad()
def recall_at_1(encoder, index, catalog):
    queries = embed(encoder, augment(catalog, noise=0.05))
    sims = queries @ index.T  # bug: bfloat16 queries against the float32 index
    return (sims.argmax(dim=1) == torch.arange(len(catalog))).float().mean().item()


catalog = torch.randn(N_ITEMS, IN_DIM)
encoder = Encoder()
print(f"contrastive loss: {train(encoder, catalog):.3f}")
index = build_index(encoder, catalog)
print(f"recall@1: {recall_at_1(encoder, index, catalog):.2f}")
