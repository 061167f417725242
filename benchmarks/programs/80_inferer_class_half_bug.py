"""Bug: an Inferer class stores the half flag from the command line (default on) and halves the detector, but its preprocess step converts frames with .float().

family: precision
category: configuration
expected: RuntimeError
message: Input type (float) and bias type (c10::Half) should be the same
source: https://github.com/meituan/YOLOv6/issues/418
"""
import argparse

import numpy as np
import torch
import torch.nn as nn


class Detector(nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = nn.Conv2d(3, 16, 3, stride=2, padding=1)
        self.head = nn.Conv2d(16, 6, 1)

    def forward(self, x):
        return self.head(torch.relu(self.stem(x)))  # bug: float32 frame into the float16 detector


class Inferer:
    def __init__(self, img_size, half):
        self.img_size = img_size
        self.half = half
        self.model = Detector().eval()
        if self.half:
            self.model.half()  # cause: the detector's weights become float16

    def preprocess(self, frame):
        img = torch.from_numpy(frame.transpose(2, 0, 1).copy())
        return img.float().unsqueeze(0) / 255.0

    def infer(self, frame):
        img = self.preprocess(frame)
        with torch.no_grad():
            return self.model(img)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--img-size", type=int, default=64)
    parser.add_argument("--half", action="store_false", help="pass to disable FP16")
    opt = parser.parse_args()
    inferer = Inferer(opt.img_size, opt.half)
    frame = np.random.randint(0, 255, (opt.img_size, opt.img_size, 3), dtype=np.uint8)
    print(inferer.infer(frame).shape)


if __name__ == "__main__":
    main()
