"""Bug: the eval script's --half flag defaults to True, so the classifier head is converted with model.half() while the features fed to it stay float32.

family: precision
category: configuration
expected: RuntimeError
message: mat1 and mat2 must have the same dtype
source: https://github.com/ultralytics/yolov3/issues/1085
"""
import argparse

import torch
import torch.nn as nn


def parse_opt():
    parser = argparse.ArgumentParser(description="evaluate a small classifier")
    parser.add_argument("--weights", type=str, default="")
    parser.add_argument("--half", type=bool, default=True, help="FP16 inference")
    parser.add_argument("--batch-size", type=int, default=4)
    parser.add_argument("--features", type=int, default=32)
    return parser.parse_args()


class Head(nn.Module):
    def __init__(self, n_in, n_classes=5):
        super().__init__()
        self.fc1 = nn.Linear(n_in, 64)
        self.fc2 = nn.Linear(64, n_classes)

    def forward(self, x):
        return self.fc2(torch.relu(self.fc1(x)))  # bug: float32 features meet float16 weights


def load_model(opt):
    model = Head(opt.features)
    if opt.weights:
        model.load_state_dict(torch.load(opt.weights))
    if opt.half:
        model.half()  # cause: the weights become float16, the inputs are never converted
    return model.eval()


def run(opt):
    model = load_model(opt)
    features = torch.randn(opt.batch_size, opt.features)
    with torch.no_grad():
        scores = model(features)
    print(scores.argmax(1).tolist())


if __name__ == "__main__":
    run(parse_opt())
