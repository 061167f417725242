"""Fixed twin of 60_float64_running_normalizer_bug.py: the normalized observations are cast back to the observations' dtype.

family: precision
expected: success
"""
from dataclasses import dataclass

import torch
import torch.nn as nn

torch.manual_seed(0)


@dataclass
class NormConfig:
    dim: int = 6
    eps: float = 1e-8
    clip: float = 5.0
    stats_dtype: torch.dtype = torch.float64


class RunningNormalizer:
    """Running mean/variance (parallel Welford update), as in most PPO implementations."""

    def __init__(self, cfg: NormConfig):
        self.cfg = cfg
        self.mean = torch.zeros(cfg.dim, dtype=cfg.stats_dtype)
        self.var = torch.ones(cfg.dim, dtype=cfg.stats_dtype)
        self.count = 1e-4

    def update(self, batch):
        b_mean, b_var, b_count = batch.mean(0), batch.var(0, unbiased=False), batch.shape[0]
        delta = b_mean - self.mean
        total = self.count + b_count
        self.mean = self.mean + delta * b_count / total
        m2 = self.var * self.count + b_var * b_count + delta.pow(2) * self.count * b_count / total
        self.var, self.count = m2 / total, total

    def __call__(self, obs):
        z = (obs - self.mean) / torch.sqrt(self.var + self.cfg.eps)
        return z.clamp(-self.cfg.clip, self.cfg.clip).to(obs.dtype)


class Policy(nn.Module):
    def __init__(self, obs_dim, n_actions, hidden=32):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(obs_dim, hidden), nn.Tanh(), nn.Linear(hidden, hidden), nn.Tanh())
        self.logits = nn.Linear(hidden, n_actions)

    def forward(self, obs):
        return self.logits(self.body(obs))


def collect(n_steps, obs_dim):
    obs = torch.randn(n_steps, obs_dim) * torch.linspace(0.5, 3.0, obs_dim)
    actions = (obs[:, 0] > 0).long() + (obs[:, 1] > 1).long()
    return obs, actions


cfg = NormConfig()
normalizer = RunningNormalizer(cfg)
policy = Policy(cfg.dim, n_actions=3)
opt = torch.optim.Adam(policy.parameters(), lr=3e-4)
for iteration in range(3):
    obs, expert_actions = collect(64, cfg.dim)
    normalizer.update(obs)
    loss = nn.functional.cross_entropy(policy(normalizer(obs)), expert_actions)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"iteration {iteration}: imitation loss {loss.item():.3f}")
