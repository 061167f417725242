"""Bug: a helper "casts" every tensor of a batch by rebinding the loop variable; the list it returns still holds the uint8 scans, which reach the conv layer.

family: discarded-cast
expected: RuntimeError
message: Input type (unsigned char) and bias type (float) should be the same
"""
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


def fake_scans(n=12, size=24, seed=0):
    """uint8 grey scans with a bright disc; the mask marks the disc."""
    rng = np.random.default_rng(seed)
    yy, xx = np.mgrid[:size, :size]
    scans, masks = [], []
    for _ in range(n):
        cy, cx, r = rng.integers(6, size - 6, size=2).tolist() + [int(rng.integers(3, 6))]
        disc = (yy - cy) ** 2 + (xx - cx) ** 2 <= r * r
        scans.append(np.where(disc, 200, 40).astype(np.uint8) + rng.integers(0, 30, (size, size), dtype=np.uint8))
        masks.append(disc)
    return torch.from_numpy(np.stack(scans))[:, None], torch.from_numpy(np.stack(masks))[:, None]


def prepare(tensors, dtype=torch.float32):
    """Cast every tensor of the batch to the model's dtype."""
    for t in tensors:
        t = t.to(dtype)  # cause: rebinding the loop variable leaves the list unchanged
    return tensors


class TinySegmenter(nn.Module):
    def __init__(self, width=8):
        super().__init__()
        self.enc = nn.Conv2d(1, width, 3, padding=1)
        self.mid = nn.Conv2d(width, width, 3, padding=1)
        self.dec = nn.Conv2d(width, 1, 1)

    def forward(self, x):
        h = F.relu(self.enc(x))  # bug: uint8 scans into the float32 conv
        return self.dec(F.relu(self.mid(h)))


scans, masks = fake_scans()
model = TinySegmenter()
opt = torch.optim.Adam(model.parameters(), lr=1e-2)
for step in range(4):
    images, targets = prepare([scans, masks])
    loss = F.binary_cross_entropy_with_logits(model(images), targets)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"step {step}: bce {loss.item():.3f}")
