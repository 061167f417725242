"""Fixed twin of 45_imagenet_stats_notebook_bug.py: the channel statistics are float32 arrays.

family: numpy-float64
expected: success
"""
# %% imports
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
rng = np.random.default_rng(42)

# %% fake photos: uint8 HWC arrays, as np.array(PIL.Image.open(...)) gives them
photos = [rng.integers(0, 256, size=(32, 32, 3), dtype=np.uint8) for _ in range(16)]
labels = np.array([i % 2 for i in range(16)])

# %% preprocessing
MEAN = np.array([0.485, 0.456, 0.406], dtype=np.float32)
STD = np.array([0.229, 0.224, 0.225], dtype=np.float32)


def preprocess(img):
    x = img.astype(np.float32) / np.float32(255)
    x = (x - MEAN) / STD
    return x.transpose(2, 0, 1)


batch = torch.from_numpy(np.stack([preprocess(p) for p in photos]))
targets = torch.from_numpy(labels)
print(batch.shape)

# %% model


class TinyCNN(nn.Module):
    def __init__(self, n_classes=2):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 8, 3, padding=1)
        self.conv2 = nn.Conv2d(8, 16, 3, padding=1)
        self.fc = nn.Linear(16 * 8 * 8, n_classes)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.conv1(x)), 2)
        x = F.max_pool2d(F.relu(self.conv2(x)), 2)
        return self.fc(x.flatten(1))


model = TinyCNN()
opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)

# %% train
for step in range(3):
    logits = model(batch)
    loss = F.cross_entropy(logits, targets)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(step, loss.item())

# %% evaluate
with torch.no_grad():
    acc = (model(batch).argmax(1) == targets).float().mean()
acc
