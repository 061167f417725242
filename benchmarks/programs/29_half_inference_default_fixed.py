"""Fixed twin of 29_half_inference_default_bug.py: half defaults to False.

family: precision
expected: success
"""
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)


class Encoder(nn.Module):
    def __init__(self, n_in=10, n_out=4):
        super().__init__()
        self.proj = nn.Linear(n_in, 32)
        self.norm = nn.LayerNorm(32)
        self.out = nn.Linear(32, n_out)

    def forward(self, x):
        h = self.norm(torch.relu(self.proj(x)))
        return self.out(h)


def to_model_input(batch, device="cpu", half=False):
    x = batch[0].to(device)
    if half:
        x = x.half()
    return x


@torch.no_grad()
def embed_all(model, loader):
    model.eval()
    chunks = []
    for batch in loader:
        chunks.append(model(to_model_input(batch)))
    return torch.cat(chunks)


def nearest_neighbours(embeddings, k=2):
    sims = nn.functional.normalize(embeddings, dim=1) @ nn.functional.normalize(embeddings, dim=1).T
    sims.fill_diagonal_(-1.0)
    return sims.topk(k, dim=1).indices


data = TensorDataset(torch.randn(12, 10))
model = Encoder()
emb = embed_all(model, DataLoader(data, batch_size=4))
print("neighbours of item 0:", nearest_neighbours(emb)[0].tolist())
