"""Fixed twin of 345_scmdc_encode_batch_float64_matrix_bug.py: the embedding step builds the input tensors as float32, like pretraining does.

family: numpy-float64
category: data-paths
expected: success
source: https://github.com/xianglin226/scMDC/issues/15
"""
import argparse

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset


def normalize(counts):
    library = counts.sum(axis=1)
    size_factors = library / np.median(library)
    return np.log1p(counts / size_factors[:, None])


def build_mlp(layers):
    net = []
    for n_in, n_out in zip(layers[:-1], layers[1:]):
        net += [nn.Linear(n_in, n_out), nn.BatchNorm1d(n_out), nn.ReLU()]
    return nn.Sequential(*net)


class scMultiCluster(nn.Module):
    def __init__(self, input_dim1, input_dim2, encodeLayer, decodeLayer, sigma1=2.5, sigma2=0.1):
        super().__init__()
        self.sigma1, self.sigma2 = sigma1, sigma2
        self.encoder = build_mlp([input_dim1 + input_dim2] + encodeLayer)
        self.decoder1 = build_mlp([encodeLayer[-1]] + decodeLayer)
        self.decoder2 = build_mlp([encodeLayer[-1]] + decodeLayer)
        self.mean1 = nn.Linear(decodeLayer[-1], input_dim1)
        self.mean2 = nn.Linear(decodeLayer[-1], input_dim2)

    def forwardAE(self, x1, x2, noise=True):
        if noise:
            x1 = x1 + torch.randn_like(x1) * self.sigma1
            x2 = x2 + torch.randn_like(x2) * self.sigma2
        z = self.encoder(torch.cat([x1, x2], dim=-1))
        return z, self.mean1(self.decoder1(z)), self.mean2(self.decoder2(z))

    def encodeBatch(self, X1, X2, batch_size=64):
        self.eval()
        latent = []
        with torch.no_grad():
            for start in range(0, X1.shape[0], batch_size):
                z, _, _ = self.forwardAE(X1[start:start + batch_size], X2[start:start + batch_size], noise=False)
                latent.append(z)
        return torch.cat(latent)

    def pretrain_autoencoder(self, X1, X2, batch_size, epochs, lr):
        loader = DataLoader(TensorDataset(torch.Tensor(X1), torch.Tensor(X2)), batch_size=batch_size, shuffle=True)
        optimizer = torch.optim.Adam(self.parameters(), lr=lr)
        self.train()
        for epoch in range(epochs):
            for x1, x2 in loader:
                _, rec1, rec2 = self.forwardAE(x1, x2)
                loss = F.mse_loss(rec1, x1) + F.mse_loss(rec2, x2)
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
            print(f"Pretrain epoch {epoch + 1}, loss {loss.item():.4f}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--n_clusters", default=5, type=int)
    parser.add_argument("--batch_size", default=64, type=int)
    parser.add_argument("--pretrain_epochs", default=2, type=int)
    parser.add_argument("-el", "--encodeLayer", nargs="+", default=[32, 16], type=int)
    parser.add_argument("-dl", "--decodeLayer", nargs="+", default=[16, 32], type=int)
    parser.add_argument("--device", default="cpu")
    args = parser.parse_args([])
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    adata1_X = normalize(rng.poisson(2.0, (200, 40)).astype(np.float64) + 1.0)
    adata2_X = normalize(rng.poisson(1.0, (200, 24)).astype(np.float64) + 1.0)
    model = scMultiCluster(40, 24, args.encodeLayer, args.decodeLayer).to(args.device)
    model.pretrain_autoencoder(adata1_X, adata2_X, args.batch_size, args.pretrain_epochs, lr=1e-3)
    latent = model.encodeBatch(torch.tensor(adata1_X, dtype=torch.float32).to(args.device), torch.tensor(adata2_X, dtype=torch.float32).to(args.device))
    centers = latent[: args.n_clusters]
    labels = torch.cdist(latent, centers).argmin(dim=1)
    print("latent", tuple(latent.shape), "cluster sizes", torch.bincount(labels, minlength=args.n_clusters).tolist())
