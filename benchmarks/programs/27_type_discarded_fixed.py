"""Fixed twin of 27_type_discarded_bug.py: the cast is assigned.

family: discarded-cast
expected: success
"""
import numpy as np
import torch
import torch.nn as nn

torch.manual_seed(0)


class Denoiser(nn.Module):
    def __init__(self, channels=1, width=8):
        super().__init__()
        self.enc = nn.Conv2d(channels, width, 3, padding=1)
        self.dec = nn.Conv2d(width, channels, 3, padding=1)

    def forward(self, x):
        return x - self.dec(torch.relu(self.enc(x)))


def load_noisy_images(n=4, size=16, sigma=0.1, seed=0):
    rng = np.random.default_rng(seed)
    clean = np.tile(np.linspace(0, 1, size), (n, 1, size, 1))
    noisy = clean + sigma * rng.standard_normal(clean.shape)
    return torch.from_numpy(noisy), torch.from_numpy(clean)


def denoise(model, images, clip=True):
    images = images.type(torch.float32)
    with torch.no_grad():
        out = model(images)
    return out.clamp(0, 1) if clip else out


def psnr(pred, target):
    mse = ((pred.double() - target) ** 2).mean()
    return (10 * torch.log10(1.0 / mse)).item()


model = Denoiser()
model.float()  # make sure the weights are float32
model.eval()
noisy, clean = load_noisy_images()
for i in range(2):
    restored = denoise(model, noisy[i * 2:(i + 1) * 2])
    print(f"batch {i}: psnr {psnr(restored, clean[i * 2:(i + 1) * 2]):.2f} dB")
