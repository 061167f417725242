"""Bug: with --fp16 the frame-interpolation script halves the flow network, but the frames it reads are still turned into float32 tensors (/ 255.) and the padding helper does not cast them; the first half-precision convolution receives float32 frames.

family: precision
category: mixed-precision
expected: RuntimeError
message: Input type (float) and bias type (c10::Half) should be the same
source: https://github.com/98mxr/GMFSS_union/issues/2
"""
import argparse

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F


class IFBlock(nn.Module):
    def __init__(self, in_planes, c=16):
        super().__init__()
        self.conv0 = nn.Sequential(nn.Conv2d(in_planes, c, 3, 2, 1), nn.PReLU(c), nn.Conv2d(c, c, 3, 1, 1), nn.PReLU(c))
        self.last = nn.ConvTranspose2d(c, 5, 4, 2, 1)

    def forward(self, x):
        return self.last(self.conv0(x))  # bug: the float32 frames reach the half conv layers here


class Model:
    def __init__(self):
        self.flownet = IFBlock(6)

    def eval(self):
        self.flownet.eval()

    def inference(self, img0, img1, timestep=0.5):
        out = self.flownet(torch.cat((img0, img1), 1))  # float32 frames into the half flownet
        mask = torch.sigmoid(out[:, 4:5])
        return img0 * mask + img1 * (1 - mask)


def pad_image(img, padding):
    return F.pad(img, padding)  # cause: frames are not cast to half when --fp16 is set


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description="Interpolation for a pair of frames")
    parser.add_argument("--fp16", dest="fp16", action="store_true", help="fp16 mode for faster and more lightweight inference")
    parser.add_argument("--scale", dest="scale", type=float, default=1.0)
    args = parser.parse_args(["--fp16"])
    torch.manual_seed(0)
    model = Model()
    model.eval()
    if args.fp16:
        model.flownet.half()
    rng = np.random.default_rng(0)
    frames = [rng.integers(0, 256, (30, 30, 3), dtype=np.uint8) for _ in range(3)]
    h, w, _ = frames[0].shape
    ph, pw = ((h - 1) // 32 + 1) * 32, ((w - 1) // 32 + 1) * 32
    padding = (0, pw - w, 0, ph - h)
    with torch.no_grad():
        for lastframe, frame in zip(frames[:-1], frames[1:]):
            I0 = torch.from_numpy(np.transpose(lastframe, (2, 0, 1))).unsqueeze(0).float() / 255.
            I1 = torch.from_numpy(np.transpose(frame, (2, 0, 1))).unsqueeze(0).float() / 255.
            mid = model.inference(pad_image(I0, padding), pad_image(I1, padding))
            print(mid.shape, mid.dtype)
