"""Bug: the loading code applies the config's default dtype (torch.set_default_dtype(torch.float64)), so the model is built float64 while the features read from the float32 array store stay float32.

family: precision
category: configuration
expected: RuntimeError
message: mat1 and mat2 must have the same dtype
source: https://github.com/SauersML/gam/issues/244
"""
import numpy as np
import torch
import torch.nn as nn

SETTINGS = {"numerics": {"default_dtype": "float64"}, "model": {"in_dim": 5, "atoms": 3}}


def apply_settings(settings):
    dtype = getattr(torch, settings["numerics"]["default_dtype"])
    torch.set_default_dtype(dtype)  # cause: every layer created after this is float64


class SparseCoder(nn.Module):
    def __init__(self, in_dim, atoms):
        super().__init__()
        self.encoder = nn.Linear(in_dim, atoms)
        self.decoder = nn.Linear(atoms, in_dim)

    def forward(self, x):
        codes = torch.relu(self.encoder(x))  # bug: float32 features into float64 weights
        return self.decoder(codes), codes


def load_features(n, d, seed=0):
    store = np.random.default_rng(seed).normal(size=(n, d)).astype(np.float32)
    return torch.from_numpy(store)


def main():
    apply_settings(SETTINGS)
    model = SparseCoder(SETTINGS["model"]["in_dim"], SETTINGS["model"]["atoms"])
    x = load_features(12, SETTINGS["model"]["in_dim"])
    recon, codes = model(x)
    loss = nn.functional.mse_loss(recon, x) + 1e-3 * codes.abs().mean()
    loss.backward()
    print(loss.item())


if __name__ == "__main__":
    main()
