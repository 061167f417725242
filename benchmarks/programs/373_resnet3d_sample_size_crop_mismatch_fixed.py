"""Fixed twin of 373_resnet3d_sample_size_crop_mismatch_bug.py: the model is generated for the size the clips are cropped to (sample_size=opt.crop_size), so the pool leaves a 1x1 map.

family: shape
category: model-shapes
expected: success
source: https://github.com/kenshohara/3D-ResNets-PyTorch/issues/44
"""
import argparse
import math

import numpy as np
import torch
import torch.nn as nn


def parse_opts(argv=None):
    parser = argparse.ArgumentParser()
    parser.add_argument("--sample_size", type=int, default=64)
    parser.add_argument("--crop_size", type=int, default=96)
    parser.add_argument("--sample_duration", type=int, default=8)
    parser.add_argument("--n_classes", type=int, default=5)
    parser.add_argument("--batch_size", type=int, default=2)
    return parser.parse_args(argv)


class ResNet3D(nn.Module):
    def __init__(self, sample_size, sample_duration, num_classes=400):
        super().__init__()
        self.trunk = nn.Sequential(
            nn.Conv3d(3, 32, kernel_size=3, stride=(1, 4, 4), padding=1), nn.ReLU(),
            nn.Conv3d(32, 512, kernel_size=3, stride=(2, 8, 8), padding=1), nn.ReLU())
        last_duration = int(math.ceil(sample_duration / 2))
        last_size = int(math.ceil(sample_size / 32))
        self.avgpool = nn.AvgPool3d((last_duration, last_size, last_size), stride=1)
        self.fc = nn.Linear(512, num_classes)

    def forward(self, x):
        x = self.avgpool(self.trunk(x))
        x = x.view(x.size(0), -1)
        return self.fc(x)


def generate_model(opt):
    return ResNet3D(sample_size=opt.crop_size, sample_duration=opt.sample_duration, num_classes=opt.n_classes)


def make_clips(opt, n=4, seed=0):
    rng = np.random.default_rng(seed)
    size = opt.crop_size
    clips = rng.random((n, 3, opt.sample_duration, size, size), dtype=np.float32)
    return torch.from_numpy(clips)


def test(model, clips, opt):
    model.eval()
    results = []
    with torch.no_grad():
        for i in range(0, len(clips), opt.batch_size):
            outputs = model(clips[i:i + opt.batch_size])
            results.append(outputs.softmax(1).argmax(1))
    return torch.cat(results)


if __name__ == "__main__":
    torch.manual_seed(0)
    opt = parse_opts([])
    model = generate_model(opt)
    print("predictions", test(model, make_clips(opt), opt).tolist())
