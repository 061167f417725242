"""Bug: the dataset turns the facial landmark centers into a float tensor, and the local-part cropper slices the image with center[i, 1] - h; a float 0-dim tensor cannot serve as a slice bound, so Python refuses it as an index.

family: int-float
category: data-paths
expected: TypeError
message: only integer tensors of a single element can be converted to an index
source: https://github.com/yiranran/APDrawingGAN2/issues/2
"""
import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset

EYE_H, EYE_W, NOSE_H, NOSE_W, MOUTH_H, MOUTH_W = 8, 12, 12, 12, 8, 16


class AlignedDataset(Dataset):
    def __init__(self, n, fine_size, rng):
        self.A = rng.random((n, 3, fine_size, fine_size), dtype=np.float32)
        self.B = rng.random((n, 1, fine_size, fine_size), dtype=np.float32)
        base = np.array([[20, 22], [44, 22], [32, 36], [32, 48]], dtype=np.float64)
        self.landmarks = base[None] + rng.normal(0, 1.5, size=(n, 4, 2))

    def __len__(self):
        return len(self.A)

    def __getitem__(self, idx):
        center = np.round(self.landmarks[idx])
        return {"A": torch.from_numpy(self.A[idx]), "B": torch.from_numpy(self.B[idx]),
                "center": torch.from_numpy(center)}  # cause: rounded landmarks stay float64


def masked_part(img, center, ratio=1):
    """Crop eyes, nose and mouth around the landmark centers (x, y)."""
    parts = []
    sizes = [(EYE_H, EYE_W), (EYE_H, EYE_W), (NOSE_H, NOSE_W), (MOUTH_H, MOUTH_W)]
    for i, (h, w) in enumerate(sizes):
        h2, w2 = h // 2 * ratio, w // 2 * ratio
        parts.append(img[:, center[i, 1] - h2:center[i, 1] + h2, center[i, 0] - w2:center[i, 0] + w2])  # bug: float tensor slice bounds
    return parts


class LocalDiscriminator(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Conv2d(1, 8, 3, padding=1), nn.LeakyReLU(0.2), nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(8, 1))

    def forward(self, x):
        return self.net(x)


class APDrawingModel:
    def __init__(self):
        self.netG = nn.Sequential(nn.Conv2d(3, 16, 3, padding=1), nn.ReLU(), nn.Conv2d(16, 1, 3, padding=1), nn.Tanh())
        self.netDs = nn.ModuleList([LocalDiscriminator() for _ in range(4)])
        params = list(self.netG.parameters()) + list(self.netDs.parameters())
        self.optimizer = torch.optim.Adam(params, lr=2e-4)

    def set_input(self, data):
        self.real_A, self.real_B, self.center = data["A"], data["B"], data["center"]

    def optimize_parameters(self):
        fake_B = self.netG(self.real_A)
        loss = nn.functional.l1_loss(fake_B, self.real_B)
        for b in range(fake_B.shape[0]):
            fake_parts = masked_part(fake_B[b], self.center[b])
            for D, part in zip(self.netDs, fake_parts):
                loss = loss + 0.1 * (1 - D(part.unsqueeze(0))).pow(2).mean()
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()
        return loss.item()


if __name__ == "__main__":
    torch.manual_seed(0)
    dataset = AlignedDataset(8, 64, np.random.default_rng(0))
    loader = DataLoader(dataset, batch_size=4, shuffle=True)
    model = APDrawingModel()
    for epoch in range(1):
        for data in loader:
            model.set_input(data)
            loss = model.optimize_parameters()
    print(f"loss {loss:.4f}")
