"""Bug: the inference helper stacks the frames of each sample and adds a batch dimension, so the 2D segmentation network gets a 5D (1, T, C, H, W) tensor.

family: shape
category: model-shapes
expected: RuntimeError
message: Expected 3D (unbatched) or 4D (batched) input to conv2d
source: https://github.com/long123524/SEANet_torch/issues/4
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
        x = F.relu(self.conv1_1(x))  # bug: a 5D batch of frame stacks
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
img_tensor = torch.stack(all_data, dim=0).unsqueeze(0)  # cause: (1, 4, 3, H, W)
with torch.no_grad():
    masks = model(img_tensor)
print(masks.shape)
