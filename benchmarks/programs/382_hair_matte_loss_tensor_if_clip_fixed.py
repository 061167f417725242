"""Fixed twin of 382_hair_matte_loss_tensor_if_clip_bug.py: the per-pixel consistency map is clipped with torch.clamp(min=0) instead of a Python conditional.

family: shape
category: model-outputs
expected: success
source: https://github.com/YBIGTA/pytorch-hair-segmentation/issues/41
"""
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, Dataset


class FigaroDataset(Dataset):
    def __init__(self, n, size, rng):
        self.images = rng.random((n, 3, size, size), dtype=np.float32)
        yy, xx = np.mgrid[0:size, 0:size]
        self.masks = np.stack([((yy - rng.integers(8, 24)) ** 2 + (xx - 16) ** 2 < 80).astype(np.float32) for _ in range(n)])

    def __len__(self):
        return len(self.images)

    def __getitem__(self, idx):
        return torch.from_numpy(self.images[idx]), torch.from_numpy(self.masks[idx][None])


class MobileMattingFCN(nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = nn.Sequential(nn.Conv2d(3, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                                     nn.Conv2d(16, 32, 3, padding=1), nn.ReLU())
        self.decoder = nn.Sequential(nn.Upsample(scale_factor=2), nn.Conv2d(32, 16, 3, padding=1), nn.ReLU(), nn.Conv2d(16, 1, 1))

    def forward(self, x):
        return self.decoder(self.encoder(x))


class HairMatteLoss(nn.modules.loss._Loss):
    def __init__(self, ratio_of_gradient=0.5, add_gradient=True):
        super().__init__()
        self.ratio_of_gradient = ratio_of_gradient
        self.add_gradient = add_gradient
        self.bce_loss = nn.BCEWithLogitsLoss()

    def forward(self, pred, true, image):
        loss2 = None
        if self.ratio_of_gradient > 0:
            sobel_kernel_x = torch.tensor([[1.0, 0.0, -1.0], [2.0, 0.0, -2.0], [1.0, 0.0, -1.0]]).view(1, 1, 3, 3)
            sobel_kernel_y = torch.tensor([[1.0, 2.0, 1.0], [0.0, 0.0, 0.0], [-1.0, -2.0, -1.0]]).view(1, 1, 3, 3)
            I_x, I_y = F.conv2d(image, sobel_kernel_x), F.conv2d(image, sobel_kernel_y)
            G_x, G_y = F.conv2d(pred, sobel_kernel_x), F.conv2d(pred, sobel_kernel_y)
            G = torch.sqrt(torch.pow(G_x, 2) + torch.pow(G_y, 2) + 1e-8)
            rang_grad = 1 - torch.pow(I_x * G_x + I_y * G_y, 2)
            rang_grad = torch.clamp(rang_grad, min=0)
            loss2 = torch.sum(torch.mul(G, rang_grad)) / torch.sum(G) + 1e-6
        if self.add_gradient:
            return (1 - self.ratio_of_gradient) * self.bce_loss(pred, true) + loss2 * self.ratio_of_gradient
        return self.bce_loss(pred, true)


def to_gray(images):
    weights = torch.tensor([0.299, 0.587, 0.114]).view(1, 3, 1, 1)
    return (images * weights).sum(dim=1, keepdim=True)


def train(net, loader, criterion, optimizer, epochs):
    for epoch in range(epochs):
        for image, mask in loader:
            pred = net(image)
            loss = criterion(torch.sigmoid(pred), mask, to_gray(image))
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        print(f"epoch {epoch} loss {loss.item():.4f}")


if __name__ == "__main__":
    torch.manual_seed(0)
    loader = DataLoader(FigaroDataset(16, 32, np.random.default_rng(0)), batch_size=4, shuffle=True)
    net = MobileMattingFCN()
    criterion = HairMatteLoss(ratio_of_gradient=0.5, add_gradient=True)
    optimizer = torch.optim.Adam(net.parameters(), lr=1e-3)
    train(net, loader, criterion, optimizer, epochs=2)
