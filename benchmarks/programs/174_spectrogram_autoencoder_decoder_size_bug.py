"""Bug: the convolutional autoencoder's transposed-conv decoder has no padding, so it rebuilds 129x201 spectrograms from 128x200 inputs and the reconstruction loss cannot compare them.

family: shape
category: model-shapes
expected: RuntimeError
message: must match the size of tensor b
source: https://github.com/tyiannak/deep_audio_features/issues/23
"""
import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset

N_MELS = 128
FRAMES = 200


class SpectrogramDataset(Dataset):
    def __init__(self, n):
        self.specs = [np.random.rand(N_MELS, FRAMES).astype(np.float32) for _ in range(n)]

    def __len__(self):
        return len(self.specs)

    def __getitem__(self, i):
        return torch.from_numpy(self.specs[i]).unsqueeze(0)


class ConvAutoencoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = nn.Sequential(nn.Conv2d(1, 8, 3, stride=2, padding=1), nn.ReLU())
        self.decoder = nn.Sequential(nn.ConvTranspose2d(8, 1, 3, stride=2), nn.Sigmoid())  # cause: no padding

    def forward(self, x):
        return self.decoder(self.encoder(x))


model = ConvAutoencoder()
criterion = nn.MSELoss()
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
for specs in DataLoader(SpectrogramDataset(12), batch_size=4, shuffle=True):
    recon = model(specs)
    loss = criterion(recon, specs)  # bug: (4, 1, 129, 201) against (4, 1, 128, 200)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
print("loss", loss.item())
