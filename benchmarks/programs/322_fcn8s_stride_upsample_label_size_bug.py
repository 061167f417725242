"""Bug: the FCN-8s variant brings its stride-8 scores back up with fixed transposed convolutions (2x, then 4x) instead of resizing them to the input; the 36x36 images (not a multiple of 8) come back as 32x32 score maps, and cross_entropy2d's flattened logits and labels no longer pair up.

family: shape
category: model-shapes
expected: ValueError
message: Expected input batch_size (2048) to match target batch_size (2592)
source: https://github.com/meetps/pytorch-semseg/issues/127
"""
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

cfg = {"data": {"img_rows": 36, "img_cols": 36, "n_classes": 5}, "training": {"batch_size": 2, "train_iters": 2, "lr": 1e-3}}


def conv_block(cin, cout):
    return nn.Sequential(nn.Conv2d(cin, cout, 3, padding=1), nn.ReLU(inplace=True), nn.MaxPool2d(2, 2, ceil_mode=False))


class fcn8s(nn.Module):
    def __init__(self, n_classes=21):
        super().__init__()
        self.conv_block1, self.conv_block2, self.conv_block3 = conv_block(3, 8), conv_block(8, 16), conv_block(16, 32)
        self.score_pool3 = nn.Conv2d(32, n_classes, 1)
        self.score_pool2 = nn.Conv2d(16, n_classes, 1)
        self.upscore2 = nn.ConvTranspose2d(n_classes, n_classes, 4, stride=2, padding=1, bias=False)
        self.upscore8 = nn.ConvTranspose2d(n_classes, n_classes, 8, stride=4, padding=2, bias=False)

    def forward(self, x):
        conv2 = self.conv_block2(self.conv_block1(x))
        conv3 = self.conv_block3(conv2)
        score = self.upscore2(self.score_pool3(conv3))
        score = score + self.score_pool2(conv2)[:, :, : score.size(2), : score.size(3)]
        return self.upscore8(score)  # cause: a fixed 4x upsampling of the 8x8 scores, 32x32, not the 36x36 input


def cross_entropy2d(input, target, weight=None):
    n, c, h, w = input.size()
    input = input.transpose(1, 2).transpose(2, 3).contiguous().view(-1, c)
    target = target.view(-1)
    return F.cross_entropy(input, target, weight=weight, ignore_index=250)  # bug: 2048 score rows, 2592 labels


def get_loader(cfg, n=4, seed=0):
    g = torch.Generator().manual_seed(seed)
    h, w = cfg["data"]["img_rows"], cfg["data"]["img_cols"]
    images = torch.randn(n, 3, h, w, generator=g)
    labels = torch.randint(0, cfg["data"]["n_classes"], (n, h, w), generator=g)
    return DataLoader(TensorDataset(images, labels), batch_size=cfg["training"]["batch_size"], shuffle=True, generator=g)


def train(cfg):
    torch.manual_seed(0)
    model = fcn8s(n_classes=cfg["data"]["n_classes"])
    optimizer = torch.optim.SGD(model.parameters(), lr=cfg["training"]["lr"], momentum=0.99)
    for i, (images, labels) in enumerate(get_loader(cfg)):
        model.train()
        loss = cross_entropy2d(input=model(images), target=labels)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        print(f"iter {i} loss {loss.item():.4f}")
    model.eval()
    with torch.no_grad():
        for images_val, labels_val in get_loader(cfg, seed=1):
            val_loss = cross_entropy2d(input=model(images_val), target=labels_val)
    print(f"val loss {val_loss.item():.4f}")


if __name__ == "__main__":
    train(cfg)
