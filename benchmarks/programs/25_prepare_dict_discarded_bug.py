"""Bug: a prepare() helper calls batch["image"].float() on the batch dict without storing it; the uint8 images reach the Conv2d.

family: discarded-cast
expected: RuntimeError
message: Input type (unsigned char) and bias type (float) should be the same
"""
import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset

torch.manual_seed(0)


class DigitsLike(Dataset):
    def __init__(self, n=16, size=12, seed=0):
        rng = np.random.default_rng(seed)
        self.images = rng.integers(0, 256, size=(n, size, size, 1), dtype=np.uint8)
        self.labels = rng.integers(0, 10, size=n)

    def __len__(self):
        return len(self.images)

    def __getitem__(self, idx):
        return {"image": self.images[idx], "label": self.labels[idx]}


def prepare(batch, channels_last=False):
    if not channels_last:
        batch["image"] = batch["image"].permute(0, 3, 1, 2).contiguous()
    batch["image"].float()  # cause: the float copy is thrown away, the images stay uint8
    return batch


class LeNetish(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(1, 6, 3)
        self.pool = nn.MaxPool2d(2)
        self.fc = nn.Linear(6 * 5 * 5, 10)

    def forward(self, x):
        x = self.pool(torch.relu(self.conv(x)))  # bug: uint8 images into the float32 conv
        return self.fc(x.flatten(1))


model = LeNetish()
optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
loader = DataLoader(DigitsLike(), batch_size=4, shuffle=True)
for step, batch in enumerate(loader):
    batch = prepare(batch)
    loss = nn.functional.cross_entropy(model(batch["image"]), batch["label"])
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    print(f"step {step}: loss {loss.item():.3f}")
    if step == 2:
        break
