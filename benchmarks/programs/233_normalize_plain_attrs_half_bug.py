"""Bug: the Normalize preprocessing module keeps mean and std as plain tensor attributes, so model.half() converts the convolutions but not them; (x - mean) / std promotes the half image back to float32 and the half convolution refuses it.

family: precision
category: mutated-modules
expected: RuntimeError
message: should be the same
source: https://github.com/kornia/kornia/pull/4330
"""
import argparse

import torch
import torch.nn as nn


class Normalize(nn.Module):
    def __init__(self, mean, std):
        super().__init__()
        self.mean = torch.as_tensor(mean).view(1, -1, 1, 1)  # cause: plain attributes, skipped by .half()
        self.std = torch.as_tensor(std).view(1, -1, 1, 1)

    def forward(self, x):
        return (x - self.mean) / self.std


class Segmenter(nn.Module):
    def __init__(self, num_classes=3):
        super().__init__()
        self.encoder = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.ReLU(), nn.Conv2d(8, 8, 3, padding=1), nn.ReLU())
        self.classifier = nn.Conv2d(8, num_classes, 1)

    def forward(self, x):
        return self.classifier(self.encoder(x))  # bug: float32 normalized image, half convolution


def build_pipeline(half):
    model = nn.Sequential(Normalize([0.485, 0.456, 0.406], [0.229, 0.224, 0.225]), Segmenter())
    model.eval()
    if half:
        model.half()
    return model


def preprocess(frame, half):
    img = torch.from_numpy(frame).permute(2, 0, 1)[None]
    img = img.half() if half else img.float()
    return img / 255.0


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--half", action="store_true")
    args = parser.parse_args(["--half"])
    torch.manual_seed(0)
    model = build_pipeline(args.half)
    frame = torch.randint(0, 256, (16, 16, 3), dtype=torch.uint8).numpy()
    with torch.no_grad():
        mask = model(preprocess(frame, args.half))
    print(mask.argmax(1).shape)


if __name__ == "__main__":
    main()
