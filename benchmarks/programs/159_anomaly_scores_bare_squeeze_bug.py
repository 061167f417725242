"""Bug: the anomaly model's forward ends with a bare .squeeze(); with 33 test images in batches of 8 the last batch holds one image, squeeze() drops its batch dimension, and the loss gets a 0-dim score for a (1,) target.

family: shape
category: data-paths
expected: ValueError
message: Target size (torch.Size([1])) must be the same as input size (torch.Size([]))
source: https://github.com/open-edge-platform/anomalib/issues/2883
"""
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset


class PatchScorer(nn.Module):
    """Scores each image by its distance to a learned memory of normal features."""

    def __init__(self, channels=8, memory=16):
        super().__init__()
        self.encoder = nn.Sequential(nn.Conv2d(3, channels, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(1))
        self.memory = nn.Parameter(torch.randn(memory, channels))
        self.head = nn.Linear(memory, 1)

    def forward(self, images):
        feats = self.encoder(images).flatten(1)
        dist = torch.cdist(feats, self.memory)
        return self.head(-dist).squeeze()  # cause: squeezes every size-1 dim, the batch's too


def evaluate(model, loader):
    model.eval()
    total, n = 0.0, 0
    with torch.no_grad():
        for images, labels in loader:
            scores = model(images)
            loss = F.binary_cross_entropy_with_logits(scores, labels)  # bug: 0-dim scores on the last batch
            total += loss.item() * len(labels)
            n += len(labels)
    return total / n


def main():
    torch.manual_seed(0)
    images = torch.rand(33, 3, 12, 12)
    labels = (torch.rand(33) > 0.8).float()
    test_loader = DataLoader(TensorDataset(images, labels), batch_size=8)
    model = PatchScorer()
    print(f"test loss {evaluate(model, test_loader):.4f}")


if __name__ == "__main__":
    main()
