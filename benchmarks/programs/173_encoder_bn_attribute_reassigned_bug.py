"""Bug: the encoder's __init__ assigns self.bn4 twice (a BatchNorm2d for the fourth conv, later a BatchNorm1d for the fc head); the later one wins, and forward normalizes the 4D conv features with it.

family: shape
category: mutated-modules
expected: ValueError
message: expected 2D or 3D input (got 4D input)
source: https://github.com/pytorch/pytorch/issues/6316
"""
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

N_MELS = 40
FRAMES = 16
HIDDEN = 32
Z_DIM = 8


class SpeechEncoder(nn.Module):
    def __init__(self, z_dim, hidden_dim):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 16, (N_MELS, 1))
        self.bn1 = nn.BatchNorm2d(16)
        self.conv2 = nn.Conv2d(16, 32, (1, 4), (1, 2), (0, 1))
        self.bn2 = nn.BatchNorm2d(32)
        self.conv4 = nn.Conv2d(32, 32, (1, 1))
        self.bn4 = nn.BatchNorm2d(32)
        self.fc = nn.Linear(32 * (FRAMES // 2), hidden_dim)
        self.bn4 = nn.BatchNorm1d(hidden_dim)  # cause: the head's norm reuses the name bn4
        self.mu = nn.Linear(hidden_dim, z_dim)

    def forward(self, x):
        h = F.leaky_relu(self.bn1(self.conv1(x)))
        h = F.leaky_relu(self.bn2(self.conv2(h)))
        h = F.leaky_relu(self.bn4(self.conv4(h)))  # bug: BatchNorm1d given (N, 32, 1, 8)
        h = h.view(h.size(0), -1)
        return self.mu(F.leaky_relu(self.fc(h)))


spectrograms = torch.randn(24, 1, N_MELS, FRAMES)
loader = DataLoader(TensorDataset(spectrograms), batch_size=8, shuffle=True)
encoder = SpeechEncoder(Z_DIM, HIDDEN)
optimizer = torch.optim.Adam(encoder.parameters(), lr=1e-3)
for (batch,) in loader:
    z = encoder(batch)
    loss = z.pow(2).mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
print("done", loss.item())
