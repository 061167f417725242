"""Bug: detect.py halves the model when --half is set but converts the frames with a separate `half` variable that --dnn (also on by default) switches off.

family: precision
category: configuration
expected: RuntimeError
message: Input type (float) and bias type (c10::Half) should be the same
source: https://github.com/NVIDIA/apex/issues/764
"""
import argparse

import numpy as np
import torch
import torch.nn as nn


def parse_opt():
    parser = argparse.ArgumentParser()
    parser.add_argument("--imgsz", type=int, default=32)
    parser.add_argument("--half", action="store_true", default=True, help="use FP16 half-precision inference")
    parser.add_argument("--dnn", action="store_true", default=True, help="use OpenCV DNN for ONNX inference")
    return parser.parse_args()


class TinyYolo(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Conv2d(3, 8, 3, stride=2, padding=1), nn.SiLU(), nn.Conv2d(8, 18, 1))

    def forward(self, x):
        return self.body(x)  # bug: float32 frame into the float16 model


def run(opt):
    model = TinyYolo().eval()
    half = opt.half and not opt.dnn  # cause: --dnn turns the frames' conversion off, not the model's
    if opt.half:
        model.half()
    frame = np.random.randint(0, 255, (opt.imgsz, opt.imgsz, 3), dtype=np.uint8)
    img = torch.from_numpy(frame).permute(2, 0, 1).unsqueeze(0)
    img = img.half() if half else img.float()
    img /= 255.0
    with torch.no_grad():
        pred = model(img)
    print(pred.shape)


if __name__ == "__main__":
    run(parse_opt())
