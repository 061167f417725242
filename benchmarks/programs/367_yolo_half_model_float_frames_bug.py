"""Bug: the video demo converts the detector to half precision when --half is given, but the letterboxed frames are still built as float32 tensors, so the first convolution sees a float input against half weights.

family: precision
category: mixed-precision
expected: RuntimeError
message: Input type (float) and bias type (c10::Half) should be the same
source: https://github.com/ayooshkathuria/pytorch-yolo-v3/issues/7
"""
import argparse

import numpy as np
import torch
import torch.nn as nn


def arg_parse(argv=None):
    parser = argparse.ArgumentParser(description="YOLO v3 Video Detection Module")
    parser.add_argument("--reso", type=int, default=32)
    parser.add_argument("--confidence", type=float, default=0.5)
    parser.add_argument("--half", action="store_true")
    return parser.parse_args(argv)


class Darknet(nn.Module):
    def __init__(self, num_classes=4, anchors=3):
        super().__init__()
        self.net_info = {"height": 32}
        self.layers = nn.Sequential(
            nn.Conv2d(3, 8, 3, padding=1), nn.LeakyReLU(0.1),
            nn.Conv2d(8, 16, 3, stride=2, padding=1), nn.LeakyReLU(0.1),
            nn.Conv2d(16, anchors * (5 + num_classes), 1),
        )

    def forward(self, x):
        out = self.layers[0](x)  # bug: float frame meets half conv weights
        for layer in self.layers[1:]:
            out = layer(out)
        b = out.shape[0]
        return out.view(b, -1, out.shape[2] * out.shape[3]).transpose(1, 2)


def prep_image(img, inp_dim):
    img = img[:inp_dim, :inp_dim, ::-1].transpose((2, 0, 1)).copy()
    img = torch.from_numpy(img).float().div(255.0).unsqueeze(0)  # cause: frames stay float32
    return img


def read_frames(n=3, h=40, w=48, seed=0):
    rng = np.random.default_rng(seed)
    for _ in range(n):
        yield rng.integers(0, 256, (h, w, 3), dtype=np.uint8)


if __name__ == "__main__":
    args = arg_parse(["--half"])
    model = Darknet()
    inp_dim = int(model.net_info["height"])
    assert inp_dim % 32 == 0
    if args.half:
        model.half()
    model.eval()
    frames = 0
    for frame in read_frames():
        img = prep_image(frame, inp_dim)
        with torch.no_grad():
            output = model(img)
        keep = output[..., 4] > args.confidence
        frames += 1
        print("frame", frames, "detections", int(keep.sum()))
