"""Bug: validation passes the configured val_batch_size into the model, which scatters point features into a dense per-sample grid of that many rows; 22 scans in batches of 6 end with a batch of 4, and the loss gets 6 predictions for 4 labels.

family: shape
category: data-paths
expected: ValueError
message: Expected input batch_size (6) to match target batch_size (4)
source: https://github.com/xinge008/Cylinder3D/issues/58
"""
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

N_POINTS = 32
N_CLASSES = 5


class PointVoxelNet(nn.Module):
    def __init__(self, in_dim=4, hidden=16):
        super().__init__()
        self.point_mlp = nn.Sequential(nn.Linear(in_dim, hidden), nn.ReLU(), nn.Linear(hidden, hidden))
        self.classifier = nn.Linear(hidden, N_CLASSES)

    def forward(self, pt_fea, batch_idx, batch_size):
        feats = self.point_mlp(pt_fea)
        pooled = torch.zeros(batch_size, feats.size(1)).index_add_(0, batch_idx, feats)  # cause: one row per configured sample
        return self.classifier(pooled / N_POINTS)


def flatten_batch(points):
    """(B, N, 4) scans -> (B*N, 4) point features and the scan index of every point."""
    b = points.size(0)
    batch_idx = torch.arange(b).repeat_interleave(points.size(1))
    return points.reshape(-1, points.size(2)), batch_idx


def validate(model, loader, val_batch_size):
    model.eval()
    losses = []
    with torch.no_grad():
        for val_points, val_labels in loader:
            val_pt_fea_ten, val_grid_ten = flatten_batch(val_points)
            predict_labels = model(val_pt_fea_ten, val_grid_ten, val_batch_size)
            losses.append(F.cross_entropy(predict_labels, val_labels).item())  # bug: 6 rows, 4 labels
    return sum(losses) / len(losses)


def main():
    torch.manual_seed(0)
    scans = TensorDataset(torch.randn(22, N_POINTS, 4), torch.randint(0, N_CLASSES, (22,)))
    val_batch_size = 6
    val_loader = DataLoader(scans, batch_size=val_batch_size, shuffle=False)
    model = PointVoxelNet()
    print(f"val loss {validate(model, val_loader, val_batch_size):.3f}")


if __name__ == "__main__":
    main()
