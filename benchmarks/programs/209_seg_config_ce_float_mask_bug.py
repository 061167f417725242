"""Bug: the segmentation config switches the loss from DiceLoss to CrossEntropyLoss, but the dataset still returns its class-index masks as .astype('float') (float64), which Dice accepted; cross entropy wants Long class indices.

family: class-target
category: configuration
expected: RuntimeError
message: expected target dtype to be Long or Byte, but got Double
source: https://github.com/qubvel-org/segmentation_models.pytorch/issues/197
"""
import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset

CONFIG = {
    "model": {"encoder_channels": 8, "classes": 3},
    "data": {"size": 16, "n_train": 6},
    "train": {"loss": "cross_entropy", "batch_size": 2, "epochs": 1, "lr": 1e-3},
}


class DiceLoss(nn.Module):
    def forward(self, logits, mask):
        probs = logits.softmax(dim=1)
        one_hot = nn.functional.one_hot(mask.long(), probs.shape[1]).permute(0, 3, 1, 2).to(probs.dtype)
        inter = (probs * one_hot).sum()
        return 1 - 2 * inter / (probs.sum() + one_hot.sum())


LOSSES = {"dice": DiceLoss, "cross_entropy": nn.CrossEntropyLoss}


class CamVidLike(Dataset):
    def __init__(self, n, size, classes):
        rng = np.random.default_rng(0)
        self.images = rng.integers(0, 256, size=(n, size, size, 3), dtype=np.uint8)
        self.masks = rng.integers(0, classes, size=(n, size, size), dtype=np.uint8)

    def __len__(self):
        return len(self.images)

    def __getitem__(self, i):
        image = torch.from_numpy(self.images[i].transpose(2, 0, 1).astype("float32") / 255.0)
        mask = self.masks[i].astype("float")  # cause: float64 class indices
        return image, torch.from_numpy(mask)


class Unet(nn.Module):
    def __init__(self, encoder_channels, classes):
        super().__init__()
        self.encoder = nn.Sequential(nn.Conv2d(3, encoder_channels, 3, padding=1), nn.ReLU())
        self.segmentation_head = nn.Conv2d(encoder_channels, classes, 1)

    def forward(self, x):
        return self.segmentation_head(self.encoder(x))


def train_epoch(model, loader, loss_fn, optimizer):
    for x, y in loader:
        prediction = model(x)
        loss = loss_fn(prediction, y)  # bug: CrossEntropyLoss gets float64 masks
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    return loss.item()


def main(cfg):
    torch.manual_seed(0)
    model = Unet(**cfg["model"])
    dataset = CamVidLike(cfg["data"]["n_train"], cfg["data"]["size"], cfg["model"]["classes"])
    loader = DataLoader(dataset, batch_size=cfg["train"]["batch_size"], shuffle=True)
    loss_fn = LOSSES[cfg["train"]["loss"]]()
    optimizer = torch.optim.Adam(model.parameters(), lr=cfg["train"]["lr"])
    for epoch in range(cfg["train"]["epochs"]):
        print(f"epoch {epoch}: {train_epoch(model, loader, loss_fn, optimizer):.4f}")


if __name__ == "__main__":
    main(CONFIG)
