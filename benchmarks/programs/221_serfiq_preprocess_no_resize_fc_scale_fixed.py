"""Fixed twin of 221_serfiq_preprocess_no_resize_fc_scale_bug.py: the pipeline resizes the face to 112x112 before the model.

family: shape
expected: success
source: https://github.com/jankolf/ser-fiq-pytorch/issues/3
"""
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F


def to_float(img):
    return img.astype(np.float32)


def normalize(img):
    return (img - 127.5) / 128.0


def hwc_to_batch(img):
    return torch.from_numpy(np.ascontiguousarray(img.transpose(2, 0, 1)))[None]


def build_preprocess(steps):
    def run(img):
        for step in steps:
            img = step(img)
        return img
    return run


PREPROCESS = build_preprocess([to_float, normalize, hwc_to_batch, lambda b: F.interpolate(b, size=(112, 112))])


class IResNet(nn.Module):
    fc_scale = 7 * 7

    def __init__(self, width=8, num_features=32):
        super().__init__()
        layers, cin = [], 3
        for cout in (width, width * 2, width * 4, width * 4):
            layers += [nn.Conv2d(cin, cout, 3, stride=2, padding=1), nn.BatchNorm2d(cout), nn.PReLU(cout)]
            cin = cout
        self.body = nn.Sequential(*layers)
        self.dropout = nn.Dropout(p=0.5)
        self.fc = nn.Linear(cin * self.fc_scale, num_features)

    def calculate_serfiq(self, x, T=10, scaling=5.0):
        x = torch.flatten(self.body(x), 1)
        self.dropout.train()
        embeddings = torch.stack([F.normalize(self.fc(self.dropout(x))) for _ in range(T)])
        dist = torch.cdist(embeddings.squeeze(1), embeddings.squeeze(1))
        return 2 * (1 / (1 + torch.exp(dist.mean() * scaling)))


def main():
    torch.manual_seed(0)
    resnet = IResNet().eval()
    image = np.random.default_rng(0).integers(0, 256, size=(256, 256, 3), dtype=np.uint8)
    with torch.no_grad():
        score = resnet.calculate_serfiq(PREPROCESS(image), T=10, scaling=5.0)
    print(f"SER-FIQ score {score.item():.4f}")


if __name__ == "__main__":
    main()
