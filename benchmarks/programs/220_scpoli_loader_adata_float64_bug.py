"""Bug: the scPoli-style trainer's loader helper wraps adata.X with torch.from_numpy; after log1p normalization the expression matrix is float64, so the encoder's first Linear refuses Double input against Float weights.

family: numpy-float64
category: factories
expected: RuntimeError
message: mat1 and mat2 must have the same dtype
source: https://github.com/theislab/scarches/issues/195
"""
from types import SimpleNamespace

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


def load_adata(n_cells=40, n_genes=30, n_studies=3):
    rng = np.random.default_rng(0)
    counts = rng.poisson(2.0, size=(n_cells, n_genes))
    X = np.log1p(counts / counts.sum(axis=1, keepdims=True) * 1e4)
    obs = {"study": rng.integers(0, n_studies, size=n_cells)}
    return SimpleNamespace(X=X, obs=obs, n_vars=n_genes)


def make_dataloader(adata, condition_key, batch_size):
    x = torch.from_numpy(adata.X)  # cause: the float64 expression matrix as is
    conditions = torch.from_numpy(adata.obs[condition_key]).long()
    return DataLoader(TensorDataset(x, conditions), batch_size=batch_size, shuffle=True)


class EmbedCVAE(nn.Module):
    def __init__(self, n_genes, n_conditions, latent_dim=8, embedding_dim=4, hidden=32):
        super().__init__()
        self.embedding = nn.Embedding(n_conditions, embedding_dim)
        self.encoder = nn.Sequential(nn.Linear(n_genes + embedding_dim, hidden), nn.ReLU())
        self.mean_encoder = nn.Linear(hidden, latent_dim)
        self.log_var_encoder = nn.Linear(hidden, latent_dim)
        self.decoder = nn.Sequential(nn.Linear(latent_dim + embedding_dim, hidden), nn.ReLU(), nn.Linear(hidden, n_genes))

    def forward(self, x, batch):
        emb = self.embedding(batch)
        h = self.encoder(torch.cat([x, emb], dim=-1))  # bug: float64 expression into the float32 encoder
        mu, log_var = self.mean_encoder(h), self.log_var_encoder(h)
        z = mu + torch.randn_like(mu) * torch.exp(0.5 * log_var)
        recon = self.decoder(torch.cat([z, emb], dim=-1))
        kl = -0.5 * torch.sum(1 + log_var - mu.pow(2) - log_var.exp(), dim=1).mean()
        return nn.functional.mse_loss(recon, x) + kl


def train(adata, condition_key="study", n_epochs=2, batch_size=16):
    torch.manual_seed(0)
    loader = make_dataloader(adata, condition_key, batch_size)
    model = EmbedCVAE(adata.n_vars, int(adata.obs[condition_key].max()) + 1)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    for epoch in range(n_epochs):
        for x, batch in loader:
            loss = model(x, batch)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        print(f"epoch {epoch}: {loss.item():.4f}")


if __name__ == "__main__":
    train(load_adata())
