"""Bug: SimCLR's info_nce_loss builds its positive-pair labels from args.batch_size; 100 images in batches of 32 leave 4 images (8 views) at the end of the epoch, and the 64x64 diagonal mask sized from the labels cannot index the 8x8 similarity matrix.

family: shape
category: data-paths
expected: IndexError
message: The shape of the mask
source: https://github.com/sthalles/SimCLR/issues/40
"""
import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, Dataset


class ContrastiveViews(Dataset):
    """Returns n_views noisy crops of each image, as the SimCLR view generator does."""

    def __init__(self, images, n_views):
        self.images = images
        self.n_views = n_views

    def __len__(self):
        return len(self.images)

    def __getitem__(self, idx):
        img = self.images[idx]
        return [img + 0.1 * torch.randn_like(img) for _ in range(self.n_views)]


class SimCLR:
    def __init__(self, model, optimizer, args):
        self.model = model
        self.optimizer = optimizer
        self.args = args

    def info_nce_loss(self, features):
        labels = torch.cat([torch.arange(self.args.batch_size) for _ in range(self.args.n_views)], dim=0)  # cause: the configured batch size
        labels = (labels.unsqueeze(0) == labels.unsqueeze(1)).float()
        features = F.normalize(features, dim=1)
        similarity_matrix = features @ features.T
        mask = torch.eye(labels.shape[0], dtype=torch.bool)
        labels = labels[~mask].view(labels.shape[0], -1)
        similarity_matrix = similarity_matrix[~mask].view(similarity_matrix.shape[0], -1)  # bug: 64x64 mask, 8x8 similarities
        positives = similarity_matrix[labels.bool()].view(labels.shape[0], -1)
        negatives = similarity_matrix[~labels.bool()].view(similarity_matrix.shape[0], -1)
        logits = torch.cat([positives, negatives], dim=1) / self.args.temperature
        return logits, torch.zeros(logits.shape[0], dtype=torch.long)

    def train(self, loader):
        for epoch in range(self.args.epochs):
            for views in loader:
                images = torch.cat(views, dim=0)
                logits, labels = self.info_nce_loss(self.model(images))
                loss = F.cross_entropy(logits, labels)
                self.optimizer.zero_grad()
                loss.backward()
                self.optimizer.step()
            print(f"epoch {epoch}: loss {loss.item():.4f}")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--n-views", type=int, default=2)
    parser.add_argument("--temperature", type=float, default=0.07)
    parser.add_argument("--epochs", type=int, default=1)
    args = parser.parse_args()
    torch.manual_seed(0)
    dataset = ContrastiveViews(torch.rand(100, 3, 8, 8), args.n_views)
    loader = DataLoader(dataset, batch_size=args.batch_size, shuffle=True)
    model = nn.Sequential(nn.Flatten(), nn.Linear(3 * 8 * 8, 64), nn.ReLU(), nn.Linear(64, 32))
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-4)
    SimCLR(model, optimizer, args).train(loader)


if __name__ == "__main__":
    main()
