"""Bug: multi-crop evaluation concatenates the five crops of each batch along the batch dimension and feeds the model's 5*B scores straight to the loss, whose targets still hold B labels.

family: shape
category: data-paths
expected: ValueError
message: Expected input batch_size (20) to match target batch_size (4)
source: https://github.com/facebookarchive/fb.resnet.torch/pull/178
"""
import argparse

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


def five_crop(images, size):
    h, w = images.shape[-2:]
    tl = images[..., :size, :size]
    tr = images[..., :size, w - size:]
    bl = images[..., h - size:, :size]
    br = images[..., h - size:, w - size:]
    top, left = (h - size) // 2, (w - size) // 2
    center = images[..., top:top + size, left:left + size]
    return [tl, tr, bl, br, center]


def build_model(num_classes):
    return nn.Sequential(
        nn.Conv2d(3, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(1),
        nn.Flatten(), nn.Linear(32, num_classes),
    )


def test(model, loader, criterion, crop_size):
    model.eval()
    total_loss, correct = 0.0, 0
    with torch.no_grad():
        for images, target in loader:
            crops = five_crop(images, crop_size)
            inputs = torch.cat(crops, dim=0)  # cause: 5 crops x B images folded into one batch
            output = model(inputs)
            loss = criterion(output, target)  # bug: 5*B scores, B targets
            total_loss += loss.item() * target.size(0)
            correct += (output.argmax(1) == target).sum().item()
    n = len(loader.dataset)
    return total_loss / n, correct / n


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--batch-size", type=int, default=4)
    parser.add_argument("--num-classes", type=int, default=10)
    parser.add_argument("--crop-size", type=int, default=24)
    args = parser.parse_args()
    torch.manual_seed(0)
    val_set = TensorDataset(torch.rand(12, 3, 32, 32), torch.randint(0, args.num_classes, (12,)))
    loader = DataLoader(val_set, batch_size=args.batch_size)
    model = build_model(args.num_classes)
    loss, acc = test(model, loader, nn.CrossEntropyLoss(), args.crop_size)
    print(f"val loss {loss:.4f}  top1 {acc:.3f}")


if __name__ == "__main__":
    main()
