"""Fixed twin of 174_spectrogram_autoencoder_decoder_size_bug.py: padding=1 and output_padding=1 make the decoder rebuild 128x200 spectrograms.

family: shape
expected: success
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
        self.decoder = nn.Sequential(nn.ConvTranspose2d(8, 1, 3, stride=2, padding=1, output_padding=1), nn.Sigmoid())

    def forward(self, x):
        return self.decoder(self.encoder(x))


model = ConvAutoencoder()
criterion = nn.MSELoss()
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
for specs in DataLoader(SpectrogramDataset(12), batch_size=4, shuffle=True):
    recon = model(specs)
    loss = criterion(recon, specs)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
print("loss", loss.item())
