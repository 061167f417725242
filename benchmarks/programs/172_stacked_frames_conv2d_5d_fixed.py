"""Fixed twin of 172_stacked_frames_conv2d_5d_bug.py: the stacked frames are the batch, (T, C, H, W).

family: shape
expected: success
"""
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

SIZE = 32


class EdgeNet(nn.Module):
    def __init__(self, num_classes=1):
        super().__init__()
        self.conv1_1 = nn.Conv2d(3, 16, 3, padding=1)
        self.conv1_2 = nn.Conv2d(16, 16, 3, padding=1)
        self.head = nn.Conv2d(16, num_classes, 1)

    def forward(self, x):
        x = F.relu(self.conv1_1(x))
        x = F.relu(self.conv1_2(x))
        return torch.sigmoid(self.head(x))


def load_frames(n_frames):
    frames = []
    for _ in range(n_frames):
        image = np.random.rand(SIZE, SIZE, 3).astype(np.float32)
        frames.append(torch.from_numpy(image).permute(2, 0, 1))
    return frames


model = EdgeNet().eval()
all_data = load_frames(4)
img_tensor = torch.stack(all_data, dim=0)
with torch.no_grad():
    masks = model(img_tensor)
print(masks.shape)
