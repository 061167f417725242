"""Fixed twin of 05_pointcloud_collate_bug.py: the jitter is cast to float32.

family: numpy-float64
expected: success
"""
import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset

torch.manual_seed(0)


class PointCloudDataset(Dataset):
    def __init__(self, n=24, n_points=32, n_classes=3, seed=0):
        self.rng = np.random.default_rng(seed)
        self.n_points = n_points
        self.labels = self.rng.integers(0, n_classes, size=n)

    def __len__(self):
        return len(self.labels)

    def __getitem__(self, idx):
        label = int(self.labels[idx])
        pts = self.rng.standard_normal((self.n_points, 3), dtype=np.float32)
        pts[:, label] *= 3.0
        jitter = self.rng.uniform(-0.01, 0.01, size=pts.shape).astype(np.float32)
        return {"points": pts + jitter, "label": label}


def collate_clouds(batch):
    points = torch.tensor(np.array([item["points"] for item in batch]))
    labels = torch.tensor([item["label"] for item in batch])
    return {"points": points, "labels": labels}


class PointNetLite(nn.Module):
    def __init__(self, n_classes=3, width=32):
        super().__init__()
        self.point_mlp = nn.Sequential(nn.Linear(3, width), nn.ReLU(), nn.Linear(width, 2 * width))
        self.classifier = nn.Linear(2 * width, n_classes)

    def forward(self, points):
        feats = self.point_mlp(points)
        pooled = feats.max(dim=1).values
        return self.classifier(pooled)


def evaluate(model, loader):
    model.eval()
    correct = total = 0
    with torch.no_grad():
        for batch in loader:
            pred = model(batch["points"]).argmax(1)
            correct += (pred == batch["labels"]).sum().item()
            total += len(pred)
    return correct / total


def main(epochs=2):
    loader = DataLoader(PointCloudDataset(), batch_size=8, shuffle=True, collate_fn=collate_clouds)
    model = PointNetLite()
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    for epoch in range(epochs):
        model.train()
        for batch in loader:
            loss = nn.functional.cross_entropy(model(batch["points"]), batch["labels"])
            opt.zero_grad()
            loss.backward()
            opt.step()
        print(f"epoch {epoch}: acc={evaluate(model, loader):.2f}")


if __name__ == "__main__":
    main()
