"""Fixed twin of 22_adjacency_einsum_bug.py: the adjacency is float32.

family: int-float
expected: success
"""
import torch
import torch.nn as nn

torch.manual_seed(0)


def radius_adjacency(pos, radius=1.0):
    dist = torch.cdist(pos, pos)
    return (dist < radius).float()


class MessagePassing(nn.Module):
    def __init__(self, dim, hidden):
        super().__init__()
        self.msg = nn.Linear(dim, hidden)
        self.upd = nn.Linear(dim + hidden, hidden)

    def forward(self, h, adj):
        messages = self.msg(h)
        agg = torch.einsum("bij,bjd->bid", adj, messages)
        return torch.relu(self.upd(torch.cat([h, agg], dim=-1)))


class ParticleNet(nn.Module):
    def __init__(self, dim=3, hidden=16, n_layers=2):
        super().__init__()
        layers = [MessagePassing(dim, hidden)]
        for _ in range(n_layers - 1):
            layers.append(MessagePassing(hidden, hidden))
        self.layers = nn.ModuleList(layers)
        self.readout = nn.Linear(hidden, 1)

    def forward(self, pos):
        adj = radius_adjacency(pos)
        h = pos
        for layer in self.layers:
            h = layer(h, adj)
        return self.readout(h.mean(dim=1)).squeeze(-1)


def sample_batch(batch=4, n_particles=10):
    pos = torch.randn(batch, n_particles, 3)
    energy = (pos ** 2).sum(dim=(1, 2))
    return pos, energy


model = ParticleNet()
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
for step in range(3):
    pos, energy = sample_batch()
    loss = nn.functional.mse_loss(model(pos), energy)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"step {step}: mse {loss.item():.3f}")
