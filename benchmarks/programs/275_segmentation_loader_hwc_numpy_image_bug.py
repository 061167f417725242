"""Bug: the segmentation ImageFolder reads each image as an (H, W, 3) numpy array and converts it with torch.from_numpy without moving the channels first, so the batched (N, 32, 32, 3) tensor reaches a Conv2d that expects 3 input channels.

family: shape
category: model-shapes
expected: RuntimeError
message: to have 3 channels, but got 32 channels instead
source: https://github.com/LeeJunHyun/Image_Segmentation/issues/29
"""
import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset


class ImageFolder(Dataset):
    """Images and ground-truth masks as a reader returns them: (H, W, 3) uint8 and (H, W) uint8."""

    def __init__(self, n_images, image_size=32, seed=0):
        rng = np.random.default_rng(seed)
        self.images = [rng.integers(0, 256, (image_size, image_size, 3), dtype=np.uint8) for _ in range(n_images)]
        self.gts = [(rng.random((image_size, image_size)) > 0.5).astype(np.uint8) * 255 for _ in range(n_images)]

    def __getitem__(self, index):
        image = self.images[index].astype(np.float32) / 255.0
        image = torch.from_numpy(image)  # cause: stays (H, W, C)
        gt = torch.from_numpy(self.gts[index].astype(np.float32) / 255.0).unsqueeze(0)
        return image, gt

    def __len__(self):
        return len(self.images)


class U_Net(nn.Module):
    def __init__(self, img_ch=3, output_ch=1):
        super().__init__()
        self.Conv1 = nn.Sequential(nn.Conv2d(img_ch, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU())
        self.Conv2 = nn.Sequential(nn.MaxPool2d(2), nn.Conv2d(16, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU())
        self.Up2 = nn.ConvTranspose2d(32, 16, 2, stride=2)
        self.Conv_1x1 = nn.Conv2d(32, output_ch, 1)

    def forward(self, x):
        x1 = self.Conv1(x)  # bug: the batch is (N, H, W, C)
        x2 = self.Conv2(x1)
        return self.Conv_1x1(torch.cat([x1, self.Up2(x2)], dim=1))


class Solver:
    def __init__(self, train_loader, num_epochs=2, lr=2e-4):
        self.train_loader = train_loader
        self.unet = U_Net()
        self.optimizer = torch.optim.Adam(self.unet.parameters(), lr, betas=(0.5, 0.999))
        self.criterion = nn.BCELoss()
        self.num_epochs = num_epochs

    def train(self):
        for epoch in range(self.num_epochs):
            self.unet.train()
            epoch_loss = 0.0
            for images, GT in self.train_loader:
                SR_probs = torch.sigmoid(self.unet(images))
                loss = self.criterion(SR_probs.view(SR_probs.size(0), -1), GT.view(GT.size(0), -1))
                self.optimizer.zero_grad()
                loss.backward()
                self.optimizer.step()
                epoch_loss += loss.item()
            print(f"Epoch [{epoch + 1}/{self.num_epochs}], Loss: {epoch_loss:.4f}")


torch.manual_seed(0)
train_loader = DataLoader(ImageFolder(8), batch_size=2, shuffle=True)
Solver(train_loader).train()
