"""Bug: to_latent reshapes the encoded frames with the module-level BSIZE; the test loader keeps its last, smaller batch (50 rollouts in batches of 16 leave 2), and view(BSIZE, SEQ_LEN, LSIZE) cannot hold it.

family: shape
category: data-paths
expected: RuntimeError
message: is invalid for input of size
source: https://github.com/ctallec/world-models/issues/25
"""
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

BSIZE = 16
SEQ_LEN = 4
LSIZE = 8
IMG = 3 * 8 * 8


class Encoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.mu = nn.Linear(IMG, LSIZE)
        self.logsigma = nn.Linear(IMG, LSIZE)

    def forward(self, frames):
        flat = frames.flatten(1)
        return self.mu(flat), self.logsigma(flat)


def to_latent(vae, obs):
    """Encode (batch, seq, 3, 8, 8) observations into (batch, seq, LSIZE) latents."""
    with torch.no_grad():
        mu, logsigma = vae(obs.view(-1, 3, 8, 8))
        latent = mu + logsigma.exp() * torch.randn_like(mu)
        return latent.view(BSIZE, SEQ_LEN, LSIZE)  # bug: the last batch holds 2 rollouts  # cause: the configured batch size


def data_pass(vae, rnn, loader):
    total = 0.0
    for obs, action in loader:
        latent = to_latent(vae, obs)
        out, _ = rnn(torch.cat([latent, action], dim=-1))
        total += out.pow(2).mean().item()
    return total / len(loader)


def main():
    torch.manual_seed(0)
    rollouts = TensorDataset(torch.rand(50, SEQ_LEN, 3, 8, 8), torch.rand(50, SEQ_LEN, 2))
    test_loader = DataLoader(rollouts, batch_size=BSIZE)
    vae = Encoder()
    rnn = nn.LSTM(LSIZE + 2, 16, batch_first=True)
    print(f"test loss {data_pass(vae, rnn, test_loader):.4f}")


if __name__ == "__main__":
    main()
